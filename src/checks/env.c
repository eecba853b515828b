/*
 * env.c: environment variables that change what CUDA sees or how it runs (catalog rows 17
 * and 21, lesson 2): CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES hiding GPUs,
 * CUDA_DEVICE_ORDER on mixed machines, debugging and profiling variables left set.
 *
 * nvidia-smi and NVML ignore CUDA_VISIBLE_DEVICES, so "nvidia-smi lists the GPUs but torch
 * sees none" is this layer's signature: cuInit answering 100 (no device) while NVML counts
 * GPUs. The variables come from host/platform.c (struct env_facts); the GPU count and UUIDs
 * from NVML. Without NVML, indices and UUIDs cannot be checked and nothing is claimed about
 * them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/reason.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"env.ok", LAYER_ENV, "no environment variable hides GPUs or slows CUDA", false},
	{"env.cuda_visible_devices_hides", LAYER_ENV,
	 "CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES hides GPUs from CUDA", false},
	{"env.device_order", LAYER_ENV, "CUDA numbers these different GPUs unlike nvidia-smi",
	 false},
	{"env.bad_cuda_var", LAYER_ENV, "a CUDA debugging or profiling variable is set", false},
};

static void run_env(const struct doctor_input *in, struct findings *out);

const struct check check_env = {
	.name = "env",
	.layer = LAYER_ENV,
	.run = run_env,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

/* DCGM's list of variables that should not be set on a production machine (catalog row 21),
 * plus CUDA_LAUNCH_BLOCKING. */
static const struct {
	const char *name, *effect;
} bad_vars[] = {
	{"CUDA_LAUNCH_BLOCKING", "every kernel launch waits for the GPU to finish"},
	{"CUDA_INJECTION64_PATH", "a tool library is injected into every CUDA program"},
	{"CUDA_INJECTION32_PATH", "a tool library is injected into every 32-bit CUDA program"},
	{"NSIGHT_CUDA_DEBUGGER", "CUDA programs start under the Nsight debugger"},
	{"CUDA_AUTO_BOOST", "it overrides the GPUs' boost clock policy"},
	{"CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "a GPU exception writes a (large, slow) core dump"},
	{"CUDA_COREDUMP_FILE", "GPU core dumps are configured"},
	{"CUDA_DEVICE_WAITS_ON_EXCEPTION", "a GPU exception halts the program for a debugger"},
	{"CUDA_PROFILE", "the legacy profiler records every kernel"},
	{"COMPUTE_PROFILE", "the legacy profiler records every kernel"},
	{"OPENCL_PROFILE", "the legacy profiler records every OpenCL kernel"},
};

static int nvml_count(const struct gpu_system *sys)
{
	return num_ok(&sys->count) ? (int)sys->count.v : -1;
}

static bool uuid_known(const struct gpu_system *sys, const char *tok)
{
	unsigned i;

	for (i = 0; i < sys->ngpus; i++)
		if (text_ok(&sys->gpus[i].st.uuid) && sys->gpus[i].st.uuid.s[0] &&
		    strncmp(sys->gpus[i].st.uuid.s, tok, strlen(tok)) == 0)
			return true;
	return false;
}

static bool uuids_read(const struct gpu_system *sys)
{
	return sys->ngpus && text_ok(&sys->gpus[0].st.uuid);
}

/*
 * CUDA reads the list left to right and stops at the first entry that names no device;
 * what follows is ignored. Returns how many devices stay visible, -1 when that cannot be
 * told (NVML gave no count). *bad is the first entry that named nothing.
 */
static int visible_count(const char *value, const struct gpu_system *sys, char *bad, size_t bn)
{
	const int count = nvml_count(sys);
	char copy[256];
	char *tok, *p;
	int n = 0;
	bool unknown = false;

	bad[0] = '\0';
	str_copy(copy, value, sizeof(copy));
	p = copy;
	if (!*str_trim(p))
		return 0;
	for (;;) {
		char *comma = strchr(p, ',');
		bool ok;

		if (comma)
			*comma = '\0';
		tok = str_trim(p);
		if (tok[0] && isdigit((unsigned char)tok[0]) &&
		    strspn(tok, "0123456789") == strlen(tok)) {
			uint64_t idx;

			ok = parse_u64(tok, &idx) == 0 && (count < 0 || idx < (uint64_t)count);
			unknown |= count < 0;
		} else if (str_starts(tok, "GPU-")) {
			ok = !uuids_read(sys) || uuid_known(sys, tok);
			unknown |= !uuids_read(sys);
		} else if (str_starts(tok, "MIG-")) {
			ok = true; /* MIG instances are not listed by the probe: assume it exists */
			unknown = true;
		} else {
			ok = false; /* "", "-1", "NoDevFiles", anything else */
		}
		if (!ok) {
			str_copy(bad, tok[0] ? tok : "(empty)", bn);
			break;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return n == 0 ? 0 : unknown && !bad[0] ? -1 : n;
}

static int listed_count(const char *value)
{
	int n = 1;

	for (; *value; value++)
		n += *value == ',';
	return n;
}

static void check_cuda_visible(const struct doctor_input *in, struct findings *out)
{
	const struct env_facts *env = &in->facts.env;
	const struct gpu_system *sys = &in->sys;
	const int count = nvml_count(sys);
	const struct num *ci = &sys->cuda_init;
	const bool no_device = num_ok(ci) && ci->reason == REASON_NO_DEVICE;
	char bad[64], valid[128] = "";
	struct finding *f;
	int visible, i;

	if (!env->cuda_visible_set)
		return;
	visible = visible_count(env->cuda_visible_devices, sys, bad, sizeof(bad));
	if (visible < 0 || (!bad[0] && visible > 0))
		return;
	for (i = 0; i < count && i < 16; i++) {
		char one[8];

		str_fmt(one, sizeof(one), "%s%d", i ? "," : "", i);
		str_append(valid, one, sizeof(valid));
	}
	if (visible == 0) {
		f = finding_add(out, "env.cuda_visible_devices_hides", SEV_FAIL, -1,
				"CUDA_VISIBLE_DEVICES='%s' hides every GPU from CUDA",
				env->cuda_visible_devices);
		/* cuInit's "no device" is this, not a driver fault */
		if (no_device)
			findings_fold(out, "cuda.init_failed", "env.cuda_visible_devices_hides");
	} else
		f = finding_add(out, "env.cuda_visible_devices_hides", SEV_WARN, -1,
				"CUDA_VISIBLE_DEVICES='%s' names '%s', which is no GPU here: CUDA "
				"stops there and ignores %d of the %d entries",
				env->cuda_visible_devices, bad,
				listed_count(env->cuda_visible_devices) - visible,
				listed_count(env->cuda_visible_devices));
	finding_evidence(f, "environment: CUDA_VISIBLE_DEVICES='%s'", env->cuda_visible_devices);
	if (count >= 0)
		finding_evidence(f, "nvmlDeviceGetCount: %d (NVML ignores CUDA_VISIBLE_DEVICES)",
				 count);
	if (no_device && count > 0)
		finding_evidence(f, "cuInit: %d (%s) while NVML counts %d", ci->rc,
				 reason_code_name(ci->lib, ci->rc), count);
	else if (num_ok(&sys->cuda_count))
		finding_evidence(f, "cuDeviceGetCount: %lld", (long long)sys->cuda_count.v);
	if (str_eq(bad, "NoDevFiles"))
		finding_fix(f, 0,
			    "Slurm set this: the job was given no GPUs. Request them (`srun "
			    "--gpus=1 ...` or `#SBATCH --gres=gpu:1`).");
	else if (valid[0])
		finding_fix(f, 0,
			    "`unset CUDA_VISIBLE_DEVICES`, or list GPUs that exist (`export "
			    "CUDA_VISIBLE_DEVICES=%s`); with `export CUDA_DEVICE_ORDER=PCI_BUS_ID` "
			    "the numbers match nvidia-smi.",
			    valid);
	else
		finding_fix(f, 0, "`unset CUDA_VISIBLE_DEVICES`, or list GPUs that exist "
				  "(numbers as in `nvidia-smi -L`, with `export "
				  "CUDA_DEVICE_ORDER=PCI_BUS_ID`).");
}

/* Read by the NVIDIA container runtime when the container is created: "void" and "none"
 * give it no GPUs. */
static void check_nvidia_visible(const struct doctor_input *in, struct findings *out)
{
	const struct env_facts *env = &in->facts.env;
	const char *v = env->nvidia_visible_devices;
	struct finding *f;

	if (!env->nvidia_visible_set || !in->facts.platform.container || nvml_count(&in->sys) > 0)
		return;
	if (!(str_eq(v, "void") || str_eq(v, "none") || !v[0]))
		return;
	f = finding_add(out, "env.cuda_visible_devices_hides", SEV_WARN, -1,
			"this container was started with NVIDIA_VISIBLE_DEVICES='%s': the container "
			"runtime gave it no GPUs",
			v);
	finding_evidence(f, "environment: NVIDIA_VISIBLE_DEVICES='%s'", v);
	finding_evidence(f, "container: %s", in->facts.platform.container_kind[0]
						     ? in->facts.platform.container_kind
						     : "yes");
	finding_fix(f, 0,
		    "Start the container with `--gpus all` (or `-e NVIDIA_VISIBLE_DEVICES=all` "
		    "with the NVIDIA runtime, `--device nvidia.com/gpu=all` with CDI).");
}

static void check_order(const struct doctor_input *in, struct findings *out)
{
	const struct gpu_system *sys = &in->sys;
	const char *order = in->facts.env.cuda_device_order;
	const char *first = NULL, *other = NULL;
	struct finding *f;
	unsigned i;

	if (str_eq(order, "PCI_BUS_ID"))
		return;
	for (i = 0; i < sys->ngpus; i++) {
		if (!text_ok(&sys->gpus[i].st.name))
			continue;
		if (!first)
			first = sys->gpus[i].st.name.s;
		else if (!str_eq(first, sys->gpus[i].st.name.s))
			other = sys->gpus[i].st.name.s;
	}
	if (!other)
		return;
	f = finding_add(out, "env.device_order", SEV_INFO, -1,
			"GPUs of different kinds (%s, %s) and CUDA_DEVICE_ORDER %s: CUDA numbers "
			"the fastest first, nvidia-smi by PCI bus, so GPU numbers differ",
			first, other, order[0] ? "is not PCI_BUS_ID" : "unset");
	finding_evidence(f, "environment: CUDA_DEVICE_ORDER=%s", order[0] ? order : "(unset)");
	for (i = 0; i < sys->ngpus && f->nevidence < FINDING_MAX_EVIDENCE; i++)
		if (text_ok(&sys->gpus[i].st.name))
			finding_evidence(f, "nvmlDeviceGetName, NVML index %u: %s", i,
					 sys->gpus[i].st.name.s);
	finding_fix(f, 0, "`export CUDA_DEVICE_ORDER=PCI_BUS_ID` so CUDA's numbers match "
			  "nvidia-smi's.");
}

static void check_bad_vars(const struct doctor_input *in, struct findings *out)
{
	const struct env_facts *env = &in->facts.env;
	int i;

	for (i = 0; i < env->nbad && i < FACTS_MAX_BADVARS; i++) {
		const char *nv = env->bad_vars[i];
		const char *eq = strchr(nv, '=');
		const char *effect = "it is a CUDA debugging or profiling setting";
		char name[96], *q;
		struct finding *f;
		size_t k, len = eq ? (size_t)(eq - nv) : strlen(nv);

		str_copy(name, nv, len + 1 < sizeof(name) ? len + 1 : sizeof(name));
		/* CUDA_LAUNCH_BLOCKING=0 is the default behaviour, spelled out */
		if (str_eq(name, "CUDA_LAUNCH_BLOCKING") && eq && str_eq(eq + 1, "0"))
			continue;
		for (k = 0; k < ARRAY_SIZE(bad_vars); k++)
			if (str_eq(bad_vars[k].name, name))
				effect = bad_vars[k].effect;
		f = finding_add(out, "env.bad_cuda_var", SEV_WARN, -1, "%s is set: %s", nv, effect);
		finding_evidence(f, "environment: %s", nv);
		q = quote_shell(name);
		finding_fix(f, 0, "`unset %s` (and remove it where it is set) unless you are "
				  "debugging or profiling.",
			    q);
		free(q);
	}
}

static void run_env(const struct doctor_input *in, struct findings *out)
{
	const struct env_facts *env = &in->facts.env;
	const int count = nvml_count(&in->sys);
	const size_t before = out->n;
	struct finding *f;
	char bad[64];
	int visible;

	check_cuda_visible(in, out);
	check_nvidia_visible(in, out);
	check_order(in, out);
	check_bad_vars(in, out);
	if (findings_worst_since(out, before) >= SEV_WARN)
		return;
	if (!env->cuda_visible_set)
		f = finding_add(out, "env.ok", SEV_OK, -1,
				"CUDA_VISIBLE_DEVICES unset: CUDA sees %s; no CUDA debugging "
				"variables set",
				count >= 0 ? "every GPU" : "every GPU the driver offers");
	else if ((visible = visible_count(env->cuda_visible_devices, &in->sys, bad,
					  sizeof(bad))) > 0)
		f = finding_add(out, "env.ok", SEV_OK, -1,
				"CUDA_VISIBLE_DEVICES='%s' selects %d of %d GPUs; no CUDA debugging "
				"variables set",
				env->cuda_visible_devices, visible, count);
	else
		f = finding_add(out, "env.ok", SEV_OK, -1,
				"CUDA_VISIBLE_DEVICES='%s' could not be checked against the GPUs "
				"(no NVML count, or MIG devices); no CUDA debugging variables set",
				env->cuda_visible_devices);
	if (count >= 0)
		finding_evidence(f, "nvmlDeviceGetCount: %d", count);
	else
		finding_evidence(f, "nvmlDeviceGetCount: n/a");
	finding_evidence(f, "environment: CUDA_VISIBLE_DEVICES %s%s%s",
			 env->cuda_visible_set ? "= '" : "unset",
			 env->cuda_visible_set ? env->cuda_visible_devices : "",
			 env->cuda_visible_set ? "'" : "");
	if (env->nvidia_visible_set)
		finding_evidence(f, "environment: NVIDIA_VISIBLE_DEVICES='%s'",
				 env->nvidia_visible_devices);
}
