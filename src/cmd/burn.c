/*
 * burn.c: `gpuvet burn`: every selected GPU under full compute load at once (burn/stress.h)
 * for a duration or a level, telemetry sampled through the collector (gpu/collector.h), then
 * the verdict (burn/judge.h) per GPU: PASS or FAIL with findings, as text or JSON, and with
 * --html as a page with plots of the telemetry (burn_html.c). Exit 0 when every GPU passed,
 * 2 when one failed, 130 after Ctrl-C or SIGTERM (a partial verdict, GPU memory freed).
 * docs/cmd/burn.md is the user's page.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "../burn/judge.h"
#include "../burn/lock.h"
#include "../burn/stress.h"
#include "../gpu/busid.h"
#include "../gpu/collector.h"
#include "../gpu/probe.h"
#include "../gpu/select.h"
#include "../gpu/topo.h"
#include "../host/host.h"
#include "../host/facts.h"
#include "../kernels/image.h"
#include "../kernels/pattern.h"
#include "../replay/replay.h"
#include "../util/stop.h"
#include "../util/err.h"
#include "../util/file.h"
#include "../util/util.h"
#include "../vendor/watchdog.h"
#include "../history/events.h"
#include "burn_int.h"
#include "cmd.h"

static const char usage[] =
	"usage: gpuvet burn [-i IDS] [--mode MODES] [--duration SEC | --level 1..4]\n"
	"                   [--precision PREC] [--inputs DIST] [--memory-fraction F] [--json]\n"
	"                   [--html FILE] [--history[=DB]]\n"
	"\n"
	"Stress every selected GPU at once and judge each: PASS or FAIL. The compute phase runs\n"
	"matrix products (cuBLASLt) whose results are compared with each other and with an fp64\n"
	"reference; telemetry is judged through the run.\n"
	"\n"
	"options:\n"
	"  -i, --id IDS            only these GPUs: index, UUID or PCI bus id (comma-separated)\n"
	"  --mode MODES            phases, comma-separated, run in this order: memory, compute,\n"
	"                          power, bandwidth, or all (default: compute; all from level 2)\n"
	"  --duration SEC          how long to run, all phases together (default: level 1)\n"
	"  --level N               1 = 30 s, 2 = 3 min, 3 = 15 min, 4 = 1 h\n"
	"  --precision PREC        bf16 (default), fp16, fp8, tf32, fp32 or fp64\n"
	"  --inputs DIST           the operands: normal (default), uniform or positive (values in\n"
	"                          [1/16, 1), close to gpu-burn's, for comparisons)\n"
	"  --memory-fraction F     share of free GPU memory for result buffers and the memory\n"
	"                          test (default 0.9)\n"
	"  -j, --json              the report as JSON on stdout\n"
	"  --html FILE             also write a self-contained HTML page: verdicts, findings and\n"
	"                          plots of the telemetry (also after Ctrl-C)\n"
	"  --history[=DB]          also store the verdicts and figures in the history database\n"
	"                          (the default one, or DB; GPUVET_HISTORY=1 does the same)\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 every GPU passed, 2 one failed, 3 cannot write the --html page, 4 bad\n"
	"command line, 5 no GPU or library or a GPU another burn runs on, 130 interrupted (a\n"
	"partial verdict).\n";

extern const struct cmd cmd_burn;


static int parse_num(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end != s && *end == 0 && *out == *out ? 0 : -1;
}

/* "memory,compute" or "all" into BURN_MODE_* bits; -1 on an unknown or empty name. */
static int parse_modes(const char *s, unsigned *out)
{
	char buf[128], *save = NULL, *t;
	int k;

	if (str_copy(buf, s, sizeof(buf)) >= sizeof(buf))
		return -1;
	*out = 0;
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned got = !strcmp(t, "all") ? BURN_MODE_ALL : 0;

		for (k = 0; k < BURN_NMODES; k++)
			if (!strcmp(t, burn_mode_name(1u << k)))
				got = 1u << k;
		if (!got)
			return -1;
		*out |= got;
	}
	return *out ? 0 : -1;
}

/* Each selected phase's share of the duration: the memory test and the products need time to
 * find rare faults, power a stretch at its limit, bandwidth a few measurements. */
static void split_duration(const struct burn_cli *o, double *phase_s)
{
	static const double weight[BURN_NMODES] = {3, 5, 1.5, 0.5};
	double sum = 0;
	int k;

	for (k = 0; k < BURN_NMODES; k++)
		if (o->modes & (1u << k))
			sum += weight[k];
	for (k = 0; k < BURN_NMODES; k++)
		phase_s[k] = o->modes & (1u << k) ? o->duration_s * weight[k] / sum : 0;
}

static int parse(int argc, char **argv, struct burn_cli *o)
{
	static const struct option opts[] = {
	    {"id", required_argument, NULL, 'i'},
	    {"duration", required_argument, NULL, 'd'},
	    {"level", required_argument, NULL, 'l'},
	    {"precision", required_argument, NULL, 'p'},
	    {"mode", required_argument, NULL, 'M'},
	    {"inputs", required_argument, NULL, 'I'},
	    {"memory-fraction", required_argument, NULL, 'm'},
	    {"json", no_argument, NULL, 'j'},
	    {"html", required_argument, NULL, 'H'},
	    CMD_HISTORY_OPTION,
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static const double level_s[] = {30, 180, 900, 3600};
	static const int precs[] = {PREC_BF16, PREC_FP16, PREC_FP8, PREC_TF32, PREC_FP32,
				    PREC_FP64};
	static const char *const dists[] = {"normal", "uniform", "positive"};
	bool have_duration = false, have_level = false, have_mode = false;
	double v;
	size_t k;
	int opt;

	memset(o, 0, sizeof(*o));
	o->duration_s = level_s[0];
	o->prec = PREC_BF16;
	o->modes = BURN_MODE_COMPUTE;
	o->dist = GV_DIST_NORMAL;
	o->mem_fraction = 0.9;
	while ((opt = cmd_getopt(&cmd_burn, argc, argv, "i:jh", opts)) != -1) {
		switch (opt) {
		case 'i': o->ids = optarg; break;
		case 'd':
			if (parse_num(optarg, &v) || v <= 0 || v > 7 * 86400)
				return cmd_usage_error(&cmd_burn,
						       "--duration '%s': expected seconds, more "
						       "than 0 and at most a week",
						       optarg);
			o->duration_s = v;
			have_duration = true;
			break;
		case 'l':
			if (parse_num(optarg, &v) || v < 1 || v > 4 || v != (int)v)
				return cmd_usage_error(&cmd_burn,
						       "--level '%s': expected 1, 2, 3 or 4", optarg);
			o->duration_s = level_s[(int)v - 1];
			if (!have_mode)
				o->modes = v > 1 ? BURN_MODE_ALL : BURN_MODE_COMPUTE;
			have_level = true;
			break;
		case 'M':
			if (parse_modes(optarg, &o->modes))
				return cmd_usage_error(&cmd_burn,
						       "--mode '%s': expected memory, compute, power, "
						       "bandwidth or all, comma-separated",
						       optarg);
			have_mode = true;
			break;
		case 'I':
			o->dist = -1;
			for (k = 0; k < ARRAY_SIZE(dists); k++)
				if (!strcmp(optarg, dists[k]))
					o->dist = (int)k;
			if (o->dist < 0)
				return cmd_usage_error(&cmd_burn,
						       "--inputs '%s': expected normal, uniform or "
						       "positive",
						       optarg);
			break;
		case 'p':
			o->prec = -1;
			for (k = 0; k < ARRAY_SIZE(precs); k++)
				if (!strcmp(optarg, peak_prec_name(precs[k])))
					o->prec = precs[k];
			if (o->prec < 0)
				return cmd_usage_error(&cmd_burn,
						       "--precision '%s': expected bf16, fp16, fp8, "
						       "tf32, fp32 or fp64",
						       optarg);
			break;
		case 'm':
			if (parse_num(optarg, &v) || v <= 0 || v > 0.95)
				return cmd_usage_error(&cmd_burn,
						       "--memory-fraction '%s': expected a number "
						       "above 0 and at most 0.95",
						       optarg);
			o->mem_fraction = v;
			break;
		case 'j': o->json = true; break;
		case 'H': o->html = optarg; break;
		case CMD_HISTORY_OPT: cmd_history_option(&o->hist, optarg); break;
		case 'h': cmd_print_usage(&cmd_burn); return -1;
		default: return EXIT_USAGE;
		}
	}
	if (have_duration && have_level)
		return cmd_usage_error(&cmd_burn, "--duration and --level: give one of them");
	if (optind < argc)
		return cmd_usage_error(&cmd_burn, "unexpected argument '%s'", argv[optind]);
	return 0;
}

/* ---- the GPUs: CUDA devices, numbered as NVML numbers them where it knows them ------------ */

struct burn_gpu {
	const struct cuda_device *cd;
	const struct gpu *ng; /* NULL when NVML does not know it */
	int shown;
};

static int pick_gpus(const struct gpu_system *sys, const char *ids, struct burn_gpu **out,
		     int *nout, struct err *e)
{
	unsigned n = sys->ncuda, i, j;
	struct burn_gpu *all = xcalloc(n ? n : 1, sizeof(*all)), *sel;
	struct select_gpu *sg = xcalloc(n ? n : 1, sizeof(*sg));
	struct select_list l;
	size_t *picks, k;
	int rc = 0;

	for (j = 0; j < n; j++) {
		all[j].cd = &sys->cuda_devs[j];
		all[j].shown = (int)j;
		for (i = 0; i < sys->ngpus && text_ok(&all[j].cd->bus_id); i++)
			if (text_ok(&sys->gpus[i].st.bus_id) &&
			    bus_id_same(sys->gpus[i].st.bus_id.s, all[j].cd->bus_id.s)) {
				all[j].ng = &sys->gpus[i];
				all[j].shown = (int)i;
			}
		sg[j].index = (unsigned)all[j].shown;
		sg[j].uuid = all[j].ng && text_ok(&all[j].ng->st.uuid) ? all[j].ng->st.uuid.s : NULL;
		sg[j].bus_id = text_ok(&all[j].cd->bus_id) ? all[j].cd->bus_id.s : NULL;
	}
	if (!ids) {
		*out = all;
		*nout = (int)n;
		free(sg);
		return 0;
	}
	if (select_parse(ids, &l, e) != 0) {
		free(all);
		free(sg);
		return -1;
	}
	picks = xcalloc(l.n ? l.n : 1, sizeof(*picks));
	sel = xcalloc(l.n ? l.n : 1, sizeof(*sel));
	rc = select_match(&l, sg, n, picks, e);
	for (k = 0; rc == 0 && k < l.n; k++)
		sel[k] = all[picks[k]];
	*out = sel;
	*nout = rc == 0 ? (int)l.n : 0;
	select_list_free(&l);
	free(picks);
	free(sg);
	free(all);
	return rc;
}

/* ---- telemetry ---------------------------------------------------------------------------- */

struct timeline {
	struct burn_sample *s;
	size_t n, cap;
	uint64_t last_products;
	int64_t last_t_ns;
};

static void sample_add(struct timeline *tl, const struct mon_gpu *mg, int64_t t_ns,
		       uint64_t mflop, unsigned phase)
{
	struct burn_sample *b;
	const struct gpu *g = &mg->g;

	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 64;
		tl->s = xrealloc(tl->s, tl->cap * sizeof(*tl->s));
	}
	b = &tl->s[tl->n++];
	memset(b, 0, sizeof(*b));
	b->t_ns = t_ns;
	b->phase = phase;
	b->temp_c = g->s.temp_c;
	b->temp_slowdown_c = g->st.temp_slowdown_c;
	b->power_mw = g->s.power_mw;
	b->power_limit_mw = g->st.power_limit_mw;
	b->sm_mhz = g->s.clock_sm_mhz;
	b->sm_max_mhz = g->st.clock_max_sm_mhz;
	b->clock_events = g->s.clock_events;
	b->ecc_corrected = g->s.ecc_vol_corrected;
	b->ecc_uncorrected = g->s.ecc_vol_uncorrected;
	b->remap_pending = g->s.remap_pending;
	b->remap_failure = g->s.remap_failure;
	b->remapped_uncorrectable = g->s.remap_uncorrected;
	b->pcie_replays = g->s.pcie_replays;
	b->pcie_gen = g->s.pcie_gen;
	b->pcie_width = g->s.pcie_width;
	b->pcie_max_gen = g->st.pcie_gen_max;
	b->pcie_max_width = g->st.pcie_width_max;
	b->tflops = tl->last_t_ns && t_ns > tl->last_t_ns
			? (double)(mflop - tl->last_products) / 1e6 /
			      ((double)(t_ns - tl->last_t_ns) / 1e9)
			: -1;
	tl->last_products = mflop;
	tl->last_t_ns = t_ns;
}

/* Seconds left to worker i: its phases not yet started and what remains of the current. */
static double left_s(const struct burn_stress *st, int i)
{
	const struct burn_worker *w = &st->w[i];
	unsigned now = __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE);
	double left = 0;
	int k;

	for (k = BURN_NMODES - 1; k >= 0; k--) {
		unsigned mode = 1u << k;

		if (mode == now) {
			double spent = (double)(now_ns() - w->phase_t_ns[k][0]) / 1e9;

			left += st->o.phase_s[k] > spent ? st->o.phase_s[k] - spent : 0;
			break;
		}
		left += st->o.phase_s[k];
	}
	return now ? left : 0;
}

static void fmt_num(char *b, size_t n, const struct num *v, double scale, const char *unit)
{
	if (num_ok(v))
		str_fmt(b, n, "%.0f %s", (double)v->v * scale, unit);
	else
		str_copy(b, "n/a", n);
}

/* ---- the watchdog ------------------------------------------------------------------------- */

/* A worker whose beat (stress.h) stands still longer than max(the floor, 10 x the longest gap
 * between beats seen so far, on any GPU) is hung: a GEMM round on a big GPU takes seconds, a
 * GPU that stops answering takes forever. Waiting its turn to set up is no silence. */
#define WATCHDOG_FLOOR_S 30
#define WATCHDOG_GAPS	 10

struct watch {
	uint64_t beat;
	int64_t t_ns; /* when the beat last moved (or the worker last waited) */
	bool hung;
	double silent_s, limit_s;
	unsigned phase;
};

/* GPUVET_BURN_WATCHDOG_S: the floor, in seconds; -1 with e when it is not a number > 0. */
static int watchdog_floor(double *out, struct err *e)
{
	const char *v = getenv("GPUVET_BURN_WATCHDOG_S");

	*out = WATCHDOG_FLOOR_S;
	if (!v || !*v)
		return 0;
	if (parse_num(v, out) || *out <= 0 || *out > 86400)
		return err_set(e, EXIT_USAGE,
			       "GPUVET_BURN_WATCHDOG_S='%s': expected seconds, more than 0 and at "
			       "most a day",
			       v);
	return 0;
}

/* One look at every worker; returns how many are done: finished, or hung (and abandoned). */
static int watch_workers(struct burn_stress *st, struct watch *wd, int n, double floor_s,
			 int64_t *max_gap_ns)
{
	int64_t now = now_ns();
	int i, done = 0;
	bool some_hung = false;

	for (i = 0; i < n; i++)
		some_hung |= wd[i].hung;

	for (i = 0; i < n; i++) {
		struct burn_worker *w = &st->w[i];
		uint64_t beat = burn_load(&w->beat);
		double limit;

		if (wd[i].hung || __atomic_load_n(&w->finished, __ATOMIC_ACQUIRE)) {
			done++;
			continue;
		}
		if (beat != wd[i].beat) {
			if (now - wd[i].t_ns > *max_gap_ns)
				*max_gap_ns = now - wd[i].t_ns;
			wd[i].beat = beat;
			wd[i].t_ns = now;
			continue;
		}
		/* waiting behind a hung GPU's setup is waiting forever */
		if (__atomic_load_n(&w->waiting, __ATOMIC_ACQUIRE) && !some_hung) {
			wd[i].t_ns = now;
			continue;
		}
		limit = WATCHDOG_GAPS * (double)*max_gap_ns / 1e9;
		if (limit < floor_s)
			limit = floor_s;
		if ((double)(now - wd[i].t_ns) / 1e9 > limit) {
			wd[i].hung = true;
			wd[i].silent_s = (double)(now - wd[i].t_ns) / 1e9;
			wd[i].limit_s = limit;
			wd[i].phase = __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE);
			w->abandoned = true;
			done++;
		}
	}
	return done;
}

/* ---- Xid lines of the run ----------------------------------------------------------------- */

/* The kernel log's last record before the run: -1 when it holds no driver line yet, -2 when it
 * cannot be read (dmesg_restrict without root): no Xid is counted then. */
static int64_t xid_mark(void)
{
	struct kmsg_facts *k = xcalloc(1, sizeof(*k));
	int64_t seq;

	kmsg_collect(k);
	seq = k->read_rc == 0 ? k->last_seq : -2;
	free(k);
	return seq;
}

/* Each GPU's Xid lines that the log gained after the mark: by the records' sequence numbers,
 * so an old Xid with the same text is not counted again; matched to the GPU by PCI address. */
static void xid_count(int64_t since, struct burn_gpu_run *runs, int n)
{
	struct kmsg_facts *k;
	int i, j;

	if (since < -1)
		return;
	k = xcalloc(1, sizeof(*k));
	kmsg_collect(k);
	for (j = 0; k->read_rc == 0 && j < k->nxids; j++) {
		const struct xid_event *x = &k->xids[j];

		if (x->seq <= since)
			continue;
		for (i = 0; i < n; i++)
			if (bus_id_same(x->bdf, runs[i].bus_id)) {
				runs[i].c.xid_new++;
				runs[i].c.xid_last = x->xid;
			}
	}
	free(k);
}

/* ---- the run ----------------------------------------------------------------------------- */

/* What the bandwidth phase needs beyond bench_gpu_open's attributes: the link's maximum (its
 * expected host-link rate) and the GPU's local CPUs (its pinned copies' NUMA node), as bench
 * takes them. */
static void link_facts(struct bench_gpu *g, const struct gpu *ng)
{
	if (ng && num_ok(&ng->st.pcie_gen_max) && num_ok(&ng->st.pcie_width_max)) {
		g->pcie_gen = (int)ng->st.pcie_gen_max.v;
		g->pcie_width = (int)ng->st.pcie_width_max.v;
	}
	bench_gpu_local_cpus(g);
}

/* ---- what each pair's path should give: NVML's topology, as `gpuvet topo` reads it ---------- */

/* links[i * n + j]: NVLinks between selected GPUs i and j, level[i * n + j]: where their PCIe
 * paths meet (10 PIX .. 50 SYS); -1 where unknown (no NVML, a GPU it does not know). Read
 * under the watchdog: a driver that does not answer leaves everything unknown. */
static void pair_topology(const struct burn_gpu *sel, int n, int *links, int *level)
{
	struct topo_job *j;
	struct err e;
	int a, b;

	for (a = 0; a < n * n; a++)
		links[a] = level[a] = -1;
	if (n < 2)
		return;
	j = xcalloc(1, sizeof(*j));
	err_clear(&e);
	err_clear(&j->e);
	if (watchdog_run(topo_job_run, j, 0, &e) != 0)
		return; /* j is the hung thread's now */
	for (a = 0; a < n; a++)
		for (b = 0; b < n && j->rc == 0 && j->t.n; b++) {
			unsigned x = sel[a].ng ? sel[a].ng->index : j->t.n;
			unsigned y = sel[b].ng ? sel[b].ng->index : j->t.n;
			const struct num *anc;

			if (a == b || x >= j->t.n || y >= j->t.n)
				continue;
			links[a * n + b] = j->t.nvlinks[x * j->t.n + y];
			anc = topo_ancestor(&j->t, x, y);
			level[a * n + b] = num_ok(anc) && anc->v > 0
					       ? (int)anc->v
					       : j->t.sysfs_level[x * j->t.n + y];
		}
	topo_free(&j->t);
	gpu_system_free(&j->sys);
	free(j);
}

/* The run into the history: the --json document, and the GPUs by the index it names. */
static void store_history(const struct burn_cli *o, double t0, const struct burn_gpu *sel,
			  const struct burn_gpu_run *runs, const struct burn_stress *st, int n,
			  const struct findings *fs, const enum severity *alone, int exit_code)
{
	struct hist_gpu_id *ids = xcalloc(n ? (size_t)n : 1, sizeof(*ids));
	char *doc = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&doc, &len);
	int i;

	if (f) {
		burn_print_json(f, runs, st, n, fs, o, alone, exit_code);
		fclose(f);
	}
	for (i = 0; i < n; i++) {
		if (sel[i].ng)
			hist_gpu_id_from_gpu(sel[i].ng, &ids[i]);
		ids[i].index = runs[i].index;
		if (!ids[i].pci_slot[0])
			hist_pci_slot(runs[i].bus_id, ids[i].pci_slot, sizeof(ids[i].pci_slot));
		if (!ids[i].model[0])
			str_copy(ids[i].model, runs[i].name, sizeof(ids[i].model));
		if (!ids[i].serial[0])
			str_copy(ids[i].serial, runs[i].serial, sizeof(ids[i].serial));
	}
	cmd_history_run(&o->hist, "burn", t0,
			exit_code == EXIT_OK	       ? "pass"
			: exit_code == EXIT_FAIL       ? "fail"
			: exit_code == EXIT_INTERRUPTED ? "interrupted"
						       : "error",
			exit_code, doc, ids, (size_t)n);
	free(doc);
	free(ids);
}

static int run_burn(int argc, char **argv)
{
	enum severity *sev_alone = NULL;
	struct burn_cli o;
	struct gpu_system sys;
	struct burn_gpu *sel = NULL;
	struct bench_env env;
	struct burn_stress st;
	struct burn_opts bo;
	struct collector *col = NULL;
	struct mon_snapshot snap;
	struct timeline *tl = NULL;
	struct burn_gpu_run *runs = NULL;
	struct findings fs;
	struct stop_guard stop;
	struct err e;
	void *image_owned = NULL;
	const char *inj = getenv("GPUVET_BURN_INJECT");
	bool live = isatty(2), started = false;
	int nsel = 0, i, rc, exit_code = EXIT_OK, gemm = bench_family_find("gemm");
	size_t k;
	int64_t t0, xid_since = -2, max_gap_ns = 0;
	struct watch *wd = NULL;
	bool *nvml_lost = NULL, any_hung = false;
	int *locks = NULL;
	int *pair_links = NULL, *pair_level = NULL; /* pair_topology's */
	double wd_floor_s, hist_t0 = wall_time();

	err_clear(&e);
	memset(&sys, 0, sizeof(sys));
	memset(&env, 0, sizeof(env));
	memset(&st, 0, sizeof(st));
	memset(&snap, 0, sizeof(snap));
	memset(&fs, 0, sizeof(fs));
	memset(&bo, 0, sizeof(bo));
	rc = parse(argc, argv, &o);
	if (rc != 0)
		return rc < 0 ? EXIT_OK : rc;
	bo.prec = o.prec;
	bo.dist = o.dist;
	bo.modes = o.modes;
	split_duration(&o, bo.phase_s);
	bo.mem_fraction = o.mem_fraction;
	bo.inject = BURN_INJECT_NONE;
	bo.inject_gpu = -1;
	if (inj && *inj && burn_inject_parse(inj, &bo.inject, &bo.inject_gpu, &e))
		return cmd_report_error(&e);
	/* the page is written after the run: a path it cannot go to fails now, not after it */
	if (o.html && file_check_writable(o.html, &e) != 0)
		return cmd_report_error(&e);
	if (watchdog_floor(&wd_floor_s, &e))
		return cmd_report_error(&e);
	/* a replay's own CUDA library answers the probe only; one the user named
	 * (GPUVET_CUDA_LIBRARY: the fake GPUs in CI) computes next to the replayed telemetry */
	if (gopts.replay && !replay_live_cuda()) {
		err_set(&e, EXIT_UNAVAILABLE,
			"gpuvet burn needs a real GPU: a replayed machine (--replay) cannot compute");
		err_hint(&e, "run it on the machine itself");
		return cmd_report_error(&e);
	}
	if (probe_run(&sys, PROBE_NVML | PROBE_STATIC | PROBE_CUDA, &e) != 0)
		return cmd_report_error(&e);
	if (pick_gpus(&sys, o.ids, &sel, &nsel, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out;
	}
	if (nsel == 0) {
		err_set(&e, EXIT_UNAVAILABLE, "no GPU to burn: %s",
			!sys.cuda_lib.loaded ? "cannot load the CUDA driver library"
					     : "no CUDA device found");
		err_hint(&e, "run 'gpuvet doctor' to find out why");
		rc = cmd_report_error(&e);
		goto out;
	}
	/* one burn per GPU: a second would share the memory and the clock it judges */
	locks = xcalloc((size_t)nsel, sizeof(*locks));
	for (i = 0; i < nsel; i++)
		locks[i] = -1;
	for (i = 0; i < nsel; i++)
		if (text_ok(&sel[i].cd->bus_id) &&
		    (locks[i] = burn_lock_take(sel[i].cd->bus_id.s, sel[i].shown, &e)) < 0) {
			rc = cmd_report_error(&e);
			goto out;
		}
	env.image =
	    bench_kernels_image(gpuvet_kernels_size ? gpuvet_kernels : NULL, &image_owned, &e);
	if (!env.image) {
		if (!e.msg[0])
			err_set(&e, EXIT_UNAVAILABLE, "%s; install the CUDA toolkit and rebuild",
				gpuvet_kernels_missing);
		rc = cmd_report_error(&e);
		goto out;
	}
	env.opt.families = env.opt.named = gemm >= 0 ? 1u << gemm : 0;
	if (bench_setup_driver(&env, &e) != 0 || bench_setup_libs(&env, nsel, &e) != 0) {
		rc = cmd_report_error(&e);
		goto out;
	}
	env.stop = &stop_requested;
	env.gpus = xcalloc((size_t)nsel, sizeof(*env.gpus));
	env.ngpus = nsel;
	for (i = 0; i < nsel; i++) {
		struct bench_gpu *g = &env.gpus[i];

		g->ordinal = (int)(sel[i].cd - sys.cuda_devs);
		g->index = sel[i].shown;
		g->nvml_index = sel[i].ng ? (int)sel[i].ng->index : -1;
		g->numa_node = -1;
		if (text_ok(&sel[i].cd->name))
			str_copy(g->name, sel[i].cd->name.s, sizeof(g->name));
		if (text_ok(&sel[i].cd->bus_id))
			str_copy(g->bus_id, sel[i].cd->bus_id.s, sizeof(g->bus_id));
		link_facts(g, sel[i].ng);
		if (bench_gpu_open(&env, g, &e) != 0) {
			rc = cmd_report_error(&e);
			goto close;
		}
	}
	{
		struct mon_opts mo;

		memset(&mo, 0, sizeof(mo));
		/* ECC, remapped rows and PCIe replays every second: a short run sees them move */
		mo.slow_ns = 1000000000ll;
		/* without NVML the stress runs all the same; only telemetry is missing */
		if (collector_open(&col, &mo, &e) != 0) {
			col = NULL;
			err_clear(&e);
		}
	}
	/* what each pair should give, read before the GPUs are busy */
	pair_links = xcalloc((size_t)nsel * (size_t)nsel, sizeof(*pair_links));
	pair_level = xcalloc((size_t)nsel * (size_t)nsel, sizeof(*pair_level));
	if (o.modes & BURN_MODE_BANDWIDTH)
		pair_topology(sel, nsel, pair_links, pair_level);
	stop_guard_begin(&stop);
	/* a reader or terminal gone must not kill the run before its memory is freed and its
	 * verdict written where it still can be: writes fail (EPIPE, EIO) and are let go */
	signal(SIGPIPE, SIG_IGN);
	xid_since = xid_mark();
	if (burn_stress_start(&st, &env, &bo, &e) != 0) {
		rc = cmd_report_error(&e);
		goto restore;
	}
	started = true;
	tl = xcalloc((size_t)nsel, sizeof(*tl));
	wd = xcalloc((size_t)nsel, sizeof(*wd));
	nvml_lost = xcalloc((size_t)nsel, sizeof(*nvml_lost));
	t0 = now_ns();
	for (i = 0; i < nsel; i++)
		wd[i].t_ns = t0;
	while (!stop_requested && watch_workers(&st, wd, nsel, wd_floor_s, &max_gap_ns) < nsel) {
		struct timespec ts = {0, 100000000};

		if (col && collector_wait(col, snap.seq, 100) != snap.seq) {
			collector_copy(col, &snap);
			for (i = 0; i < nsel; i++) {
				int nv = env.gpus[i].nvml_index;
				struct burn_worker *w = &st.w[i];

				if (nv < 0 || (unsigned)nv >= snap.ngpus)
					continue;
				nvml_lost[i] |= snap.gpus[nv].lost;
				sample_add(&tl[i], &snap.gpus[nv], now_ns() - t0, burn_load(&w->mflop),
					   __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE));
			}
		} else
			nanosleep(&ts, NULL);
		if (live) {
			static int64_t last;

			if (now_ns() - last < 1000000000ll)
				continue;
			last = now_ns();
			fputs("\r\033[K", stderr);
			for (i = 0; i < nsel; i++) {
				const struct burn_worker *w = &st.w[i];
				const struct burn_sample *b = tl[i].n ? &tl[i].s[tl[i].n - 1] : NULL;
				char t[16] = "n/a", p[16] = "n/a", c[16] = "n/a";
				unsigned ph = __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE);

				if (b) {
					fmt_num(t, sizeof(t), &b->temp_c, 1, "C");
					fmt_num(p, sizeof(p), &b->power_mw, 1e-3, "W");
					fmt_num(c, sizeof(c), &b->sm_mhz, 1, "MHz");
				}
				fprintf(stderr,
					"%sGPU %d %s: %.1f TFLOP/s, %llu errors, %s, %s, %s, %.0f s left",
					i ? "\n" : "", w->g->index, ph ? burn_mode_name(ph) : "done",
					b && b->tflops >= 0 ? b->tflops : 0,
					(unsigned long long)(burn_load(&w->compare_errors) +
							     burn_load(&w->reference_errors) +
							     burn_load(&w->nan_inf) +
							     burn_load(&w->mem.errors)),
					t, p, c, left_s(&st, i));
			}
			if (nsel > 1)
				fprintf(stderr, "\033[%dA", nsel - 1);
			fflush(stderr);
		}
	}
	if (live)
		fprintf(stderr, "\r\033[J");
	burn_stress_stop(&st);
	runs = xcalloc((size_t)nsel, sizeof(*runs));
	for (i = 0; i < nsel; i++) {
		struct burn_gpu_run *r = &runs[i];
		const struct burn_worker *w = &st.w[i];

		r->index = sel[i].shown;
		/* NVML's name where it knows the GPU: siblings are judged by model name */
		if (sel[i].ng && text_ok(&sel[i].ng->st.name))
			str_copy(r->name, sel[i].ng->st.name.s, sizeof(r->name));
		else
			str_copy(r->name, env.gpus[i].name, sizeof(r->name));
		str_copy(r->bus_id, env.gpus[i].bus_id, sizeof(r->bus_id));
		if (sel[i].ng && text_ok(&sel[i].ng->st.serial))
			str_copy(r->serial, sel[i].ng->st.serial.s, sizeof(r->serial));
		r->s = tl[i].s;
		r->n = tl[i].n;
		/* every product of the compute and power phases is compared and counted */
		r->c.products = w->products + w->power_products;
		r->c.compare_errors = w->compare_errors;
		r->c.reference_errors = w->reference_errors;
		r->c.nan_inf = w->nan_inf;
		r->c.mem_errors = w->mem.errors;
		r->c.xid_last = -1;
		r->c.stopped = stop_requested != 0;
		if (wd[i].hung) {
			any_hung = true;
			r->c.hung = true;
			r->c.hung_phase = wd[i].phase ? burn_mode_name(wd[i].phase) : "setup";
			r->c.hung_s = wd[i].silent_s;
			r->c.hung_limit_s = wd[i].limit_s;
		}
		/* a GPU gone from the bus: CUDA says the device is unavailable, or NVML lost it */
		if (w->failed && w->gone) {
			r->c.lost = true;
			str_fmt(r->c.lost_how, sizeof(r->c.lost_how), "CUDA: %s", w->err.msg);
		} else if (nvml_lost[i]) {
			r->c.lost = true;
			str_copy(r->c.lost_how, "NVML: the GPU answered 'GPU is lost'",
				 sizeof(r->c.lost_how));
		}
		r->modes = o.modes;
		r->mem = w->phase_t_ns[burn_mode_index(BURN_MODE_MEMORY)][0] ? &w->mem : NULL;
		r->bw = w->phase_t_ns[burn_mode_index(BURN_MODE_BANDWIDTH)][0] ? &w->bw : NULL;
	}
	for (k = 0; k < st.np2p; k++) {
		struct burn_p2p *p = &st.p2p[k];
		int at = p->ia * nsel + p->ib;

		burn_p2p_expect(&env.gpus[p->ia], &env.gpus[p->ib], pair_links[at], pair_level[at],
				p);
	}
	for (i = 0; i < nsel; i++) {
		runs[i].p2p = st.np2p ? st.p2p : NULL;
		runs[i].np2p = st.np2p;
	}
	xid_count(xid_since, runs, nsel);
	sev_alone = xcalloc((size_t)nsel, sizeof(*sev_alone));
	if (burn_judge(runs, (size_t)nsel, &fs) == SEV_FAIL) {
		bool named = false;
		size_t j;

		exit_code = EXIT_FAIL;
		for (j = 0; j < fs.n; j++)
			named |= fs.v[j].sev == SEV_FAIL && fs.v[j].gpu >= 0;
		for (i = 0; i < nsel && !named; i++) {
			struct findings one;

			memset(&one, 0, sizeof(one));
			sev_alone[i] = burn_judge(&runs[i], 1, &one);
			findings_free(&one);
		}
	}
	for (i = 0; i < nsel; i++)
		if (st.w[i].failed) {
			exit_code = EXIT_FAIL;
			cmd_report_error(&st.w[i].err);
		}
	if (stop_requested)
		exit_code = EXIT_INTERRUPTED;
	if (o.json)
		burn_print_json(stdout, runs, &st, nsel, &fs, &o, sev_alone, exit_code);
	else
		burn_print_text(runs, &st, nsel, &fs, &o, sev_alone);
	if (cmd_history_wanted(&o.hist))
		store_history(&o, hist_t0, sel, runs, &st, nsel, &fs, sev_alone, exit_code);
	if (o.html && burn_write_html(runs, &st, nsel, &fs, &o, sev_alone, &e) != 0) {
		cmd_report_error(&e);
		if (exit_code == EXIT_OK)
			exit_code = e.code;
	}
	if (stop_requested)
		fputs("gpuvet: interrupted: partial verdict shown, GPU memory freed\n", stderr);
	rc = exit_code;
	if (any_hung) {
		/* a thread stuck in the driver cannot be joined, and closing its context or
		 * unloading the library under it could block or crash: leave now; the driver
		 * frees every GPU's memory when the process ends */
		for (i = 0; i < nsel; i++)
			if (wd[i].hung)
				fprintf(stderr,
					"gpuvet: GPU %d hung: its thread is left behind; the driver "
					"frees its memory as gpuvet exits\n",
					runs[i].index);
		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
restore:
	stop_guard_end(&stop);
	if (col)
		collector_close(col);
	mon_snapshot_free(&snap);
close:
	if (started)
		burn_stress_free(&st);
	for (i = 0; i < env.ngpus; i++)
		bench_gpu_close(&env, &env.gpus[i]);
out:
	bench_teardown(&env);
	for (i = 0; tl && i < nsel; i++)
		free(tl[i].s);
	free(tl);
	free(wd);
	free(nvml_lost);
	for (i = 0; locks && i < nsel; i++)
		burn_lock_release(locks[i]);
	free(locks);
	free(pair_links);
	free(pair_level);
	free(runs);
	free(sev_alone);
	findings_free(&fs);
	free(env.gpus);
	free(image_owned);
	free(sel);
	gpu_system_free(&sys);
	return rc;
}

const struct cmd cmd_burn = {
    .name = "burn",
    .summary = "stress every GPU at full compute load and judge it: PASS or FAIL",
    .usage = usage,
    .run = run_burn,
};
