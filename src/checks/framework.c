/*
 * framework.c: will the installed PyTorch, TensorFlow and JAX builds run here? Each build is
 * judged against the driver (the CUDA it was built for needs a minimum driver, section 2 of
 * the catalog) and against the GPUs (the build carries kernels for a list of architectures,
 * row 20); also CPU-only builds (row 16) and an older cuDNN on LD_LIBRARY_PATH (row 19).
 *
 * The facts come from files (host/python.c), never from importing a framework. Three CUDA
 * numbers are kept apart in every message (lesson 5): the driver's maximum (cuDriverGetVersion),
 * the framework's build CUDA, and the toolkit (checks/toolkit.c). Driver versions are compared
 * as full dotted versions against the floors below, by OS column (lesson 6): under WSL2 the
 * driver is the Windows one and carries Windows numbering.
 *
 * Environments that are neither active nor the python3 on PATH are still judged, but their
 * findings stop at warnings: a stale conda environment should not fail the machine.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../util/quote.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"
#include "fixes.h"

static const struct finding_def defs[] = {
	{"framework.ok", LAYER_FRAMEWORK, "framework builds run on this driver and these GPUs",
	 false},
	{"framework.not_judged", LAYER_FRAMEWORK,
	 "framework builds not judged: the driver or the GPUs are unknown", false},
	{"framework.cpu_only", LAYER_FRAMEWORK, "a framework build without CUDA support", false},
	{"framework.driver_too_old", LAYER_FRAMEWORK,
	 "a framework built for a newer CUDA than the driver runs", false},
	{"framework.minor_compat", LAYER_FRAMEWORK,
	 "a framework that runs by CUDA minor-version compatibility", false},
	{"framework.arch_unsupported", LAYER_FRAMEWORK,
	 "a framework build without kernels for this GPU", false},
	{"framework.cudnn_shadowed", LAYER_FRAMEWORK,
	 "an older cuDNN on LD_LIBRARY_PATH replaces the framework's", false},
};

static void run_framework(const struct doctor_input *in, struct findings *out);

const struct check check_framework = {
	.name = "framework",
	.layer = LAYER_FRAMEWORK,
	.run = run_framework,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

/*
 * CUDA Toolkit Release Notes, Table 2: the lowest driver of each CUDA family under minor-version
 * compatibility. Windows: 528.33 and 452.39 from the older notes; the CUDA 13 notes give no
 * Windows floor (the toolkit no longer bundles a Windows driver).
 */
static const struct {
	int major;
	const char *linux_driver, *windows_driver;
} family_floors[] = {
	{13, "580.65.06", NULL},
	{12, "525.60.13", "528.33"},
	{11, "450.80.02", "452.39"},
};

/*
 * Table 3: the driver each toolkit release shipped with, the one that supports all of its
 * features (below it, PTX JIT from that release fails with error 222). Update 0 is GA.
 * There is no CUDA 12.7.
 */
static const struct {
	const char *cuda;
	int update;
	const char *linux_driver, *windows_driver;
} releases[] = {
	{"13.2", 2, "595.71.05", NULL},	      {"13.2", 1, "595.58.03", NULL},
	{"13.2", 0, "595.45.04", NULL},	      {"13.1", 1, "590.48.01", NULL},
	{"13.1", 0, "590.44.01", NULL},	      {"13.0", 2, "580.95.05", NULL},
	{"13.0", 1, "580.82.07", NULL},	      {"13.0", 0, "580.65.06", NULL},
	{"12.9", 1, "575.57.08", "576.57"},   {"12.9", 0, "575.51.03", "576.02"},
	{"12.8", 1, "570.124.06", "572.61"},  {"12.8", 0, "570.26", "570.65"},
	{"12.6", 3, "560.35.05", "561.17"},   {"12.6", 2, "560.35.03", "560.94"},
	{"12.6", 1, "560.35.03", "560.94"},   {"12.6", 0, "560.28.03", "560.76"},
	{"12.5", 1, "555.42.06", "555.85"},   {"12.5", 0, "555.42.02", "555.85"},
	{"12.4", 1, "550.54.15", "551.78"},   {"12.4", 0, "550.54.14", "551.61"},
	{"12.3", 1, "545.23.08", "546.12"},   {"12.3", 0, "545.23.06", "545.84"},
	{"12.2", 2, "535.104.05", "537.13"},  {"12.2", 1, "535.86.09", "536.67"},
	{"12.2", 0, "535.54.03", "536.25"},   {"12.1", 1, "530.30.02", "531.14"},
	{"12.1", 0, "530.30.02", "531.14"},   {"12.0", 1, "525.85.12", "528.33"},
	{"12.0", 0, "525.60.13", "527.41"},   {"11.8", 0, "520.61.05", "520.06"},
	{"11.7", 1, "515.48.07", "516.31"},   {"11.7", 0, "515.43.04", "516.01"},
	{"11.6", 2, "510.47.03", "511.65"},   {"11.6", 1, "510.47.03", "511.65"},
	{"11.6", 0, "510.39.01", "511.23"},   {"11.5", 2, "495.29.05", "496.13"},
	{"11.5", 1, "495.29.05", "496.13"},   {"11.5", 0, "495.29.05", "496.04"},
	{"11.4", 4, "470.82.01", "472.50"},   {"11.4", 3, "470.82.01", "472.50"},
	{"11.4", 2, "470.57.02", "471.41"},   {"11.4", 1, "470.57.02", "471.41"},
	{"11.4", 0, "470.42.01", "471.11"},   {"11.3", 1, "465.19.01", "465.89"},
	{"11.3", 0, "465.19.01", "465.89"},   {"11.2", 2, "460.32.03", "461.33"},
	{"11.2", 1, "460.32.03", "461.09"},   {"11.2", 0, "460.27.03", "460.82"},
	{"11.1", 1, "455.32", "456.81"},      {"11.1", 0, "455.23", "456.38"},
	{"11.0", 1, "450.51.06", "451.82"},   {"11.0", 0, "450.51.05", "451.48"},
};

/*
 * PyTorch's release wheels per CUDA variant and the architectures they carry (their
 * TORCH_CUDA_ARCH_LIST). Catalog row 20, for PyTorch 2.9: cu126 = 5.0-9.0, cu128 = 7.0-12.0,
 * cu130 = 7.5-12.0 plus PTX. Lists change between releases; evidence says where they came
 * from.
 */
static const struct {
	const char *tag, *cuda, *archs;
} torch_builds[] = {
	{"cu130", "13.0", "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120"},
	{"cu129", "12.9", "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"},
	{"cu128", "12.8", "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"},
	{"cu126", "12.6", "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"},
	{"cu124", "12.4", "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"},
	{"cu121", "12.1", "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"},
	{"cu118", "11.8", "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"},
};

/*
 * Which wheel to tell people to install, in order of preference: the newest one the driver
 * fully supports; else one it runs by minor-version compatibility, the lowest minor first
 * (fewest features past the driver: cu126 on R535, as PyTorch itself expects); cu118 last,
 * for drivers older than the CUDA 12 floor (it stops at PyTorch 2.7).
 */
static const struct {
	const char *tag;
	bool minor_compat_ok;
} torch_prefs[] = {
	{"cu130", false}, {"cu128", false}, {"cu126", false},
	{"cu126", true},  {"cu128", true},  {"cu118", true},
};

#define MAX_CCS 64

/* What every framework is judged against. */
struct judge {
	const struct doctor_input *in;
	char driver[64];	/* dotted driver version, "" unknown */
	const char *driver_src; /* where it was read */
	int cuda_max;		/* the driver's maximum CUDA, 13000 = 13.0; 0 unknown */
	bool wsl;
	int ccs[MAX_CCS];	/* distinct compute capabilities, major*10+minor */
	int nccs;
};

static const char *fw_name(enum fw_kind k)
{
	return k == FW_TORCH ? "torch" : k == FW_TENSORFLOW ? "tensorflow" : "jax";
}

/* conda installs and broken ones can lack a dist-info folder */
static const char *fw_version(const struct framework *f)
{
	return f->version[0] ? f->version : "(version unknown)";
}

static bool has_minor(const char *cuda)
{
	return strchr(cuda, '.') != NULL;
}

static const char *family_floor(int major, bool wsl)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(family_floors); i++)
		if (family_floors[i].major == major)
			return wsl ? family_floors[i].windows_driver : family_floors[i].linux_driver;
	return NULL;
}

/* The driver CUDA X.Y shipped with (GA), by OS column; NULL when not in the table. */
static const char *release_driver(int cuda, bool wsl)
{
	char mm[16];
	size_t i;

	str_fmt(mm, sizeof(mm), "%d.%d", cuda / 1000, cuda % 1000 / 10);
	for (i = 0; i < ARRAY_SIZE(releases); i++)
		if (str_eq(releases[i].cuda, mm) && releases[i].update == 0)
			return wsl ? releases[i].windows_driver : releases[i].linux_driver;
	return NULL;
}

enum runs { RUNS_UNKNOWN = -1, RUNS_NO = 0, RUNS_YES, RUNS_MINOR_COMPAT };

/* Does a build for CUDA `cuda` ("12.4", or a major alone: "12") run on this driver? */
static enum runs driver_runs(const struct judge *j, const char *cuda, const char **floor_out)
{
	const int want = cuda_version_num(cuda);
	const char *floor, *rel;

	*floor_out = NULL;
	if (!want)
		return RUNS_UNKNOWN;
	floor = family_floor(want / 1000, j->wsl);
	if (j->driver[0] && floor) {
		*floor_out = floor;
		if (version_cmp(j->driver, floor) < 0)
			return RUNS_NO;
		rel = has_minor(cuda) ? release_driver(want, j->wsl) : NULL;
		if (rel && version_cmp(j->driver, rel) < 0)
			return RUNS_MINOR_COMPAT;
		if (!rel && has_minor(cuda) && j->cuda_max && want > j->cuda_max)
			return RUNS_MINOR_COMPAT;
		return RUNS_YES;
	}
	if (!j->cuda_max)
		return RUNS_UNKNOWN;
	*floor_out = floor;
	if (want / 1000 > j->cuda_max / 1000)
		return RUNS_NO;
	if (has_minor(cuda) && want > j->cuda_max)
		return RUNS_MINOR_COMPAT;
	return RUNS_YES;
}

/*
 * Does code for XY (v) run on capability cc? sm_XY (SASS) runs on X.Z for Z >= Y, as does
 * family code (sm_XYf, compute_XYf); arch-specific code (sm_XYa, compute_XYa) only on X.Y;
 * plain compute_XY (PTX) is JIT-compiled for anything at X.Y or newer.
 */
static bool arch_runs(int v, bool ptx, char suffix, int cc)
{
	if (suffix == 'a')
		return v == cc;
	if (ptx && suffix != 'f')
		return v <= cc;
	return v / 10 == cc / 10 && v % 10 <= cc % 10;
}

/* Does any entry of archs ("sm_80 compute_90 ...") run on capability cc? */
static bool arch_covers(const char *archs, int cc)
{
	const char *p = archs;

	while (*p) {
		bool ptx = false;
		int v = 0;
		char suffix;

		while (*p == ' ')
			p++;
		if (str_starts(p, "sm_")) {
			p += 3;
		} else if (str_starts(p, "compute_")) {
			p += 8;
			ptx = true;
		} else {
			while (*p && *p != ' ')
				p++;
			continue;
		}
		while (isdigit((unsigned char)*p))
			v = v * 10 + (*p++ - '0');
		suffix = *p;
		while (*p && *p != ' ')
			p++;
		if (!v)
			continue;
		if (arch_runs(v, ptx, suffix, cc))
			return true;
	}
	return false;
}

/* "sm_75-sm_120" from the first and last sm_ entries. */
static void arch_range(const char *archs, char *out, size_t n)
{
	char first[16] = "", last[16] = "";
	const char *p = archs;

	while ((p = strstr(p, "sm_")) != NULL) {
		size_t len = strcspn(p, " ");

		if (!first[0])
			str_copy(first, p, sizeof(first) < len + 1 ? sizeof(first) : len + 1);
		str_copy(last, p, sizeof(last) < len + 1 ? sizeof(last) : len + 1);
		p += len;
	}
	if (!first[0])
		str_copy(out, archs, n);
	else if (str_eq(first, last))
		str_copy(out, first, n);
	else
		str_fmt(out, n, "%s-%s", first, last);
}

static const char *torch_build_archs(const char *cuda)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(torch_builds); i++)
		if (str_eq(torch_builds[i].cuda, cuda))
			return torch_builds[i].archs;
	return NULL;
}

/* The framework's arch list: read from its files, or PyTorch's list for its CUDA variant. */
static const char *fw_archs(const struct framework *f, bool *from_table)
{
	*from_table = false;
	if (f->archs[0])
		return f->archs;
	if (f->kind == FW_TORCH && f->cuda[0] && !f->rocm) {
		*from_table = true;
		return torch_build_archs(f->cuda);
	}
	return NULL;
}

/* The PyTorch wheel variant to recommend: one this driver runs, with kernels for every GPU. */
static const char *choose_torch_build(const struct judge *j)
{
	size_t p, i;
	int k;

	for (p = 0; p < ARRAY_SIZE(torch_prefs); p++) {
		const char *floor;
		enum runs r;

		for (i = 0; i < ARRAY_SIZE(torch_builds); i++)
			if (str_eq(torch_builds[i].tag, torch_prefs[p].tag))
				break;
		if (i == ARRAY_SIZE(torch_builds))
			continue;
		r = driver_runs(j, torch_builds[i].cuda, &floor);
		if (!(r == RUNS_YES || (torch_prefs[p].minor_compat_ok && r == RUNS_MINOR_COMPAT)))
			continue;
		for (k = 0; k < j->nccs; k++)
			if (!arch_covers(torch_builds[i].archs, j->ccs[k]))
				break;
		if (k == j->nccs)
			return torch_builds[i].tag;
	}
	return NULL;
}

static void cuda_text(int v, char *out, size_t n)
{
	if (v)
		str_fmt(out, n, "%d.%d", v / 1000, v % 1000 / 10);
	else
		str_copy(out, "unknown", n);
}

/* Where a human finds the environment: the venv/conda prefix, or the site folder. */
static const char *env_label(const struct python_env *e)
{
	return str_eq(e->kind, "venv") || str_eq(e->kind, "conda") ? e->prefix : e->site;
}

/* "<python> -m pip install [--user]": the environment's own interpreter, its path quoted for
 * the shell (a folder name is anybody's choice). */
static void pip_install(const struct python_env *e, char *out, size_t n)
{
	if (str_eq(e->kind, "venv") || str_eq(e->kind, "conda")) {
		char *python = xasprintf("%s/bin/%s", e->prefix,
					 str_eq(e->kind, "venv") ? "python3" : "python");
		char *q = quote_shell(python);

		/* too long for out: a placeholder, as half a quoted word is worse than none */
		if (str_fmt(out, n, "%s -m pip install", q) >= (int)n)
			str_copy(out, "<python of the environment> -m pip install", n);
		free(q);
		free(python);
	} else if (str_eq(e->kind, "user"))
		str_copy(out, "python3 -m pip install --user", n);
	else
		str_copy(out, "python3 -m pip install", n);
}

/* The command that installs a CUDA build of f that runs here, or NULL when none does. */
static bool install_cmd(const struct judge *j, const struct python_env *e,
			const struct framework *f, char *out, size_t n)
{
	char pip[640];
	const char *floor;

	pip_install(e, pip, sizeof(pip));
	if (f->kind == FW_TORCH) {
		const char *tag = choose_torch_build(j);

		if (!tag)
			return false;
		str_fmt(out, n,
			"%s --force-reinstall torch --index-url https://download.pytorch.org/whl/%s",
			pip, tag);
		return true;
	}
	if (f->kind == FW_JAX) {
		const char *major = driver_runs(j, "13", &floor) == RUNS_YES   ? "13"
				    : driver_runs(j, "12", &floor) == RUNS_YES ? "12"
									       : NULL;

		if (!major)
			return false;
		str_fmt(out, n, "%s -U \"jax[cuda%s]\"", pip, major);
		return true;
	}
	str_fmt(out, n, "%s \"tensorflow[and-cuda]\"", pip);
	return true;
}

static void driver_upgrade(const struct judge *j, int major, char *out, size_t n)
{
	char pkg[64], cmd[160];

	/* R580 is the branch for CUDA 13; R535 the long-term branch for CUDA 12 */
	str_fmt(pkg, sizeof(pkg), "nvidia-driver-%s",
		major >= 13 ? "580" : major == 12 ? "535" : "470");
	if (j->wsl)
		str_copy(out, "update the NVIDIA driver on Windows", n);
	else if (j->in->facts.platform.container)
		str_copy(out, "upgrade the host's NVIDIA driver (the container uses the host's)", n);
	else
		str_fmt(out, n, "upgrade the driver (`%s`, then reboot)",
			fix_install(&j->in->facts.platform, pkg, "nvidia-driver", cmd, sizeof(cmd)));
}

static void evidence_build(struct finding *f, const struct framework *fw)
{
	if (fw->kind == FW_TORCH)
		finding_evidence(f, "%s/version.py: __version__ = '%s', cuda = %s%s%s%s", fw->path,
				 fw->version, fw->cuda[0] ? "'" : "", fw->cuda[0] ? fw->cuda : "None",
				 fw->cuda[0] ? "'" : "", fw->rocm ? ", hip set (ROCm)" : "");
	else if (fw->kind == FW_TENSORFLOW)
		finding_evidence(f, "%s/python/platform/build_info.py: cuda_version = '%s'%s",
				 fw->path, fw->cuda,
				 fw->cpu_only ? ", is_cuda_build = False" : "");
	else if (fw->cuda[0])
		finding_evidence(f, "%s: jax-cuda%s-plugin installed", fw->path, fw->cuda);
	else
		finding_evidence(f, "%s: no jax-cuda12-plugin or jax-cuda13-plugin installed",
				 fw->path);
}

static void evidence_driver(struct finding *f, const struct judge *j)
{
	char c[16];

	if (j->driver[0])
		finding_evidence(f, "%s: %s", j->driver_src, j->driver);
	if (j->cuda_max) {
		cuda_text(j->cuda_max, c, sizeof(c));
		finding_evidence(f, "cuDriverGetVersion: %d (the driver supports CUDA up to %s)",
				 j->cuda_max, c);
	}
}

static enum severity capped(enum severity s, bool primary)
{
	return !primary && s > SEV_WARN ? SEV_WARN : s;
}

static void judge_cpu_only(const struct judge *j, struct findings *out, const struct python_env *e,
			   const struct framework *fw, bool primary)
{
	struct finding *f;
	char cmd[1024];

	if (fw->rocm)
		f = finding_add(out, "framework.cpu_only", capped(SEV_WARN, primary), -1,
				"%s %s in %s is a ROCm (AMD) build: it cannot use NVIDIA GPUs",
				fw_name(fw->kind), fw_version(fw), env_label(e));
	else
		f = finding_add(out, "framework.cpu_only", capped(SEV_WARN, primary), -1,
				"%s %s in %s is a CPU-only build: it cannot use the GPUs",
				fw_name(fw->kind), fw_version(fw),
				env_label(e));
	evidence_build(f, fw);
	if (install_cmd(j, e, fw, cmd, sizeof(cmd)))
		finding_fix(f, 0, "Install a CUDA build that this driver runs: `%s`.", cmd);
	else
		finding_fix(f, 0, "No current CUDA build of %s runs on this driver: upgrade the "
				  "driver first.",
			    fw_name(fw->kind));
}

static void judge_driver(const struct judge *j, struct findings *out, const struct python_env *e,
			 const struct framework *fw, bool primary, bool *judged)
{
	const char *floor = NULL, *rel;
	char have[16], cmd[1024], up[256];
	struct finding *f;
	enum runs r = driver_runs(j, fw->cuda, &floor);

	if (r == RUNS_UNKNOWN) {
		*judged = false;
		return;
	}
	cuda_text(j->cuda_max, have, sizeof(have));
	if (r == RUNS_NO) {
		f = finding_add(out, "framework.driver_too_old", capped(SEV_FAIL, primary), -1,
				"%s %s in %s is built for CUDA %s, which needs driver %s or newer; "
				"this driver is %s (supports CUDA up to %s)",
				fw_name(fw->kind), fw_version(fw), env_label(e), fw->cuda,
				floor ? floor : "(newer)", j->driver[0] ? j->driver : "older", have);
		evidence_build(f, fw);
		evidence_driver(f, j);
		driver_upgrade(j, cuda_version_num(fw->cuda) / 1000, up, sizeof(up));
		if (install_cmd(j, e, fw, cmd, sizeof(cmd)))
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "Either %s, or install the build this driver runs: `%s`.", up,
				    cmd);
		else
			finding_fix(f, FIX_ROOT | FIX_REBOOT, "Either %s, or install an older %s "
							      "built for CUDA %s or earlier.",
				    up, fw_name(fw->kind), have);
		return;
	}
	if (r != RUNS_MINOR_COMPAT)
		return;
	rel = release_driver(cuda_version_num(fw->cuda), j->wsl);
	f = finding_add(out, "framework.minor_compat", SEV_INFO, -1,
			"%s %s in %s is built for CUDA %s, newer than this driver's CUDA %s: it "
			"runs by minor-version compatibility, but PTX compiled at run time can fail "
			"(error 222)",
			fw_name(fw->kind), fw_version(fw), env_label(e), fw->cuda, have);
	evidence_build(f, fw);
	evidence_driver(f, j);
	if (rel)
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "Nothing is required. For every feature of CUDA %s, upgrade the driver to "
			    "%s or newer (the one CUDA %s shipped with).",
			    fw->cuda, rel, fw->cuda);
}

static void judge_arch(const struct judge *j, struct findings *out, const struct python_env *e,
		       const struct framework *fw, bool primary, bool *judged)
{
	const struct gpu_system *sys = &j->in->sys;
	bool from_table;
	const char *archs = fw_archs(fw, &from_table);
	char range[64], cmd[1024];
	unsigned i;

	if (!archs) {
		/* JAX builds and unknown PyTorch variants: nothing to compare with */
		return;
	}
	if (!j->nccs) {
		*judged = false;
		return;
	}
	arch_range(archs, range, sizeof(range));
	for (i = 0; i < (sys->ngpus ? sys->ngpus : sys->ncuda); i++) {
		const struct num *maj = sys->ngpus ? &sys->gpus[i].st.cc_major : &sys->cuda_devs[i].cc_major;
		const struct num *min = sys->ngpus ? &sys->gpus[i].st.cc_minor : &sys->cuda_devs[i].cc_minor;
		int cc;
		struct finding *f;

		if (!num_ok(maj) || !num_ok(min))
			continue;
		cc = (int)(maj->v * 10 + min->v);
		if (arch_covers(archs, cc))
			continue;
		f = finding_add(out, "framework.arch_unsupported", capped(SEV_FAIL, primary),
				sys->ngpus ? (int)i : -1,
				"%s %s in %s has no kernels for compute capability %d.%d (sm_%d): its "
				"build covers %s",
				fw_name(fw->kind), fw_version(fw), env_label(e), cc / 10, cc % 10, cc,
				range);
		finding_evidence(f, "%s: %d.%d",
				 sys->ngpus ? "nvmlDeviceGetCudaComputeCapability"
					    : "cuDeviceGetAttribute(compute capability)",
				 cc / 10, cc % 10);
		if (from_table)
			finding_evidence(f, "arch list: %s (PyTorch release builds for CUDA %s, as "
					    "of PyTorch 2.9; libtorch_cuda.so itself is not read)",
					 archs, fw->cuda);
		else
			finding_evidence(f, "%s/python/platform/build_info.py: "
					    "cuda_compute_capabilities = %s",
					 fw->path, archs);
		if (install_cmd(j, e, fw, cmd, sizeof(cmd)) && fw->kind == FW_TORCH)
			finding_fix(f, 0, "Install a build with kernels for sm_%d that this driver "
					  "runs: `%s`.",
				    cc, cmd);
		else
			finding_fix(f, 0, "Install a %s build that lists sm_%d (or PTX for an "
					  "older architecture), or upgrade the driver so that one "
					  "runs.",
				    fw_name(fw->kind), cc);
	}
}

/* "9.19.0.56" -> major 9, minor 19; false when not at least major.minor */
static bool major_minor(const char *v, int *major, int *minor)
{
	char *end;
	long a, b;

	if (!isdigit((unsigned char)*v))
		return false;
	a = strtol(v, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return false;
	b = strtol(end + 1, NULL, 10);
	*major = (int)a;
	*minor = (int)b;
	return true;
}

static void judge_cudnn(const struct judge *j, struct findings *out, const struct python_env *e,
			const struct framework *fw, bool primary)
{
	const struct lib_facts *l = &j->in->facts.libs;
	int wmaj, wmin, i;

	if (!fw->cudnn_pin[0] || !major_minor(fw->cudnn_pin, &wmaj, &wmin))
		return;
	for (i = 0; i < l->libcudnn.n; i++) {
		const struct lib_candidate *c = &l->libcudnn.v[i];
		int fmaj, fmin;
		struct finding *f;
		char dir[512], soname[32];
		const char *slash;
		size_t len;

		if (c->src != LIBSRC_LD_LIBRARY_PATH)
			break; /* past LD_LIBRARY_PATH the framework's own copy wins */
		if (str_starts(c->real, e->site) || !major_minor(c->version, &fmaj, &fmin))
			continue;
		/* the framework asks for libcudnn.so.<major>: another major is not a candidate */
		str_fmt(soname, sizeof(soname), "libcudnn.so.%d", wmaj);
		if (fmaj != wmaj || !str_eq(c->name, soname) || fmin >= wmin)
			continue;
		slash = strrchr(c->path, '/');
		len = slash ? (size_t)(slash - c->path) : strlen(c->path);
		str_copy(dir, c->path, len + 1 < sizeof(dir) ? len + 1 : sizeof(dir));
		f = finding_add(out, "framework.cudnn_shadowed", capped(SEV_WARN, primary), -1,
				"cuDNN %s in %s (from LD_LIBRARY_PATH) is found before the cuDNN %s "
				"that %s %s in %s needs",
				c->version, dir, fw->cudnn_pin, fw_name(fw->kind), fw_version(fw),
				env_label(e));
		finding_evidence(f, "LD_LIBRARY_PATH: %s", l->ld_library_path);
		finding_evidence(f, "%s -> %s", c->path, c->real);
		finding_evidence(f, "%s: Requires-Dist nvidia-cudnn-cu*==%s", fw->path, fw->cudnn_pin);
		finding_fix(f, 0,
			    "Remove %s from LD_LIBRARY_PATH (where it is set: ~/.bashrc, a module "
			    "file, the job script), so %s loads the cuDNN it ships with.",
			    dir, fw_name(fw->kind));
		return;
	}
}

static void judge_init(struct judge *j, const struct doctor_input *in)
{
	const struct gpu_system *sys = &in->sys;
	unsigned i;
	int k;

	memset(j, 0, sizeof(*j));
	j->in = in;
	j->wsl = in->facts.platform.wsl;
	if (in->facts.module.version[0]) {
		str_copy(j->driver, in->facts.module.version, sizeof(j->driver));
		j->driver_src = "/proc/driver/nvidia/version";
	} else if (text_ok(&sys->driver_version) && sys->driver_version.s[0]) {
		str_copy(j->driver, sys->driver_version.s, sizeof(j->driver));
		j->driver_src = "nvmlSystemGetDriverVersion";
	}
	if (num_ok(&sys->cuda_version) && sys->cuda_version.v > 0)
		j->cuda_max = (int)sys->cuda_version.v;
	else if (num_ok(&sys->cuda_driver_version) && sys->cuda_driver_version.v > 0)
		j->cuda_max = (int)sys->cuda_driver_version.v;
	for (i = 0; i < (sys->ngpus ? sys->ngpus : sys->ncuda); i++) {
		const struct num *maj = sys->ngpus ? &sys->gpus[i].st.cc_major : &sys->cuda_devs[i].cc_major;
		const struct num *min = sys->ngpus ? &sys->gpus[i].st.cc_minor : &sys->cuda_devs[i].cc_minor;
		int cc;

		if (!num_ok(maj) || !num_ok(min))
			continue;
		cc = (int)(maj->v * 10 + min->v);
		for (k = 0; k < j->nccs && j->ccs[k] != cc; k++)
			;
		if (k == j->nccs && j->nccs < MAX_CCS)
			j->ccs[j->nccs++] = cc;
	}
}

static bool any_primary(const struct python_facts *py)
{
	int i;

	for (i = 0; i < py->n; i++)
		if (py->v[i].active || py->v[i].on_path)
			return true;
	return false;
}

/* The Python environments searched, for an ok line's facts (doctor -v, --json). */
static void evidence_envs(struct finding *f, const struct python_facts *py)
{
	int i;

	for (i = 0; i < py->n && i < 8; i++)
		finding_evidence(f, "%s (%s%s%s): %d framework%s", py->v[i].site[0] ? py->v[i].site : py->v[i].prefix,
				 py->v[i].kind, py->v[i].active ? ", active" : "",
				 py->v[i].on_path ? ", python3 on PATH" : "", py->v[i].nfw,
				 py->v[i].nfw == 1 ? "" : "s");
	if (!py->n)
		finding_evidence(f, "Python environments: none found");
}

/* "torch 2.11.0+cu130 (CUDA 13.0, sm_75-sm_120) in /opt/torch/.venv" */
static void describe(const struct python_env *e, const struct framework *fw, char *out, size_t n)
{
	bool from_table;
	const char *archs = fw_archs(fw, &from_table);
	char range[64] = "";

	if (archs)
		arch_range(archs, range, sizeof(range));
	str_fmt(out, n, "%s %s (CUDA %s%s%s) in %s", fw_name(fw->kind), fw_version(fw), fw->cuda,
		range[0] ? ", " : "", range, env_label(e));
}

static void summarise(const struct judge *j, const struct python_facts *py, struct findings *out,
		      bool all_judged, const char *not_judged_why)
{
	const bool primary_exists = any_primary(py);
	char text[1024] = "", one[700];
	struct finding *f;
	int i, k, shown = 0, total = 0, cuda_fws = 0;

	for (i = 0; i < py->n; i++) {
		for (k = 0; k < py->v[i].nfw; k++) {
			const struct framework *fw = &py->v[i].fw[k];

			total++;
			cuda_fws += fw->cuda[0] != '\0';
			if (!fw->cuda[0] || (primary_exists && !py->v[i].active && !py->v[i].on_path))
				continue;
			if (shown++ < 3) {
				describe(&py->v[i], fw, one, sizeof(one));
				if (text[0])
					str_append(text, "; ", sizeof(text));
				str_append(text, one, sizeof(text));
			}
		}
	}
	if (cuda_fws && !all_judged) {
		f = finding_add(out, "framework.not_judged", SEV_INFO, -1,
				"whether the CUDA frameworks run here could not be judged: %s",
				not_judged_why);
		evidence_driver(f, j);
		evidence_envs(f, py);
		return;
	}
	if (!total) {
		f = finding_add(out, "framework.ok", SEV_OK, -1,
				"no PyTorch, TensorFlow or JAX found in %d Python environment%s", py->n,
				py->n == 1 ? "" : "s");
		evidence_envs(f, py);
		return;
	}
	if (!text[0]) {
		f = finding_add(out, "framework.ok", SEV_OK, -1,
				"%d framework install%s found, none of them in the active Python "
				"environment",
				total, total == 1 ? "" : "s");
		evidence_envs(f, py);
		return;
	}
	if (shown > 3) {
		str_fmt(one, sizeof(one), "; and %d more", shown - 3);
		str_append(text, one, sizeof(text));
	}
	f = finding_add(out, "framework.ok", SEV_OK, -1, "%s: run%s on this driver and these GPUs",
			text, shown == 1 ? "s" : "");
	evidence_driver(f, j);
	for (k = 0; k < j->nccs; k++)
		finding_evidence(f, "nvmlDeviceGetCudaComputeCapability: %d.%d", j->ccs[k] / 10,
				 j->ccs[k] % 10);
}

static void run_framework(const struct doctor_input *in, struct findings *out)
{
	const struct python_facts *py = &in->facts.python;
	const bool primary_exists = any_primary(py);
	struct judge j;
	size_t before = out->n;
	bool driver_judged = true, arch_judged = true, bad = false;
	int e, k;

	judge_init(&j, in);
	for (e = 0; e < py->n; e++) {
		const struct python_env *env = &py->v[e];
		const bool primary = !primary_exists || env->active || env->on_path;

		for (k = 0; k < env->nfw; k++) {
			const struct framework *fw = &env->fw[k];

			if (fw->cpu_only || fw->rocm) {
				/* where the GPUs are another vendor's, their layer judges the build */
				if (!doctor_other_vendor_only(&in->facts))
					judge_cpu_only(&j, out, env, fw, primary);
				continue;
			}
			if (!fw->cuda[0])
				continue; /* a TensorFlow without build info: nothing to judge */
			judge_driver(&j, out, env, fw, primary, &driver_judged);
			judge_arch(&j, out, env, fw, primary, &arch_judged);
			judge_cudnn(&j, out, env, fw, primary);
		}
	}
	bad = findings_worst_since(out, before) >= SEV_WARN;
	if (bad)
		return;
	summarise(&j, py, out, driver_judged && arch_judged,
		  !driver_judged ? "the driver's version is unknown (no kernel module version; "
				   "NVML and libcuda did not answer)"
				 : "no GPU's compute capability is known (NVML and CUDA did not "
				   "answer)");
}
