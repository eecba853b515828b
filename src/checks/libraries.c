/*
 * libraries.c: the driver's user-space libraries: are libnvidia-ml.so.1 and libcuda.so.1
 * there, is the file that loads the driver's own (not a toolkit stub, a forward-compatibility
 * copy or a stale copy earlier on LD_LIBRARY_PATH), and does its version match the running
 * kernel module (catalog rows 7, 12, 13, 14; lessons 3 and 15).
 *
 * The vendor probe (gpu/probe.c) says which file it really loaded and what nvmlInit and cuInit
 * answered; host/libs.c lists every candidate in the loader's order. The probe's answer is
 * preferred, the list explains it. Version comparison needs the kernel module's version
 * (host/module.c); without it nothing is concluded, and the report says so.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../gpu/reason.h"
#include "../util/quote.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"
#include "fixes.h"

static const struct finding_def defs[] = {
	{"libraries.ok", LAYER_LIBRARIES, "driver libraries found and matching the kernel module",
	 false},
	{"libraries.not_compared", LAYER_LIBRARIES,
	 "driver libraries found; versions not compared with the kernel module", false},
	/* usually part of a driver that is not installed at all, or a container without GPUs */
	{"libraries.nvml_missing", LAYER_LIBRARIES, "libnvidia-ml.so.1 not found or not loadable",
	 true},
	{"libraries.cuda_missing", LAYER_LIBRARIES, "libcuda.so.1 not found or not loadable", true},
	{"libraries.cuda_stub", LAYER_LIBRARIES, "a CUDA toolkit stub libcuda is found first", false},
	{"libraries.cuda_compat", LAYER_LIBRARIES, "a forward-compatibility libcuda is in use",
	 false},
	{"libraries.version_mismatch", LAYER_LIBRARIES,
	 "driver libraries and kernel module versions differ", false},
	{"libraries.shadowed", LAYER_LIBRARIES,
	 "LD_LIBRARY_PATH puts another driver's library before the installed one", false},
};

static void run_libraries(const struct doctor_input *in, struct findings *out);

const struct check check_libraries = {
	.name = "libraries",
	.layer = LAYER_LIBRARIES,
	.run = run_libraries,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

/* Did the call whose answer is its return code (nvmlInit, cuInit) run and fail for why? */
static bool failed_with(const struct num *n, enum val_reason why)
{
	return num_ok(n) && n->reason == why;
}

/* "cuInit: 803 (CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)": the code a call answered, and its name. */
static void evidence_code(struct finding *f, const char *call, const struct num *n)
{
	finding_evidence(f, "%s: %d (%s)", call, n->rc, reason_code_name(n->lib, n->rc));
}

/* The library a program gets for one soname: what the probe loaded, or else the first
 * candidate the loader would take. */
struct pick {
	const char *soname;
	const struct lib_list *list;
	const struct lib_info *probe;
	const struct lib_candidate *c; /* the matching candidate, NULL when unknown */
	char path[512];		       /* "" when nothing was found */
	char version[64];
	bool stub, compat, wsl;
	bool from_probe;
};

static void pick_lib(struct pick *p, const char *soname, const struct lib_list *list,
		     const struct lib_info *probe)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->soname = soname;
	p->list = list;
	p->probe = probe;
	if (probe->loaded && probe->path[0]) {
		p->from_probe = true;
		str_copy(p->path, probe->path, sizeof(p->path));
		str_copy(p->version, probe->version, sizeof(p->version));
		for (i = 0; i < list->n && !p->c; i++)
			if (str_eq(list->v[i].real, probe->path) || str_eq(list->v[i].path, probe->path))
				p->c = &list->v[i];
	} else {
		for (i = 0; i < list->n && !p->c; i++)
			if (str_eq(list->v[i].name, soname))
				p->c = &list->v[i];
		if (p->c) {
			str_copy(p->path, p->c->path, sizeof(p->path));
			str_copy(p->version, p->c->version, sizeof(p->version));
		}
	}
	p->stub = (p->c && p->c->stub) || strstr(p->path, "/stubs/");
	p->compat = (p->c && p->c->compat) || strstr(p->path, "/compat/") ||
		    strstr(p->path, "cuda-compat");
	p->wsl = (p->c && p->c->wsl) || str_starts(p->path, "/usr/lib/wsl/");
	if (p->wsl)
		p->version[0] = '\0'; /* libcuda.so.1.1: not a driver version */
}

/* The running kernel module's version: its /proc file, or else NVML's answer (NVML only
 * initialises when library and module agree, and then reports the module's version). */
static const char *kernel_version(const struct doctor_input *in, const char **src)
{
	*src = "/proc/driver/nvidia/version";
	if (in->facts.module.version[0])
		return in->facts.module.version;
	if (num_ok(&in->sys.nvml_init) && in->sys.nvml_init.reason == REASON_NONE &&
	    text_ok(&in->sys.driver_version) && in->sys.driver_version.s[0]) {
		*src = "nvmlSystemGetDriverVersion";
		return in->sys.driver_version.s;
	}
	return "";
}

static void dir_of(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;

	str_copy(out, path, n < len + 1 ? n : len + 1);
	if (!out[0])
		str_copy(out, "/", n);
}

/* "export LD_LIBRARY_PATH=<the value without dir>" or "unset LD_LIBRARY_PATH", as a heap
 * string: the value is the machine's, quoted for the shell (a folder named "$(...)" must not
 * run when the command is pasted). */
static char *ld_path_without(const char *llp, const char *dir)
{
	char *copy = xstrdup(llp), *tok, *save = NULL;
	struct strbuf rest, out;

	sb_init(&rest);
	sb_init(&out);
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char clean[512];

		str_copy(clean, tok, sizeof(clean));
		while (strlen(clean) > 1 && clean[strlen(clean) - 1] == '/')
			clean[strlen(clean) - 1] = '\0';
		if (str_eq(clean, dir))
			continue;
		if (rest.len)
			sb_addc(&rest, ':');
		sb_adds(&rest, tok);
	}
	if (rest.len) {
		sb_adds(&out, "export LD_LIBRARY_PATH=");
		quote_shell_add(&out, rest.buf);
	} else {
		sb_adds(&out, "unset LD_LIBRARY_PATH");
	}
	sb_release(&rest);
	free(copy);
	return sb_detach(&out);
}

static const char *src_name(enum lib_source s)
{
	switch (s) {
	case LIBSRC_LD_LIBRARY_PATH:
		return "LD_LIBRARY_PATH";
	case LIBSRC_LDCACHE:
		return "/etc/ld.so.cache";
	case LIBSRC_DEFAULT_DIR:
		return "default folder";
	}
	return "?";
}

/* "path (from LD_LIBRARY_PATH)" evidence for every candidate, in loader order. */
static void evidence_candidates(struct finding *f, const struct lib_list *list)
{
	int i;

	for (i = 0; i < list->n && f->nevidence < FINDING_MAX_EVIDENCE - 1; i++)
		finding_evidence(f, "%s: %s -> %s (%s%s%s)", src_name(list->v[i].src),
				 list->v[i].path, list->v[i].real,
				 list->v[i].version[0] ? "version " : "no version in the name",
				 list->v[i].version, list->v[i].stub ? ", stub" : "");
}

/* The package that installs libcuda and libnvidia-ml, for the running module's branch. */
static const char *install_libs(const struct doctor_input *in, char *buf, size_t n)
{
	char apt[128], branch[16]; /* apt: 18 + 4 x 15 + 2 quoted at worst */
	const char *src, *kv = kernel_version(in, &src), *dot = strchr(kv, '.');

	str_copy(apt, "libnvidia-compute-<branch>", sizeof(apt));
	if (dot && dot > kv) {
		/* the version is the machine's answer: quoted, like any value in a command */
		char *q;

		str_fmt(branch, sizeof(branch), "%.*s", (int)(dot - kv), kv);
		str_fmt(apt, sizeof(apt), "libnvidia-compute-%s", branch);
		q = quote_shell(apt);
		str_copy(apt, q, sizeof(apt));
		free(q);
	}
	return fix_install(&in->facts.platform, apt, "nvidia-driver-cuda-libs", buf, n);
}

static void check_missing(const struct doctor_input *in, struct findings *out, const struct pick *p,
			  const char *id)
{
	const struct platform_facts *pf = &in->facts.platform;
	struct finding *f;
	char cmd[160];

	/* the probe's dlopen is the judge; without a probe (no vendor calls), the files are */
	if (p->probe->attempted ? p->probe->loaded : p->c != NULL)
		return;
	if (p->c)
		f = finding_add(out, id, SEV_FAIL, -1, "%s was found at %s but could not be loaded",
				p->soname, p->c->path);
	else
		f = finding_add(out, id, SEV_FAIL, -1,
				"%s is not installed or not in the loader's search path", p->soname);
	if (p->probe->attempted)
		finding_evidence(f, "dlopen %s: %s", p->soname,
				 p->probe->error[0] ? p->probe->error : "failed");
	finding_evidence(f, "/etc/ld.so.cache: %s",
			 !in->facts.libs.ldcache_read ? "unreadable"
			 : p->list->n		      ? "lists other copies only"
						      : "no entry");
	finding_evidence(f, "LD_LIBRARY_PATH: %s",
			 in->facts.libs.ld_library_path[0] ? in->facts.libs.ld_library_path
							   : "unset");
	evidence_candidates(f, p->list);
	if (p->c && pf->container)
		finding_fix(f, 0,
			    "The file is there but broken (see the dlopen error): the container runtime "
			    "mounts it from the host, so repair the host's driver installation and "
			    "restart the container.");
	else if (p->c && !pf->wsl)
		finding_fix(f, FIX_ROOT,
			    "The file is there but broken or from another driver (see the dlopen error): "
			    "reinstall the driver's compute libraries: `%s && sudo ldconfig`.",
			    install_libs(in, cmd, sizeof(cmd)));
	else if (pf->wsl)
		finding_fix(f, 0,
			    "This is WSL2: %s comes from the Windows driver in /usr/lib/wsl/lib. "
			    "Update the NVIDIA driver on Windows, then run `wsl --shutdown` and "
			    "reopen the distribution.",
			    p->soname);
	else if (pf->container)
		finding_fix(f, 0,
			    "This is a container without the driver's libraries. Start it with "
			    "`--gpus all` (Docker with nvidia-container-toolkit) or `--device "
			    "nvidia.com/gpu=all` (CDI, Podman); don't install a driver inside the "
			    "image.");
	else
		finding_fix(f, FIX_ROOT, "Install the driver's compute libraries and refresh the "
					 "loader cache: `%s && sudo ldconfig`.",
			    install_libs(in, cmd, sizeof(cmd)));
}

static void check_stub(const struct doctor_input *in, struct findings *out, const struct pick *cu)
{
	const struct lib_facts *l = &in->facts.libs;
	const bool stub_init = failed_with(&in->sys.cuda_init, REASON_STUB_LIBRARY);
	const struct lib_candidate *first = l->libcuda.n ? &l->libcuda.v[0] : NULL;
	const struct lib_candidate *stub = NULL;
	char dir[512], *cmd;
	struct finding *f;
	bool picked;

	if (cu->stub)
		stub = cu->c;
	else if (first && first->stub && first->src == LIBSRC_LD_LIBRARY_PATH)
		stub = first; /* wins for programs that load plain libcuda.so (numba, some JITs) */
	if (!cu->stub && !stub && !stub_init)
		return;
	picked = cu->stub || stub_init;
	dir_of(stub ? stub->path : cu->path, dir, sizeof(dir));
	if (picked)
		f = finding_add(out, "libraries.cuda_stub", SEV_FAIL, -1,
				"the CUDA toolkit's stub libcuda in %s is loaded instead of the "
				"driver's: stubs are for linking only",
				dir);
	else
		f = finding_add(out, "libraries.cuda_stub", SEV_WARN, -1,
				"LD_LIBRARY_PATH puts the toolkit's stub libcuda (%s) first for "
				"programs that load libcuda.so without a version",
				dir);
	if (stub)
		finding_evidence(f, "%s: %s -> %s, %lld bytes (the driver's is tens of MB)",
				 src_name(stub->src), stub->path, stub->real, (long long)stub->size);
	if (cu->from_probe)
		finding_evidence(f, "dlopen libcuda.so.1: loaded %s", cu->path);
	if (stub_init)
		evidence_code(f, "cuInit", &in->sys.cuda_init);
	if (!stub || stub->src == LIBSRC_LD_LIBRARY_PATH) {
		cmd = ld_path_without(l->ld_library_path, dir);
		finding_fix(f, 0, "Remove %s from LD_LIBRARY_PATH: `%s` (and where it is set: "
				  "~/.bashrc, a module file, the job script).",
			    dir, cmd);
	} else {
		char *q = quote_shell(dir);

		cmd = xasprintf("grep -rlF %s /etc/ld.so.conf /etc/ld.so.conf.d", q);
		free(q);
		finding_fix(f, FIX_ROOT,
			    "Remove %s from the loader configuration (`%s`), then run `sudo ldconfig`.",
			    dir, cmd);
	}
	free(cmd);
}

static void check_compat(const struct doctor_input *in, struct findings *out,
			 const struct pick *cu)
{
	const struct num *ci = &in->sys.cuda_init;
	const char *kv_src, *kv = kernel_version(in, &kv_src);
	char dir[512], *cmd, maxcuda[32] = "unknown";
	struct finding *f;
	enum severity sev;

	if (!cu->compat)
		return;
	dir_of(cu->path, dir, sizeof(dir));
	if (num_ok(&in->sys.cuda_version))
		str_fmt(maxcuda, sizeof(maxcuda), "%d.%d", (int)(in->sys.cuda_version.v / 1000),
			(int)(in->sys.cuda_version.v % 1000 / 10));
	if (failed_with(ci, REASON_COMPAT_UNSUPPORTED)) {
		sev = SEV_FAIL;
		f = finding_add(out, "libraries.cuda_compat", sev, -1,
				"a forward-compatibility libcuda (%s) is in use, but this GPU does "
				"not support forward compatibility",
				dir);
	} else if (failed_with(ci, REASON_VERSION_MISMATCH)) {
		sev = SEV_FAIL;
		f = finding_add(out, "libraries.cuda_compat", sev, -1,
				"the forward-compatibility libcuda %s (%s) does not work with kernel "
				"module %s",
				cu->version[0] ? cu->version : "of unknown version", dir,
				kv[0] ? kv : "(version unknown)");
	} else if (num_ok(ci) && ci->reason == REASON_NONE) {
		/* deliberate on data-center GPUs: newer CUDA on an older driver branch */
		f = finding_add(out, "libraries.cuda_compat", SEV_INFO, -1,
				"forward compatibility in use: libcuda %s from %s runs on kernel "
				"module %s",
				cu->version[0] ? cu->version : "(version unknown)", dir,
				kv[0] ? kv : "(version unknown)");
		finding_evidence(f, "dlopen libcuda.so.1: %s", cu->path);
		finding_evidence(f, "cuInit: 0 (success)");
		return;
	} else {
		sev = SEV_WARN;
		f = finding_add(out, "libraries.cuda_compat", sev, -1,
				"a forward-compatibility libcuda (%s) is in use; whether this GPU "
				"accepts it could not be checked (cuInit was not called)",
				dir);
	}
	finding_evidence(f, "libcuda.so.1: %s (version %s)", cu->path,
			 cu->version[0] ? cu->version : "unknown");
	if (kv[0])
		finding_evidence(f, "%s: %s", kv_src, kv);
	if (failed_with(ci, REASON_COMPAT_UNSUPPORTED) || failed_with(ci, REASON_VERSION_MISMATCH))
		evidence_code(f, "cuInit", ci);
	else if (num_ok(ci))
		finding_evidence(f, "cuInit: %lld", (long long)ci->v);
	if (cu->c && cu->c->src == LIBSRC_LD_LIBRARY_PATH) {
		cmd = ld_path_without(in->facts.libs.ld_library_path, dir);
		finding_fix(f, 0,
			    "Remove %s from LD_LIBRARY_PATH (`%s`), then either upgrade the driver "
			    "or use a CUDA runtime no newer than this driver supports (CUDA %s).",
			    dir, cmd, maxcuda);
	} else {
		cmd = quote_shell(cu->path);
		finding_fix(f, FIX_ROOT,
			    "Remove the cuda-compat package that installs %s (`dpkg -S %s` or `rpm "
			    "-qf %s` names it) and run `sudo ldconfig`; then either upgrade the "
			    "driver or use a CUDA runtime no newer than this driver supports (CUDA "
			    "%s).",
			    dir, cmd, cmd, maxcuda);
	}
	free(cmd);
}

/* A later candidate carrying the kernel module's version: the driver's own copy. */
static const struct lib_candidate *driver_copy(const struct lib_list *list, const char *kv)
{
	int i;

	for (i = 0; i < list->n; i++)
		if (list->v[i].src != LIBSRC_LD_LIBRARY_PATH && str_eq(list->v[i].version, kv) &&
		    !list->v[i].stub && !list->v[i].compat)
			return &list->v[i];
	return NULL;
}

static bool check_shadowed(const struct doctor_input *in, struct findings *out,
			   const struct pick *p, const char *what)
{
	const char *kv_src, *kv = kernel_version(in, &kv_src);
	const struct lib_candidate *own;
	char dir[512], *cmd;
	struct finding *f;

	if (!p->c || p->c->src != LIBSRC_LD_LIBRARY_PATH || !p->version[0] ||
	    str_eq(p->version, kv) || !(own = driver_copy(p->list, kv)))
		return false;
	dir_of(p->c->path, dir, sizeof(dir));
	f = finding_add(out, "libraries.shadowed", SEV_FAIL, -1,
			"LD_LIBRARY_PATH puts %s %s from %s before the driver's own %s %s", what,
			p->version, dir, what, kv);
	finding_evidence(f, "LD_LIBRARY_PATH: %s", in->facts.libs.ld_library_path);
	finding_evidence(f, "%s: %s -> %s", p->soname, p->c->path, p->c->real);
	finding_evidence(f, "%s: %s (version %s)", src_name(own->src), own->path, own->version);
	finding_evidence(f, "%s: %s", kv_src, kv);
	if (failed_with(&in->sys.cuda_init, REASON_VERSION_MISMATCH))
		evidence_code(f, "cuInit", &in->sys.cuda_init);
	if (failed_with(&in->sys.nvml_init, REASON_VERSION_MISMATCH))
		evidence_code(f, "nvmlInit_v2", &in->sys.nvml_init);
	cmd = ld_path_without(in->facts.libs.ld_library_path, dir);
	finding_fix(f, 0,
		    "Remove %s from LD_LIBRARY_PATH: `%s`. A driver library must come from the "
		    "installed driver; one bundled with an application or image only works with "
		    "the exact same kernel module.",
		    dir, cmd);
	free(cmd);
	return true;
}

static void check_versions(const struct doctor_input *in, struct findings *out,
			   const struct pick *nv, const struct pick *cu, bool *compared)
{
	const char *kv_src, *kv = kernel_version(in, &kv_src);
	const bool nvml_mismatch = failed_with(&in->sys.nvml_init, REASON_VERSION_MISMATCH);
	const bool cuda_mismatch =
		failed_with(&in->sys.cuda_init, REASON_VERSION_MISMATCH) && !cu->compat;
	const bool cu_judged = cu->version[0] && !cu->stub && !cu->compat;
	const bool nv_differs = kv[0] && nv->version[0] && !str_eq(nv->version, kv);
	const bool cu_differs = kv[0] && cu_judged && !str_eq(cu->version, kv);
	const char *libver, *why;
	struct finding *f;
	bool shadow = false;

	*compared = kv[0] && (nv->version[0] || cu_judged);
	if (nv_differs)
		shadow |= check_shadowed(in, out, nv, "libnvidia-ml");
	if (cu_differs)
		shadow |= check_shadowed(in, out, cu, "libcuda");
	if (shadow || !(nv_differs || cu_differs || nvml_mismatch || cuda_mismatch))
		return;
	libver = nv_differs ? nv->version : cu_differs ? cu->version : "";
	/* in a container the module is the host's: the image may bring its own libraries */
	why = in->facts.platform.container
		      ? "the host's driver was updated without a reboot, or the image brings its "
			"own driver libraries"
		      : "the driver was updated without a reboot";
	if (libver[0] && kv[0])
		f = finding_add(out, "libraries.version_mismatch", SEV_FAIL, -1,
				"the NVIDIA libraries are %s but the running kernel module is %s: %s",
				libver, kv, why);
	else
		f = finding_add(out, "libraries.version_mismatch", SEV_FAIL, -1,
				"the NVIDIA libraries and the running kernel module are different "
				"versions: %s",
				why);
	finding_evidence(f, "%s: %s", kv_src, kv[0] ? kv : "unreadable");
	if (nv->path[0])
		finding_evidence(f, "libnvidia-ml.so.1: %s (version %s)", nv->path,
				 nv->version[0] ? nv->version : "unknown");
	if (cu->path[0])
		finding_evidence(f, "libcuda.so.1: %s (version %s)", cu->path,
				 cu->version[0] ? cu->version : "unknown");
	if (nvml_mismatch)
		evidence_code(f, "nvmlInit_v2", &in->sys.nvml_init);
	if (cuda_mismatch)
		evidence_code(f, "cuInit", &in->sys.cuda_init);
	if (in->facts.module.last_pkg_change[0])
		finding_evidence(f, "package log: %s", in->facts.module.last_pkg_change);
	finding_fix(f, FIX_ROOT | FIX_REBOOT | FIX_INTERRUPTS,
		    "%sReboot. Without a reboot: stop everything using the GPU (display manager, "
		    "nvidia-persistenced, containers), then `sudo rmmod nvidia_uvm nvidia_drm "
		    "nvidia_modeset nvidia && sudo modprobe nvidia`. To avoid surprise upgrades, "
		    "%s.",
		    in->facts.platform.container
			    ? "If the image installs libcuda or libnvidia-ml itself, remove them "
			      "from the image (the container toolkit injects the host's). Otherwise, "
			      "on the host: "
			    : "",
		    fix_pick(&in->facts.platform,
			     "hold the driver packages (`sudo apt-mark hold` the nvidia-driver and "
			     "libnvidia packages, or exclude them from unattended-upgrades)",
			     "lock the driver packages (`sudo dnf versionlock add` the nvidia "
			     "packages)"));
	/* the module check saw the same fault from below: one cause, this its echo */
	findings_fold(out, "libraries.version_mismatch", "module.version_mismatch");
}

/* "libnvidia-ml 580.159.04 and libcuda 580.159.04 from /usr/local/nvidia/lib64" */
static void describe(const struct pick *nv, const struct pick *cu, char *out, size_t n)
{
	char dn[512], dc[512];

	dir_of(nv->path, dn, sizeof(dn));
	dir_of(cu->path, dc, sizeof(dc));
	if (str_eq(dn, dc))
		str_fmt(out, n, "libnvidia-ml %s and libcuda %s from %s",
			nv->version[0] ? nv->version : "(no version in its name)",
			cu->version[0] ? cu->version : "(no version in its name)", dn);
	else
		str_fmt(out, n, "libnvidia-ml %s from %s and libcuda %s from %s",
			nv->version[0] ? nv->version : "(no version in its name)", dn,
			cu->version[0] ? cu->version : "(no version in its name)", dc);
}

static void run_libraries(const struct doctor_input *in, struct findings *out)
{
	const struct lib_facts *l = &in->facts.libs;
	const char *kv_src, *kv = kernel_version(in, &kv_src);
	struct pick nv, cu;
	struct finding *f;
	char what[1200];
	size_t before = out->n;
	bool compared = false, bad = false;

	pick_lib(&nv, "libnvidia-ml.so.1", &l->libnvml, &in->sys.nvml_lib);
	pick_lib(&cu, "libcuda.so.1", &l->libcuda, &in->sys.cuda_lib);
	check_missing(in, out, &nv, "libraries.nvml_missing");
	check_missing(in, out, &cu, "libraries.cuda_missing");
	check_stub(in, out, &cu);
	check_compat(in, out, &cu);
	check_versions(in, out, &nv, &cu, &compared);
	bad = findings_worst_since(out, before) >= SEV_WARN;
	if (bad || !nv.path[0] || !cu.path[0])
		return;
	describe(&nv, &cu, what, sizeof(what));
	if (nv.wsl && cu.wsl) {
		f = finding_add(out, "libraries.ok", SEV_OK, -1,
				"%s: the Windows driver's libraries, as WSL2 expects", what);
	} else if (!compared) {
		f = finding_add(out, "libraries.not_compared", SEV_INFO, -1,
				"%s found; the kernel module's version is unknown, so they were not "
				"compared with it",
				what);
	} else {
		/* a working compat libcuda is newer than the module by design */
		f = finding_add(out, "libraries.ok", SEV_OK, -1,
				cu.compat ? "%s: libnvidia-ml matches the kernel module, libcuda is a "
					    "forward-compatible build"
					  : "%s match the kernel module",
				what);
		finding_evidence(f, "%s: %s", kv_src, kv);
	}
	finding_evidence(f, "libnvidia-ml.so.1: %s%s", nv.path,
			 nv.from_probe ? " (loaded)" : " (first the loader finds)");
	finding_evidence(f, "libcuda.so.1: %s%s", cu.path,
			 cu.from_probe ? " (loaded)" : " (first the loader finds)");
	if (l->ld_library_path[0])
		finding_evidence(f, "LD_LIBRARY_PATH: %s", l->ld_library_path);
}
