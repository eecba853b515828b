/*
 * slurm_gres.c: gres.conf lines for the node's GPUs (slurm_gres.h).
 *
 * Slurm's gres.conf wants Cores= in its own core numbering, not the CPU ids the kernel uses:
 * with hardware threads on, CPUs 0 and 64 are one core, and a CPU id past the core count makes
 * slurmd refuse the line. Slurm numbers cores by socket, then core (hwloc's logical order), so
 * each CPU's package and core id are read from /sys/devices/system/cpu/cpuN/topology and ranked.
 * Links= is an ordered list, one entry per GPU in the order of the File= lines (their minor
 * numbers), -1 for the device itself and the NVLink count to each other GPU (0 none).
 */
#include "slurm_gres.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../host/host.h"
#include "../util/util.h"

/* CPUs gpuvet maps; a larger machine gets the CPU ids as NVML gave them */
#define CPU_MAX 4096

void slurm_gres_type(const char *name, char *out, size_t n)
{
	char words[4][64];
	int nw = 0, i;
	const char *p = name;

	str_copy(out, "gpu", n);
	while (p && *p && nw < 4) {
		size_t len;

		while (*p == ' ')
			p++;
		len = strcspn(p, " ");
		if (len == 0)
			break;
		if (len < sizeof(words[0])) {
			memcpy(words[nw], p, len);
			words[nw][len] = '\0';
			for (i = 0; words[nw][i]; i++)
				words[nw][i] = (char)tolower((unsigned char)words[nw][i]);
			/* the vendor and brand words say nothing a job asks for */
			if (strcmp(words[nw], "nvidia") && strcmp(words[nw], "geforce") &&
			    strcmp(words[nw], "tesla"))
				nw++;
		}
		p += len;
	}
	if (nw == 0)
		return;
	/* "a100-sxm4-80gb": the model is before the form factor */
	words[0][strcspn(words[0], "-")] = '\0';
	if (nw > 1 && (!strcmp(words[0], "rtx") || !strcmp(words[0], "quadro") ||
		       !strcmp(words[0], "titan"))) {
		words[1][strcspn(words[1], "-")] = '\0';
		str_fmt(out, n, "%s_%s", words[0], words[1]);
	} else if (words[0][0]) {
		str_copy(out, words[0], n);
	}
	for (i = 0; out[i]; i++)
		if (!isalnum((unsigned char)out[i]) && out[i] != '_' && out[i] != '.')
			out[i] = '_';
}

void slurm_cpu_list_format(const bool *cpus, size_t max, struct strbuf *out)
{
	size_t i = 0;
	bool first = true;

	while (i < max) {
		size_t j;

		if (!cpus[i]) {
			i++;
			continue;
		}
		for (j = i; j + 1 < max && cpus[j + 1]; j++)
			;
		sb_addf(out, first ? "%zu" : ",%zu", i);
		if (j > i)
			sb_addf(out, "-%zu", j);
		first = false;
		i = j + 1;
	}
}

struct core_key {
	uint64_t pkg, core;
};

static int key_cmp(const void *a, const void *b)
{
	const struct core_key *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return 0;
}

/* core_of[cpu]: Slurm's core index of each present CPU (-1 absent). false when the topology
 * cannot be read for every present CPU. */
static bool read_cores(int *core_of, size_t max)
{
	char line[256], path[128];
	bool *present = xcalloc(max, sizeof(*present));
	struct core_key *keys = xcalloc(max, sizeof(*keys)), *uniq;
	size_t i, nkeys = 0, nuniq = 0;
	bool ok = false;

	for (i = 0; i < max; i++)
		core_of[i] = -1;
	if (host_read_line("/sys/devices/system/cpu/present", line, sizeof(line)) != 0 ||
	    cpu_list_parse(str_trim(line), present, max) < 0)
		goto out;
	for (i = 0; i < max; i++) {
		uint64_t pkg, core;

		if (!present[i])
			continue;
		str_fmt(path, sizeof(path),
			"/sys/devices/system/cpu/cpu%zu/topology/physical_package_id", i);
		if (host_read_u64(path, &pkg) != 0)
			goto out;
		str_fmt(path, sizeof(path), "/sys/devices/system/cpu/cpu%zu/topology/core_id", i);
		if (host_read_u64(path, &core) != 0)
			goto out;
		keys[nkeys].pkg = pkg;
		keys[nkeys].core = core;
		nkeys++;
	}
	if (nkeys == 0)
		goto out;
	uniq = xcalloc(nkeys, sizeof(*uniq));
	memcpy(uniq, keys, nkeys * sizeof(*uniq));
	qsort(uniq, nkeys, sizeof(*uniq), key_cmp);
	for (i = 0; i < nkeys; i++)
		if (nuniq == 0 || key_cmp(&uniq[nuniq - 1], &uniq[i]) != 0)
			uniq[nuniq++] = uniq[i];
	for (i = 0, nkeys = 0; i < max; i++) {
		struct core_key *k;

		if (!present[i])
			continue;
		k = bsearch(&keys[nkeys++], uniq, nuniq, sizeof(*uniq), key_cmp);
		core_of[i] = (int)(k - uniq);
	}
	free(uniq);
	ok = true;
out:
	free(present);
	free(keys);
	return ok;
}

/* qsort has no context argument: the system being sorted */
static const struct gpu_system *sort_sys;

static int by_minor(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	int64_t mx = sort_sys->gpus[x].st.minor_number.v, my = sort_sys->gpus[y].st.minor_number.v;

	return mx != my ? (mx < my ? -1 : 1) : (x < y ? -1 : x > y);
}

void slurm_gres_format(const struct topo *t, const struct gpu_system *sys, struct strbuf *out)
{
	unsigned n = sys->ngpus, i, k, *order = xcalloc(n ? n : 1, sizeof(*order));
	int *core_of = xcalloc(CPU_MAX, sizeof(*core_of));
	bool *cpus = xcalloc(CPU_MAX, sizeof(*cpus)), *cores = xcalloc(CPU_MAX, sizeof(*cores));
	bool minors = true, links = false, mapped = read_cores(core_of, CPU_MAX), cpu_ids = false;
	bool no_affinity = false;
	struct strbuf body;

	sb_init(&body);
	for (i = 0; i < n; i++) {
		order[i] = i;
		if (!num_ok(&sys->gpus[i].st.minor_number))
			minors = false;
		for (k = 0; k < n && t->n == n; k++)
			if (k != i && t->nvlinks[i * n + k] > 0)
				links = true;
	}
	if (minors) {
		sort_sys = sys;
		qsort(order, n, sizeof(*order), by_minor);
	}
	for (i = 0; i < n; i++) {
		const struct gpu *g = &sys->gpus[order[i]];
		char type[64];
		size_t c;

		slurm_gres_type(text_ok(&g->st.name) ? g->st.name.s : NULL, type, sizeof(type));
		sb_addf(&body, "Name=gpu Type=%s File=/dev/nvidia%lld", type,
			minors ? (long long)g->st.minor_number.v : (long long)order[i]);
		memset(cpus, 0, CPU_MAX * sizeof(*cpus));
		memset(cores, 0, CPU_MAX * sizeof(*cores));
		if (text_ok(&g->st.cpu_affinity) &&
		    cpu_list_parse(g->st.cpu_affinity.s, cpus, CPU_MAX) >= 0) {
			bool all = mapped;

			for (c = 0; c < CPU_MAX && all; c++)
				if (cpus[c] && core_of[c] < 0)
					all = false;
			if (all) {
				for (c = 0; c < CPU_MAX; c++)
					if (cpus[c])
						cores[core_of[c]] = true;
			} else {
				memcpy(cores, cpus, CPU_MAX * sizeof(*cores));
				cpu_ids = true;
			}
			sb_adds(&body, " Cores=");
			slurm_cpu_list_format(cores, CPU_MAX, &body);
		} else {
			no_affinity = true;
		}
		if (links) {
			sb_adds(&body, " Links=");
			for (k = 0; k < n; k++)
				sb_addf(&body, k ? ",%d" : "%d",
					k == i ? -1 : t->nvlinks[order[i] * n + order[k]]);
		}
		sb_addc(&body, '\n');
	}
	sb_addf(out,
		"# gres.conf for this node's %u GPU%s, written by gpuvet topo --gres-conf "
		"(docs/slurm.md)\n",
		n, n == 1 ? "" : "s");
	if (!minors)
		sb_adds(out,
			"# File=: NVML gave no minor numbers: the GPUs' indexes are used; check "
			"ls -l /dev/nvidia[0-9]*\n");
	if (cpu_ids)
		sb_adds(out,
			"# Cores=: the CPU ids of NVML's affinity (/sys/devices/system/cpu has no "
			"topology here); Slurm\n# counts cores, not hardware threads: check them "
			"against slurmd -C\n");
	else if (n && !no_affinity)
		sb_adds(out,
			"# Cores=: Slurm's core numbers (sockets, then cores) of the CPUs local to "
			"each GPU\n");
	if (no_affinity)
		sb_adds(out, "# Cores=: NVML gave no CPU affinity for some GPUs: left out\n");
	if (links)
		sb_adds(out,
			"# Links=: NVLinks to each GPU in the order of these lines, -1 itself\n");
	sb_add(out, body.buf, body.len);
	sb_adds(out, "# or let slurmd read the same from NVML (slurmd built with NVML): "
		     "AutoDetect=nvml\n");
	sb_release(&body);
	free(order);
	free(core_of);
	free(cpus);
	free(cores);
}
