/*
 * toolkit.c: the CUDA toolkit (nvcc) against the driver and the framework (catalog rows 15
 * and 18, lesson 5). A toolkit matters only for what is compiled with it: a toolkit newer than
 * the driver's CUDA builds programs the driver cannot run (error 35) or PTX it cannot JIT
 * (error 222), and an extension built for torch must use a toolkit of torch's CUDA major.
 * Prebuilt wheels need no toolkit, and the messages say so.
 *
 * Facts: host/toolkit.c (toolkits, nvcc on PATH, CUDA_HOME), host/python.c (the framework),
 * the probe's cuDriverGetVersion (the driver's maximum CUDA, what nvidia-smi calls "CUDA
 * Version" and people mistake for the installed toolkit).
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
	{"toolkit.ok", LAYER_TOOLKIT, "CUDA toolkit consistent with the driver", false},
	{"toolkit.info", LAYER_TOOLKIT, "nvcc on PATH and CUDA_HOME name different toolkits",
	 false},
	{"toolkit.newer_than_driver", LAYER_TOOLKIT,
	 "the CUDA toolkit is newer than the driver's CUDA", false},
	{"toolkit.mismatch_framework", LAYER_TOOLKIT,
	 "the toolkit used for extensions and the framework differ in CUDA major", false},
	{"toolkit.cuda_home_missing", LAYER_TOOLKIT, "CUDA_HOME names no toolkit", false},
};

static void run_toolkit(const struct doctor_input *in, struct findings *out);

const struct check check_toolkit = {
	.name = "toolkit",
	.layer = LAYER_TOOLKIT,
	.run = run_toolkit,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static int driver_cuda(const struct gpu_system *sys)
{
	if (num_ok(&sys->cuda_version) && sys->cuda_version.v > 0)
		return (int)sys->cuda_version.v;
	if (num_ok(&sys->cuda_driver_version) && sys->cuda_driver_version.v > 0)
		return (int)sys->cuda_driver_version.v;
	return 0;
}

static const struct toolkit *find_path(const struct toolkit_facts *t, const char *path)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (str_eq(t->v[i].path, path))
			return &t->v[i];
	return NULL;
}

static const struct toolkit *find_default(const struct toolkit_facts *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].is_default)
			return &t->v[i];
	return NULL;
}

/* The folder of <prefix>/bin/nvcc. */
static void nvcc_prefix(const char *nvcc, char *out, size_t n)
{
	const char *end = nvcc + strlen(nvcc);
	int slashes = 0;

	while (end > nvcc && slashes < 2)
		if (*--end == '/')
			slashes++;
	str_copy(out, nvcc, n < (size_t)(end - nvcc) + 1 ? n : (size_t)(end - nvcc) + 1);
	if (!out[0])
		str_copy(out, "/", n);
}

/* The toolkit people compile with: the nvcc on PATH, else /usr/local/cuda. */
static const struct toolkit *build_toolkit(const struct toolkit_facts *t, const char **how)
{
	char prefix[256];
	const struct toolkit *k;

	if (t->nvcc_path[0]) {
		nvcc_prefix(t->nvcc_path, prefix, sizeof(prefix));
		k = find_path(t, prefix);
		if (k) {
			*how = "nvcc on PATH";
			return k;
		}
	}
	*how = "/usr/local/cuda";
	return find_default(t);
}

/* The toolkit torch.utils.cpp_extension would build with: CUDA_HOME/CUDA_PATH, then the nvcc
 * on PATH, then /usr/local/cuda. */
static const struct toolkit *extension_toolkit(const struct toolkit_facts *t, const char **how)
{
	if (t->cuda_home[0]) {
		*how = "CUDA_HOME";
		return t->cuda_home_real[0] ? find_path(t, t->cuda_home_real) : NULL;
	}
	return build_toolkit(t, how);
}

/* The torch of the active environment (or the python3 on PATH), NULL when none. */
static const struct framework *active_torch(const struct python_facts *py)
{
	int pass, i, k;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < py->n; i++) {
			const struct python_env *e = &py->v[i];

			if (pass == 0 ? !e->active : !e->on_path)
				continue;
			for (k = 0; k < e->nfw; k++)
				if (e->fw[k].kind == FW_TORCH && e->fw[k].cuda[0])
					return &e->fw[k];
		}
	return NULL;
}

/* "export CUDA_HOME=<path> PATH=<path>/bin:$PATH" (a heap string): the toolkit's folder is
 * quoted for the shell, $PATH is left for it to expand. */
static char *export_toolkit(const char *path)
{
	char *bin = xasprintf("%s/bin", path), *qpath = quote_shell(path), *qbin = quote_shell(bin);
	char *cmd = xasprintf("export CUDA_HOME=%s PATH=%s:$PATH", qpath, qbin);

	free(bin);
	free(qpath);
	free(qbin);
	return cmd;
}

static void check_cuda_home(const struct doctor_input *in, struct findings *out)
{
	const struct toolkit_facts *t = &in->facts.toolkit;
	const struct toolkit *k;
	struct finding *f;

	if (!t->cuda_home[0] || t->cuda_home_real[0])
		return;
	f = finding_add(out, "toolkit.cuda_home_missing", SEV_WARN, -1,
			"CUDA_HOME=%s names no folder: building CUDA extensions will fail",
			t->cuda_home);
	finding_evidence(f, "environment: CUDA_HOME (or CUDA_PATH) = %s", t->cuda_home);
	k = find_default(t);
	if (!k && t->n)
		k = &t->v[0];
	if (k) {
		char *q = quote_shell(k->path);

		finding_fix(f, 0, "`export CUDA_HOME=%s` (a toolkit that exists), or `unset "
				  "CUDA_HOME`.",
			    q);
		free(q);
	} else
		finding_fix(f, 0, "`unset CUDA_HOME`; install a CUDA toolkit only if you build "
				  "CUDA code.");
}

static void check_newer(const struct doctor_input *in, struct findings *out,
			const struct toolkit *k, const char *how)
{
	const int drv = driver_cuda(&in->sys), tk = cuda_version_num(k->version);
	struct finding *f;

	if (!drv || !tk || tk <= drv)
		return;
	if (tk / 1000 > drv / 1000)
		f = finding_add(out, "toolkit.newer_than_driver", SEV_WARN, -1,
				"the CUDA %s toolkit at %s (%s) is newer than the driver supports "
				"(CUDA up to %d.%d): programs built with it fail with \"CUDA driver "
				"version is insufficient\"",
				k->version, k->path, how, drv / 1000, drv % 1000 / 10);
	else
		f = finding_add(out, "toolkit.newer_than_driver", SEV_INFO, -1,
				"the CUDA %s toolkit at %s (%s) is newer than the driver's CUDA "
				"%d.%d: its programs run by minor-version compatibility, but PTX it "
				"generates cannot be JIT-compiled by this driver (error 222)",
				k->version, k->path, how, drv / 1000, drv % 1000 / 10);
	finding_evidence(f, "%s: CUDA %s", k->path, k->version);
	finding_evidence(f, "cuDriverGetVersion: %d (the driver supports CUDA up to %d.%d)", drv,
			 drv / 1000, drv % 1000 / 10);
	finding_fix(f, 0,
		    "Upgrade the driver to one that supports CUDA %s, or build with a toolkit no "
		    "newer than CUDA %d.%d (put it first on PATH). Prebuilt wheels do not use this "
		    "toolkit.",
		    k->version, drv / 1000, drv % 1000 / 10);
}

static void check_framework_major(const struct doctor_input *in, struct findings *out)
{
	const struct toolkit_facts *t = &in->facts.toolkit;
	const struct framework *torch = active_torch(&in->facts.python);
	const struct toolkit *k, *match = NULL;
	const char *how;
	struct finding *f;
	int i, want;

	if (!torch || !(k = extension_toolkit(t, &how)) || !cuda_version_num(k->version))
		return;
	want = cuda_version_num(torch->cuda) / 1000;
	if (cuda_version_num(k->version) / 1000 == want)
		return;
	for (i = 0; i < t->n && !match; i++)
		if (cuda_version_num(t->v[i].version) / 1000 == want)
			match = &t->v[i];
	/* an explicit CUDA_HOME says extensions are being built here */
	f = finding_add(out, "toolkit.mismatch_framework", t->cuda_home[0] ? SEV_WARN : SEV_INFO,
			-1,
			"CUDA extensions for torch %s (built for CUDA %s) would be compiled with "
			"the CUDA %s toolkit at %s (%s): torch refuses a different CUDA major",
			torch->version, torch->cuda, k->version, k->path, how);
	finding_evidence(f, "%s/version.py: cuda = '%s'", torch->path, torch->cuda);
	finding_evidence(f, "%s: CUDA %s", k->path, k->version);
	if (t->nvcc_path[0])
		finding_evidence(f, "nvcc on PATH: %s (CUDA %s)", t->nvcc_path,
				 t->nvcc_version[0] ? t->nvcc_version : "unknown");
	if (t->cuda_home[0])
		finding_evidence(f, "environment: CUDA_HOME = %s", t->cuda_home);
	if (match) {
		char *cmd = export_toolkit(match->path);

		finding_fix(f, 0, "Only needed to build extensions: `%s`.", cmd);
		free(cmd);
	} else {
		char pkg[64], cmd[160];

		str_fmt(pkg, sizeof(pkg), "cuda-toolkit-%d-%d",
			cuda_version_num(torch->cuda) / 1000,
			cuda_version_num(torch->cuda) % 1000 / 10);
		finding_fix(f, FIX_ROOT,
			    "Only needed to build extensions: install the CUDA %s toolkit (`%s` from "
			    "NVIDIA's repository) and point CUDA_HOME at it.",
			    torch->cuda, fix_install(&in->facts.platform, pkg, pkg, cmd, sizeof(cmd)));
	}
}

static void check_disagree(const struct doctor_input *in, struct findings *out)
{
	const struct toolkit_facts *t = &in->facts.toolkit;
	char prefix[256], *cmd;
	const struct toolkit *nv, *home;
	struct finding *f;

	if (!t->nvcc_path[0] || !t->cuda_home_real[0])
		return;
	nvcc_prefix(t->nvcc_path, prefix, sizeof(prefix));
	nv = find_path(t, prefix);
	home = find_path(t, t->cuda_home_real);
	if (!nv || !home || nv == home || str_eq(nv->version, home->version))
		return;
	/* the framework check already named the toolkit to use, with both in its evidence */
	if (findings_has(out, "toolkit.mismatch_framework"))
		return;
	f = finding_add(out, "toolkit.info", SEV_INFO, -1,
			"nvcc on PATH is CUDA %s (%s) but CUDA_HOME names CUDA %s (%s): build tools "
			"may pick either",
			nv->version, nv->path, home->version, home->path);
	finding_evidence(f, "nvcc on PATH: %s", t->nvcc_path);
	finding_evidence(f, "environment: CUDA_HOME = %s -> %s", t->cuda_home, t->cuda_home_real);
	cmd = export_toolkit(home->path);
	finding_fix(f, 0, "Point both at one toolkit: `%s`.", cmd);
	free(cmd);
}

static void run_toolkit(const struct doctor_input *in, struct findings *out)
{
	const struct toolkit_facts *t = &in->facts.toolkit;
	const struct toolkit *k;
	const char *how = "";
	struct finding *f;
	size_t before = out->n;
	bool bad = false;
	int drv = driver_cuda(&in->sys), j;

	check_cuda_home(in, out);
	k = build_toolkit(t, &how);
	if (k)
		check_newer(in, out, k, how);
	check_framework_major(in, out);
	check_disagree(in, out);
	bad = findings_worst_since(out, before) >= SEV_WARN;
	if (bad)
		return;
	if (!t->n) {
		f = finding_add(out, "toolkit.ok", SEV_OK, -1,
				"no CUDA toolkit installed: not needed to run prebuilt PyTorch, "
				"TensorFlow or JAX");
		finding_evidence(f, "/usr/local/cuda*, CUDA_HOME, nvcc on PATH: none found");
		return;
	}
	if (!k) {
		k = &t->v[0];
		how = "";
	}
	if (drv)
		f = finding_add(out, "toolkit.ok", SEV_OK, -1,
				"CUDA toolkit %s at %s%s%s%s; the driver supports CUDA up to %d.%d",
				k->version[0] ? k->version : "(version unknown)", k->path,
				how[0] ? " (" : "", how, how[0] ? ")" : "", drv / 1000,
				drv % 1000 / 10);
	else
		f = finding_add(out, "toolkit.ok", SEV_OK, -1,
				"CUDA toolkit %s at %s%s%s%s; the driver's CUDA is unknown, so it was "
				"not compared",
				k->version[0] ? k->version : "(version unknown)", k->path,
				how[0] ? " (" : "", how, how[0] ? ")" : "");
	for (j = 0; j < t->n; j++)
		finding_evidence(f, "%s: CUDA %s%s", t->v[j].path,
				 t->v[j].version[0] ? t->v[j].version : "unknown",
				 t->v[j].is_default ? " (/usr/local/cuda)" : "");
	if (t->nvcc_path[0])
		finding_evidence(f, "nvcc on PATH: %s", t->nvcc_path);
	if (t->cuda_home[0])
		finding_evidence(f, "environment: CUDA_HOME = %s", t->cuda_home);
}
