/*
 * diagnose.c: advise's verdict (diagnose.h): the figures every rule shares, read once from the
 * timeline (which GPUs are the job's, the share of time they sat idle, the length and period
 * of the gaps), then the rules (diagnose_rules.c, diagnose_gpu.c), ranked by the GPU time each
 * cause costs, and the closing line: advise.ok, advise.unclear (with the profiler to run) or,
 * alone, advise.no_samples.
 *
 * The ids are defined here (check_advise, joined into the catalog by checks/catalog.c after
 * burn's) and documented in docs/findings.md, section "5. advise". Pure: no I/O, no printing.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../checks/catalog.h"
#include "../util/util.h"
#include "diagnose.h"
#include "diagnose_int.h"

static const struct finding_def defs[] = {
    {"advise.input_pipeline", LAYER_FRAMEWORK,
     "the GPU waits for input: the data loading is CPU-bound", false},
    {"advise.input_io", LAYER_FRAMEWORK,
     "the GPU waits for input: the data loading waits on storage", false},
    {"advise.small_work", LAYER_FRAMEWORK,
     "too little work per launch: the GPU is busy but most SMs sit empty", false},
    {"advise.sync_points", LAYER_FRAMEWORK,
     "the GPU stalls at a host sync point every step (.item(), print, .cpu())", false},
    {"advise.h2d_copies", LAYER_FRAMEWORK, "host-to-GPU copies fill the GPU's idle time", false},
    {"advise.throttled", LAYER_FRAMEWORK, "the GPU's clocks are held down (heat or power)", false},
    {"advise.memory_full", LAYER_FRAMEWORK, "GPU memory is nearly full: out-of-memory risk", false},
    {"advise.memory_growth", LAYER_FRAMEWORK,
     "the job's GPU memory grows step after step: a leak heading for out-of-memory", false},
    {"advise.gpus_idle", LAYER_FRAMEWORK, "the job holds several GPUs but only one works", false},
    {"advise.gpus_unused", LAYER_FRAMEWORK,
     "the job uses one GPU while others on the machine are free", false},
    {"advise.nccl_wait", LAYER_FRAMEWORK,
     "the GPUs wait in collectives (NCCL): a straggler holds the others back", false},
    {"advise.cpu_work", LAYER_FRAMEWORK,
     "the job computes on the CPU: its GPU sits idle while its threads use many cores", false},
    {"advise.starved_host", LAYER_FRAMEWORK,
     "the job is short of CPU: throttled by its quota or crowded out by other processes", false},
    {"advise.ok", LAYER_FRAMEWORK, "the GPU is busy: nothing holds the job back", false},
    {"advise.unclear", LAYER_FRAMEWORK,
     "the GPU is underused and the outside view cannot tell why: profile the job", false},
    {"advise.no_samples", LAYER_FRAMEWORK, "too few samples to judge the job", false},
};

/* advise's ids are not a doctor check: checks/catalog.c joins this table after burn's, and run
 * stays NULL (doctor never runs it). */
const struct check check_advise = {
    .name = "advise",
    .layer = LAYER_FRAMEWORK,
    .run = NULL,
    .defs = defs,
    .ndefs = ARRAY_SIZE(defs),
};

double adv_num(const struct num *n)
{
	return num_ok(n) ? (double)n->v : NAN;
}

double adv_tick_util(const struct adv_ctx *c, const struct adv_tick *k)
{
	double sum = 0;
	int i, n = 0;

	for (i = 0; i < c->nheld; i++) {
		double u = adv_num(&k->g[c->held[i]].util_pct);

		if (!isnan(u)) {
			sum += u;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

double adv_tick_rx(const struct adv_ctx *c, const struct adv_tick *k)
{
	double sum = 0;
	int i, n = 0;

	for (i = 0; i < c->nheld; i++) {
		double r = adv_num(&k->g[c->held[i]].pcie_rx_bytes_s);

		if (!isnan(r)) {
			sum += r;
			n++;
		}
	}
	return n ? sum : NAN;
}

double adv_rx_copy_bytes_s(const struct adv_ctx *c)
{
	double share = ADV_RX_COPY_SHARE * c->rx_peak;

	return c->rx_peak > 0 && share < ADV_RX_COPY_BYTES_S ? share : ADV_RX_COPY_BYTES_S;
}

double adv_idle_weighted(const struct adv_ctx *c,
			 bool (*cond)(const struct adv_ctx *, const struct adv_tick *))
{
	double all = 0, held = 0;
	size_t i;

	for (i = 0; i < c->tl->nticks; i++) {
		if (c->idle[i] <= 0)
			continue;
		all += c->idle[i];
		if (cond(c, &c->tl->ticks[i]))
			held += c->idle[i];
	}
	return all > 0 ? held / all : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double adv_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The p-th quantile (0..1) of v[0..n), already sorted. */
static double quantile_sorted(const double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

double adv_host_median(const struct adv_ctx *c, size_t off, bool idle_only)
{
	const struct adv_timeline *tl = c->tl;
	double *v = xcalloc(tl->nticks ? tl->nticks : 1, sizeof(*v)), m;
	size_t i, n = 0;

	for (i = 0; i < tl->nticks; i++) {
		const struct num *x = (const struct num *)((const char *)&tl->ticks[i].h + off);

		if (!num_ok(x) || c->idle[i] < 0)
			continue;
		if (idle_only && c->idle[i] < 0.2)
			continue;
		v[n++] = (double)x->v;
	}
	m = adv_median(v, n);
	free(v);
	return m;
}

const char *adv_span(const struct adv_ctx *c, char *buf, size_t n)
{
	str_fmt(buf, n, "ticks %zu-%zu, %.1f s at %.0f ms", c->first, c->last, c->span_s,
		c->tick_ms);
	return buf;
}

__attribute__((format(printf, 1, 0))) static char *vfmt(const char *fmt, va_list ap)
{
	char tmp[2048];

	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	return xstrdup(tmp);
}

struct adv_cand *adv_cand_add(struct adv_ctx *c, const char *id, enum severity sev, double share,
			      const char *fmt, ...)
{
	struct adv_cand *k;
	va_list ap;

	if (c->ncands == ADV_MAX_CANDS)
		abort(); /* a programming error: every rule adds at most one */
	k = &c->cands[c->ncands++];
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->sev = sev;
	k->gpu = c->gpu;
	k->share = share < 0 ? 0 : share > 1 ? 1 : share;
	va_start(ap, fmt);
	k->summary = vfmt(fmt, ap);
	va_end(ap);
	return k;
}

void adv_cand_ev(struct adv_cand *k, const char *fmt, ...)
{
	va_list ap;

	if (k->nev == FINDING_MAX_EVIDENCE)
		return;
	va_start(ap, fmt);
	k->ev[k->nev++] = vfmt(fmt, ap);
	va_end(ap);
}

void adv_cand_fix(struct adv_cand *k, const char *fmt, ...)
{
	va_list ap;

	free(k->fix);
	va_start(ap, fmt);
	k->fix = vfmt(fmt, ap);
	va_end(ap);
}

bool adv_has(const struct adv_ctx *c, const char *id)
{
	int i;

	for (i = 0; i < c->ncands; i++)
		if (strcmp(c->cands[i].id, id) == 0)
			return true;
	return false;
}

/* The job's GPUs: those it holds a context on; all of them when the sampler saw none held (a
 * job watched from outside its container), so the rules still read something. */
static void find_held(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	int i;

	for (i = 0; i < tl->ngpus && i < ADV_MAX_GPUS; i++)
		if (tl->gpus[i].job_holds)
			c->held[c->nheld++] = i;
	c->holds = c->nheld > 0;
	if (!c->holds)
		for (i = 0; i < tl->ngpus && i < ADV_MAX_GPUS; i++)
			c->held[c->nheld++] = i;
	c->gpu = c->nheld == 1 ? tl->gpus[c->held[0]].index : -1;
}

/* The pinned rate of the first held GPU's link: the sampler's figure, else the link's line rate
 * per direction at its current generation and width x 0.8 (what a pinned copy reaches). */
static double link_peak(const struct adv_gpu_facts *g)
{
	/* GB/s per lane and direction after encoding, Gen1..Gen6 */
	static const double lane_gb_s[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
	int64_t gen, width;

	if (num_ok(&g->pcie_peak_bytes_s) && g->pcie_peak_bytes_s.v > 0)
		return (double)g->pcie_peak_bytes_s.v;
	gen = num_ok(&g->pcie_gen)       ? g->pcie_gen.v
	      : num_ok(&g->pcie_max_gen) ? g->pcie_max_gen.v
					 : 0;
	width = num_ok(&g->pcie_width)       ? g->pcie_width.v
		: num_ok(&g->pcie_max_width) ? g->pcie_max_width.v
					     : 0;
	if (gen < 1 || gen >= (int64_t)ARRAY_SIZE(lane_gb_s) || width < 1)
		return 0;
	return lane_gb_s[gen] * 1e9 * (double)width * 0.8;
}

/* The utilisation series the gaps are read from: NVML's own samples of the first held GPU when
 * they are finer than a tick and cover the run, else the ticks' figure. */
static size_t util_series(const struct adv_ctx *c, int64_t **t_out, double **pct_out, double *dt_ms,
			  bool *fine)
{
	const struct adv_timeline *tl = c->tl;
	int pos = c->held[0];
	size_t i, n = 0, nfine = 0;
	int64_t *t;
	double *pct;

	for (i = 0; i < tl->nutil; i++)
		if (tl->util[i].gpu == pos)
			nfine++;
	*fine = nfine >= c->nused;
	t = xcalloc((*fine ? nfine : tl->nticks) + 1, sizeof(*t));
	pct = xcalloc((*fine ? nfine : tl->nticks) + 1, sizeof(*pct));
	if (*fine) {
		for (i = 0; i < tl->nutil; i++)
			if (tl->util[i].gpu == pos) {
				t[n] = tl->util[i].t_ns;
				pct[n++] = tl->util[i].pct;
			}
		/* NVML hands samples back newest last, but a saved file need not: sort by time */
		for (i = 1; i < n; i++) {
			size_t j = i;

			while (j > 0 && t[j - 1] > t[j]) {
				int64_t tt = t[j];
				double pp = pct[j];

				t[j] = t[j - 1];
				pct[j] = pct[j - 1];
				t[j - 1] = tt;
				pct[j - 1] = pp;
				j--;
			}
		}
	} else {
		for (i = 0; i < tl->nticks; i++) {
			double u = adv_num(&tl->ticks[i].g[pos].util_pct);

			if (!isnan(u)) {
				t[n] = tl->ticks[i].t_ns;
				pct[n++] = u;
			}
		}
	}
	*dt_ms = c->tick_ms;
	if (n >= 2) {
		double *d = xcalloc(n, sizeof(*d));

		for (i = 1; i < n; i++)
			d[i - 1] = (double)(t[i] - t[i - 1]) / 1e6;
		*dt_ms = adv_median(d, n - 1);
		free(d);
	}
	*t_out = t;
	*pct_out = pct;
	return n;
}

/* Gap lengths, their spread and the period of their starts (the step rate). */
static void read_gaps(struct adv_ctx *c)
{
	struct adv_gaps *g = &c->gaps;
	int64_t *t;
	double *pct, *len, *start;
	size_t n, i, npartial = 0;

	n = util_series(c, &t, &pct, &g->sample_ms, &g->fine);
	g->nsamples = n;
	len = xcalloc(n + 1, sizeof(*len));
	start = xcalloc(n + 1, sizeof(*start));
	for (i = 0; i < n;) {
		size_t j = i;

		if (pct[i] >= ADV_GAP_PCT) {
			if (pct[i] < ADV_BUSY_PCT)
				npartial++;
			i++;
			continue;
		}
		while (j < n && pct[j] < ADV_GAP_PCT)
			j++;
		/* a run cut by the start or end of sampling has no known length */
		if (i > 0 && j < n) {
			len[g->ngaps] = (double)(j - i) * g->sample_ms;
			start[g->ngaps++] = (double)t[i] / 1e6;
		}
		i = j;
	}
	g->partial_share = n ? (double)npartial / (double)n : 0;
	if (g->ngaps >= ADV_MIN_GAPS) {
		double *sp = xcalloc(g->ngaps, sizeof(*sp)), mad;

		g->gap_med_ms = adv_median(len, g->ngaps);
		g->gap_lo_ms = quantile_sorted(len, g->ngaps, 0.1);
		g->gap_hi_ms = quantile_sorted(len, g->ngaps, 0.9);
		for (i = 1; i < g->ngaps; i++)
			sp[i - 1] = start[i] - start[i - 1];
		g->period_ms = adv_median(sp, g->ngaps - 1);
		for (i = 0; i + 1 < g->ngaps; i++)
			sp[i] = fabs(sp[i] - g->period_ms);
		mad = adv_median(sp, g->ngaps - 1);
		g->regular = g->period_ms > 0 && mad / g->period_ms <= ADV_REGULAR_MAD;
		free(sp);
	}
	/* Short: gaps seen whole and short, or none seen whole while most samples are partly
	 * idle (each step's gap is shorter than a sample). */
	g->short_gaps =
	    g->ngaps >= ADV_MIN_GAPS ? g->gap_med_ms <= ADV_SHORT_GAP_MS : g->partial_share >= 0.5;
	free(len);
	free(start);
	free(t);
	free(pct);
}

/* Per-tick idle share of the held GPUs, the run's idle share, its span. */
static void read_idle(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double sum = 0;
	size_t i;

	c->idle = xcalloc(tl->nticks ? tl->nticks : 1, sizeof(*c->idle));
	for (i = 0; i < tl->nticks; i++) {
		double u = adv_tick_util(c, &tl->ticks[i]);

		if (isnan(u)) {
			c->idle[i] = -1;
			continue;
		}
		u = u < 0 ? 0 : u > 100 ? 100 : u;
		c->idle[i] = 1 - u / 100;
		sum += c->idle[i];
		if (c->nused++ == 0)
			c->first = i;
		c->last = i;
	}
	c->idle_share = c->nused ? sum / (double)c->nused : 0;
	c->tick_ms = tl->tick_ns > 0 ? (double)tl->tick_ns / 1e6 : 100;
	if (c->nused)
		c->span_s = (double)(tl->ticks[c->last].t_ns - tl->ticks[c->first].t_ns) / 1e9 +
			    c->tick_ms / 1e3;
}

/* How steady the ticks' utilisation is: its spread, and no gap seen whole in finer samples. */
static void read_steady(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double *v = xcalloc(tl->nticks + 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < tl->nticks; i++) {
		double u = adv_tick_util(c, &tl->ticks[i]);

		if (!isnan(u))
			v[n++] = u;
	}
	c->util_med = adv_median(v, n); /* sorts v */
	if (n) {
		c->util_p10 = quantile_sorted(v, n, 0.1);
		c->util_p90 = quantile_sorted(v, n, 0.9);
	}
	free(v);
	c->steady = n >= ADV_MIN_TICKS && c->util_p90 - c->util_p10 <= ADV_STEADY_SPAN_PCT &&
		    !(c->gaps.fine && c->gaps.ngaps >= ADV_MIN_GAPS);
}

/* A sentence on the gaps for evidence: "gaps: 40 seen, median 60 ms (40-80 ms), every 200 ms
 * (regular)" or "gaps shorter than the 100 ms sample, in 85 % of samples". */
static void gaps_evidence(const struct adv_ctx *c, struct adv_cand *k)
{
	const struct adv_gaps *g = &c->gaps;

	if (g->ngaps >= ADV_MIN_GAPS)
		adv_cand_ev(k,
			    "gaps (%s, %.0f ms samples): %zu seen, median %.0f ms (%.0f-%.0f ms), "
			    "starting every %.0f ms (%s)",
			    g->fine ? "NVML utilisation samples" : "ticks", g->sample_ms, g->ngaps,
			    g->gap_med_ms, g->gap_lo_ms, g->gap_hi_ms, g->period_ms,
			    g->regular ? "regular: the step rate" : "irregular");
	else
		adv_cand_ev(k, "gaps shorter than a %.0f ms sample: %.0f %% of samples partly idle",
			    g->sample_ms, g->partial_share * 100);
}

/* The rules that explain idle time add their gap evidence here, once, after they ran. */
static void add_gap_evidence(struct adv_ctx *c)
{
	int i;

	for (i = 0; i < c->ncands; i++)
		if (c->cands[i].gap_evidence && c->cands[i].nev < FINDING_MAX_EVIDENCE)
			gaps_evidence(c, &c->cands[i]);
}

/* The closing line when nothing costs GPU time: the figures that say the GPU is busy. */
static void add_ok(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double *sm = xcalloc(tl->nticks ? tl->nticks : 1, sizeof(*sm)), th, w;
	size_t i, n = 0;
	char span[96];
	struct adv_cand *k;

	k = adv_cand_add(c, "advise.ok", SEV_OK, 0, "the GPU is busy: %.0f %% utilised over %.1f s",
			 (1 - c->idle_share) * 100, c->span_s);
	adv_cand_ev(k, "utilisation: mean %.0f %% (%s)", (1 - c->idle_share) * 100,
		    adv_span(c, span, sizeof(span)));
	for (i = 0; i < tl->nticks; i++) {
		double s = adv_num(&tl->ticks[i].g[c->held[0]].sm_active_pct);

		if (!isnan(s))
			sm[n++] = s;
	}
	if (n)
		adv_cand_ev(k, "SM active (GPM): median %.0f %%", adv_median(sm, n));
	else
		adv_cand_ev(k, "SM active: not read (no GPM on this GPU or driver): how full the "
			       "SMs are was not judged");
	free(sm);
	th = adv_host_median(c, offsetof(struct adv_host_tick, main_thread_max_pct), false);
	w = adv_host_median(c, offsetof(struct adv_host_tick, workers), false);
	if (!isnan(th))
		adv_cand_ev(k, "host: busiest thread of the main process %.0f %% of a core", th);
	if (!isnan(w))
		adv_cand_ev(k, "data-loader workers: %.0f", w);
	if (tl->self_wall_ns > 0)
		adv_cand_ev(k, "advise's own cost: %.1f %% of one core",
			    (double)tl->self_cpu_ns * 100 / (double)tl->self_wall_ns);
}

/* Nothing explains the idle time: the profilers that can, with the exact commands. */
static void add_unclear(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	char span[96], cmd[200];
	struct adv_cand *k;

	k = adv_cand_add(c, "advise.unclear", SEV_WARN, c->idle_share,
			 "the GPU is idle %.0f %% of the time and no rule explains it",
			 c->idle_share * 100);
	adv_cand_ev(k, "idle %.0f %% (%s)", c->idle_share * 100, adv_span(c, span, sizeof(span)));
	gaps_evidence(c, k);
	str_copy(cmd, tl->cmd[0] ? tl->cmd : "python train.py", sizeof(cmd));
	if (strlen(tl->cmd) >= sizeof(cmd))
		str_copy(cmd + sizeof(cmd) - 5, " ...", 5);
	/* nsys cannot attach to a running process on Linux: it has to start the job. --delay
	 * skips the start-up, --duration bounds the trace (nsys stops the job then). */
	if (c->pytorch)
		adv_cand_fix(
		    k,
		    "run the job under Nsight Systems (it cannot attach to a running process): "
		    "nsys profile -t cuda,nvtx,osrt --delay 60 --duration 20 -o advise %s; "
		    "then nsys stats advise.nsys-rep, or open it in nsys-ui. Or the PyTorch "
		    "profiler around a few steps: from torch.profiler import profile, schedule, "
		    "ProfilerActivity, tensorboard_trace_handler; with profile(activities="
		    "[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(wait=5, "
		    "warmup=2, active=5), on_trace_ready=tensorboard_trace_handler(\"advise\")) "
		    "as prof: (in the training loop) prof.step(); then "
		    "print(prof.key_averages().table(sort_by=\"cuda_time_total\"))",
		    cmd);
	else
		adv_cand_fix(
		    k,
		    "run the job under Nsight Systems (it cannot attach to a running process): "
		    "nsys profile -t cuda,nvtx,osrt --delay 60 --duration 20 -o advise %s; "
		    "then nsys stats advise.nsys-rep, or open it in nsys-ui",
		    cmd);
}

/* The median of a GPU reading of the first held GPU over the ticks; NAN when never read. */
static double held_gpu_median(const struct adv_ctx *c, size_t off, size_t *n_out)
{
	const struct adv_timeline *tl = c->tl;
	double *v = xcalloc(tl->nticks ? tl->nticks : 1, sizeof(*v)), m;
	size_t i, n = 0;

	for (i = 0; i < tl->nticks; i++) {
		const struct num *x =
		    (const struct num *)((const char *)&tl->ticks[i].g[c->held[0]] + off);

		if (num_ok(x))
			v[n++] = (double)x->v;
	}
	m = adv_median(v, n);
	free(v);
	*n_out = n;
	return m;
}

/* Too little to judge, said alone (advise.no_samples), with the reason and what to do about
 * it: no GPU in the timeline; a job that ended too soon; a run long enough whose utilisation
 * could not be read (a GPU in MIG mode: NVML has no utilisation for it, the idle time is not
 * judged, never taken as 0); or a run too short (--duration 1, or --interval 1000 with a few
 * seconds). */
static void add_no_samples(struct adv_ctx *c, struct findings *out)
{
	const struct adv_timeline *tl = c->tl;
	double tick_s = (tl->tick_ns > 0 ? (double)tl->tick_ns : 1e8) / 1e9;
	double sampled_s = tl->nticks ? (double)tl->ticks[tl->nticks - 1].t_ns / 1e9 + tick_s : 0;
	int need_s = (int)ceil(ADV_MIN_TICKS * tick_s) + 1;
	struct finding *f;

	if (c->nheld == 0) {
		f = finding_add(out, "advise.no_samples", SEV_WARN, -1,
				"nothing to judge: the timeline has no GPU");
		finding_evidence(f, "timeline: %zu ticks, 0 GPUs", tl->nticks);
		finding_fix(f, 0, "advise a job on this machine's GPUs (gpuvet top lists them)");
		return;
	}
	if (tl->ended && tl->nticks < ADV_MIN_TICKS) {
		f = finding_add(out, "advise.no_samples", SEV_WARN, -1,
				"the job ended %.1f s into the sampling, too soon to judge: %zu "
				"ticks with the GPU's utilisation read, %d needed",
				sampled_s, c->nused, ADV_MIN_TICKS);
		finding_evidence(f,
				 "timeline: %zu ticks of %.0f ms, %d GPUs, %d held by the job; "
				 "the job ended",
				 tl->nticks, tick_s * 1e3, tl->ngpus, c->holds ? c->nheld : 0);
		finding_fix(f, 0,
			    "advise a run that trains for more than %d s; to catch it from its "
			    "first GPU context, let advise start it: gpuvet advise -- python "
			    "train.py",
			    need_s);
		return;
	}
	if (tl->nticks >= ADV_MIN_TICKS) {
		size_t nsm = 0;
		double sm = held_gpu_median(c, offsetof(struct adv_gpu_tick, sm_active_pct), &nsm);

		f = finding_add(out, "advise.no_samples", SEV_WARN, c->gpu,
				"GPU %d's utilisation cannot be read (n/a in %zu of %zu ticks): "
				"its idle time is not judged",
				tl->gpus[c->held[0]].index, tl->nticks - c->nused, tl->nticks);
		f->one_device = c->gpu >= 0;
		finding_evidence(f, "NVML reports no utilisation for a GPU in MIG mode (nor "
				    "per-process SM %%): n/a, not 0");
		if (nsm >= ADV_MIN_TICKS)
			finding_evidence(f,
					 "SM active (GPM): median %.0f %% over %zu ticks; shown, "
					 "not taken for utilisation (a launch-bound job leaves SMs "
					 "empty on a busy GPU)",
					 sm, nsm);
		else
			finding_evidence(f, "SM active: not read either (no GPM for this GPU or "
					    "its MIG instances)");
		finding_fix(
		    f, 0,
		    "profile the job inside its MIG instance: nsys profile -t cuda,nvtx,osrt "
		    "--delay 60 --duration 20 -o advise %s; or read the instance's activity "
		    "with DCGM: dcgmi dmon -e 1002,1003 (SM active, occupancy per instance)",
		    tl->cmd[0] ? tl->cmd : "python train.py");
		return;
	}
	f = finding_add(out, "advise.no_samples", SEV_WARN, -1,
			"too short to judge: %zu ticks with the GPU's utilisation read "
			"(%.1f s at %.0f ms), %d needed",
			c->nused, sampled_s, tick_s * 1e3, ADV_MIN_TICKS);
	finding_evidence(f, "timeline: %zu ticks, %d GPUs, %d held by the job", tl->nticks,
			 tl->ngpus, c->holds ? c->nheld : 0);
	finding_fix(f, 0,
		    "sample at least %d s at this tick, better --duration 30 (the default), while "
		    "the job is in its training loop, not its start-up",
		    need_s);
}

/* Most costly first; equal shares keep the order the rules ran in. */
static void rank(struct adv_ctx *c)
{
	int i, j;

	for (i = 1; i < c->ncands; i++)
		for (j = i; j > 0 && c->cands[j].share > c->cands[j - 1].share; j--) {
			struct adv_cand tmp = c->cands[j];

			c->cands[j] = c->cands[j - 1];
			c->cands[j - 1] = tmp;
		}
}

static void emit(struct adv_ctx *c, struct findings *out)
{
	int i, e;

	for (i = 0; i < c->ncands; i++) {
		struct adv_cand *k = &c->cands[i];
		struct finding *f = finding_add(out, k->id, k->sev, k->gpu, "%s", k->summary);

		f->one_device = k->gpu >= 0;
		for (e = 0; e < k->nev; e++)
			finding_evidence(f, "%s", k->ev[e]);
		if (k->fix)
			finding_fix(f, 0, "%s", k->fix);
	}
}

static void free_cands(struct adv_ctx *c)
{
	int i, e;

	for (i = 0; i < c->ncands; i++) {
		free(c->cands[i].summary);
		free(c->cands[i].fix);
		for (e = 0; e < c->cands[i].nev; e++)
			free(c->cands[i].ev[e]);
	}
	c->ncands = 0;
}

int advise_diagnose(const struct adv_timeline *tl, struct findings *out)
{
	struct adv_ctx *c = xcalloc(1, sizeof(*c));
	size_t start = out->n;
	bool explained = false, costs = false;
	int i;

	c->tl = tl;
	c->pytorch = strcmp(tl->framework, "pytorch") == 0;
	find_held(c);
	if (c->nheld > 0)
		read_idle(c);
	if (c->nheld == 0 || c->nused < ADV_MIN_TICKS) {
		add_no_samples(c, out);
		free(c->idle);
		free(c);
		return findings_worst_since(out, start);
	}
	c->rx_peak = link_peak(&tl->gpus[c->held[0]]);
	read_gaps(c);
	read_steady(c);

	adv_rule_cpu_work(c);
	adv_rule_starved_host(c);
	adv_rule_input_io(c);
	adv_rule_small_work(c);
	adv_rule_h2d_copies(c);
	adv_rule_input_pipeline(c);
	adv_rule_sync_points(c);
	adv_rule_gpus_idle(c);
	adv_rule_nccl_wait(c);
	adv_rule_throttled(c);
	adv_rule_memory_full(c);
	adv_rule_memory_growth(c);
	adv_rule_gpus_unused(c);
	add_gap_evidence(c);

	for (i = 0; i < c->ncands; i++) {
		explained |= c->cands[i].explains_idle;
		costs |= c->cands[i].sev >= SEV_WARN;
	}
	if (c->idle_share >= ADV_IDLE_SHARE && !explained)
		add_unclear(c);
	else if (!costs && c->idle_share < ADV_IDLE_SHARE)
		add_ok(c);
	rank(c);
	emit(c, out);
	free_cands(c);
	free(c->idle);
	free(c);
	return findings_worst_since(out, start);
}
