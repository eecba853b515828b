/*
 * hostcheck.h: the hand-built doctor input shared by the host-layer check tests
 * (test_checks_host.c, test_checks_pci.c, test_checks_module.c): a healthy bare-metal Ubuntu
 * server with two H200s, helpers to break it, and assertions on the findings. Only for what a
 * scenario cannot state (tests/scenarios/, docs/scenarios.md): a fault that a recording can
 * hold is a scenario.
 */
#ifndef GPUVET_HOSTCHECK_H
#define GPUVET_HOSTCHECK_H

#include <errno.h>
#include <stdlib.h>

#include "checks/catalog.h"
#include "checks/doctor.h"
#include "test.h"
#include "util/util.h"

#define UNUSED __attribute__((unused))

static struct doctor_input *in;
static struct findings fs;
static struct gpu gpus[4];

static UNUSED const struct finding *find(const char *id)
{
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (strcmp(fs.v[i].def->id, id) == 0)
			return &fs.v[i];
	return NULL;
}

static UNUSED int count(const char *id)
{
	size_t i;
	int c = 0;

	for (i = 0; i < fs.n; i++)
		c += strcmp(fs.v[i].def->id, id) == 0;
	return c;
}

static UNUSED int count_sev_layer(enum severity sev, enum layer l)
{
	size_t i;
	int c = 0;

	for (i = 0; i < fs.n; i++)
		c += fs.v[i].sev == sev && fs.v[i].def->layer == l;
	return c;
}

static UNUSED enum severity worst_host(void)
{
	enum severity w = SEV_OK;
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (fs.v[i].def->layer <= LAYER_DEVICES && fs.v[i].sev > w)
			w = fs.v[i].sev;
	return w;
}

static UNUSED bool evidence_has(const struct finding *f, const char *text)
{
	int i;

	for (i = 0; i < f->nevidence; i++)
		if (strstr(f->evidence[i], text))
			return true;
	return false;
}

static UNUSED void dump(void)
{
	size_t i;

	for (i = 0; i < fs.n; i++)
		printf("  # %s %s gpu=%d: %s\n", severity_name(fs.v[i].sev), fs.v[i].def->id, fs.v[i].gpu,
		       fs.v[i].summary);
}

/* The host layers' checks (catalog.c's table), bottom up. */
static UNUSED void run_checks(void)
{
	static const char *const host_checks[] = {"platform", "pci", "module", "devices"};
	size_t i;

	findings_free(&fs);
	for (i = 0; i < ARRAY_SIZE(host_checks); i++) {
		const struct check *c = check_find(host_checks[i]);

		if (!c) {
			printf("FAIL no check called '%s' in the catalog\n", host_checks[i]);
			exit(1);
		}
		c->run(in, &fs);
	}
	if (getenv("GPUVET_TEST_DUMP"))
		dump();
}

/* A finding with this id and severity, with evidence, and a fix when it is a problem. */
#define CHECK_FINDING(id, severity)                                                                \
	do {                                                                                       \
		const struct finding *f_ = find(id);                                               \
		if (!f_)                                                                           \
			dump();                                                                    \
		CHECK(f_ != NULL);                                                                 \
		CHECK(f_->sev == (severity));                                                      \
		CHECK(f_->nevidence > 0 || (severity) < SEV_WARN);                                 \
		CHECK((severity) < SEV_WARN || (f_->fix && f_->fix[0]));                           \
	} while (0)

#define CHECK_CONTAINS(hay, needle)                                                                \
	do {                                                                                       \
		const char *h_ = (hay);                                                            \
		if (!h_ || !strstr(h_, needle))                                                    \
			printf("  # '%s' lacks '%s'\n", h_ ? h_ : "(null)", needle);               \
		CHECK(h_ && strstr(h_, needle));                                                   \
	} while (0)

static UNUSED void add_node(const char *path, unsigned mode, unsigned gid, unsigned major,
		     unsigned minor)
{
	struct devnode *n = &in->facts.devnodes.nodes[in->facts.devnodes.n++];

	memset(n, 0, sizeof(*n));
	str_copy(n->path, path, sizeof(n->path));
	n->exists = true;
	n->st.type = 'c';
	n->st.mode = mode;
	n->st.gid = gid;
	n->st.major = major;
	n->st.minor = minor;
}

static UNUSED struct devnode *node(const char *path)
{
	int i;

	for (i = 0; i < in->facts.devnodes.n; i++)
		if (strcmp(in->facts.devnodes.nodes[i].path, path) == 0)
			return &in->facts.devnodes.nodes[i];
	return NULL;
}

static UNUSED void add_pci_gpu(const char *bdf, unsigned device, int minor)
{
	struct pci_dev *d = &in->facts.pci.devs[in->facts.pci.n++];

	memset(d, 0, sizeof(*d));
	str_copy(d->bdf, bdf, sizeof(d->bdf));
	d->vendor = 0x10de;
	d->device = device;
	d->class_code = 0x030200;
	d->is_gpu = true;
	str_copy(d->driver, "nvidia", sizeof(d->driver));
	d->cur_gen = d->max_gen = 5;
	d->cur_width = d->max_width = 16;
	d->up_max_gen = d->up_max_width = -1;
	d->numa_node = -1;
	str_copy(d->runtime_status, "active", sizeof(d->runtime_status));
	d->aer_fatal = d->aer_nonfatal = d->aer_correctable = -1;
	d->config_read = true;
	d->iommu_group = -1;
	d->nv_info = true;
	str_copy(d->nv_model, "NVIDIA H200", sizeof(d->nv_model));
	d->nv_minor = minor;
	in->facts.pci.ngpus++;
}

static UNUSED void add_nvml_gpu(unsigned index, const char *bus_id, int minor, int cc_major,
			 int cc_minor)
{
	struct gpu *g = &gpus[in->sys.ngpus++];

	memset(g, 0, sizeof(*g));
	g->index = index;
	str_copy(g->st.bus_id.s, bus_id, sizeof(g->st.bus_id.s));
	g->st.bus_id.st = VAL_OK;
	str_copy(g->st.name.s, "NVIDIA H200", sizeof(g->st.name.s));
	g->st.name.st = VAL_OK;
	num_set(&g->st.minor_number, minor);
	num_set(&g->st.cc_major, cc_major);
	num_set(&g->st.cc_minor, cc_minor);
	num_set(&g->st.mem_total_bytes, 150754820096LL);
	in->sys.gpus = gpus;
	num_set(&in->sys.count, in->sys.ngpus);
}

/* A healthy bare-metal Ubuntu server with two H200s and driver 580.159.04 (open). */
static UNUSED void healthy(void)
{
	struct host_facts *h;
	struct platform_facts *p;
	struct module_facts *m;

	findings_free(&fs);
	memset(in, 0, sizeof(*in));
	memset(gpus, 0, sizeof(gpus));
	h = &in->facts;
	p = &h->platform;
	str_copy(p->un.release, "6.8.0-51-generic", sizeof(p->un.release));
	str_copy(p->un.machine, "x86_64", sizeof(p->un.machine));
	str_copy(p->os_id, "ubuntu", sizeof(p->os_id));
	str_copy(p->os_id_like, "debian", sizeof(p->os_id_like));
	str_copy(p->os_pretty, "Ubuntu 24.04.3 LTS", sizeof(p->os_pretty));
	p->pkg = PKG_APT;

	h->pci.sysfs_read = true;
	add_pci_gpu("0000:00:06.0", 0x2335, 0);
	add_pci_gpu("0000:00:07.0", 0x2335, 1);

	m = &h->module;
	m->proc_version = true;
	str_copy(m->version, "580.159.04", sizeof(m->version));
	m->open_flavour = true;
	str_copy(m->version_line,
		 "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build",
		 sizeof(m->version_line));
	m->modules_read = m->loaded_nvidia = m->loaded_uvm = true;
	m->nkernels = 1;
	str_copy(m->kernels[0].release, "6.8.0-51-generic", sizeof(m->kernels[0].release));
	m->kernels[0].has_nvidia = m->kernels[0].has_build = m->kernels[0].has_image = true;
	str_copy(m->kernels[0].path, "updates/dkms/nvidia.ko.zst", sizeof(m->kernels[0].path));
	m->running_has_module = m->running_has_headers = true;
	m->module_signed = -1;
	m->efi = true;
	m->secure_boot = 0;
	m->uvm_in_proc_devices = true;
	m->firmware_dir = true;
	m->param_dev_uid = m->param_dev_gid = 0;
	m->param_dev_mode = 0666;
	m->param_modify_dev_files = 1;

	h->devnodes.id.uid = 1000;
	h->devnodes.id.gid = 1000;
	add_node("/dev/nvidiactl", 0666, 0, 195, 255);
	add_node("/dev/nvidia-uvm", 0666, 0, 238, 0);
	add_node("/dev/nvidia-uvm-tools", 0666, 0, 238, 1);
	add_node("/dev/nvidia0", 0666, 0, 195, 0);
	add_node("/dev/nvidia1", 0666, 0, 195, 1);
	h->devnodes.ngpu_nodes = 2;

	h->kmsg.dmesg_restrict = 0;

	num_set(&in->sys.nvml_init, 0);
	num_set(&in->sys.cuda_init, 0);
	in->sys.nvml_lib.attempted = in->sys.nvml_lib.loaded = true;
	str_copy(in->sys.nvml_lib.path, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.159.04",
		 sizeof(in->sys.nvml_lib.path));
	str_copy(in->sys.nvml_lib.version, "580.159.04", sizeof(in->sys.nvml_lib.version));
	add_nvml_gpu(0, "00000000:00:06.0", 0, 9, 0);
	add_nvml_gpu(1, "00000000:00:07.0", 1, 9, 0);
}

#endif
