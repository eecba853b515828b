/*
 * cuda.c: the CUDA layer of doctor: a real cuInit and device count, as a CUDA program would
 * see them, decoded; the newest CUDA this driver supports; and why the CUDA count differs from
 * NVML's (catalog lesson 2: nvidia-smi working proves little about CUDA).
 *
 * Loading libcuda.so.1 (which file, stub or compat) is the libraries layer's job. cuInit's
 * failures are usually echoes of a lower cause and are marked as symptoms; where the cause
 * lives in the environment (CUDA_VISIBLE_DEVICES, MIG, a container), the summary says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/fields.h"
#include "../gpu/reason.h"
#include "../util/quote.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"cuda.ok", LAYER_CUDA, "CUDA initialises and sees every GPU", false},
	{"cuda.init_failed", LAYER_CUDA, "cuInit failed", true},
	{"cuda.count_mismatch", LAYER_CUDA, "CUDA sees a different number of GPUs than NVML", true},
	{"cuda.subset_visible", LAYER_CUDA, "CUDA sees only the GPUs it was told to", false},
	{"cuda.slow_init", LAYER_CUDA, "cuInit is slow", false},
};

static void run_cuda(const struct doctor_input *in, struct findings *out);

const struct check check_cuda = {
	.name = "cuda",
	.layer = LAYER_CUDA,
	.run = run_cuda,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

/* Does any GPU have MIG on? */
static bool mig_on(const struct gpu_system *sys)
{
	unsigned i;

	for (i = 0; i < sys->ngpus; i++)
		if (num_ok(&sys->gpus[i].st.mig_current) && sys->gpus[i].st.mig_current.v)
			return true;
	return false;
}

static void explain_init(struct finding *f, const struct doctor_input *in, enum val_reason why)
{
	const struct env_facts *env = &in->facts.env;

	switch (why) {
	case REASON_NO_DEVICE:
		if (env->cuda_visible_set) {
			char *v = quote_shell(env->cuda_visible_devices);

			finding_fix(f, 0,
				    "CUDA_VISIBLE_DEVICES=%s leaves no usable GPU: unset it (unset "
				    "CUDA_VISIBLE_DEVICES) or list valid indices or UUIDs",
				    v);
			free(v);
		} else if (mig_on(&in->sys))
			finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
				    "MIG is on: create instances (nvidia-smi mig -cgi ... -C) and select "
				    "one with CUDA_VISIBLE_DEVICES=MIG-<uuid>, or turn MIG off "
				    "(sudo nvidia-smi -i <n> -mig 0, then reset the GPU)");
		else if (in->facts.platform.container)
			finding_fix(f, 0,
				    "this container has no GPU device nodes: start it with --gpus all "
				    "(Docker + nvidia-container-toolkit) or --device nvidia.com/gpu=all");
		else
			finding_fix(f, FIX_ROOT,
				    "see the lower layers: the module and /dev/nvidia* must be present");
		break;
	case REASON_UNKNOWN:
		finding_fix(f, FIX_ROOT,
			    "load the CUDA memory module: sudo modprobe nvidia_uvm (or sudo "
			    "nvidia-modprobe -u -c 0); after a suspend/resume: sudo rmmod nvidia_uvm && "
			    "sudo modprobe nvidia_uvm");
		break;
	case REASON_NOT_READY:
		finding_fix(f, FIX_ROOT,
			    "start NVIDIA Fabric Manager for exactly this driver version: sudo systemctl "
			    "enable --now nvidia-fabricmanager (see /var/log/fabricmanager.log)");
		break;
	case REASON_VERSION_MISMATCH:
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "libcuda and the kernel module differ: reboot after a driver upgrade, or "
			    "remove a libcuda bundled with the application or container");
		break;
	case REASON_COMPAT_UNSUPPORTED:
		finding_fix(f, 0,
			    "remove the CUDA forward-compatibility libcuda (a .../compat folder) from "
			    "LD_LIBRARY_PATH; this GPU does not support it");
		break;
	case REASON_STUB_LIBRARY:
		finding_fix(f, 0,
			    "the toolkit's stub libcuda was loaded: remove the .../stubs folder from "
			    "LD_LIBRARY_PATH");
		break;
	case REASON_IN_USE:
		finding_fix(f, 0,
			    "every GPU is busy or prohibited by its compute mode: pick another GPU with "
			    "CUDA_VISIBLE_DEVICES, or (owner) sudo nvidia-smi -i <n> -c DEFAULT");
		break;
	default:
		finding_fix(f, FIX_ROOT, "check the kernel log: sudo dmesg | grep -i -E 'nvrm|xid'");
	}
}

static void run_cuda(const struct doctor_input *in, struct findings *out)
{
	const struct gpu_system *sys = &in->sys;
	const struct env_facts *env = &in->facts.env;
	struct finding *f;
	char eb[96];

	if (sys->hung || !sys->cuda_lib.loaded)
		return; /* the NVML and libraries layers report these */
	if (num_ok(&sys->cuda_init) && sys->cuda_init.reason != REASON_NONE) {
		const struct num *ci = &sys->cuda_init;
		const enum val_reason why = ci->reason;

		f = finding_add(out, "cuda.init_failed", SEV_FAIL, -1, "cuInit(0) failed: %s (%d): %s",
				reason_code_name(ci->lib, ci->rc), ci->rc,
				reason_code_meaning(ci->lib, ci->rc));
		finding_evidence(f, "cuInit in %s: %s (%d) after %.2f s", sys->cuda_lib.path,
				 reason_code_name(ci->lib, ci->rc), ci->rc, sys->cuda_init_ns / 1e9);
		if (why == REASON_NO_DEVICE && env->cuda_visible_set)
			finding_evidence(f, "environment: CUDA_VISIBLE_DEVICES='%s'",
					 env->cuda_visible_devices);
		if (why == REASON_NO_DEVICE && num_ok(&sys->count) && sys->count.v > 0)
			finding_evidence(f, "nvmlDeviceGetCount_v2: %lld (NVML ignores CUDA_VISIBLE_DEVICES)",
					 (long long)sys->count.v);
		explain_init(f, in, why);
		return;
	}
	if (!num_ok(&sys->cuda_count)) {
		if (sys->cuda_count.st == VAL_ERR) {
			f = finding_add(out, "cuda.init_failed", SEV_FAIL, -1, "cuDeviceGetCount failed: %s",
					field_error_text(LIB_CUDA, sys->cuda_count.rc, eb, sizeof(eb)));
			finding_evidence(f, "cuDeviceGetCount: %s",
					 field_error_text(LIB_CUDA, sys->cuda_count.rc, eb, sizeof(eb)));
			explain_init(f, in, sys->cuda_count.reason);
		}
		return;
	}
	if (num_ok(&sys->count) && sys->cuda_count.v != sys->count.v) {
		long long nv = (long long)sys->count.v, cu = (long long)sys->cuda_count.v;

		if (env->cuda_visible_set && cu < nv && cu > 0) {
			f = finding_add(out, "cuda.subset_visible", SEV_INFO, -1,
					"CUDA sees %lld of %lld GPUs because CUDA_VISIBLE_DEVICES='%s'", cu,
					nv, env->cuda_visible_devices);
			finding_evidence(f, "cuDeviceGetCount: %lld; nvmlDeviceGetCount_v2: %lld", cu, nv);
		} else if (mig_on(sys)) {
			f = finding_add(out, "cuda.subset_visible", SEV_INFO, -1,
					"CUDA sees %lld device%s and NVML %lld GPUs: MIG is on, and a CUDA "
					"process sees one MIG device",
					cu, cu == 1 ? "" : "s", nv);
			finding_evidence(f, "cuDeviceGetCount: %lld; nvmlDeviceGetCount_v2: %lld", cu, nv);
		} else {
			f = finding_add(out, "cuda.count_mismatch", SEV_WARN, -1,
					"CUDA sees %lld GPU%s but NVML sees %lld", cu, cu == 1 ? "" : "s",
					nv);
			finding_evidence(f, "cuDeviceGetCount: %lld; nvmlDeviceGetCount_v2: %lld", cu, nv);
			if (env->nvidia_visible_set)
				finding_evidence(f, "environment: NVIDIA_VISIBLE_DEVICES='%s'",
						 env->nvidia_visible_devices);
			finding_fix(f, 0,
				    "compare 'gpuvet status' with the GPUs your program lists; a GPU NVML "
				    "sees but CUDA does not usually failed to initialise: check the kernel "
				    "log (sudo dmesg | grep -i nvrm)");
		}
	}
	/* without persistence, cuInit can take seconds per GPU (catalog row 22) */
	if (sys->cuda_init_ns > 2000000000LL) {
		f = finding_add(out, "cuda.slow_init", SEV_WARN, -1, "cuInit took %.1f s",
				sys->cuda_init_ns / 1e9);
		finding_evidence(f, "cuInit(0): %.2f s for %lld GPUs", sys->cuda_init_ns / 1e9,
				 (long long)sys->cuda_count.v);
		finding_fix(f, FIX_ROOT,
			    "keep the driver initialised between programs: sudo systemctl enable --now "
			    "nvidia-persistenced");
	}
	if (!findings_has(out, "cuda.count_mismatch")) {
		char nb[32];
		unsigned d;

		f = finding_add(out, "cuda.ok", SEV_OK, -1,
				"cuInit %.2f s; %lld CUDA device%s; the driver supports CUDA up to "
				"%lld.%lld",
				sys->cuda_init_ns / 1e9, (long long)sys->cuda_count.v,
				sys->cuda_count.v == 1 ? "" : "s",
				num_ok(&sys->cuda_version) ? (long long)sys->cuda_version.v / 1000 : 0,
				num_ok(&sys->cuda_version) ? (long long)(sys->cuda_version.v % 1000) / 10
							   : 0);
		/* the facts behind it, for doctor -v and --json */
		finding_evidence(f, "cuInit(0) in %s: CUDA_SUCCESS in %.2f s", sys->cuda_lib.path,
				 sys->cuda_init_ns / 1e9);
		finding_evidence(f, "cuDriverGetVersion: %s", fact_num(&sys->cuda_version, nb, sizeof(nb)));
		finding_evidence(f, "cuDeviceGetCount: %lld; nvmlDeviceGetCount_v2: %s",
				 (long long)sys->cuda_count.v, fact_num(&sys->count, nb, sizeof(nb)));
		for (d = 0; d < sys->ncuda && d < 8; d++) {
			const struct cuda_device *cd = &sys->cuda_devs[d];
			char sm[32];

			finding_evidence(f, "CUDA device %u: %s, %s, compute capability %s.%s", d,
					 text_ok(&cd->name) ? cd->name.s : "n/a",
					 text_ok(&cd->bus_id) ? cd->bus_id.s : "bus id n/a",
					 fact_num(&cd->cc_major, nb, sizeof(nb)),
					 fact_num(&cd->cc_minor, sm, sizeof(sm)));
		}
	}
}
