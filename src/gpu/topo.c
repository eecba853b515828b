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
	t->p2p = xcalloc((size_t)(n ? n * n * TOPO_P2P_N : 1), sizeof(*t->p2p));
	for (i = 0; i < n; i++) {
		for (l = 0; l < GPU_MAX_LINKS; l++)
			t->gpus[i].links[l].remote_gpu = -1;
		t->gpus[i].pcie.gen = t->gpus[i].pcie.gen_max = -1;
		t->gpus[i].pcie.width = t->gpus[i].pcie.width_max = -1;
		t->gpus[i].pcie.up_gen_max = t->gpus[i].pcie.up_width_max = -1;
	}
}

void topo_free(struct topo *t)
{
	free(t->gpus);
	free(t->ancestor);
	free(t->nvlinks);
	free(t->p2p);
	memset(t, 0, sizeof(*t));
}

/* A remote end NVML hides: in the H200 VMs every link's remote PCI info reads
 * FFFFFFFF:FF:FF.0 (driver 580.159.04, passthrough), although nvidia-smi shows NV18. */
static bool bus_hidden(const char *bus)
{
	return str_starts(bus, "FFFFFFFF") || str_starts(bus, "ffffffff");
}

void topo_count_links(struct topo *t, const struct gpu_system *sys)
{
	unsigned i, j, l;

	memset(t->nvlinks, 0, (size_t)t->n * t->n * sizeof(*t->nvlinks));
	for (i = 0; i < t->n; i++) {
		struct topo_gpu *tg = &t->gpus[i];
		unsigned unknown = 0;

		for (l = 0; l < tg->nlinks; l++) {
			struct topo_link *lk = &tg->links[l];

			lk->remote_gpu = -1;
			if (!text_ok(&lk->remote_bus) || bus_hidden(lk->remote_bus.s)) {
				if (num_ok(&lk->active) && lk->active.v)
					unknown++;
				continue;
			}
			for (j = 0; j < t->n && j < sys->ngpus; j++) {
				if (text_ok(&sys->gpus[j].st.bus_id) &&
				    bus_id_same(lk->remote_bus.s, sys->gpus[j].st.bus_id.s)) {
					lk->remote_gpu = (int)j;
					break;
				}
			}
			if (lk->remote_gpu >= 0 && lk->remote_gpu != (int)i && num_ok(&lk->active) &&
			    lk->active.v)
				t->nvlinks[i * t->n + (unsigned)lk->remote_gpu]++;
		}
		/* Links whose far end is hidden go to every GPU NVML says this one reaches over
		 * NVLink: the pair of an NVLink bridge, or every GPU behind the same NVSwitches
		 * (where nvidia-smi also prints NV18 for each pair). */
		if (!unknown || !t->p2p)
			continue;
		for (j = 0; j < t->n; j++) {
			const struct num *nv = j == i ? NULL : topo_p2p(t, i, j, TOPO_P2P_NVLINK);

			if (nv && num_ok(nv) && nv->v == 0 && t->nvlinks[i * t->n + j] == 0)
				t->nvlinks[i * t->n + j] = unknown;
		}
	}
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

void topo_read_pcie(struct topo *t, const struct gpu_system *sys)
{
	unsigned i;

	for (i = 0; i < t->n && i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];
		struct topo_pcie *pc = &t->gpus[i].pcie;
		char dir[256], real[512], *slash;
		const char *bus;

		if (!text_ok(&g->st.bus_id))
			continue;
		bus = g->st.bus_id.s;
		if (strlen(bus) > 12)
			bus += strlen(bus) - 12;
		str_fmt(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bus);
		{
			char lower[32];
			size_t k;

			str_copy(lower, bus, sizeof(lower));
			for (k = 0; lower[k]; k++)
				if (lower[k] >= 'A' && lower[k] <= 'F')
					lower[k] = (char)(lower[k] - 'A' + 'a');
			str_fmt(dir, sizeof(dir), "/sys/bus/pci/devices/%s", lower);
		}
		pc->gen = read_gen(dir, "current_link_speed");
		pc->gen_max = read_gen(dir, "max_link_speed");
		pc->width = read_int(dir, "current_link_width");
		pc->width_max = read_int(dir, "max_link_width");
		/* the upstream port: the parent folder of the device's real path */
		if (host_realpath(dir, real, sizeof(real)) != 0)
			continue;
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
}

const char *topo_cell(const struct topo *t, unsigned i, unsigned j, char *buf, size_t n)
{
	const struct num *a;

	if (i == j)
		return "X";
	if (t->nvlinks[i * t->n + j] > 0) {
		str_fmt(buf, n, "NV%d", t->nvlinks[i * t->n + j]);
		return buf;
	}
	a = topo_ancestor(t, i, j);
	if (!num_ok(a))
		return "n/a";
	switch (a->v) {
	case LEVEL_INTERNAL: /* two GPUs on one board: nvidia-smi has no word of its own */
	case LEVEL_SINGLE: return "PIX";
	case LEVEL_MULTIPLE: return "PXB";
	case LEVEL_HOSTBRIDGE: return "PHB";
	case LEVEL_NODE: return "NODE";
	case LEVEL_SYSTEM: return "SYS";
	default: return "n/a";
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

void topo_format_matrix(const struct topo *t, const struct gpu_system *sys, struct strbuf *out)
{
	unsigned i, j;
	int w = 5;

	/* wide enough for NV18 and "n/a" */
	sb_adds(out, "      ");
	for (j = 0; j < t->n; j++) {
		char h[16];

		str_fmt(h, sizeof(h), "GPU%u", j);
		sb_addf(out, " %-*s", w, h);
	}
	sb_adds(out, " CPU Affinity    NUMA Affinity  GPU NUMA ID\n");
	for (i = 0; i < t->n; i++) {
		const struct gpu *g = i < sys->ngpus ? &sys->gpus[i] : NULL;
		char h[16], cell[16];

		str_fmt(h, sizeof(h), "GPU%u", i);
		sb_addf(out, "%-6s", h);
		for (j = 0; j < t->n; j++)
			sb_addf(out, " %-*s", w, topo_cell(t, i, j, cell, sizeof(cell)));
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
}

static void format_p2p(const struct topo *t, struct strbuf *out)
{
	static const char caps[TOPO_P2P_N] = {'r', 'w', 'n', 'a'};
	unsigned i, j, c;
	bool any = false;

	for (i = 0; i < t->n && !any; i++)
		for (j = 0; j < t->n && !any; j++)
			for (c = 0; c < TOPO_P2P_N; c++)
				if (i != j && num_ok(topo_p2p(t, i, j, c)))
					any = true;
	if (!any) {
		if (t->n > 1)
			sb_adds(out, "\nP2P: not reported by NVML\n");
		return;
	}
	sb_adds(out, "\nP2P (read, write, nvlink, atomics; a letter where the pair supports it):\n");
	sb_adds(out, "      ");
	for (j = 0; j < t->n; j++) {
		char h[16];

		str_fmt(h, sizeof(h), "GPU%u", j);
		sb_addf(out, " %-5s", h);
	}
	sb_addc(out, '\n');
	for (i = 0; i < t->n; i++) {
		char h[16];

		str_fmt(h, sizeof(h), "GPU%u", i);
		sb_addf(out, "%-6s", h);
		for (j = 0; j < t->n; j++) {
			char cell[TOPO_P2P_N + 1];

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

			if (i != j && s->st != VAL_UNSET && !(num_ok(s) && s->v == 0))
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

static void format_nvlink(const struct topo *t, struct strbuf *out)
{
	unsigned i, l, start;
	bool any = false;

	for (i = 0; i < t->n; i++)
		if (t->gpus[i].nlinks)
			any = true;
	if (!any) {
		sb_adds(out, "\nNVLink: none reported by NVML\n");
		return;
	}
	sb_adds(out, "\nNVLink      links  state  version  speed         far end\n");
	for (i = 0; i < t->n; i++) {
		const struct topo_gpu *tg = &t->gpus[i];

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

static void format_pcie(const struct topo *t, const struct gpu_system *sys, struct strbuf *out)
{
	unsigned i;

	sb_adds(out, "\nPCIe        bus id            link now   GPU max    port max   note\n");
	for (i = 0; i < t->n && i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];
		const struct topo_pcie *pc = &t->gpus[i].pcie;
		int gen = pc->gen, width = pc->width, gmax = pc->gen_max, wmax = pc->width_max;
		char a[8], b[8], now[24], max[24], up[24], head[16];
		const char *note = "";

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

void topo_format(const struct topo *t, const struct gpu_system *sys, struct strbuf *out)
{
	topo_format_matrix(t, sys, out);
	format_p2p(t, out);
	format_nvlink(t, out);
	format_pcie(t, sys, out);
}
