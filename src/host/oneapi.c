/*
 * oneapi.c: what the files say about an Intel GPU's stack: which of i915 and xe is loaded,
 * the GPUs' render nodes and who may open them, the Level Zero loader and Intel's compute
 * runtime as the dynamic loader would find them, oneAPI under /opt/intel/oneapi, PyTorch's XPU
 * builds and the variables that choose Level Zero devices (issue 14).
 *
 * Nothing is read on a machine without an Intel GPU on the bus (pci.c's accel list), so an
 * NVIDIA machine's doctor, and its recording, stay as they were. checks/oneapi.c judges.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "facts.h"

#define ONEAPI_DIR "/opt/intel/oneapi"
#define INTEL_ICD  "/etc/OpenCL/vendors/intel.icd"

/* A oneAPI component's version: the folder its `latest` link names (the installer's layout
 * since 2021), else the last version folder listed. */
static void component_version(const char *comp, char *out, size_t n)
{
	char path[256], target[256], **names = NULL;
	size_t count = 0, i;
	const char *slash;

	out[0] = '\0';
	str_fmt(path, sizeof(path), ONEAPI_DIR "/%s/latest", comp);
	if (host_readlink(path, target, sizeof(target)) == 0) {
		slash = strrchr(target, '/');
		str_copy(out, slash ? slash + 1 : target, n);
		return;
	}
	str_fmt(path, sizeof(path), ONEAPI_DIR "/%s", comp);
	if (host_list(path, &names, &count) != 0)
		return;
	for (i = 0; i < count; i++)
		if (names[i][0] >= '0' && names[i][0] <= '9')
			str_copy(out, names[i], n);
	host_list_free(names, count);
}

static void read_oneapi_dir(struct oneapi_facts *o)
{
	static const char *const comps[] = {"compiler", "mkl", "ccl", "dnnl"};
	struct host_stat st;
	size_t i;

	o->oneapi_dir = host_stat(ONEAPI_DIR, &st) == 0 && st.type == 'd';
	if (!o->oneapi_dir)
		return;
	for (i = 0; i < ARRAY_SIZE(comps); i++) {
		char v[64], item[96];

		component_version(comps[i], v, sizeof(v));
		if (!v[0])
			continue;
		str_fmt(item, sizeof(item), "%s%s %s", o->oneapi_versions[0] ? " " : "", comps[i],
			v);
		str_append(o->oneapi_versions, item, sizeof(o->oneapi_versions));
	}
}

/* __version__ of a package's version file (site/<file>), "" when unreadable */
static void py_version(const char *site, const char *file, char *out, size_t n)
{
	char path[1024];
	char *text;
	int rc = 0;

	out[0] = '\0';
	str_fmt(path, sizeof(path), "%s/%s", site, file);
	text = host_read(path, 64 * 1024, NULL, &rc);
	if (!text)
		return;
	if (python_value(text, "__version__", out, n) != 1)
		out[0] = '\0';
	free(text);
}

static void read_python(struct oneapi_facts *o, const struct python_facts *py)
{
	int i, k;

	for (i = 0; i < py->n && o->npy < FACTS_MAX_ONEAPI; i++) {
		const struct python_env *e = &py->v[i];
		char path[1024], val[64];
		const struct framework *torch = NULL;
		char *text;
		int rc = 0;

		for (k = 0; k < e->nfw; k++)
			if (e->fw[k].kind == FW_TORCH)
				torch = &e->fw[k];
		str_fmt(path, sizeof(path), "%s/intel_extension_for_pytorch", e->site);
		if (!torch && !host_exists(path))
			continue;
		memset(&o->py[o->npy], 0, sizeof(o->py[o->npy]));
		str_copy(o->py[o->npy].prefix, e->prefix, sizeof(o->py[o->npy].prefix));
		if (torch) {
			str_copy(o->py[o->npy].torch_version, torch->version,
				 sizeof(o->py[o->npy].torch_version));
			if (!o->py[o->npy].torch_version[0])
				str_copy(o->py[o->npy].torch_version, "unknown",
					 sizeof(o->py[o->npy].torch_version));
			o->py[o->npy].torch_cuda_or_rocm = torch->cuda[0] || torch->rocm;
			/* version.py: xpu: Optional[str] = '20250101' on an XPU build (2.5 on) */
			str_fmt(path, sizeof(path), "%s/torch/version.py", e->site);
			text = host_read(path, 64 * 1024, NULL, &rc);
			if (text) {
				if (python_value(text, "xpu", val, sizeof(val)) == 1)
					str_copy(o->py[o->npy].torch_xpu, val,
						 sizeof(o->py[o->npy].torch_xpu));
				free(text);
			}
			/* the +xpu local tag says so where version.py is older than the field */
			if (!o->py[o->npy].torch_xpu[0] && strstr(torch->version, "+xpu"))
				str_copy(o->py[o->npy].torch_xpu, "yes",
					 sizeof(o->py[o->npy].torch_xpu));
		}
		str_fmt(path, sizeof(path), "%s/intel_extension_for_pytorch", e->site);
		if (host_exists(path)) {
			py_version(e->site, "intel_extension_for_pytorch/_version.py",
				   o->py[o->npy].ipex_version, sizeof(o->py[o->npy].ipex_version));
			if (!o->py[o->npy].ipex_version[0])
				str_copy(o->py[o->npy].ipex_version, "unknown",
					 sizeof(o->py[o->npy].ipex_version));
		}
		o->npy++;
	}
}

static void read_env(char *out, size_t n, bool *set, const char *name)
{
	const char *v = host_getenv(name);

	*set = v != NULL;
	str_copy(out, v ? v : "", n);
}

void oneapi_collect(struct oneapi_facts *o, const struct pci_facts *pci,
		    const struct python_facts *py)
{
	static const char *const libnames[] = {"libze_loader.so", "libze_intel_gpu.so",
					       "libigdrcl.so"};
	struct lib_list libs[3];
	char *modules, *group_file = NULL, *icd;
	int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < pci->naccel; i++)
		if (pci->accel[i].kind == ACCEL_INTEL)
			o->present = true;
	if (!o->present)
		return;
	modules = host_read("/proc/modules", 1024 * 1024, NULL, NULL);
	if (modules) {
		o->modules_read = true;
		o->i915_loaded = proc_modules_lists(modules, "i915");
		o->xe_loaded = proc_modules_lists(modules, "xe");
		free(modules);
	}
	for (i = 0; i < pci->naccel; i++) {
		char path[64];

		if (pci->accel[i].kind != ACCEL_INTEL || !pci->accel[i].render[0])
			continue;
		if (!group_file)
			group_file = host_read("/etc/group", 1024 * 1024, NULL, NULL);
		str_fmt(path, sizeof(path), "/dev/dri/%s", pci->accel[i].render);
		devnode_read(&o->render[i], path, group_file);
	}
	free(group_file);
	libs_search(libnames, libs, ARRAY_SIZE(libnames));
	o->ze_loader = libs[0];
	o->ze_gpu = libs[1];
	o->igdrcl = libs[2];
	icd = host_read(INTEL_ICD, 4096, NULL, NULL);
	if (icd) {
		str_copy(o->icd_path, INTEL_ICD, sizeof(o->icd_path));
		str_copy(o->icd_lib, str_trim(icd), sizeof(o->icd_lib));
		free(icd);
		/* the ICD loader dlopens the named path as it is: it need not be in the cache */
		o->icd_lib_exists = o->icd_lib[0] == '/' ? host_exists(o->icd_lib) : libs[2].n > 0;
	}
	read_oneapi_dir(o);
	read_python(o, py);
	read_env(o->ze_affinity_mask, sizeof(o->ze_affinity_mask), &o->ze_affinity_set,
		 "ZE_AFFINITY_MASK");
	read_env(o->oneapi_device_selector, sizeof(o->oneapi_device_selector), &o->selector_set,
		 "ONEAPI_DEVICE_SELECTOR");
}
