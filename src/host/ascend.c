/*
 * ascend.c: what the files say about a Huawei Ascend NPU's stack: the driver's version file,
 * its kernel modules (drv_davinci_intf_host, drv_devmng_host, drv_devmm_host,
 * drv_pcie_hdc_host, ascend_*), the device nodes they create (/dev/davinci_manager,
 * /dev/devmm_svm, /dev/hisi_hdc, /dev/davinciN) and who may open them, npu-smi, the CANN
 * toolkit's version and torch_npu (issue 14).
 *
 * Nothing is read without an Ascend NPU on the bus (pci.c's accel list), so other machines'
 * doctor and recordings stay as they were. checks/ascend.c judges.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "facts.h"

#define ASCEND_DIR "/usr/local/Ascend"

/* "Version=24.1.rc2" (driver/version.info) or "version=8.0.RC2" (the toolkit's install
 * info): the value of the first line whose key is `key` in any case */
static bool key_value(const char *text, const char *key, char *out, size_t n)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncasecmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t len = strcspn(p + klen + 1, "\r\n");

			str_copy(out, p + klen + 1, n < len + 1 ? n : len + 1);
			str_trim(out);
			return out[0] != '\0';
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static bool file_value(const char *path, const char *key, char *out, size_t n)
{
	char *text = host_read(path, 64 * 1024, NULL, NULL);
	bool ok;

	if (!text)
		return false;
	ok = key_value(text, key, out, n);
	free(text);
	return ok;
}

/* An Ascend kernel module's name: the driver's are drv_* and ascend_*; davinci for old ones */
static bool ascend_module(const char *name)
{
	return str_starts(name, "drv_") || str_starts(name, "ascend") || strstr(name, "davinci");
}

static void read_modules(struct ascend_facts *a)
{
	char *text = host_read("/proc/modules", 1024 * 1024, NULL, NULL);
	char *line, *save = NULL;

	if (!text)
		return;
	a->modules_read = true;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (sp)
			*sp = '\0';
		if (!ascend_module(line))
			continue;
		a->nmodules++;
		if (a->modules[0])
			str_append(a->modules, " ", sizeof(a->modules));
		str_append(a->modules, line, sizeof(a->modules));
	}
	free(text);
}

/* "davinci" then digits: one NPU's node (davinci_manager is not) */
static bool npu_node(const char *name)
{
	const char *p;

	if (!str_starts(name, "davinci") || !name[7])
		return false;
	for (p = name + 7; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

static int cmp_node(const void *x, const void *y)
{
	const char *a = *(const char *const *)x, *b = *(const char *const *)y;
	size_t la = strlen(a), lb = strlen(b);

	/* davinci2 before davinci10 */
	return la != lb ? (la < lb ? -1 : 1) : strcmp(a, b);
}

static void read_nodes(struct ascend_facts *a)
{
	static const char *const fixed[] = {"/dev/davinci_manager", "/dev/devmm_svm",
					    "/dev/hisi_hdc"};
	char *group_file = host_read("/etc/group", 1024 * 1024, NULL, NULL);
	char **names = NULL, **npus;
	size_t n = 0, i, nnpus = 0;

	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		devnode_read(&a->nodes[a->nnodes++], fixed[i], group_file);
	if (host_list("/dev", &names, &n) == 0) {
		npus = xcalloc(n + 1, sizeof(*npus));
		for (i = 0; i < n; i++)
			if (npu_node(names[i]))
				npus[nnpus++] = names[i];
		qsort(npus, nnpus, sizeof(*npus), cmp_node);
		a->ndavinci = (int)nnpus;
		for (i = 0; i < nnpus && a->nnodes < FACTS_MAX_ASCEND_NODES; i++) {
			char path[64];

			str_fmt(path, sizeof(path), "/dev/%s", npus[i]);
			devnode_read(&a->nodes[a->nnodes++], path, group_file);
		}
		free(npus);
		host_list_free(names, n);
	}
	free(group_file);
}

/* npu-smi where the driver installs it, else on PATH */
static void find_npu_smi(struct ascend_facts *a)
{
	static const char *const known[] = {"/usr/local/sbin/npu-smi", "/usr/local/bin/npu-smi"};
	const char *path = host_getenv("PATH");
	char copy[4096], *tok, *save = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		if (host_exists(known[i])) {
			str_copy(a->npu_smi, known[i], sizeof(a->npu_smi));
			return;
		}
	}
	str_copy(copy, path ? path : "", sizeof(copy));
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char p[512];

		if (tok[0] != '/')
			continue;
		str_fmt(p, sizeof(p), "%s/npu-smi", tok);
		if (host_exists(p)) {
			str_copy(a->npu_smi, p, sizeof(a->npu_smi));
			return;
		}
	}
}

/* The toolkit's `latest`: <arch>-linux/ascend_toolkit_install.info's version=, else the
 * version folder `latest` links to */
static void read_cann(struct ascend_facts *a)
{
	static const char *const arches[] = {"x86_64", "aarch64"};
	char path[256], target[256];
	struct host_stat st;
	size_t i;

	a->toolkit_dir = host_stat(ASCEND_DIR "/ascend-toolkit", &st) == 0 && st.type == 'd';
	if (!a->toolkit_dir)
		return;
	for (i = 0; i < ARRAY_SIZE(arches); i++) {
		str_fmt(path, sizeof(path),
			ASCEND_DIR "/ascend-toolkit/latest/%s-linux/ascend_toolkit_install.info",
			arches[i]);
		if (file_value(path, "version", a->cann_version, sizeof(a->cann_version))) {
			str_copy(a->cann_path, path, sizeof(a->cann_path));
			return;
		}
	}
	if (host_readlink(ASCEND_DIR "/ascend-toolkit/latest", target, sizeof(target)) == 0) {
		const char *slash = strrchr(target, '/');

		str_copy(a->cann_version, slash ? slash + 1 : target, sizeof(a->cann_version));
		str_copy(a->cann_path, ASCEND_DIR "/ascend-toolkit/latest", sizeof(a->cann_path));
	}
}

static void read_python(struct ascend_facts *a, const struct python_facts *py)
{
	int i, k;

	for (i = 0; i < py->n; i++) {
		const struct python_env *e = &py->v[i];
		char path[1024], ver[48] = "";
		char *text;

		for (k = 0; k < e->nfw; k++)
			if (e->fw[k].kind == FW_TORCH)
				a->torch_present = true;
		str_fmt(path, sizeof(path), "%s/torch_npu", e->site);
		if (!host_exists(path) || a->ntorch_npu >= FACTS_MAX_ONEAPI)
			continue;
		str_fmt(path, sizeof(path), "%s/torch_npu/version.py", e->site);
		text = host_read(path, 64 * 1024, NULL, NULL);
		if (text) {
			if (python_value(text, "__version__", ver, sizeof(ver)) != 1)
				ver[0] = '\0';
			free(text);
		}
		str_fmt(a->torch_npu[a->ntorch_npu++], sizeof(a->torch_npu[0]), "%s (%.*s)",
			ver[0] ? ver : "version unknown", 12, e->kind);
	}
}

void ascend_collect(struct ascend_facts *a, const struct pci_facts *pci,
		    const struct python_facts *py)
{
	struct host_stat st;
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < pci->naccel; i++)
		if (pci->accel[i].kind == ACCEL_HUAWEI)
			a->present = true;
	if (!a->present)
		return;
	a->driver_dir = host_stat(ASCEND_DIR "/driver", &st) == 0 && st.type == 'd';
	file_value(ASCEND_DIR "/driver/version.info", "Version", a->driver_version,
		   sizeof(a->driver_version));
	read_modules(a);
	read_nodes(a);
	find_npu_smi(a);
	read_cann(a);
	read_python(a, py);
}
