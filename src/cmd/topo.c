/*
 * topo.c: `gpuvet topo`, how the GPUs connect: nvidia-smi's `topo -m` matrix and legend
 * (X, NV#, PIX, PXB, PHB, NODE, SYS) with CPU and NUMA affinity, P2P support per pair, NVLink
 * per link (state, version, speed, far end) and each GPU's PCIe link against its maximum.
 * The model and its text live in gpu/topo.c; NVML is read by probe_topology under the watchdog.
 * Cells NVML gave no answer for are derived there and marked (docs/cmd/topo.md). --gres-conf
 * prints Slurm's gres.conf lines instead (fleet/slurm_gres.c).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/fields.h"
#include "../gpu/libcheck.h"
#include "../gpu/probe.h"
#include "../gpu/select.h"
#include "../fleet/slurm_gres.h"
#include "../gpu/topo.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "../vendor/watchdog.h"
#include "cmd.h"

static const char usage[] =
	"usage: gpuvet topo [-m] [-i ID[,ID...]] [--json]\n"
	"       gpuvet topo --gres-conf\n"
	"\n"
	"The GPU x GPU connection matrix as 'nvidia-smi topo -m' prints it (X, NV#, PIX, PXB,\n"
	"PHB, NODE, SYS) with CPU and NUMA affinity, then P2P support per pair, NVLink per link\n"
	"(state, version, speed, far end) and each GPU's PCIe link against its maximum. A cell\n"
	"NVML gave no answer for is derived from the links and sysfs, marked '*' and explained.\n"
	"\n"
	"options:\n"
	"  -m, --matrix   only the matrix and its legend\n"
	"  -i, --id IDS   only these GPUs: indexes, UUIDs or PCI bus ids, comma-separated\n"
	"  -j, --json     print JSON (docs/cmd/topo.md)\n"
	"  --gres-conf    Slurm's gres.conf lines for every GPU: Type, File, Cores, Links\n"
	"                 (docs/slurm.md)\n"
	"  -h, --help     this help\n";

static json_t *num_or_null(const struct num *n)
{
	return num_ok(n) ? json_integer(n->v) : json_null();
}

static json_t *int_or_null(int v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *from_or_null(enum topo_from from)
{
	const char *name = topo_from_name(from);

	return name ? json_string(name) : json_null();
}

static void print_json(const struct topo_job *j, const bool *shown)
{
	const struct topo *t = &j->t;
	json_t *root = json_object(), *gpus = json_array(), *matrix = json_array(),
	       *pairs = json_array(), *legend = json_object();
	static const char *const capn[TOPO_P2P_N] = {"read", "write", "nvlink", "atomics"};
	bool used[TOPO_FROM_N] = {false};
	json_t *notes = json_array();
	unsigned i, k, l, nshown = 0;
	char *s;

	for (i = 0; i < t->n; i++)
		nshown += shown[i];
	json_object_set_new(root, "gpu_count", json_integer(nshown));
	for (i = 0; i < t->n; i++) {
		const struct gpu *g = &j->sys.gpus[i];
		const struct topo_gpu *tg = &t->gpus[i];
		json_t *o, *links, *pcie, *sysfs;
		unsigned up = 0;

		if (!shown[i])
			continue;
		o = json_object();
		links = json_array();
		pcie = json_object();

		json_object_set_new(o, "index", json_integer(i));
		json_object_set_new(o, "name", text_ok(&g->st.name) ? json_string(g->st.name.s) : json_null());
		json_object_set_new(o, "bus_id",
				    text_ok(&g->st.bus_id) ? json_string(g->st.bus_id.s) : json_null());
		json_object_set_new(o, "cpu_affinity", text_ok(&g->st.cpu_affinity)
							       ? json_string(g->st.cpu_affinity.s)
							       : json_null());
		json_object_set_new(o, "numa_affinity", text_ok(&tg->numa_affinity)
								? json_string(tg->numa_affinity.s)
								: json_null());
		json_object_set_new(o, "gpu_numa_id", num_or_null(&g->st.numa_node));
		json_object_set_new(pcie, "gen", num_or_null(&g->s.pcie_gen));
		json_object_set_new(pcie, "width", num_or_null(&g->s.pcie_width));
		json_object_set_new(pcie, "gen_max", num_or_null(&g->st.pcie_gen_max));
		json_object_set_new(pcie, "gen_max_gpu", num_or_null(&g->st.pcie_gen_max_gpu));
		json_object_set_new(pcie, "width_max", num_or_null(&g->st.pcie_width_max));
		sysfs = json_object();
		json_object_set_new(sysfs, "gen", int_or_null(tg->pcie.gen));
		json_object_set_new(sysfs, "gen_max", int_or_null(tg->pcie.gen_max));
		json_object_set_new(sysfs, "width", int_or_null(tg->pcie.width));
		json_object_set_new(sysfs, "width_max", int_or_null(tg->pcie.width_max));
		if (tg->pcie.up_bdf[0]) {
			json_t *upo = json_object();

			json_object_set_new(upo, "bus_id", json_string(tg->pcie.up_bdf));
			json_object_set_new(upo, "gen_max", int_or_null(tg->pcie.up_gen_max));
			json_object_set_new(upo, "width_max", int_or_null(tg->pcie.up_width_max));
			json_object_set_new(sysfs, "upstream", upo);
		}
		json_object_set_new(pcie, "sysfs", sysfs);
		json_object_set_new(o, "pcie", pcie);
		for (l = 0; l < tg->nlinks; l++) {
			const struct topo_link *lk = &tg->links[l];
			json_t *lo = json_object();

			json_object_set_new(lo, "link", json_integer(l));
			json_object_set_new(lo, "active",
					    num_ok(&lk->active) ? json_boolean(lk->active.v) : json_null());
			json_object_set_new(lo, "version",
					    num_ok(&lk->version) ? json_string(topo_nvlink_version(&lk->version))
								 : json_null());
			json_object_set_new(lo, "version_code", num_or_null(&lk->version));
			json_object_set_new(lo, "speed_mbytes_s", num_or_null(&lk->speed_mbytes_s));
			json_object_set_new(lo, "remote_bus_id", text_ok(&lk->remote_bus)
									 ? json_string(lk->remote_bus.s)
									 : json_null());
			json_object_set_new(lo, "remote_gpu",
					    lk->remote_gpu >= 0 ? json_integer(lk->remote_gpu) : json_null());
			json_array_append_new(links, lo);
			if (num_ok(&lk->active) && lk->active.v)
				up++;
		}
		json_object_set_new(o, "nvlinks_up", json_integer(up));
		json_object_set_new(o, "nvlinks", links);
		json_array_append_new(gpus, o);
	}
	for (i = 0; i < t->n; i++) {
		json_t *row;

		if (!shown[i])
			continue;
		row = json_array();
		for (k = 0; k < t->n; k++) {
			char cell[16];

			if (!shown[k])
				continue;
			json_array_append_new(row, json_string(topo_cell(t, i, k, cell, sizeof(cell))));
		}
		json_array_append_new(matrix, row);
	}
	for (i = 0; i < t->n; i++)
		for (k = i + 1; k < t->n; k++) {
			json_t *o, *ids, *p2p;
			const struct num *a = topo_ancestor(t, i, k);
			enum topo_from from = topo_cell_from(t, i, k), pcie_from;
			const char *pcie = topo_pcie_word(t, i, k, &pcie_from);
			unsigned c;
			char cell[16];

			if (!shown[i] || !shown[k])
				continue;
			o = json_object();
			ids = json_array();
			p2p = json_object();
			used[from] = true;
			json_array_append_new(ids, json_integer(i));
			json_array_append_new(ids, json_integer(k));
			json_object_set_new(o, "gpus", ids);
			json_object_set_new(o, "connection",
					    json_string(topo_cell(t, i, k, cell, sizeof(cell))));
			json_object_set_new(o, "connection_from", from_or_null(from));
			json_object_set_new(o, "derived", json_boolean(from > TOPO_FROM_NVML));
			json_object_set_new(o, "nvlinks", json_integer(t->nvlinks[i * t->n + k]));
			json_object_set_new(o, "nvlinks_from",
					    from_or_null((enum topo_from)t->nvlinks_from[i * t->n + k]));
			json_object_set_new(o, "pcie", pcie ? json_string(pcie) : json_null());
			json_object_set_new(o, "pcie_from", from_or_null(pcie_from));
			json_object_set_new(o, "common_ancestor_level", num_or_null(a));
			for (c = 0; c < TOPO_P2P_N; c++) {
				const struct num *st = topo_p2p(t, i, k, c);

				if (st->st != VAL_UNSET)
					json_object_set_new(p2p, capn[c], json_string(topo_p2p_word(st)));
			}
			json_object_set_new(o, "p2p", p2p);
			json_array_append_new(pairs, o);
		}
	json_object_set_new(legend, "X", json_string("Self"));
	json_object_set_new(legend, "SYS", json_string("PCIe and the SMP interconnect between NUMA nodes"));
	json_object_set_new(legend, "NODE", json_string("PCIe and the interconnect between PCIe host bridges within a NUMA node"));
	json_object_set_new(legend, "PHB", json_string("PCIe and a PCIe host bridge (typically the CPU)"));
	json_object_set_new(legend, "PXB", json_string("multiple PCIe bridges, without the host bridge"));
	json_object_set_new(legend, "PIX", json_string("at most a single PCIe bridge"));
	json_object_set_new(legend, "NV#", json_string("a bonded set of # NVLinks"));
	json_object_set_new(root, "gpus", gpus);
	json_object_set_new(root, "matrix", matrix);
	json_object_set_new(root, "pairs", pairs);
	json_object_set_new(root, "legend", legend);
	for (i = TOPO_FROM_NVML + 1; i < TOPO_FROM_N; i++)
		if (used[i])
			json_array_append_new(notes, json_string(topo_from_note((enum topo_from)i)));
	json_object_set_new(root, "notes", notes);
	s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	puts(s);
	free(s);
	json_decref(root);
}

static int run_topo(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"matrix", no_argument, NULL, 'm'},
		{"id", required_argument, NULL, 'i'},
		{"gres-conf", no_argument, NULL, 'G'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct topo_job *j;
	const char *ids = NULL;
	bool json = false, matrix_only = false, gres = false, *shown = NULL;
	struct err e;
	int opt, rc = EXIT_OK;

	err_clear(&e);
	while ((opt = cmd_getopt(&cmd_topo, argc, argv, "jmi:h", opts)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		case 'm': matrix_only = true; break;
		case 'G': gres = true; break;
		case 'i':
			/* a malformed list is a usage error before NVML is asked */
			if (select_parse(optarg, NULL, &e) != 0)
				return cmd_report_error(&e);
			ids = optarg;
			break;
		case 'h': cmd_print_usage(&cmd_topo); return EXIT_OK;
		default: return EXIT_USAGE; /* cmd_getopt said which option */
		}
	}
	if (optind < argc)
		return cmd_usage_error(&cmd_topo, "unexpected argument '%s'", argv[optind]);
	/* gres.conf describes the whole node: Links= has an entry per GPU */
	if (gres && (json || matrix_only || ids))
		return cmd_usage_error(&cmd_topo, "--gres-conf goes alone: not with -m, -i or --json");
	/* on the heap: a hung worker keeps it */
	j = xcalloc(1, sizeof(*j));
	if (watchdog_run(topo_job_run, j, 0, &e) != 0) {
		err_hint(&e, "the driver is not answering; run 'gpuvet doctor'");
		return cmd_report_error(&e);
	}
	if (j->rc != 0) {
		rc = cmd_report_error(&j->e);
		goto out;
	}
	shown = xcalloc(j->sys.ngpus ? j->sys.ngpus : 1, sizeof(*shown));
	if (libcheck_nvml(&j->sys, &e) != 0 || select_system(ids, &j->sys, shown, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out;
	}
	if (gres) {
		struct strbuf sb;

		sb_init(&sb);
		slurm_gres_format(&j->t, &j->sys, &sb);
		fputs(sb.buf, stdout);
		sb_release(&sb);
	} else if (json) {
		print_json(j, shown);
	} else if (j->sys.ngpus == 0) {
		printf("no NVIDIA GPU found by NVML\n");
	} else {
		struct strbuf sb;

		sb_init(&sb);
		if (matrix_only)
			topo_format_matrix(&j->t, &j->sys, shown, &sb);
		else
			topo_format(&j->t, &j->sys, shown, &sb);
		fputs(sb.buf, stdout);
		sb_release(&sb);
	}
out:
	free(shown);
	topo_free(&j->t);
	gpu_system_free(&j->sys);
	free(j);
	return rc;
}

const struct cmd cmd_topo = {
	.name = "topo",
	.summary = "how the GPUs connect: NVLink, PCIe, P2P, CPU and NUMA affinity",
	.usage = usage,
	.run = run_topo,
};
