/*
 * judge_phases.c: burn's rules for the bandwidth phase (device memory and host link against
 * the model's and the link's figures and the siblings'), the GPU-to-GPU pairs and the power
 * phase (judge_int.h). Pure rules like judge.c's: no vendor calls, no printing.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/device.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "judge_int.h"
#include "stress.h" /* BURN_MODE_*: the phase of a sample */

/* ---- bandwidth ------------------------------------------------------------------------ */

/* One figure of struct burn_bw, by offset, for the absolute and the sibling checks. */
static const struct {
	size_t off;
	const char *what;
	bool link; /* judged against the link's expected rate (else the model's HBM peak) */
} bw_figures[] = {
    {offsetof(struct burn_bw, device_gbs), "device memory (copy kernel, HBM traffic)", false},
    {offsetof(struct burn_bw, h2d_gbs), "host to GPU (pinned copy)", true},
    {offsetof(struct burn_bw, d2h_gbs), "GPU to host (pinned copy)", true},
};

static double bw_figure(const struct burn_bw *bw, size_t off)
{
	return *(const double *)((const char *)bw + off);
}

/* The median of one figure over the other GPUs of g's model that measured it. */
static bool bw_sibling_median(const struct burn_gpu_run *gpus, size_t n, size_t me, size_t off,
			      double *med, size_t *nsib)
{
	double *v = xcalloc(n + 1, sizeof(double));
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (i != me && gpus[i].bw && !strcmp(gpus[i].name, gpus[me].name) &&
		    bw_figure(gpus[i].bw, off) >= 0)
			v[k++] = bw_figure(gpus[i].bw, off);
	if (k)
		*med = burn_j_median(v, k);
	*nsib = k;
	free(v);
	return k > 0;
}

/* The link the bandwidth phase ran on: its lowest generation and width in the phase's samples
 * (the link's state, where burn.pcie_link judges the whole run). */
static bool bw_link_seen(const struct burn_gpu_run *g, int64_t *gen, int64_t *width)
{
	size_t i;
	bool any = false;

	for (i = 0; i < g->n; i++) {
		const struct burn_sample *s = &g->s[i];

		if (s->phase != BURN_MODE_BANDWIDTH || !num_ok(&s->pcie_gen) ||
		    !num_ok(&s->pcie_width))
			continue;
		if (!any || s->pcie_gen.v < *gen)
			*gen = s->pcie_gen.v;
		if (!any || s->pcie_width.v < *width)
			*width = s->pcie_width.v;
		any = true;
	}
	return any;
}

void burn_judge_bandwidth(const struct burn_gpu_run *gpus, size_t n, size_t me,
			    struct findings *out)
{
	const struct burn_gpu_run *g = &gpus[me];
	const struct burn_bw *bw = g->bw;
	struct finding *f = NULL;
	bool link_low = false;
	size_t k;

	if (!bw)
		return;
	if (bw->bad_words) {
		f = finding_add(out, "burn.copy_errors", SEV_FAIL, g->index,
				"bandwidth copies read back %llu wrong words",
				(unsigned long long)bw->bad_words);
		burn_j_evidence_board(f, g);
		finding_evidence(f,
				 "destination words that differed from the source: %llu (device "
				 "copies of %llu bytes, host copies of %llu bytes)",
				 (unsigned long long)bw->bad_words,
				 (unsigned long long)bw->device_bytes,
				 (unsigned long long)bw->host_bytes);
		finding_fix(f, FIX_SERVICE | FIX_INTERRUPTS,
			    "reset the GPU (sudo nvidia-smi -r) and run gpuvet burn --mode "
			    "memory,bandwidth; if words still read back wrong, reseat it, then RMA "
			    "the board with its serial");
		f = NULL;
	}
	for (k = 0; k < ARRAY_SIZE(bw_figures); k++) {
		double v = bw_figure(bw, bw_figures[k].off), med = 0;
		double expect = bw_figures[k].link ? bw->link_expect_gbs : bw->device_expect_gbs;
		double share = bw_figures[k].link ? BURN_BW_LINK_SHARE : BURN_BW_DEVICE_SHARE;
		bool abs_low, sib_low;
		size_t nsib = 0;

		if (v < 0)
			continue;
		abs_low = expect > 0 && v < share * expect;
		sib_low = bw_sibling_median(gpus, n, me, bw_figures[k].off, &med, &nsib) &&
			  med > 0 && v < BURN_BW_SIBLING_SHARE * med;
		if (!abs_low && !sib_low)
			continue;
		if (!f) {
			f = finding_add(out, "burn.bandwidth_low", SEV_WARN, g->index,
					"%s bandwidth low: %.1f GB/s", bw_figures[k].what, v);
			burn_j_evidence_board(f, g);
		}
		link_low |= bw_figures[k].link;
		if (expect > 0)
			finding_evidence(f,
					 "%s: %.1f GB/s, %.0f %% of the %.1f GB/s expected %s "
					 "(under %.0f %% warns)",
					 bw_figures[k].what, v, 100 * v / expect, expect,
					 bw_figures[k].link ? "of the link"
							    : "(the model's HBM peak)",
					 100 * share);
		else
			finding_evidence(f, "%s: %.1f GB/s; expected: n/a (%s unknown)",
					 bw_figures[k].what, v,
					 bw_figures[k].link ? "the link's generation or width"
							    : "the memory clock or bus width");
		if (nsib)
			finding_evidence(
			    f,
			    "%s against siblings of the same model: %.1f GB/s, %.0f %% of "
			    "their median %.1f GB/s over %zu GPU%s (under %.0f %% warns)",
			    bw_figures[k].what, v, 100 * v / med, med, nsib, nsib == 1 ? "" : "s",
			    100 * BURN_BW_SIBLING_SHARE);
	}
	if (!f)
		return;
	if (link_low) {
		int64_t gen = 0, width = 0;

		if (bw->link_gen > 0)
			finding_evidence(f,
					 "link maximum: PCIe Gen%d x%d (expected: %.0f %% of its "
					 "per-direction line rate)",
					 bw->link_gen, bw->link_width, 100 * BURN_LINK_COPY_SHARE);
		if (bw_link_seen(g, &gen, &width))
			finding_evidence(f, "link during the phase: PCIe Gen%lld x%lld%s",
					 (long long)gen, (long long)width,
					 bw->link_gen > 0 &&
						 (gen < bw->link_gen || width < bw->link_width)
					     ? ", below its maximum"
					     : "");
		finding_fix(f, FIX_SERVICE | FIX_INTERRUPTS,
			    "reseat the GPU and its riser or cable; check the slot's PCIe settings "
			    "in the BIOS (link speed forced to a lower generation, bifurcation); "
			    "swap slots with a sibling and run gpuvet burn --mode bandwidth again: "
			    "if the low figure follows the slot, the slot or riser is at fault, if "
			    "it follows the serial, the card");
	} else {
		finding_fix(
		    f, FIX_SERVICE | FIX_INTERRUPTS,
		    "check the memory clock (nvidia-smi -q -d CLOCK: applications and "
		    "locked clocks) and pending row remaps (gpuvet doctor); swap slots with a "
		    "sibling and run gpuvet burn --mode bandwidth again: device memory "
		    "follows the card, so a figure that follows the serial means RMA");
	}
}

/* The bandwidth phase's figures in one line, each with its share of the expected. */
void burn_bw_evidence(struct finding *f, const struct burn_bw *bw)
{
	char part[3][80];
	size_t k;

	for (k = 0; k < ARRAY_SIZE(bw_figures); k++) {
		double v = bw_figure(bw, bw_figures[k].off);
		double expect = bw_figures[k].link ? bw->link_expect_gbs : bw->device_expect_gbs;

		if (v < 0)
			str_copy(part[k], "n/a", sizeof(part[k]));
		else if (expect > 0)
			str_fmt(part[k], sizeof(part[k]), "%.1f GB/s (%.0f %% of %.1f expected)", v,
				100 * v / expect, expect);
		else
			str_fmt(part[k], sizeof(part[k]), "%.1f GB/s (expected n/a)", v);
	}
	finding_evidence(f, "bandwidth: device memory %s; host to GPU %s; GPU to host %s", part[0],
			 part[1], part[2]);
}

/* ---- GPU to GPU ---------------------------------------------------------------------- */

/* A pair's direction k (0: a -> b, 1: b -> a): its rate, < 0 when not measured. */
static double p2p_rate(const struct burn_p2p *p, int k)
{
	return k ? p->ba_gbs : p->ab_gbs;
}

/* Pairs are compared with those over the same kind of path: NVLink with NVLink, PCIe with PCIe
 * meeting at the same level (a pair across the CPUs is slower by design, not at fault). */
static bool p2p_same_path(const struct burn_p2p *x, const struct burn_p2p *y)
{
	return x->path == y->path && (x->path != BURN_PATH_PCIE || x->pcie_level == y->pcie_level);
}

/* The median rate of the directions of every other pair over the same path. */
static bool p2p_median_others(const struct burn_p2p *v, size_t n, size_t me, double *med,
			      size_t *ncopies)
{
	double *r = xcalloc(2 * n + 1, sizeof(double));
	size_t i, m = 0;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++)
			if (i != me && p2p_same_path(&v[i], &v[me]) && p2p_rate(&v[i], k) >= 0)
				r[m++] = p2p_rate(&v[i], k);
	if (m)
		*med = burn_j_median(r, m);
	*ncopies = m;
	free(r);
	return m > 0;
}

/* This GPU's measured pairs in one line: "GPU to GPU: with GPU 1 41.2 and 40.8 GB/s (80 % of
 * 51.2 expected)". */
void burn_p2p_evidence(struct finding *f, const struct burn_gpu_run *g)
{
	struct strbuf b;
	size_t i;

	sb_init(&b);
	for (i = 0; i < g->np2p; i++) {
		const struct burn_p2p *p = &g->p2p[i];
		int peer = p->a == g->index ? p->b : p->a;
		/* this GPU's push first */
		double out_gbs = p->a == g->index ? p->ab_gbs : p->ba_gbs;
		double in_gbs = p->a == g->index ? p->ba_gbs : p->ab_gbs;
		double lo = out_gbs < 0 || (in_gbs >= 0 && in_gbs < out_gbs) ? in_gbs : out_gbs;

		if ((p->a != g->index && p->b != g->index) || lo < 0)
			continue;
		sb_addf(&b, "%swith GPU %d ", b.len ? "; " : "", peer);
		if (out_gbs >= 0)
			sb_addf(&b, "%.1f out", out_gbs);
		if (in_gbs >= 0)
			sb_addf(&b, "%s%.1f in", out_gbs >= 0 ? ", " : "", in_gbs);
		if (p->expect_gbs > 0)
			sb_addf(&b, " GB/s (%.0f %% of %.1f expected)", 100 * lo / p->expect_gbs,
				p->expect_gbs);
		else
			sb_addf(&b, " GB/s (expected n/a)");
	}
	if (b.len)
		finding_evidence(f, "GPU to GPU: %s", b.buf);
	sb_release(&b);
}

void burn_judge_p2p(const struct burn_gpu_run *g, struct findings *out)
{
	struct finding *low = NULL;
	size_t i, nmine = 0, nlow = 0;
	int k;

	for (i = 0; i < g->np2p; i++) {
		const struct burn_p2p *p = &g->p2p[i];
		int peer = p->a == g->index ? p->b : p->a;
		bool pair_low = false;

		if (p->a != g->index && p->b != g->index)
			continue;
		nmine += p->ab_gbs >= 0 || p->ba_gbs >= 0;
		if (!p->can_ab || !p->can_ba) {
			struct finding *f;

			if (p->can_ab || p->can_ba)
				f = finding_add(out, "burn.p2p_unavailable", SEV_INFO, g->index,
						"GPU %d cannot reach GPU %d's memory directly",
						p->can_ab ? p->b : p->a, p->can_ab ? p->a : p->b);
			else
				f = finding_add(
				    out, "burn.p2p_unavailable", SEV_INFO, g->index,
				    "GPU %d and GPU %d cannot reach each other's memory "
				    "directly",
				    p->a, p->b);

			finding_evidence(
			    f, "cuDeviceCanAccessPeer: GPU %d -> GPU %d %s, GPU %d -> GPU %d %s",
			    p->a, p->b, p->can_ab ? "yes" : "no", p->b, p->a,
			    p->can_ba ? "yes" : "no");
			finding_evidence(f, "path: %s", p->path_what[0] ? p->path_what : "unknown");
			finding_fix(
			    f, 0,
			    "nvidia-smi topo -m and nvidia-smi topo -p2p rw show the path; "
			    "copies between them go through host memory, so keep jobs that "
			    "talk a lot on GPUs that reach each other (on a machine built for "
			    "P2P, check IOMMU/ACS settings and the NVLink fabric)");
		}
		if (p->bad_words) {
			struct finding *f =
			    finding_add(out, "burn.copy_errors", SEV_FAIL, g->index,
					"GPU-to-GPU copies with GPU %d read back %llu wrong words",
					peer, (unsigned long long)p->bad_words);

			burn_j_evidence_board(f, g);
			finding_evidence(
			    f,
			    "destination words that differed from the source between GPU "
			    "%d and GPU %d: %llu (copies of %llu bytes each way)",
			    p->a, p->b, (unsigned long long)p->bad_words,
			    (unsigned long long)p->bytes);
			finding_fix(
			    f, FIX_SERVICE | FIX_INTERRUPTS,
			    "run gpuvet burn --mode memory,bandwidth on each GPU alone (-i) to "
			    "tell which one corrupts; reset it (sudo nvidia-smi -r), reseat it "
			    "and its NVLink bridge, then RMA the board with its serial");
		}
		for (k = 0; k < 2; k++) {
			double v = p2p_rate(p, k), med = 0;
			size_t ncopies = 0;
			bool abs_low, sib_low;
			char expect[120], sib[120] = "";

			if (v < 0)
				continue;
			abs_low = p->expect_gbs > 0 && v < BURN_BW_LINK_SHARE * p->expect_gbs;
			sib_low = p2p_median_others(g->p2p, g->np2p, i, &med, &ncopies) &&
				  med > 0 && v < BURN_BW_SIBLING_SHARE * med;
			if (!abs_low && !sib_low)
				continue;
			pair_low = true;
			if (!low) {
				low = finding_add(
				    out, "burn.p2p_low", SEV_WARN, g->index,
				    "GPU-to-GPU bandwidth low: GPU %d -> GPU %d %.1f GB/s",
				    k ? p->b : p->a, k ? p->a : p->b, v);
				burn_j_evidence_board(low, g);
			}
			if (p->expect_gbs > 0)
				str_fmt(
				    expect, sizeof(expect),
				    "%.0f %% of the %.1f GB/s expected of %s (under %.0f %% warns)",
				    100 * v / p->expect_gbs, p->expect_gbs, p->path_what,
				    100 * BURN_BW_LINK_SHARE);
			else
				str_fmt(expect, sizeof(expect), "expected: n/a (path %s)",
					p->path_what[0] ? p->path_what : "unknown");
			if (ncopies)
				str_fmt(
				    sib, sizeof(sib),
				    "; %.0f %% of the median %.1f GB/s of %zu other copies over "
				    "the same kind of path (under %.0f %% warns)",
				    100 * v / med, med, ncopies, 100 * BURN_BW_SIBLING_SHARE);
			finding_evidence(low, "GPU %d -> GPU %d: %.1f GB/s, %s%s", k ? p->b : p->a,
					 k ? p->a : p->b, v, expect, sib);
		}
		nlow += pair_low;
	}
	if (!low)
		return;
	finding_evidence(low, "%zu of this GPU's %zu pairs measured low: %s", nlow, nmine,
			 nmine < 2       ? "its only pair: its peer or the path between them"
			 : nlow == nmine ? "every pair, so this GPU, its slot or its links rather "
					   "than one peer"
					 : "the rest are not, so the path to those peers rather "
					   "than this GPU");
	finding_fix(low, FIX_SERVICE | FIX_INTERRUPTS,
		    "nvidia-smi topo -m and nvidia-smi nvlink --status show the links each pair "
		    "uses; reseat the GPU and check its NVLink bridge or the NVSwitch fabric "
		    "(nvidia-smi -q | grep -i fabric, nvidia-fabricmanager); on PCIe, check the "
		    "slot and the switch; swap slots with a sibling and run gpuvet burn --mode "
		    "bandwidth again: a low figure that follows the serial is the card");
}

/* ---- the power phase ------------------------------------------------------------------- */

/* What the power phase's last half shows. */
struct power_window {
	size_t nsamples, npower, nce, ncap, nheat;
	double power_mean_mw, limit_mw; /* limit: median, 0 unread */
	bool has_sm;
	double sm_med, sm_max; /* sm_max: median, 0 unread */
	unsigned ce_seen;
	int64_t t_from, t_to;
};

static bool power_window(const struct burn_gpu_run *g, struct power_window *pw)
{
	double *sm = xcalloc(g->n + 1, sizeof(double));
	double *smax = xcalloc(g->n + 1, sizeof(double));
	double *lim = xcalloc(g->n + 1, sizeof(double));
	double sum = 0;
	size_t i, nsm = 0, nsmax = 0, nlim = 0;
	int64_t first = -1, last = -1, mid;

	memset(pw, 0, sizeof(*pw));
	for (i = 0; i < g->n; i++)
		if (g->s[i].phase == BURN_MODE_POWER) {
			if (first < 0)
				first = g->s[i].t_ns;
			last = g->s[i].t_ns;
		}
	/* the last half: clocks, fans and power have settled after the ramp */
	mid = first + (last - first) / 2;
	for (i = 0; first >= 0 && i < g->n; i++) {
		const struct burn_sample *s = &g->s[i];

		if (s->phase != BURN_MODE_POWER || s->t_ns < mid)
			continue;
		if (pw->nsamples++ == 0)
			pw->t_from = s->t_ns;
		pw->t_to = s->t_ns;
		if (num_ok(&s->power_mw)) {
			sum += (double)s->power_mw.v;
			pw->npower++;
		}
		if (num_ok(&s->power_limit_mw) && s->power_limit_mw.v > 0)
			lim[nlim++] = (double)s->power_limit_mw.v;
		if (num_ok(&s->sm_mhz))
			sm[nsm++] = (double)s->sm_mhz.v;
		if (num_ok(&s->sm_max_mhz) && s->sm_max_mhz.v > 0)
			smax[nsmax++] = (double)s->sm_max_mhz.v;
		if (num_ok(&s->clock_events)) {
			int64_t ce = s->clock_events.v;

			pw->nce++;
			pw->ce_seen |= (unsigned)ce;
			if (ce & CE_SW_POWER_CAP)
				pw->ncap++;
			if (ce & (CE_SW_THERMAL | CE_HW_THERMAL))
				pw->nheat++;
		}
	}
	if (pw->npower)
		pw->power_mean_mw = sum / (double)pw->npower;
	pw->limit_mw = nlim ? burn_j_median(lim, nlim) : 0;
	pw->has_sm = nsm > 0;
	pw->sm_med = nsm ? burn_j_median(sm, nsm) : 0;
	pw->sm_max = nsmax ? burn_j_median(smax, nsmax) : 0;
	free(sm);
	free(smax);
	free(lim);
	return pw->npower > 0;
}

/* The power phase's figures, as evidence lines of f. */
static void power_evidence(struct finding *f, const struct power_window *pw)
{
	char reasons[160];

	if (pw->limit_mw > 0)
		finding_evidence(f,
				 "power over the power phase's last half (%.1f to %.1f s): %.1f W "
				 "mean, %.0f %% of the %.1f W limit (%zu samples)",
				 burn_j_secs(pw->t_from), burn_j_secs(pw->t_to), pw->power_mean_mw / 1000.0,
				 100 * pw->power_mean_mw / pw->limit_mw, pw->limit_mw / 1000.0,
				 pw->npower);
	else
		finding_evidence(f,
				 "power over the power phase's last half (%.1f to %.1f s): %.1f W "
				 "mean (limit unread; %zu samples)",
				 burn_j_secs(pw->t_from), burn_j_secs(pw->t_to), pw->power_mean_mw / 1000.0,
				 pw->npower);
	if (pw->has_sm && pw->sm_max > 0)
		finding_evidence(f, "SM clock held there: %.0f MHz median, %.0f %% of %.0f MHz max",
				 pw->sm_med, 100 * pw->sm_med / pw->sm_max, pw->sm_max);
	else if (pw->has_sm)
		finding_evidence(f, "SM clock held there: %.0f MHz median (max unread)",
				 pw->sm_med);
	if (pw->nce) {
		burn_j_ce_names(pw->ce_seen, reasons, sizeof(reasons));
		finding_evidence(f,
				 "clock-event reasons there: %s; power cap in %zu, heat in %zu of "
				 "%zu samples",
				 reasons, pw->ncap, pw->nheat, pw->nce);
	}
}

void burn_judge_power(const struct burn_gpu_run *g, struct findings *out, size_t start)
{
	struct power_window pw;
	struct finding *f;
	bool explained, clock_below, clock_low_raised = false;
	size_t i;

	if (!power_window(g, &pw))
		return;
	for (i = start; i < out->n; i++)
		clock_low_raised |= !strcmp(out->v[i].def->id, "burn.clock_low");
	explained = pw.nce && ((double)pw.ncap >= BURN_REASON_EXPLAINS_SHARE * (double)pw.nce ||
			       (double)pw.nheat >= BURN_REASON_EXPLAINS_SHARE * (double)pw.nce);
	clock_below = pw.has_sm && pw.sm_max > 0 && pw.sm_med < BURN_CLOCK_FULL_SHARE * pw.sm_max;
	/* burn.clock_low already names an unexplained low clock: the power is its echo */
	if (pw.npower >= 2 && pw.limit_mw > 0 &&
	    pw.power_mean_mw < BURN_POWER_REACHED_SHARE * pw.limit_mw && !explained &&
	    clock_below && !clock_low_raised) {
		f = finding_add(out, "burn.power_not_reached", SEV_WARN, g->index,
				"the power phase reached %.0f %% of the power limit with the clock "
				"below max and no power cap or heat to explain it",
				100 * pw.power_mean_mw / pw.limit_mw);
		burn_j_evidence_board(f, g);
		power_evidence(f, &pw);
		finding_evidence(
		    f,
		    "under %.0f %% of the limit with the clock under %.0f %% of max "
		    "warns, unless the power cap or heat was active in half the samples",
		    100 * BURN_POWER_REACHED_SHARE, 100 * BURN_CLOCK_FULL_SHARE);
		finding_fix(
		    f, FIX_SERVICE,
		    "check clock locks and application clocks (nvidia-smi -q -d "
		    "CLOCK,PERFORMANCE), then the GPU's power cables, the power supplies and "
		    "the BMC's power events; compare with its siblings in the same run");
		return;
	}
	{
		char sum[200], clk[64] = "unread";

		if (pw.has_sm)
			str_fmt(clk, sizeof(clk), "%.0f MHz", pw.sm_med);
		if (pw.limit_mw > 0)
			str_fmt(sum, sizeof(sum),
				"power phase: %.1f W, %.0f %% of the %.1f W limit, SM clock %s",
				pw.power_mean_mw / 1000.0, 100 * pw.power_mean_mw / pw.limit_mw,
				pw.limit_mw / 1000.0, clk);
		else
			str_fmt(sum, sizeof(sum), "power phase: %.1f W (limit unread), SM clock %s",
				pw.power_mean_mw / 1000.0, clk);
		f = finding_add(out, "burn.power", SEV_INFO, g->index, "%s", sum);
	}
	burn_j_evidence_board(f, g);
	power_evidence(f, &pw);
}

