/*
 * topo.c: the topology model and its text form (see topo.h). NVML fills it in gpu/probe.c;
 * sysfs facts come through host/host.h. The legend and the matrix follow `nvidia-smi topo -m`
 * of driver 580 (health-anchors.md, section 4).
 */
#define _GNU_SOURCE
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/host.h"
#include "../util/util.h"
#include "busid.h"

/* NVML topology levels (nvmlGpuTopologyLevel_t) */
enum {
	LEVEL_INTERNAL = 0,
	LEVEL_SINGLE = 10,
	LEVEL_MULTIPLE = 20,
	LEVEL_HOSTBRIDGE = 30,
	LEVEL_NODE = 40,
	LEVEL_SYSTEM = 50,
};

void topo_init(struct topo *t, unsigned n)
{
	unsigned i, l;

	memset(t, 0, sizeof(*t));
	t->n = n;
	t->gpus = xcalloc(n ? n : 1, sizeof(*t->gpus));
	t->ancestor = xcalloc((size_t)(n ? n * n : 1), sizeof(*t->ancestor));
	t->nvlinks = xcalloc((size_t)(n ? n * n : 1), sizeof(*t->nvlinks));
	t->nvlinks_from = xcalloc((size_t)(n ? n * n : 1), sizeof(*t->nvlinks_from));
	t->sysfs_level = xcalloc((size_t)(n ? n * n : 1), sizeof(*t->sysfs_level));
	for (i = 0; i < n * n; i++)
		t->sysfs_level[i] = -1;
	t->p2p = xcalloc((size_t)(n ? n * n * TOPO_P2P_N : 1), sizeof(*t->p2p));
	for (i = 0; i < n; i++) {
		for (l = 0; l < GPU_MAX_LINKS; l++)
			t->gpus[i].links[l].remote_gpu = -1;
		t->gpus[i].pcie.gen = t->gpus[i].pcie.gen_max = -1;
		t->gpus[i].pcie.width = t->gpus[i].pcie.width_max = -1;
		t->gpus[i].pcie.up_gen_max = t->gpus[i].pcie.up_width_max = -1;
		t->gpus[i].pcie.numa_node = -1;
	}
}

void topo_free(struct topo *t)
{
	free(t->gpus);
	free(t->ancestor);
	free(t->nvlinks);
	free(t->nvlinks_from);
	free(t->sysfs_level);
	free(t->p2p);
	memset(t, 0, sizeof(*t));
}

/* A remote end NVML hides: in the H200 VMs every link's remote PCI info reads
 * FFFFFFFF:FF:FF.0 (driver 580.159.04, passthrough), although nvidia-smi shows NV18. */
static bool bus_hidden(const char *bus)
{
	return str_starts(bus, "FFFFFFFF") || str_starts(bus, "ffffffff");
}

static bool fabric_joined(const struct gpu *g)
{
	return num_ok(&g->s.fabric_state) && g->s.fabric_state.v == FABRIC_STATE_COMPLETED &&
	       num_ok(&g->s.fabric_status) && g->s.fabric_status.v == 0;
}

/* Did NVML answer whether the pair talks over NVLink? */
static bool p2p_nvlink_known(const struct topo *t, unsigned i, unsigned j)
{
	return t->p2p && num_ok(topo_p2p(t, i, j, TOPO_P2P_NVLINK));
}

void topo_count_links(struct topo *t, const struct gpu_system *sys)
{
	unsigned i, j, l, n = t->n, with_unknown = 0;
	unsigned *unknown = xcalloc(n ? n : 1, sizeof(*unknown));

	memset(t->nvlinks, 0, (size_t)n * n * sizeof(*t->nvlinks));
	memset(t->nvlinks_from, 0, (size_t)n * n * sizeof(*t->nvlinks_from));
	for (i = 0; i < n; i++) {
		struct topo_gpu *tg = &t->gpus[i];

		for (l = 0; l < tg->nlinks; l++) {
			struct topo_link *lk = &tg->links[l];
			bool up = num_ok(&lk->active) && lk->active.v;

			lk->remote_gpu = -1;
			if (!text_ok(&lk->remote_bus) || bus_hidden(lk->remote_bus.s)) {
				if (up)
					unknown[i]++;
				continue;
			}
			for (j = 0; j < n && j < sys->ngpus; j++) {
				if (text_ok(&sys->gpus[j].st.bus_id) &&
				    bus_id_same(lk->remote_bus.s, sys->gpus[j].st.bus_id.s)) {
					lk->remote_gpu = (int)j;
					break;
				}
			}
			if (lk->remote_gpu >= 0 && lk->remote_gpu != (int)i && up) {
				t->nvlinks[i * n + (unsigned)lk->remote_gpu]++;
				t->nvlinks_from[i * n + (unsigned)lk->remote_gpu] = TOPO_FROM_NVML;
			}
		}
		if (unknown[i])
			with_unknown++;
	}
	/* Links whose far end is unknown go to every GPU this one reaches over NVLink: the pair
	 * of an NVLink bridge, or every GPU behind the same NVSwitches (where nvidia-smi also
	 * prints NV18 for each pair). Which GPUs those are: NVML's P2P status first; without it,
	 * GPUs that both joined the NVLink fabric (Hopper and later; all of them reach each
	 * other), or the only two GPUs of the machine with such links, as many on each. */
	for (i = 0; i < n; i++) {
		if (!unknown[i])
			continue;
		for (j = 0; j < n; j++) {
			enum topo_from from = TOPO_FROM_NONE;

			if (j == i || t->nvlinks[i * n + j] > 0)
				continue;
			if (p2p_nvlink_known(t, i, j)) {
				if (topo_p2p(t, i, j, TOPO_P2P_NVLINK)->v == 0)
					from = TOPO_FROM_P2P;
			} else if (unknown[j] && i < sys->ngpus && j < sys->ngpus &&
				   fabric_joined(&sys->gpus[i]) && fabric_joined(&sys->gpus[j])) {
				from = TOPO_FROM_FABRIC;
			} else if (unknown[j] == unknown[i] && with_unknown == 2) {
				from = TOPO_FROM_ONLY_PAIR;
			}
			if (from != TOPO_FROM_NONE) {
				t->nvlinks[i * n + j] = (int)unknown[i];
				t->nvlinks_from[i * n + j] = (unsigned char)from;
			}
		}
	}
	free(unknown);
}

int topo_gen_from_speed(const char *speed)
{
	static const struct {
		const char *prefix;
		int gen;
	} gens[] = {
		{"2.5 GT/s", 1}, {"5.0 GT/s", 2}, {"5 GT/s", 2},   {"8.0 GT/s", 3},
		{"8 GT/s", 3},	 {"16.0 GT/s", 4}, {"32.0 GT/s", 5}, {"64.0 GT/s", 6},
	};
	size_t i;

	if (!speed)
		return -1;
	for (i = 0; i < ARRAY_SIZE(gens); i++)
		if (str_starts(speed, gens[i].prefix))
			return gens[i].gen;
	return -1;
}

static int read_gen(const char *dir, const char *file)
{
	char path[512], buf[64];

	str_fmt(path, sizeof(path), "%s/%s", dir, file);
	if (host_read_line(path, buf, sizeof(buf)) != 0)
		return -1;
	return topo_gen_from_speed(buf);
}

static int read_int(const char *dir, const char *file)
{
	char path[512];
	uint64_t v;

	str_fmt(path, sizeof(path), "%s/%s", dir, file);
	if (host_read_u64(path, &v) != 0 || v > 1024)
		return -1;
	return (int)v;
}

/* Split a path under /sys/devices into its PCI part: the host bridge ("pci0000:00") and the
 * bus ids below it, the device last. Returns how many bus ids were stored (0: not a PCI path). */
static unsigned pci_chain(const char *path, char *host, size_t hn, char ids[][16], unsigned max)
{
	char copy[512], *tok, *save = NULL;
	unsigned n = 0;
	bool in_pci = false;

	host[0] = '\0';
	str_copy(copy, path, sizeof(copy));
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		struct pci_addr a;

		if (!in_pci) {
			/* "pci0000:00", "pci10000:e0": a host bridge (VMs put ACPI or VMBus folders
			 * above it) */
			if (str_starts(tok, "pci") && strchr(tok, ':')) {
				str_copy(host, tok, hn);
				in_pci = true;
			}
			continue;
		}
		if (!pci_addr_parse(tok, &a) || n == max)
			return 0;
		str_copy(ids[n++], tok, sizeof(ids[0]));
	}
	return in_pci ? n : 0;
}

int topo_level_from_paths(const char *path_a, const char *path_b, int numa_a, int numa_b,
			  const char *cpus_a, const char *cpus_b)
{
	char host_a[32], host_b[32], a[16][16], b[16][16];
	unsigned na, nb, common = 0, below_a, below_b;

	if (!path_a || !path_b)
		return -1;
	na = pci_chain(path_a, host_a, sizeof(host_a), a, 16);
	nb = pci_chain(path_b, host_b, sizeof(host_b), b, 16);
	if (!na || !nb)
		return -1;
	if (strcmp(host_a, host_b) != 0) {
		/* two host bridges: one socket's interconnect or the one between sockets */
		if (numa_a >= 0 && numa_b >= 0)
			return numa_a == numa_b ? LEVEL_NODE : LEVEL_SYSTEM;
		if (cpus_a && cpus_b && cpus_a[0] && cpus_b[0])
			return strcmp(cpus_a, cpus_b) == 0 ? LEVEL_NODE : LEVEL_SYSTEM;
		return -1;
	}
	/* the bridges above each device (its own id is last) */
	while (common < na - 1 && common < nb - 1 && strcmp(a[common], b[common]) == 0)
		common++;
	if (common == 0)
		return LEVEL_HOSTBRIDGE; /* they meet at the host bridge */
	below_a = na - 1 - common;
	below_b = nb - 1 - common;
	/* one switch: each device hangs off a downstream port of the switch they share */
	if (below_a <= 1 && below_b <= 1)
		return LEVEL_SINGLE;
	return LEVEL_MULTIPLE;
}

void topo_read_pcie(struct topo *t, const struct gpu_system *sys)
{
	unsigned i, j;

	for (i = 0; i < t->n && i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];
		struct topo_pcie *pc = &t->gpus[i].pcie;
		char dir[256], real[512], lower[32], *slash;
		const char *bus;
		size_t k;
		int64_t numa;

		if (!text_ok(&g->st.bus_id))
			continue;
		bus = g->st.bus_id.s;
		if (strlen(bus) > 12)
			bus += strlen(bus) - 12;
		/* sysfs names are lowercase; NVML's bus ids are uppercase */
		str_copy(lower, bus, sizeof(lower));
		for (k = 0; lower[k]; k++)
			if (lower[k] >= 'A' && lower[k] <= 'F')
				lower[k] = (char)(lower[k] - 'A' + 'a');
		str_fmt(dir, sizeof(dir), "/sys/bus/pci/devices/%s", lower);
		pc->gen = read_gen(dir, "current_link_speed");
		pc->gen_max = read_gen(dir, "max_link_speed");
		pc->width = read_int(dir, "current_link_width");
		pc->width_max = read_int(dir, "max_link_width");
		{
			char path[512], buf[32];

			str_fmt(path, sizeof(path), "%s/numa_node", dir);
			if (host_read_line(path, buf, sizeof(buf)) == 0 && parse_i64(str_trim(buf), &numa) == 0 &&
			    numa >= 0 && numa < 4096)
				pc->numa_node = (int)numa;
		}
		/* the upstream port: the parent folder of the device's real path */
		if (host_realpath(dir, real, sizeof(real)) != 0)
			continue;
		str_copy(pc->sys_path, real, sizeof(pc->sys_path));
		slash = strrchr(real, '/');
		if (!slash)
			continue;
		*slash = '\0';
		slash = strrchr(real, '/');
		if (!slash || !strchr(slash, ':') || !strchr(slash, '.'))
			continue; /* the parent is a root complex (pci0000:00), not a port */
		str_copy(pc->up_bdf, slash + 1, sizeof(pc->up_bdf));
		pc->up_gen_max = read_gen(real, "max_link_speed");
		pc->up_width_max = read_int(real, "max_link_width");
	}
	/* the pairs NVML gave no common ancestor for */
	for (i = 0; i < t->n && i < sys->ngpus; i++)
		for (j = 0; j < t->n && j < sys->ngpus; j++) {
			const struct topo_pcie *a = &t->gpus[i].pcie, *b = &t->gpus[j].pcie;
			const struct gpu *ga = &sys->gpus[i], *gb = &sys->gpus[j];
			int na = a->numa_node, nb = b->numa_node;

			if (i == j || num_ok(topo_ancestor(t, i, j)) || !a->sys_path[0] ||
			    !b->sys_path[0])
				continue;
			if (na < 0 && num_ok(&ga->st.numa_node))
				na = (int)ga->st.numa_node.v;
			if (nb < 0 && num_ok(&gb->st.numa_node))
				nb = (int)gb->st.numa_node.v;
			t->sysfs_level[i * t->n + j] = topo_level_from_paths(
				a->sys_path, b->sys_path, na, nb,
				text_ok(&ga->st.cpu_affinity) ? ga->st.cpu_affinity.s : NULL,
				text_ok(&gb->st.cpu_affinity) ? gb->st.cpu_affinity.s : NULL);
		}
}

static const char *level_word(int64_t level)
{
	switch (level) {
	case LEVEL_INTERNAL: /* two GPUs on one board: nvidia-smi has no word of its own */
	case LEVEL_SINGLE: return "PIX";
	case LEVEL_MULTIPLE: return "PXB";
	case LEVEL_HOSTBRIDGE: return "PHB";
	case LEVEL_NODE: return "NODE";
	case LEVEL_SYSTEM: return "SYS";
	default: return NULL;
	}
}

const char *topo_pcie_word(const struct topo *t, unsigned i, unsigned j, enum topo_from *from)
{
	const struct num *a = topo_ancestor(t, i, j);
	const char *w = NULL;

	*from = TOPO_FROM_NONE;
	if (num_ok(a)) {
		w = level_word(a->v);
		if (w)
			*from = TOPO_FROM_NVML;
	} else if (t->sysfs_level[i * t->n + j] >= 0) {
		w = level_word(t->sysfs_level[i * t->n + j]);
		if (w)
			*from = TOPO_FROM_SYSFS;
	}
	return w;
}

const char *topo_cell(const struct topo *t, unsigned i, unsigned j, char *buf, size_t n)
{
	enum topo_from from;
	const char *w;

	if (i == j)
		return "X";
	if (t->nvlinks[i * t->n + j] > 0) {
		str_fmt(buf, n, "NV%d", t->nvlinks[i * t->n + j]);
		return buf;
	}
	w = topo_pcie_word(t, i, j, &from);
	return w ? w : "n/a";
}

enum topo_from topo_cell_from(const struct topo *t, unsigned i, unsigned j)
{
	enum topo_from from;

	if (i == j)
		return TOPO_FROM_NONE;
	if (t->nvlinks[i * t->n + j] > 0)
		return (enum topo_from)t->nvlinks_from[i * t->n + j];
	topo_pcie_word(t, i, j, &from);
	return from;
}

const char *topo_from_name(enum topo_from from)
{
	switch (from) {
	case TOPO_FROM_NVML: return "nvml";
	case TOPO_FROM_P2P: return "nvlink_p2p_status";
	case TOPO_FROM_FABRIC: return "nvlink_fabric";
	case TOPO_FROM_ONLY_PAIR: return "nvlink_only_pair";
	case TOPO_FROM_SYSFS: return "sysfs_pci_paths";
	default: return NULL;
	}
}

const char *topo_from_note(enum topo_from from)
{
	switch (from) {
	case TOPO_FROM_P2P:
		return "NV# from each GPU's active links, whose far ends NVML did not give: "
		       "nvmlDeviceGetP2PStatus says the pair talks over NVLink";
	case TOPO_FROM_FABRIC:
		return "NV# from each GPU's active links, whose far ends were not read: both GPUs "
		       "joined one NVLink fabric (nvmlDeviceGetGpuFabricInfo: completed)";
	case TOPO_FROM_ONLY_PAIR:
		return "NV# from each GPU's active links, whose far ends were not read: the only "
		       "two GPUs with active links, as many on each";
	case TOPO_FROM_SYSFS:
		return "PCIe level from the PCI paths in sysfs (shared bridge, host bridge, NUMA "
		       "node): nvmlDeviceGetTopologyCommonAncestor did not answer";
	default: return NULL;
	}
}

const char *topo_p2p_word(const struct num *status)
{
	if (!num_ok(status))
		return status->st == VAL_NA ? "NS" : "n/a";
	switch (status->v) {
	case 0: return "OK";
	case 1: return "CNS";
	case 2: return "GNS";
	case 3: return "TNS";
	case 4: return "DR";
	case 5: return "NS";
	default: return "U";
	}
}

const char *topo_nvlink_version(const struct num *v)
{
	static const char *const names[] = {"n/a", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0"};

	if (!num_ok(v) || v->v < 1 || v->v >= (int64_t)ARRAY_SIZE(names))
		return "n/a";
	return names[v->v];
}

static const char legend[] =
	"Legend:\n"
	"\n"
	"  X    = Self\n"
	"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
	"(e.g., QPI/UPI)\n"
	"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host "
	"Bridges within a NUMA node\n"
	"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
	"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
	"Bridge)\n"
	"  PIX  = Connection traversing at most a single PCIe bridge\n"
	"  NV#  = Connection traversing a bonded set of # NVLinks\n";

static bool is_shown(const bool *shown, unsigned i)
{
	return !shown || shown[i];
}

void topo_format_matrix(const struct topo *t, const struct gpu_system *sys, const bool *shown,
			struct strbuf *out)
{
	bool used[TOPO_FROM_N] = {false};
	unsigned i, j, k;
	int w = 5;

	/* wide enough for NV18, "n/a" and a derived "NV18*" */
	sb_adds(out, "      ");
	for (j = 0; j < t->n; j++) {
		char h[16];

		if (!is_shown(shown, j))
			continue;
		str_fmt(h, sizeof(h), "GPU%u", j);
		sb_addf(out, " %-*s", w, h);
	}
	sb_adds(out, " CPU Affinity    NUMA Affinity  GPU NUMA ID\n");
	for (i = 0; i < t->n; i++) {
		const struct gpu *g = i < sys->ngpus ? &sys->gpus[i] : NULL;
		char h[16], cell[16], mark[24];

		if (!is_shown(shown, i))
			continue;
		str_fmt(h, sizeof(h), "GPU%u", i);
		sb_addf(out, "%-6s", h);
		for (j = 0; j < t->n; j++) {
			enum topo_from from = topo_cell_from(t, i, j);

			if (!is_shown(shown, j))
				continue;
			str_fmt(mark, sizeof(mark), "%s%s", topo_cell(t, i, j, cell, sizeof(cell)),
				from > TOPO_FROM_NVML ? "*" : "");
			if (from > TOPO_FROM_NVML)
				used[from] = true;
			sb_addf(out, " %-*s", w, mark);
		}
		sb_addf(out, " %-15s %-14s %s\n",
			g && text_ok(&g->st.cpu_affinity) ? g->st.cpu_affinity.s : "N/A",
			text_ok(&t->gpus[i].numa_affinity) ? t->gpus[i].numa_affinity.s : "N/A",
			g && num_ok(&g->st.numa_node) ? (str_fmt(cell, sizeof(cell), "%lld",
								 (long long)g->st.numa_node.v),
							 cell)
						       : "N/A");
	}
	sb_addc(out, '\n');
	sb_adds(out, legend);
	/* a derived cell says how it was found: one line per rule used */
	for (k = 0, i = 0; k < TOPO_FROM_N; k++) {
		const char *note = used[k] ? topo_from_note((enum topo_from)k) : NULL;

		if (!note)
			continue;
		if (!i++)
			sb_adds(out, "  *    = Derived where NVML gave no answer for the pair:\n");
		sb_addf(out, "         %s\n", note);
	}
}

/* Are the GPUs shown all other vendors' (gpu/backend.h)? NVML's P2P and NVLink are then
 * said to be NVIDIA's, not "none". */
static bool others_only(const struct gpu_system *sys, const bool *shown)
{
	unsigned i;
	bool any = false;

	for (i = 0; i < sys->ngpus; i++) {
		if (!is_shown(shown, i))
			continue;
		if (!sys->gpus[i].sg)
			return false;
		any = true;
	}
	return any;
}

static void format_p2p(const struct topo *t, const struct gpu_system *sys, const bool *shown,
		       struct strbuf *out)
{
	static const char caps[TOPO_P2P_N] = {'r', 'w', 'n', 'a'};
	unsigned i, j, c;
	bool any = false;

	for (i = 0; i < t->n && !any; i++)
		for (j = 0; j < t->n && !any; j++)
			for (c = 0; c < TOPO_P2P_N; c++)
				if (i != j && is_shown(shown, i) && is_shown(shown, j) &&
				    num_ok(topo_p2p(t, i, j, c)))
					any = true;
	if (!any) {
		if (t->n > 1 && others_only(sys, shown))
			sb_adds(out, "\nP2P: n/a (NVIDIA only: NVML's P2P status)\n");
		else if (t->n > 1)
			sb_adds(out, "\nP2P: not reported by NVML\n");
		return;
	}
	sb_adds(out, "\nP2P (read, write, nvlink, atomics; a letter where the pair supports it):\n");
	sb_adds(out, "      ");
	for (j = 0; j < t->n; j++) {
		char h[16];

		if (!is_shown(shown, j))
			continue;
		str_fmt(h, sizeof(h), "GPU%u", j);
		sb_addf(out, " %-5s", h);
	}
	sb_addc(out, '\n');
	for (i = 0; i < t->n; i++) {
		char h[16];

		if (!is_shown(shown, i))
			continue;
		str_fmt(h, sizeof(h), "GPU%u", i);
		sb_addf(out, "%-6s", h);
		for (j = 0; j < t->n; j++) {
			char cell[TOPO_P2P_N + 1];

			if (!is_shown(shown, j))
				continue;
			if (i == j) {
				sb_addf(out, " %-5s", "X");
				continue;
			}
			for (c = 0; c < TOPO_P2P_N; c++) {
				const struct num *s = topo_p2p(t, i, j, c);

				cell[c] = num_ok(s) && s->v == 0 ? caps[c] : '-';
			}
			cell[TOPO_P2P_N] = '\0';
			sb_addf(out, " %-5s", cell);
		}
		sb_addc(out, '\n');
	}
	/* say why a pair cannot read, in nvidia-smi's words */
	for (i = 0; i < t->n; i++)
		for (j = 0; j < t->n; j++) {
			const struct num *s = topo_p2p(t, i, j, TOPO_P2P_READ);

			if (i != j && is_shown(shown, i) && is_shown(shown, j) && s->st != VAL_UNSET && !(num_ok(s) && s->v == 0))
				sb_addf(out, "  GPU%u -> GPU%u read: %s\n", i, j, topo_p2p_word(s));
		}
	sb_adds(out, "  (CNS chipset, GNS GPU, TNS topology not supported, DR disabled by registry "
		     "key, NS not supported, U unknown)\n");
}

static bool same_num(const struct num *a, const struct num *b)
{
	return a->st == b->st && (a->st != VAL_OK || a->v == b->v);
}

static bool same_link(const struct topo_link *a, const struct topo_link *b)
{
	return same_num(&a->active, &b->active) && same_num(&a->version, &b->version) &&
	       same_num(&a->speed_mbytes_s, &b->speed_mbytes_s) && a->remote_gpu == b->remote_gpu &&
	       a->remote_bus.st == b->remote_bus.st &&
	       (a->remote_gpu >= 0 || strcmp(a->remote_bus.s, b->remote_bus.s) == 0);
}

static void format_nvlink(const struct topo *t, const struct gpu_system *sys, const bool *shown,
			  struct strbuf *out)
{
	unsigned i, l, start;
	bool any = false;

	for (i = 0; i < t->n; i++)
		if (is_shown(shown, i) && t->gpus[i].nlinks)
			any = true;
	if (!any) {
		/* AMD's xGMI and Intel's Xe Link have no sysfs interface gpuvet reads */
		sb_adds(out, others_only(sys, shown) ? "\nNVLink: n/a (NVIDIA only; xGMI and Xe Link "
						       "are not read)\n"
						     : "\nNVLink: none reported by NVML\n");
		return;
	}
	sb_adds(out, "\nNVLink      links  state  version  speed         far end\n");
	for (i = 0; i < t->n; i++) {
		const struct topo_gpu *tg = &t->gpus[i];

		if (!is_shown(shown, i))
			continue;
		if (!tg->nlinks) {
			sb_addf(out, "GPU%-8u -      none\n", i);
			continue;
		}
		for (start = 0; start < tg->nlinks; start = l) {
			const struct topo_link *lk = &tg->links[start];
			char range[16], speed[24], far[64];

			for (l = start + 1; l < tg->nlinks && same_link(lk, &tg->links[l]); l++)
				;
			if (l - start == 1)
				str_fmt(range, sizeof(range), "%u", start);
			else
				str_fmt(range, sizeof(range), "%u-%u", start, l - 1);
			if (num_ok(&lk->speed_mbytes_s))
				str_fmt(speed, sizeof(speed), "%.3f GB/s",
					(double)lk->speed_mbytes_s.v / 1000.0);
			else
				str_copy(speed, "n/a", sizeof(speed));
			if (lk->remote_gpu >= 0)
				str_fmt(far, sizeof(far), "GPU%d", lk->remote_gpu);
			else if (text_ok(&lk->remote_bus) && bus_hidden(lk->remote_bus.s))
				str_copy(far, "hidden by NVML", sizeof(far));
			else if (text_ok(&lk->remote_bus))
				str_fmt(far, sizeof(far), "%s (not a GPU)", lk->remote_bus.s);
			else
				str_copy(far, "n/a", sizeof(far));
			{
				char head[16];

				str_fmt(head, sizeof(head), "GPU%u", i);
				sb_addf(out, "%-11s %-6s %-6s %-8s %-13s %s\n", start ? "" : head, range,
					num_ok(&lk->active) ? (lk->active.v ? "up" : "down") : "n/a",
					topo_nvlink_version(&lk->version), speed, far);
			}
		}
	}
}

static void pcie_part(int v, char *buf, size_t n)
{
	if (v < 0)
		str_copy(buf, "?", n);
	else
		str_fmt(buf, n, "%d", v);
}

static void format_pcie(const struct topo *t, const struct gpu_system *sys, const bool *shown,
			struct strbuf *out)
{
	unsigned i;

	sb_adds(out, "\nPCIe        bus id            link now   GPU max    port max   note\n");
	for (i = 0; i < t->n && i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];
		const struct topo_pcie *pc = &t->gpus[i].pcie;
		int gen = pc->gen, width = pc->width, gmax = pc->gen_max, wmax = pc->width_max;
		char a[8], b[8], now[24], max[24], up[24], head[16];
		const char *note = "";

		if (!is_shown(shown, i))
			continue;
		/* NVML first, sysfs where NVML has no answer */
		if (num_ok(&g->s.pcie_gen))
			gen = (int)g->s.pcie_gen.v;
		if (num_ok(&g->s.pcie_width))
			width = (int)g->s.pcie_width.v;
		if (num_ok(&g->st.pcie_gen_max_gpu))
			gmax = (int)g->st.pcie_gen_max_gpu.v;
		else if (num_ok(&g->st.pcie_gen_max))
			gmax = (int)g->st.pcie_gen_max.v;
		if (num_ok(&g->st.pcie_width_max))
			wmax = (int)g->st.pcie_width_max.v;
		pcie_part(gen, a, sizeof(a));
		pcie_part(width, b, sizeof(b));
		str_fmt(now, sizeof(now), "gen%s x%s", a, b);
		pcie_part(gmax, a, sizeof(a));
		pcie_part(wmax, b, sizeof(b));
		str_fmt(max, sizeof(max), "gen%s x%s", a, b);
		if (pc->up_bdf[0]) {
			pcie_part(pc->up_gen_max, a, sizeof(a));
			pcie_part(pc->up_width_max, b, sizeof(b));
			str_fmt(up, sizeof(up), "gen%s x%s", a, b);
		} else {
			str_copy(up, "-", sizeof(up));
		}
		if (width >= 0 && wmax > 0 && width < wmax)
			note = "link narrower than the GPU can do";
		else if (gen >= 0 && gmax > 0 && gen < gmax)
			note = num_ok(&g->s.util_gpu_pct) && g->s.util_gpu_pct.v == 0
				       ? "slower than max (idle GPUs lower the link speed)"
				       : "slower than the GPU can do";
		else if (pc->up_bdf[0] && pc->up_gen_max > 0 && gmax > pc->up_gen_max)
			note = "the upstream port limits the speed";
		str_fmt(head, sizeof(head), "GPU%u", i);
		{
			char line[256];

			str_fmt(line, sizeof(line), "%-11s %-17s %-10s %-10s %-10s %s", head,
				text_ok(&g->st.bus_id) ? g->st.bus_id.s : "n/a", now, max, up, note);
			sb_addf(out, "%s\n", str_trim(line));
		}
	}
}

void topo_format(const struct topo *t, const struct gpu_system *sys, const bool *shown,
		 struct strbuf *out)
{
	topo_format_matrix(t, sys, shown, out);
	format_p2p(t, sys, shown, out);
	format_nvlink(t, sys, shown, out);
	format_pcie(t, sys, shown, out);
}
