/*
 * test_checks_userspace.c: what a recorded scenario cannot say about the libraries, toolkit,
 * framework and env checks. Each catalog row they detect (7, 12-21), its negatives and the
 * H200 machine's ok lines are scenarios in tests/scenarios/faults/ (rowNN-*.json,
 * libraries-*, toolkit-*, userspace-h200-clean), checked by tests/cli/scenarios.sh. Kept here:
 *
 * - a struct doctor_input with no vendor probe at all (a replay always brings one);
 * - the rule tables the framework check probes with many GPU and driver pairs (which wheel
 *   each driver and GPU generation gets, dotted driver floors, WSL's Windows floors, SASS and
 *   PTX coverage by architecture family, cuDNN's soname rules): one scenario per pair would
 *   be a recording of a machine per line of a table;
 * - a conda environment off PATH, an unknown driver for the framework check and no framework
 *   at all (no recording has them yet);
 * - the catalog entries of these checks;
 * - the collectors run on the H200 container's files as a fake root (facts no finding shows);
 * - issue 8's quoting of machine values in fix commands, case by case.
 *
 * The baseline is the H200 pair: driver 580.159.04 (CUDA 13.0) in a container, libraries
 * from /usr/local/nvidia/lib64, toolkit 13.0, torch 2.11.0+cu130 and jax with the CUDA 13
 * plugin in /opt/torch/.venv, two sm_90 GPUs. Each test breaks one thing.
 */
#include <ctype.h>
#include <stdlib.h>

#include "checks/catalog.h"
#include "checks/doctor.h"
#include "gpu/reason.h"
#include "fakeroot.h"
#include "ldcache_gen.h"
#include "test.h"
#include "util/util.h"

#define VENV_SITE "/opt/torch/.venv/lib/python3.12/site-packages"

static struct gpu gpus[4];

static void text_set(struct text *t, const char *s)
{
	str_copy(t->s, s, sizeof(t->s));
	t->st = VAL_OK;
}

static void cand(struct lib_list *l, const char *name, const char *path, const char *real,
		 const char *version, enum lib_source src)
{
	struct lib_candidate *c = &l->v[l->n++];

	memset(c, 0, sizeof(*c));
	str_copy(c->name, name, sizeof(c->name));
	str_copy(c->path, path, sizeof(c->path));
	str_copy(c->real, real, sizeof(c->real));
	str_copy(c->version, version, sizeof(c->version));
	c->src = src;
	c->stub = strstr(path, "/stubs/") != NULL;
	c->compat = strstr(path, "/compat/") != NULL;
	c->wsl = str_starts(path, "/usr/lib/wsl/");
	c->size = c->stub ? 65536 : 40000000;
}

static void set_gpus(struct gpu_system *sys, int n, int cc_major, int cc_minor, const char *name)
{
	int i;

	memset(gpus, 0, sizeof(gpus));
	for (i = 0; i < n; i++) {
		char uuid[64];

		gpus[i].index = (unsigned)i;
		text_set(&gpus[i].st.name, name);
		snprintf(uuid, sizeof(uuid), "GPU-1d0c5a7e-000%d-4c2b-9f1e-%012d", i, i);
		text_set(&gpus[i].st.uuid, uuid);
		num_set(&gpus[i].st.cc_major, cc_major);
		num_set(&gpus[i].st.cc_minor, cc_minor);
	}
	sys->gpus = gpus;
	sys->ngpus = (unsigned)n;
	num_set(&sys->count, n);
}

static struct framework *add_fw(struct python_env *e, enum fw_kind kind, const char *version,
				const char *cuda, const char *cudnn)
{
	struct framework *f = &e->fw[e->nfw++];

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	str_copy(f->version, version, sizeof(f->version));
	str_copy(f->cuda, cuda, sizeof(f->cuda));
	str_copy(f->cudnn_pin, cudnn, sizeof(f->cudnn_pin));
	f->cpu_only = !cuda[0];
	str_fmt(f->path, sizeof(f->path), "%s/%s", e->site,
		kind == FW_TORCH ? "torch" : kind == FW_JAX ? "jax" : "tensorflow");
	return f;
}

/* The H200 machine as the collectors and the probe see it. */
static struct doctor_input *h200(void)
{
	struct doctor_input *in = xcalloc(1, sizeof(*in));
	struct host_facts *h = &in->facts;
	struct gpu_system *sys = &in->sys;
	struct python_env *e;

	str_copy(h->module.version, "580.159.04", sizeof(h->module.version));
	h->platform.container = true;
	str_copy(h->platform.container_kind, "docker", sizeof(h->platform.container_kind));
	h->platform.pkg = PKG_APT;
	h->env.nvidia_visible_set = true;
	str_copy(h->env.nvidia_visible_devices, "0,1", sizeof(h->env.nvidia_visible_devices));

	h->libs.ldcache_read = true;
	str_copy(h->libs.ld_library_path, "/usr/local/nvidia/lib64:/usr/local/nvidia/lib",
		 sizeof(h->libs.ld_library_path));
	cand(&h->libs.libcuda, "libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1",
	     "/usr/local/nvidia/lib64/libcuda.so.580.159.04", "580.159.04", LIBSRC_LD_LIBRARY_PATH);
	cand(&h->libs.libcuda, "libcuda.so.1", "/lib/libcuda.so.1", "/lib/libcuda.so.580.159.04",
	     "580.159.04", LIBSRC_LDCACHE);
	cand(&h->libs.libnvml, "libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1",
	     "/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04", "580.159.04",
	     LIBSRC_LD_LIBRARY_PATH);
	cand(&h->libs.libcudart, "libcudart.so.13",
	     "/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13",
	     "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96", "13.0.96",
	     LIBSRC_LDCACHE);
	cand(&h->libs.libcudnn, "libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn.so.9",
	     "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0", "9.14.0", LIBSRC_LDCACHE);

	str_copy(h->toolkit.v[0].path, "/usr/local/cuda-13.0", sizeof(h->toolkit.v[0].path));
	str_copy(h->toolkit.v[0].version, "13.0", sizeof(h->toolkit.v[0].version));
	h->toolkit.v[0].is_default = true;
	h->toolkit.n = 1;
	str_copy(h->toolkit.nvcc_path, "/usr/local/cuda-13.0/bin/nvcc", sizeof(h->toolkit.nvcc_path));
	str_copy(h->toolkit.nvcc_version, "13.0", sizeof(h->toolkit.nvcc_version));
	str_copy(h->toolkit.cuda_home, "/usr/local/cuda", sizeof(h->toolkit.cuda_home));
	str_copy(h->toolkit.cuda_home_real, "/usr/local/cuda-13.0", sizeof(h->toolkit.cuda_home_real));
	str_copy(h->toolkit.cuda_home_version, "13.0", sizeof(h->toolkit.cuda_home_version));

	e = &h->python.v[h->python.n++];
	str_copy(e->prefix, "/opt/torch/.venv", sizeof(e->prefix));
	str_copy(e->kind, "venv", sizeof(e->kind));
	str_copy(e->site, VENV_SITE, sizeof(e->site));
	e->on_path = true;
	add_fw(e, FW_TORCH, "2.11.0+cu130", "13.0", "9.19.0.56");
	add_fw(e, FW_JAX, "0.11.2", "13", "");
	str_copy(e->nvidia_libdir, VENV_SITE "/nvidia/cu13/lib", sizeof(e->nvidia_libdir));
	e = &h->python.v[h->python.n++];
	str_copy(e->prefix, "/usr", sizeof(e->prefix));
	str_copy(e->kind, "system", sizeof(e->kind));
	str_copy(e->site, "/usr/lib/python3/dist-packages", sizeof(e->site));

	sys->nvml_lib.attempted = sys->nvml_lib.loaded = true;
	str_copy(sys->nvml_lib.path, "/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04",
		 sizeof(sys->nvml_lib.path));
	str_copy(sys->nvml_lib.version, "580.159.04", sizeof(sys->nvml_lib.version));
	reason_set_call(&sys->nvml_init, LIB_NVML, "nvmlInit_v2", 0);
	text_set(&sys->driver_version, "580.159.04");
	num_set(&sys->cuda_driver_version, 13000);
	set_gpus(sys, 2, 9, 0, "NVIDIA H200");
	sys->cuda_lib.attempted = sys->cuda_lib.loaded = true;
	str_copy(sys->cuda_lib.path, "/usr/local/nvidia/lib64/libcuda.so.580.159.04",
		 sizeof(sys->cuda_lib.path));
	str_copy(sys->cuda_lib.version, "580.159.04", sizeof(sys->cuda_lib.version));
	num_set(&sys->cuda_version, 13000);
	reason_set_call(&sys->cuda_init, LIB_CUDA, "cuInit", 0);
	num_set(&sys->cuda_count, 2);
	return in;
}

/* Run the check called name (catalog.c's table) on its own. */
static void run_one(const char *name, const struct doctor_input *in, struct findings *fs)
{
	const struct check *c = check_find(name);

	if (!c) {
		printf("FAIL no check called '%s' in the catalog\n", name);
		exit(1);
	}
	c->run(in, fs);
}

static void run(const struct doctor_input *in, struct findings *fs, const char *check)
{
	memset(fs, 0, sizeof(*fs));
	run_one(check, in, fs);
}

static const struct finding *find(const struct findings *fs, const char *id)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (str_eq(fs->v[i].def->id, id))
			return &fs->v[i];
	return NULL;
}

static int count_id(const struct findings *fs, const char *id)
{
	size_t i;
	int n = 0;

	for (i = 0; i < fs->n; i++)
		n += str_eq(fs->v[i].def->id, id);
	return n;
}

static bool evidence_has(const struct finding *f, const char *text)
{
	int i;

	for (i = 0; f && i < f->nevidence; i++)
		if (strstr(f->evidence[i], text))
			return true;
	return false;
}

static bool fix_has(const struct finding *f, const char *text)
{
	return f && f->fix && strstr(f->fix, text);
}

static bool summary_has(const struct finding *f, const char *text)
{
	return f && strstr(f->summary, text);
}

/* A warning or failure must say what was seen and what to do. */
static bool complete(const struct finding *f)
{
	return f && f->nevidence > 0 && f->fix && f->fix[0];
}

/* ---- the H200 machine ---------------------------------------------------------------- */

/* ---- libraries without a vendor probe (no recording lacks one) ----------------------- */

static void row12_cuda_missing_without_probe(void)
{
	struct doctor_input *in = h200();
	struct findings fs;
	const struct finding *f;

	/* no vendor probe ran: the files decide */
	memset(&in->sys, 0, sizeof(in->sys));
	memset(&in->facts.libs.libcuda, 0, sizeof(in->facts.libs.libcuda));
	cand(&in->facts.libs.libcuda, "libcuda.so", "/usr/lib64/libcuda.so", "/usr/lib64/libcuda.so",
	     "", LIBSRC_LDCACHE);
	run(in, &fs, "libraries");
	f = find(&fs, "libraries.cuda_missing");
	CHECK(f && f->sev == SEV_FAIL && complete(f));
	CHECK(evidence_has(f, "/etc/ld.so.cache: lists other copies only"));
	CHECK(!find(&fs, "libraries.nvml_missing"));
	findings_free(&fs);
	free(in);
}

/* ---- framework: rows 15, 16, 19, 20 -------------------------------------------------- */

static void driver_set(struct doctor_input *in, const char *version, int cuda)
{
	str_copy(in->facts.module.version, version, sizeof(in->facts.module.version));
	text_set(&in->sys.driver_version, version);
	num_set(&in->sys.cuda_version, cuda);
	num_set(&in->sys.cuda_driver_version, cuda);
}

static void row16_cpu_only(void)
{
	struct doctor_input *in = h200();
	struct framework *t = &in->facts.python.v[0].fw[0];
	struct findings fs;
	const struct finding *f;

	str_copy(t->version, "2.11.0+cpu", sizeof(t->version));
	t->cuda[0] = '\0';
	t->cpu_only = true;
	/* the wheel follows the driver: 535 runs cu126 (not cu130) */
	driver_set(in, "535.183.01", 12020);
	run(in, &fs, "framework");
	CHECK(fix_has(find(&fs, "framework.cpu_only"), "whl/cu126"));
	findings_free(&fs);

	/* ... and the GPUs: Blackwell (sm_120) on 570 needs cu128, which 570.86 runs */
	driver_set(in, "570.86.15", 12080);
	set_gpus(&in->sys, 1, 12, 0, "NVIDIA GeForce RTX 5090");
	run(in, &fs, "framework");
	CHECK(fix_has(find(&fs, "framework.cpu_only"), "whl/cu128"));
	findings_free(&fs);

	/* ... and Pascal (sm_61) on 580 needs cu126: cu128 and cu130 dropped it */
	driver_set(in, "580.95.05", 13000);
	set_gpus(&in->sys, 1, 6, 1, "NVIDIA GeForce GTX 1080");
	run(in, &fs, "framework");
	CHECK(fix_has(find(&fs, "framework.cpu_only"), "whl/cu126"));
	findings_free(&fs);

	/* a ROCm build on an NVIDIA machine */
	str_copy(t->version, "2.5.1+rocm6.2", sizeof(t->version));
	t->cpu_only = false;
	t->rocm = true;
	run(in, &fs, "framework");
	f = find(&fs, "framework.cpu_only");
	CHECK(summary_has(f, "is a ROCm (AMD) build"));
	findings_free(&fs);
	free(in);
}

static void row15_driver_too_old(void)
{
	struct doctor_input *in = h200();
	struct findings fs;
	const struct finding *f;

	/* full dotted floors: 580.65.05 is one step short, 580.65.06 is enough */
	driver_set(in, "580.65.05", 13000);
	run(in, &fs, "framework");
	CHECK(find(&fs, "framework.driver_too_old") != NULL);
	findings_free(&fs);
	driver_set(in, "580.65.06", 13000);
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.driver_too_old"));
	CHECK(find(&fs, "framework.ok") != NULL);
	findings_free(&fs);

	/* without a module version (NVML only) the NVML driver version is used */
	in->facts.module.version[0] = '\0';
	text_set(&in->sys.driver_version, "575.57.08");
	run(in, &fs, "framework");
	f = find(&fs, "framework.driver_too_old");
	CHECK(f && evidence_has(f, "nvmlSystemGetDriverVersion: 575.57.08"));
	findings_free(&fs);

	/* WSL2: Windows numbering, Windows floors (12.x needs 528.33) */
	in->facts.platform.wsl = true;
	str_copy(in->facts.python.v[0].fw[0].cuda, "12.1", 16);
	in->facts.python.v[0].nfw = 1;
	driver_set(in, "527.56", 12000);
	in->facts.module.version[0] = '\0';
	run(in, &fs, "framework");
	f = find(&fs, "framework.driver_too_old");
	CHECK(f && summary_has(f, "needs driver 528.33 or newer"));
	CHECK(fix_has(f, "update the NVIDIA driver on Windows"));
	findings_free(&fs);
	driver_set(in, "560.94", 12060);
	in->facts.module.version[0] = '\0';
	run(in, &fs, "framework");
	CHECK(findings_worst(&fs) == SEV_OK);
	findings_free(&fs);
	free(in);
}

static void row15_minor_version_compat(void)
{
	struct doctor_input *in = h200();
	struct framework *t = &in->facts.python.v[0].fw[0];
	struct findings fs;

	str_copy(t->version, "2.9.1+cu128", sizeof(t->version));
	str_copy(t->cuda, "12.8", sizeof(t->cuda));
	in->facts.python.v[0].nfw = 1;
	/* below the 12.x floor it does not run: 525.60.12 < 525.60.13 */
	driver_set(in, "525.60.12", 12000);
	run(in, &fs, "framework");
	CHECK(find(&fs, "framework.driver_too_old") != NULL);
	findings_free(&fs);
	free(in);
}

static void row20_arch_unsupported(void)
{
	struct doctor_input *in = h200();
	struct framework *t = &in->facts.python.v[0].fw[0];
	struct findings fs;
	const struct finding *f;

	in->facts.python.v[0].nfw = 1;
	/* Pascal under a cu130 build (7.5 and up) */
	set_gpus(&in->sys, 2, 6, 1, "Tesla P40");
	run(in, &fs, "framework");
	CHECK(count_id(&fs, "framework.arch_unsupported") == 2);
	f = find(&fs, "framework.arch_unsupported");
	CHECK(f && f->sev == SEV_FAIL && f->gpu == 0 && complete(f));
	CHECK(fs.v[1].gpu == 1 && str_eq(fs.v[0].summary, fs.v[1].summary)); /* grouped */
	CHECK(summary_has(f, "has no kernels for compute capability 6.1 (sm_61): its build covers "
			     "sm_75-sm_120"));
	CHECK(evidence_has(f, "nvmlDeviceGetCudaComputeCapability: 6.1"));
	CHECK(evidence_has(f, "PyTorch release builds for CUDA 13.0"));
	CHECK(fix_has(f, "whl/cu126"));
	findings_free(&fs);

	/* Blackwell under a cu126 build (up to 9.0, no PTX) */
	str_copy(t->version, "2.9.1+cu126", sizeof(t->version));
	str_copy(t->cuda, "12.6", sizeof(t->cuda));
	set_gpus(&in->sys, 1, 12, 0, "NVIDIA GeForce RTX 5090");
	run(in, &fs, "framework");
	f = find(&fs, "framework.arch_unsupported");
	CHECK(f && summary_has(f, "sm_120"));
	CHECK(fix_has(f, "whl/cu130"));
	findings_free(&fs);

	/* the negatives: binary compatibility within a major (sm_86 runs 8.9, sm_100 runs 10.3)
	 * and PTX for newer GPUs (compute_120 runs 12.1) */
	set_gpus(&in->sys, 1, 8, 9, "NVIDIA L40S");
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);
	str_copy(t->cuda, "13.0", sizeof(t->cuda));
	set_gpus(&in->sys, 1, 10, 3, "NVIDIA B300");
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);

	/* TensorFlow states its list; compute_80 (PTX) covers 9.0 but not 5.2 */
	t->kind = FW_TENSORFLOW;
	str_copy(t->version, "2.15.0", sizeof(t->version));
	str_copy(t->cuda, "12.2", sizeof(t->cuda));
	str_copy(t->archs, "sm_60 sm_70 compute_80", sizeof(t->archs));
	set_gpus(&in->sys, 1, 9, 0, "NVIDIA H100");
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);
	set_gpus(&in->sys, 1, 5, 2, "Tesla M60");
	run(in, &fs, "framework");
	f = find(&fs, "framework.arch_unsupported");
	CHECK(f && evidence_has(f, "cuda_compute_capabilities = sm_60 sm_70 compute_80"));
	findings_free(&fs);

	/* arch-specific PTX (compute_90a) is not JIT-compiled for a newer GPU; family PTX
	 * (compute_100f) runs within its family only; plain PTX runs on anything newer */
	str_copy(t->archs, "sm_80 compute_90a", sizeof(t->archs));
	set_gpus(&in->sys, 1, 10, 0, "NVIDIA B200");
	run(in, &fs, "framework");
	CHECK(find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);
	set_gpus(&in->sys, 1, 9, 0, "NVIDIA H100");
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);
	str_copy(t->archs, "sm_90 compute_100f", sizeof(t->archs));
	set_gpus(&in->sys, 1, 10, 3, "NVIDIA B300");
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);
	set_gpus(&in->sys, 1, 12, 0, "NVIDIA RTX PRO 6000");
	run(in, &fs, "framework");
	CHECK(find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);
	str_copy(t->archs, "sm_90 compute_100", sizeof(t->archs));
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.arch_unsupported"));
	findings_free(&fs);
	free(in);
}

static void row19_cudnn_shadowed(void)
{
	struct doctor_input *in = h200();
	struct lib_facts *l = &in->facts.libs;
	struct findings fs;

	str_copy(l->ld_library_path, "/opt/cudnn/lib:/usr/local/nvidia/lib64",
		 sizeof(l->ld_library_path));
	memset(&l->libcudnn, 0, sizeof(l->libcudnn));
	cand(&l->libcudnn, "libcudnn.so.9", "/opt/cudnn/lib/libcudnn.so.9",
	     "/opt/cudnn/lib/libcudnn.so.9.1.0", "9.1.0", LIBSRC_LD_LIBRARY_PATH);
	/* negatives: a newer minor is accepted; another major is another soname; the framework's
	 * own wheel folder on LD_LIBRARY_PATH is its own copy; the cache does not shadow */
	str_copy(l->libcudnn.v[0].version, "9.20.0", sizeof(l->libcudnn.v[0].version));
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.cudnn_shadowed"));
	findings_free(&fs);
	memset(&l->libcudnn, 0, sizeof(l->libcudnn));
	cand(&l->libcudnn, "libcudnn.so.8", "/opt/cudnn/lib/libcudnn.so.8",
	     "/opt/cudnn/lib/libcudnn.so.8.9.2", "8.9.2", LIBSRC_LD_LIBRARY_PATH);
	cand(&l->libcudnn, "libcudnn.so.9", VENV_SITE "/nvidia/cudnn/lib/libcudnn.so.9",
	     VENV_SITE "/nvidia/cudnn/lib/libcudnn.so.9.19.0", "9.19.0", LIBSRC_LD_LIBRARY_PATH);
	cand(&l->libcudnn, "libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn.so.9",
	     "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.1.0", "9.1.0", LIBSRC_LDCACHE);
	run(in, &fs, "framework");
	CHECK(!find(&fs, "framework.cudnn_shadowed"));
	CHECK(find(&fs, "framework.ok") != NULL);
	findings_free(&fs);
	free(in);
}

static void framework_other_envs_and_unknowns(void)
{
	struct doctor_input *in = h200();
	struct python_env *e;
	struct findings fs;
	const struct finding *f;

	/* a stale conda env (not active, not on PATH) with a cu130 torch on driver 535: warn */
	driver_set(in, "535.183.01", 12020);
	in->facts.python.v[0].nfw = 0;
	e = &in->facts.python.v[in->facts.python.n++];
	str_copy(e->prefix, "/home/u/miniconda3/envs/old", sizeof(e->prefix));
	str_copy(e->kind, "conda", sizeof(e->kind));
	str_copy(e->site, "/home/u/miniconda3/envs/old/lib/python3.11/site-packages",
		 sizeof(e->site));
	add_fw(e, FW_TORCH, "2.11.0+cu130", "13.0", "");
	run(in, &fs, "framework");
	f = find(&fs, "framework.driver_too_old");
	CHECK(f && f->sev == SEV_WARN);
	CHECK(fix_has(f, "/home/u/miniconda3/envs/old/bin/python -m pip install"));
	findings_free(&fs);

	/* nothing known about the driver: no verdict, and no ok either */
	memset(&in->sys, 0, sizeof(in->sys));
	in->facts.module.version[0] = '\0';
	run(in, &fs, "framework");
	f = find(&fs, "framework.not_judged");
	CHECK(f && f->sev == SEV_INFO);
	CHECK(summary_has(f, "the driver's version is unknown"));
	CHECK(!find(&fs, "framework.ok") && !find(&fs, "framework.driver_too_old"));
	findings_free(&fs);

	/* no frameworks anywhere */
	in->facts.python.n = 1;
	run(in, &fs, "framework");
	f = find(&fs, "framework.ok");
	CHECK(f && summary_has(f, "no PyTorch, TensorFlow or JAX found in 1 Python environment"));
	findings_free(&fs);
	free(in);
}

/* Every id used above is in the catalog with its layer; summaries are one line. */
static void catalog_entries(void)
{
	static const char *const ids[] = {
		"libraries.ok", "libraries.not_compared", "libraries.nvml_missing",
		"libraries.cuda_missing", "libraries.cuda_stub", "libraries.cuda_compat",
		"libraries.version_mismatch", "libraries.shadowed", "toolkit.ok", "toolkit.info",
		"toolkit.newer_than_driver", "toolkit.mismatch_framework",
		"toolkit.cuda_home_missing", "framework.ok", "framework.not_judged",
		"framework.cpu_only", "framework.driver_too_old", "framework.minor_compat",
		"framework.arch_unsupported", "framework.cudnn_shadowed", "env.ok",
		"env.cuda_visible_devices_hides", "env.device_order", "env.bad_cuda_var",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct finding_def *d = finding_def_find(ids[i]);
		const char *dot = strchr(ids[i], '.');

		size_t w;

		CHECK(d != NULL);
		CHECK(strncmp(layer_name(d->layer), ids[i], (size_t)(dot - ids[i])) == 0);
		/* lowercase, except for a name in capitals: CUDA, LD_LIBRARY_PATH */
		for (w = 0; d->title[w] && d->title[w] != ' '; w++)
			CHECK(!islower((unsigned char)d->title[w]) || !isupper((unsigned char)d->title[0]));
		CHECK(d->title[0]);
	}
	CHECK(finding_def_find("libraries.cuda_missing")->symptom);
	CHECK(!finding_def_find("libraries.version_mismatch")->symptom);
}


/* ---- the H200 machine end to end: files -> collectors -> checks ---------------------- */

/* The H200 container's files, as listed in the machine sample: ldconfig's cache, the driver
 * folder from LD_LIBRARY_PATH, /usr/local/cuda through /etc/alternatives to a 13.0 toolkit
 * with only cuda.h to tell its version, the uv venv with torch cu130 and jax. */
static char *h200_files(void)
{
	static const struct ldc_entry cache[] = {
		{"libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", 0x0303},
		{"libnvidia-ml.so.1", "/usr/local/nvidia/lib64/libnvidia-ml.so.1", 0x0303},
		{"libnvidia-ml.so.1", "/lib/libnvidia-ml.so.1", 0x0303},
		{"libnvidia-ml.so", "/usr/local/nvidia/lib64/libnvidia-ml.so", 0x0303},
		{"libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn.so.9", 0x0303},
		{"libcudart.so.13", "/usr/local/cuda/targets/x86_64-linux/lib/libcudart.so.13", 0x0303},
		{"libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1", 0x0303},
		{"libcuda.so.1", "/lib/libcuda.so.1", 0x0303},
		{"libcuda.so", "/usr/local/nvidia/lib64/libcuda.so", 0x0303},
		{"libcuda.so", "/lib/libcuda.so", 0x0303},
	};
	static const char *const driver_dirs[] = {"/usr/local/nvidia/lib64", "/lib"};
	unsigned char buf[4096];
	char *root = fr_new();
	size_t i, n;

	n = ldc_build(buf, sizeof(buf), LDC_NEW, cache, (int)ARRAY_SIZE(cache));
	fr_bytes(root, "/etc/ld.so.cache", buf, n);
	for (i = 0; i < ARRAY_SIZE(driver_dirs); i++) {
		char path[256];

		str_fmt(path, sizeof(path), "%s/libcuda.so.580.159.04", driver_dirs[i]);
		fr_file(root, path, "libcuda");
		str_fmt(path, sizeof(path), "%s/libcuda.so.1", driver_dirs[i]);
		fr_link(root, path, "libcuda.so.580.159.04");
		str_fmt(path, sizeof(path), "%s/libcuda.so", driver_dirs[i]);
		fr_link(root, path, "libcuda.so.1");
		str_fmt(path, sizeof(path), "%s/libnvidia-ml.so.580.159.04", driver_dirs[i]);
		fr_file(root, path, "nvml");
		str_fmt(path, sizeof(path), "%s/libnvidia-ml.so.1", driver_dirs[i]);
		fr_link(root, path, "libnvidia-ml.so.580.159.04");
		str_fmt(path, sizeof(path), "%s/libnvidia-ml.so", driver_dirs[i]);
		fr_link(root, path, "libnvidia-ml.so.1");
	}
	fr_dir(root, "/usr/local/nvidia/lib");
	fr_file(root, "/lib/x86_64-linux-gnu/libz.so.1", "z");
	fr_file(root, "/lib/x86_64-linux-gnu/libcudnn.so.9.14.0", "dnn");
	fr_link(root, "/lib/x86_64-linux-gnu/libcudnn.so.9", "libcudnn.so.9.14.0");
	fr_file(root, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13.0.96", "rt");
	fr_link(root, "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13",
		"libcudart.so.13.0.96");
	fr_file(root, "/usr/local/cuda-13.0/lib64/stubs/libcuda.so", "stub");
	fr_file(root, "/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda.h",
		"#define CUDA_VERSION 13000\n");
	fr_link(root, "/usr/local/cuda-13.0/include", "targets/x86_64-linux/include");
	fr_exec(root, "/usr/local/cuda-13.0/bin/nvcc");
	fr_link(root, "/usr/local/cuda", "/etc/alternatives/cuda");
	fr_link(root, "/etc/alternatives/cuda", "/usr/local/cuda-13.0");
	fr_link(root, "/usr/local/cuda-13", "/etc/alternatives/cuda-13");
	fr_link(root, "/etc/alternatives/cuda-13", "/usr/local/cuda-13.0");
	fr_exec(root, "/usr/bin/python3.12");
	fr_link(root, "/usr/bin/python3", "python3.12");
	fr_dir(root, "/usr/lib/python3/dist-packages");
	fr_file(root, "/opt/torch/.venv/pyvenv.cfg",
		"home = /usr/bin\nimplementation = CPython\nuv = 0.11.15\nversion_info = 3.12.3\n"
		"include-system-site-packages = false\n");
	fr_link(root, "/opt/torch/.venv/bin/python", "/usr/bin/python3.12");
	fr_link(root, "/opt/torch/.venv/bin/python3", "python");
	fr_file(root, VENV_SITE "/torch/version.py",
		"__version__ = '2.11.0+cu130'\ndebug = False\ncuda: Optional[str] = '13.0'\n"
		"hip: Optional[str] = None\n");
	fr_file(root, VENV_SITE "/torch/lib/libtorch_cuda.so", "ELF");
	fr_file(root, VENV_SITE "/torch-2.11.0.dist-info/METADATA",
		"Name: torch\nVersion: 2.11.0\nRequires-Dist: nvidia-cudnn-cu13==9.19.0.56; "
		"platform_system == \"Linux\"\n");
	fr_dir(root, VENV_SITE "/jax");
	fr_dir(root, VENV_SITE "/jax-0.11.2.dist-info");
	fr_dir(root, VENV_SITE "/jax_cuda13_plugin-0.11.2.dist-info");
	fr_file(root, VENV_SITE "/nvidia/cu13/lib/libcublasLt.so.13", "ELF");
	fr_file(root, VENV_SITE "/nvidia/cudnn/lib/libcudnn.so.9", "ELF");
	fr_file(root, VENV_SITE "/nvidia/nccl/lib/libnccl.so.2", "ELF");
	fr_file(root, "/proc/1/comm", "sleep\n");
	fr_file(root, "/proc/276/comm", "nvidia\n");
	fr_facts(root, "env PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:"
		       "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/gcc/bin\n"
		       "env LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib\n"
		       "env LIBRARY_PATH=/usr/local/cuda/lib64/stubs\n"
		       "env CUDA_HOME=/usr/local/cuda\n"
		       "env HOME=/root\n"
		       "env NVIDIA_VISIBLE_DEVICES=0,1\n"
		       "env TORCH_CUDA_ARCH_LIST=9.0a\n"
		       "uname machine x86_64\n");
	return root;
}

static void h200_end_to_end(void)
{
	struct doctor_input *in = h200();
	struct host_facts *h = &in->facts;
	struct findings fs;
	const struct finding *f;
	char *root = h200_files();
	int i;

	fr_use(root);
	/* what platform.c would put in the env facts */
	str_copy(h->env.path, host_getenv("PATH"), sizeof(h->env.path));
	str_copy(h->env.home, host_getenv("HOME"), sizeof(h->env.home));
	libs_collect(&h->libs, &h->env);
	toolkit_collect(&h->toolkit, &h->env);
	python_collect(&h->python, &h->env);
	procs_collect(&h->procs);
	CHECK(h->libs.libcuda.n == 2 && h->libs.libnvml.n == 2);
	CHECK_STR(h->python.v[0].nvidia_libdir, VENV_SITE "/nvidia/cu13/lib");
	CHECK_STR(h->python.v[0].nvidia_nccl_dir, VENV_SITE "/nvidia/nccl/lib");
	CHECK(h->procs.scanned && !h->procs.persistenced_pid);

	run(in, &fs, "libraries");
	run_one("toolkit", in, &fs);
	run_one("framework", in, &fs);
	run_one("env", in, &fs);
	CHECK(fs.n == 4);
	for (i = 0; i < (int)fs.n; i++)
		CHECK(fs.v[i].sev == SEV_OK);
	f = find(&fs, "libraries.ok");
	CHECK(f && summary_has(f, "libnvidia-ml 580.159.04 and libcuda 580.159.04 from "
				  "/usr/local/nvidia/lib64 match the kernel module"));
	f = find(&fs, "framework.ok");
	CHECK(f && summary_has(f, "torch 2.11.0+cu130 (CUDA 13.0, sm_75-sm_120) in "
				  "/opt/torch/.venv; jax 0.11.2 (CUDA 13) in /opt/torch/.venv"));
	CHECK(summary_has(find(&fs, "toolkit.ok"), "CUDA toolkit 13.0 at /usr/local/cuda-13.0"));
	CHECK(find(&fs, "env.ok") != NULL);
	findings_free(&fs);
	free(in);
	fr_free(root);
}

/* ---- issue 8: values from the machine are quoted in fix commands ------------------------ */

/* Paths, versions and folders are whoever-controls-the-machine's choice: pasted, a fix must
 * not run what they hold. */
static void machine_values_quoted_in_fixes(void)
{
	struct doctor_input *in = h200();
	struct lib_facts *l = &in->facts.libs;
	struct toolkit_facts *t = &in->facts.toolkit;
	struct framework *torch = &in->facts.python.v[0].fw[0];
	struct findings fs;
	const struct finding *f;

	/* the driver branch of a package name comes from the module's version */
	in->facts.platform.container = false;
	str_copy(in->facts.module.version, "58$(id).1", sizeof(in->facts.module.version));
	memset(&l->libnvml, 0, sizeof(l->libnvml));
	in->sys.nvml_lib.loaded = false;
	run(in, &fs, "libraries");
	f = find(&fs, "libraries.nvml_missing");
	CHECK(fix_has(f, "sudo apt install 'libnvidia-compute-58$(id)' && sudo ldconfig"));
	findings_free(&fs);
	free(in);

	/* a compat libcuda from the loader cache: its path goes to dpkg -S and rpm -qf */
	in = h200();
	l = &in->facts.libs;
	memset(&l->libcuda, 0, sizeof(l->libcuda));
	cand(&l->libcuda, "libcuda.so.1", "/opt/o'brien/compat/libcuda.so.1",
	     "/opt/o'brien/compat/libcuda.so.590.44.01", "590.44.01", LIBSRC_LDCACHE);
	str_copy(in->sys.cuda_lib.path, "/opt/o'brien/compat/libcuda.so.590.44.01",
		 sizeof(in->sys.cuda_lib.path));
	reason_set_call(&in->sys.cuda_init, LIB_CUDA, "cuInit", 804);
	run(in, &fs, "libraries");
	f = find(&fs, "libraries.cuda_compat");
	CHECK(fix_has(f, "`dpkg -S '/opt/o'\\''brien/compat/libcuda.so.590.44.01'`"));
	findings_free(&fs);

	/* a stub found through the loader configuration: the folder is grep's fixed string */
	memset(&l->libcuda, 0, sizeof(l->libcuda));
	cand(&l->libcuda, "libcuda.so.1", "/opt/a b/stubs/libcuda.so.1", "/opt/a b/stubs/libcuda.so",
	     "", LIBSRC_LDCACHE);
	in->sys.cuda_lib.loaded = false;
	in->sys.cuda_lib.attempted = false;
	reason_set_call(&in->sys.cuda_init, LIB_CUDA, "cuInit", 34);
	run(in, &fs, "libraries");
	f = find(&fs, "libraries.cuda_stub");
	CHECK(fix_has(f, "`grep -rlF '/opt/a b/stubs' /etc/ld.so.conf /etc/ld.so.conf.d`"));
	findings_free(&fs);
	free(in);

	/* toolkit folders for CUDA_HOME and PATH; $PATH itself stays for the shell */
	in = h200();
	t = &in->facts.toolkit;
	str_copy(t->v[0].path, "/opt/cuda $(id)", sizeof(t->v[0].path));
	str_copy(t->cuda_home, "/usr/local/cuda-12.9", sizeof(t->cuda_home));
	t->cuda_home_real[0] = t->cuda_home_version[0] = '\0';
	run(in, &fs, "toolkit");
	CHECK(fix_has(find(&fs, "toolkit.cuda_home_missing"), "`export CUDA_HOME='/opt/cuda $(id)'`"));
	findings_free(&fs);
	free(in);

	in = h200();
	t = &in->facts.toolkit;
	str_copy(in->facts.python.v[0].fw[0].version, "2.9.1+cu126", 64);
	str_copy(in->facts.python.v[0].fw[0].cuda, "12.6", 16);
	str_copy(t->v[1].path, "/opt/cuda 12.6", sizeof(t->v[1].path));
	str_copy(t->v[1].version, "12.6.3", sizeof(t->v[1].version));
	t->n = 2;
	run(in, &fs, "toolkit");
	CHECK(fix_has(find(&fs, "toolkit.mismatch_framework"),
		      "`export CUDA_HOME='/opt/cuda 12.6' PATH='/opt/cuda 12.6/bin':$PATH`"));
	findings_free(&fs);
	free(in);

	/* a Python environment's interpreter */
	in = h200();
	torch = &in->facts.python.v[0].fw[0];
	str_copy(in->facts.python.v[0].prefix, "/home/a b/.venv", sizeof(in->facts.python.v[0].prefix));
	str_copy(torch->version, "2.11.0+cpu", sizeof(torch->version));
	torch->cuda[0] = '\0';
	torch->cpu_only = true;
	run(in, &fs, "framework");
	CHECK(fix_has(find(&fs, "framework.cpu_only"),
		      "`'/home/a b/.venv/bin/python3' -m pip install --force-reinstall torch"));
	findings_free(&fs);
	free(in);
}

int main(void)
{
	RUN(h200_end_to_end);
	RUN(row12_cuda_missing_without_probe);
	RUN(row16_cpu_only);
	RUN(row15_driver_too_old);
	RUN(row15_minor_version_compat);
	RUN(row20_arch_unsupported);
	RUN(row19_cudnn_shadowed);
	RUN(framework_other_envs_and_unknowns);
	RUN(catalog_entries);
	RUN(machine_values_quoted_in_fixes);
	return TEST_DONE();
}
