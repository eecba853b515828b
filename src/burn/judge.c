/*
 * judge.c: burn's verdict (judge.h): a stress run's counters and telemetry turned into burn.*
 * findings per GPU, each with the values and times that raised it and the next step.
 *
 * Pure rules over a timeline: the stress run (burn/burn*.c) or a replayed timeline fills the
 * samples, cmd/burn.c prints what this returns. A sample's unread value (st != VAL_OK) is
 * skipped, never read as 0, so a field the driver does not report raises nothing. The ids are
 * defined here (check_burn, joined into the catalog by checks/catalog.c) and documented in
 * docs/findings.md, section "burn"; the bandwidth, GPU-to-GPU and power phases' rules are in
 * judge_phases.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../checks/catalog.h"
#include "../gpu/device.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "judge.h"
#include "judge_int.h"
#include "stress.h" /* BURN_MODE_*: the phase of a sample */

/*
 * Thresholds. Facts from ../shared/reference/health-anchors.md (DCGM 4.6 and the Xid catalog)
 * where DCGM has one; the rest are issue 11's, chosen so a healthy H200 under gpu-burn's load
 * (anchors-h200.md) stays clear of every one.
 */
/* A slowdown reason counts once active in more than this share of the samples: DCGM fails on
 * any thermal-violation time, and DCGM#242 complains that "0.0 s" violations fail runs; one
 * sample in twenty is a real slowdown, a lone sample at a boundary is not. */
#define BURN_EVENT_SHARE 0.05
/* Degrees to the slowdown temperature: under 5 C the GPU is about to slow down (fail, like
 * doctor's health.hot), under 10 C it has no headroom for a warmer day (warn). */
#define BURN_MARGIN_FAIL_C 5
#define BURN_MARGIN_WARN_C 10
/* DCGM's pcie plugin: max_pcie_replays = 80 per run (targeted_stress allows 160). */
#define BURN_PCIE_REPLAYS_MAX 80
/* A median SM clock under load below 70 % of the maximum, with no power cap or heat to explain
 * it, is a clock held down by something else (HW slowdown: an external signal, the PSU). */
#define BURN_CLOCK_LOW_SHARE 0.70
/* Power under a compute stress: below 80 % of the limit at full clock, the card is held back
 * by something other than power (DCGM's targeted_power fails under 75 % of its target). */
#define BURN_POWER_LOW_SHARE 0.80
/* Against siblings of the same model: DCGM's diagnostic has gflops/clocks tolerance knobs, off
 * by default; issue 11 sets 10 % (warn) and 25 % (fail). */
#define BURN_SIBLING_WARN 0.10
#define BURN_SIBLING_FAIL 0.25
static const struct finding_def defs[] = {
    {"burn.pass", LAYER_HEALTH, "the GPU passed the stress run", false},
    {"burn.wrong_results", LAYER_HEALTH, "the GPU computed wrong results", false},
    {"burn.nan_inf", LAYER_HEALTH, "results held NaN or Inf", false},
    {"burn.memory_errors", LAYER_HEALTH, "the memory test read back wrong words", false},
    {"burn.ecc_new", LAYER_HEALTH, "ECC errors appeared during the run", false},
    {"burn.remap", LAYER_HEALTH, "memory row remapping pending or failed during the run", false},
    {"burn.xid", LAYER_HEALTH, "Xid errors appeared during the run", false},
    {"burn.pcie_replays", LAYER_HEALTH, "PCIe replays grew during the run", false},
    {"burn.pcie_link", LAYER_HEALTH, "PCIe link below its maximum under load", false},
    {"burn.thermal", LAYER_HEALTH,
     "the GPU slowed down for heat or ran near its slowdown temperature", false},
    {"burn.power_brake", LAYER_HEALTH, "hardware power brake asserted during the run", false},
    {"burn.clock_low", LAYER_HEALTH, "SM clock low under load with no power or heat reason", false},
    {"burn.power_low", LAYER_HEALTH, "power stayed well below the limit at full clock", false},
    {"burn.slow_vs_siblings", LAYER_HEALTH, "slower than its siblings of the same model", false},
    {"burn.hung", LAYER_HEALTH, "the GPU hung: the watchdog gave up on it", false},
    {"burn.lost", LAYER_HEALTH, "the GPU fell off the bus during the run", false},
    {"burn.stopped", LAYER_HEALTH, "the run was interrupted: the verdict is partial", false},
    {"burn.no_telemetry", LAYER_HEALTH, "no telemetry was read during the run", false},
    {"burn.bandwidth_low", LAYER_HEALTH,
     "device-memory or host-link bandwidth below what the GPU and its link should give", false},
    {"burn.copy_errors", LAYER_HEALTH, "a bandwidth copy read back wrong words", false},
    {"burn.power_not_reached", LAYER_HEALTH,
     "the power phase stayed below the power limit with nothing to explain it", false},
    {"burn.power", LAYER_HEALTH, "what the power phase reached: power and SM clock", false},
    {"burn.p2p_low", LAYER_HEALTH,
     "GPU-to-GPU bandwidth below what the NVLink or PCIe path should give, or below the other "
     "pairs",
     false},
    {"burn.p2p_unavailable", LAYER_HEALTH, "two GPUs cannot reach each other's memory directly",
     false},
};

/* burn's ids are not a doctor check: checks/catalog.c joins this table after doctor's, and run
 * stays NULL (doctor never runs it). */
const struct check check_burn = {
    .name = "burn",
    .layer = LAYER_HEALTH,
    .run = NULL,
    .defs = defs,
    .ndefs = ARRAY_SIZE(defs),
};

double burn_j_secs(int64_t t_ns)
{
	return (double)t_ns / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorted in place); n > 0. */
double burn_j_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define FIELD(name) offsetof(struct burn_sample, name)

static const struct num *field(const struct burn_sample *s, size_t off)
{
	return (const struct num *)((const char *)s + off);
}

/* A counter between its first and last readable sample. */
struct delta {
	bool ok;             /* read often enough (delta_over's min_reads) */
	int64_t first, last; /* the values */
	int64_t t_first, t_last;
	int64_t t_rise; /* the first sample where it stood above its first value */
};

/* A counter over the samples of one phase (BURN_MODE_*), or all of them (phase 0): its first and
 * last readings; ok once read min_reads times. */
static struct delta delta_over(const struct burn_gpu_run *g, size_t off, unsigned phase,
			       size_t min_reads)
{
	struct delta d = {0};
	size_t i, nread = 0;

	d.t_rise = -1;
	for (i = 0; i < g->n; i++) {
		const struct num *v = field(&g->s[i], off);

		if ((phase && g->s[i].phase != phase) || !num_ok(v))
			continue;
		if (nread++ == 0) {
			d.first = v->v;
			d.t_first = g->s[i].t_ns;
		}
		if (d.t_rise < 0 && v->v > d.first)
			d.t_rise = g->s[i].t_ns;
		d.last = v->v;
		d.t_last = g->s[i].t_ns;
	}
	d.ok = nread >= min_reads;
	return d;
}

/* Over the whole run: a change needs two readings. */
static struct delta counter_delta(const struct burn_gpu_run *g, size_t off)
{
	return delta_over(g, off, 0, 2);
}

/* The SM clock and TFLOP/s figures of one GPU, for its own rules and its siblings'. */
struct figures {
	bool has_tflops, has_sm;
	double tflops_med, sm_med;
	double sm_max_med; /* 0 when unread */
};

/* What the samples say about one GPU. */
struct timeline {
	size_t nread;    /* samples with at least one value read */
	bool any_tflops; /* the stress reported a rate in some sample */
	size_t nloaded;  /* samples under load */
	/* clock-event reasons, over samples where they were read */
	size_t nce, nthermal, nbrake;
	int64_t t_thermal, t_brake;
	/* ... and over loaded samples */
	size_t nce_loaded, npowercap_loaded, nheat_loaded;
	unsigned ce_seen_loaded;
	/* heat */
	bool has_temp, has_margin;
	int64_t temp_max_c, t_temp_max, margin_min_c, t_margin_min;
	/* power under load */
	bool has_power;
	int64_t power_max_mw, t_power_max;
	double power_limit_mw; /* median, 0 when unread */
	/* PCIe link under load */
	size_t nlink, nlink_low;
	int64_t t_link_low;
	struct burn_sample link_low; /* the first low sample */
	struct figures fig;
};

static bool sample_any_read(const struct burn_sample *s)
{
	const struct num *all[] = {
	    &s->temp_c,         &s->temp_slowdown_c, &s->power_mw,
	    &s->power_limit_mw, &s->sm_mhz,          &s->sm_max_mhz,
	    &s->clock_events,   &s->ecc_corrected,   &s->ecc_uncorrected,
	    &s->remap_pending,  &s->remap_failure,   &s->pcie_replays,
	    &s->pcie_gen,       &s->pcie_width,      &s->remapped_uncorrectable,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all); i++)
		if (num_ok(all[i]))
			return true;
	return s->tflops >= 0;
}

/* Under load: the stress reported a rate for this interval; in a run without rates (memory
 * test), any sample the driver did not call idle. */
static bool sample_loaded(const struct burn_sample *s, bool any_tflops)
{
	if (any_tflops)
		return s->tflops > 0;
	return !(num_ok(&s->clock_events) && (s->clock_events.v & CE_GPU_IDLE));
}

static void read_timeline(const struct burn_gpu_run *g, struct timeline *tl)
{
	double *tfl = xcalloc(g->n + 1, sizeof(double));
	double *sm = xcalloc(g->n + 1, sizeof(double));
	double *smax = xcalloc(g->n + 1, sizeof(double));
	double *plim = xcalloc(g->n + 1, sizeof(double));
	size_t ntfl = 0, nsm = 0, nsmax = 0, nplim = 0, i;

	memset(tl, 0, sizeof(*tl));
	for (i = 0; i < g->n; i++)
		if (g->s[i].tflops >= 0)
			tl->any_tflops = true;
	for (i = 0; i < g->n; i++) {
		const struct burn_sample *s = &g->s[i];
		bool loaded = sample_loaded(s, tl->any_tflops);

		if (sample_any_read(s))
			tl->nread++;
		if (loaded)
			tl->nloaded++;
		if (num_ok(&s->clock_events)) {
			int64_t ce = s->clock_events.v;

			tl->nce++;
			if (ce & (CE_SW_THERMAL | CE_HW_THERMAL) && tl->nthermal++ == 0)
				tl->t_thermal = s->t_ns;
			if (ce & CE_HW_POWER_BRAKE && tl->nbrake++ == 0)
				tl->t_brake = s->t_ns;
			if (loaded) {
				tl->nce_loaded++;
				tl->ce_seen_loaded |= (unsigned)ce;
				if (ce & CE_SW_POWER_CAP)
					tl->npowercap_loaded++;
				if (ce & (CE_SW_THERMAL | CE_HW_THERMAL))
					tl->nheat_loaded++;
			}
		}
		if (num_ok(&s->temp_c)) {
			if (!tl->has_temp || s->temp_c.v > tl->temp_max_c) {
				tl->temp_max_c = s->temp_c.v;
				tl->t_temp_max = s->t_ns;
			}
			tl->has_temp = true;
			if (num_ok(&s->temp_slowdown_c)) {
				int64_t m = s->temp_slowdown_c.v - s->temp_c.v;

				if (!tl->has_margin || m < tl->margin_min_c) {
					tl->margin_min_c = m;
					tl->t_margin_min = s->t_ns;
				}
				tl->has_margin = true;
			}
		}
		if (num_ok(&s->power_limit_mw) && s->power_limit_mw.v > 0)
			plim[nplim++] = (double)s->power_limit_mw.v;
		if (num_ok(&s->sm_max_mhz) && s->sm_max_mhz.v > 0)
			smax[nsmax++] = (double)s->sm_max_mhz.v;
		if (!loaded)
			continue;
		if (s->tflops > 0)
			tfl[ntfl++] = s->tflops;
		if (num_ok(&s->sm_mhz))
			sm[nsm++] = (double)s->sm_mhz.v;
		if (num_ok(&s->power_mw)) {
			if (!tl->has_power || s->power_mw.v > tl->power_max_mw) {
				tl->power_max_mw = s->power_mw.v;
				tl->t_power_max = s->t_ns;
			}
			tl->has_power = true;
		}
		if (num_ok(&s->pcie_gen) && num_ok(&s->pcie_width) && num_ok(&s->pcie_max_gen) &&
		    num_ok(&s->pcie_max_width)) {
			tl->nlink++;
			if (s->pcie_gen.v < s->pcie_max_gen.v ||
			    s->pcie_width.v < s->pcie_max_width.v) {
				if (tl->nlink_low++ == 0) {
					tl->t_link_low = s->t_ns;
					tl->link_low = *s;
				}
			}
		}
	}
	if (ntfl) {
		tl->fig.has_tflops = true;
		tl->fig.tflops_med = burn_j_median(tfl, ntfl);
	}
	if (nsm) {
		tl->fig.has_sm = true;
		tl->fig.sm_med = burn_j_median(sm, nsm);
	}
	tl->fig.sm_max_med = nsmax ? burn_j_median(smax, nsmax) : 0;
	tl->power_limit_mw = nplim ? burn_j_median(plim, nplim) : 0;
	free(tfl);
	free(sm);
	free(smax);
	free(plim);
}

/* "HW_SLOWDOWN, SW_POWER_CAP" for the CE_* bits in ce, or "none". */
void burn_j_ce_names(unsigned ce, char *buf, size_t n)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
	    {CE_GPU_IDLE, "GPU_IDLE"},
	    {CE_APP_CLOCKS, "APP_CLOCKS"},
	    {CE_SW_POWER_CAP, "SW_POWER_CAP"},
	    {CE_HW_SLOWDOWN, "HW_SLOWDOWN"},
	    {CE_SYNC_BOOST, "SYNC_BOOST"},
	    {CE_SW_THERMAL, "SW_THERMAL"},
	    {CE_HW_THERMAL, "HW_THERMAL"},
	    {CE_HW_POWER_BRAKE, "HW_POWER_BRAKE"},
	    {CE_DISPLAY_CLOCKS, "DISPLAY_CLOCKS"},
	};
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(ce & names[i].bit))
			continue;
		if (buf[0])
			str_append(buf, ", ", n);
		str_append(buf, names[i].name, n);
	}
	if (!buf[0])
		str_copy(buf, "none", n);
}

static bool share_over(size_t k, size_t n, double share)
{
	return n > 0 && (double)k > share * (double)n;
}

/* The board, so a run after swapping cards tells card from slot. */
void burn_j_evidence_board(struct finding *f, const struct burn_gpu_run *g)
{
	finding_evidence(f, "board: %s, serial %s, PCI %s", g->name[0] ? g->name : "unknown",
			 g->serial[0] ? g->serial : "unread", g->bus_id[0] ? g->bus_id : "unread");
}

/* A counter over the samples of one phase only: one reading says it was read there. */
static struct delta phase_delta(const struct burn_gpu_run *g, size_t off, unsigned phase)
{
	return delta_over(g, off, phase, 1);
}

/* "+3" for a counter read during the phase, "unread" otherwise */
static void delta_text(char *b, size_t n, const struct delta *d)
{
	if (d->ok)
		str_fmt(b, n, "+%lld", (long long)(d->last - d->first));
	else
		str_copy(b, "unread", n);
}

/* What the memory test covered, where its failing words lie, which patterns saw them, and
 * what ECC and row remapping said meanwhile (the samples of the memory phase), so a bad range
 * can be matched with the driver's own view: wrong words with no ECC count got past ECC. */
static void evidence_memory(struct finding *f, const struct burn_gpu_run *g)
{
	const struct burn_memtest *m = g->mem;
	struct strbuf sb;
	uint64_t placed = 0;
	size_t i, nmem = 0;
	int k;

	if (!m)
		return;
	finding_evidence(f,
			 "tested: %.2f GiB (%.0f %% of %.2f GiB free) in %llu chunk%s, %llu "
			 "complete pass%s, %llu words checked",
			 (double)m->bytes / (1u << 30),
			 m->free_bytes ? 100.0 * (double)m->bytes / (double)m->free_bytes : 0,
			 (double)m->free_bytes / (1u << 30), (unsigned long long)m->chunks,
			 m->chunks == 1 ? "" : "s", (unsigned long long)m->passes,
			 m->passes == 1 ? "" : "es", (unsigned long long)m->words_checked);
	if (m->nbad) {
		sb_init(&sb);
		for (k = 0; k < m->nbad; k++) {
			const struct burn_mem_range *r = &m->bad[k];

			if (r->first == r->last)
				sb_addf(&sb, "%s0x%llx (%llu read%s)", k ? ", " : "",
					(unsigned long long)r->first, (unsigned long long)r->words,
					r->words == 1 ? "" : "s");
			else
				sb_addf(&sb, "%s0x%llx-0x%llx (%llu reads)", k ? ", " : "",
					(unsigned long long)r->first, (unsigned long long)r->last,
					(unsigned long long)r->words);
			placed += r->words;
		}
		if (m->errors > placed)
			sb_addf(&sb, "; %llu more failing reads past the offsets recorded",
				(unsigned long long)(m->errors - placed));
		finding_evidence(f, "failing words, byte offsets into the tested memory: %s",
				 sb.buf);
		sb_release(&sb);
	}
	if (m->failed_patterns[0])
		finding_evidence(f, "patterns that saw errors: %s", m->failed_patterns);
	for (i = 0; i < g->n; i++)
		nmem += g->s[i].phase == BURN_MODE_MEMORY;
	if (nmem) {
		struct delta cor = phase_delta(g, FIELD(ecc_corrected), BURN_MODE_MEMORY);
		struct delta unc = phase_delta(g, FIELD(ecc_uncorrected), BURN_MODE_MEMORY);
		struct delta rows = phase_delta(g, FIELD(remapped_uncorrectable), BURN_MODE_MEMORY);
		struct delta pend = phase_delta(g, FIELD(remap_pending), BURN_MODE_MEMORY);
		struct delta fail = phase_delta(g, FIELD(remap_failure), BURN_MODE_MEMORY);
		char c[24], u[24], r[24];

		delta_text(c, sizeof(c), &cor);
		delta_text(u, sizeof(u), &unc);
		delta_text(r, sizeof(r), &rows);
		finding_evidence(f,
				 "during the memory phase (%zu sample%s): volatile ECC corrected %s, "
				 "uncorrected %s; rows remapped for uncorrectable errors %s; remap "
				 "pending %s, remap failure %s",
				 nmem, nmem == 1 ? "" : "s", c, u, r,
				 !pend.ok ? "unread" : pend.last ? "set" : "clear",
				 !fail.ok ? "unread" : fail.last ? "set" : "clear");
	}
}

static void judge_run_state(const struct burn_gpu_run *g, struct findings *out)
{
	struct finding *f;

	if (g->c.lost) {
		f = finding_add(out, "burn.lost", SEV_FAIL, g->index,
				"the GPU fell off the bus during the run");
		burn_j_evidence_board(f, g);
		if (g->c.lost_how[0])
			finding_evidence(f, "%s", g->c.lost_how);
		finding_evidence(f, "products done before it was lost: %llu",
				 (unsigned long long)g->c.products);
		finding_fix(f, FIX_ROOT | FIX_SERVICE | FIX_REBOOT,
			    "read the kernel log (sudo dmesg | grep -i xid), check the GPU's power "
			    "cables and reseat it, then reboot and run burn again; if it falls off "
			    "again, RMA the board with its serial");
	}
	if (g->c.hung) {
		f = finding_add(out, "burn.hung", SEV_FAIL, g->index,
				"the GPU stopped answering: the watchdog gave up on it");
		burn_j_evidence_board(f, g);
		if (g->c.hung_phase)
			finding_evidence(f,
					 "no progress for %.1f s in the %s phase (the watchdog's "
					 "limit was %.1f s); its thread was left behind",
					 g->c.hung_s, g->c.hung_phase, g->c.hung_limit_s);
		finding_evidence(f, "products done before it hung: %llu",
				 (unsigned long long)g->c.products);
		finding_fix(
		    f, FIX_ROOT | FIX_SERVICE | FIX_INTERRUPTS,
		    "read the kernel log (sudo dmesg | grep -i xid), reset the GPU "
		    "(sudo nvidia-smi -r -i %d) or reboot, check its power cables and reseat it; "
		    "if it hangs again, RMA the board with its serial",
		    g->index);
	}
	if (g->c.stopped) {
		f = finding_add(
		    out, "burn.stopped", SEV_INFO, g->index,
		    "the run was interrupted: this verdict covers only the part that ran");
		finding_evidence(f, "products done: %llu", (unsigned long long)g->c.products);
		finding_fix(f, 0, "run gpuvet burn again to the end for a full verdict");
	}
}

static void judge_counts(const struct burn_gpu_run *g, struct findings *out)
{
	const struct burn_counts *c = &g->c;
	struct finding *f;

	if (c->compare_errors || c->reference_errors) {
		bool consistent = c->reference_errors && !c->compare_errors;

		f = finding_add(out, "burn.wrong_results", SEV_FAIL, g->index, "%s",
				consistent
				    ? "the GPU is consistently wrong: its result buffers agree "
				      "with each other but not with the reference"
				    : "the GPU computed wrong results");
		burn_j_evidence_board(f, g);
		finding_evidence(f,
				 "matrix products: %llu; elements differing between result "
				 "buffers: %llu; elements off the reference: %llu",
				 (unsigned long long)c->products,
				 (unsigned long long)c->compare_errors,
				 (unsigned long long)c->reference_errors);
		if (consistent)
			finding_evidence(f, "a comparison of buffers alone (gpu-burn's method) "
					    "would have passed this GPU");
		finding_fix(f, FIX_SERVICE,
			    "reseat the GPU and run gpuvet burn again; if results are still wrong, "
			    "RMA the board with serial %s",
			    g->serial[0] ? g->serial : "(read it with nvidia-smi -q)");
	}
	if (c->nan_inf) {
		f = finding_add(out, "burn.nan_inf", SEV_FAIL, g->index,
				"results held NaN or Inf values");
		burn_j_evidence_board(f, g);
		finding_evidence(f, "NaN or Inf elements: %llu in %llu matrix products",
				 (unsigned long long)c->nan_inf, (unsigned long long)c->products);
		finding_fix(f, FIX_SERVICE,
			    "reseat the GPU and run gpuvet burn again; if it recurs, RMA the board "
			    "with its serial");
	}
	if (c->mem_errors) {
		f = finding_add(out, "burn.memory_errors", SEV_FAIL, g->index,
				"the memory test read back wrong words");
		burn_j_evidence_board(f, g);
		finding_evidence(f, "words read back wrong: %llu",
				 (unsigned long long)c->mem_errors);
		evidence_memory(f, g);
		finding_fix(
		    f, FIX_SERVICE | FIX_INTERRUPTS,
		    "reset the GPU (sudo nvidia-smi -r) so pending row remaps apply and run "
		    "gpuvet burn again; if words still read back wrong, RMA the "
		    "board with its serial");
	}
	if (c->xid_new) {
		f = finding_add(out, "burn.xid", SEV_FAIL, g->index,
				"%u Xid error%s during the run, "
				"the last Xid %d",
				c->xid_new, c->xid_new == 1 ? "" : "s", c->xid_last);
		burn_j_evidence_board(f, g);
		finding_evidence(f, "kernel log: %u new Xid line%s for this GPU; last code %d",
				 c->xid_new, c->xid_new == 1 ? "" : "s", c->xid_last);
		finding_fix(
		    f, FIX_ROOT,
		    "look up Xid %d in NVIDIA's Xid catalog (gpuvet doctor explains the common "
		    "ones) and follow its action; read sudo dmesg | grep -i xid for the lines",
		    c->xid_last);
	}
}

static void judge_counters(const struct burn_gpu_run *g, struct findings *out)
{
	struct delta unc = counter_delta(g, FIELD(ecc_uncorrected));
	struct delta cor = counter_delta(g, FIELD(ecc_corrected));
	struct delta rep = counter_delta(g, FIELD(pcie_replays));
	struct finding *f;
	size_t i;
	bool unc_grew = unc.ok && unc.last > unc.first;
	bool cor_grew = cor.ok && cor.last > cor.first;

	if (unc_grew || cor_grew) {
		f = finding_add(out, "burn.ecc_new", unc_grew ? SEV_FAIL : SEV_WARN, g->index,
				"%s ECC errors appeared during the run",
				unc_grew ? "uncorrectable" : "correctable");
		burn_j_evidence_board(f, g);
		if (unc_grew)
			finding_evidence(f,
					 "volatile uncorrected ECC: %lld at %.1f s, %lld at %.1f s "
					 "(first rise at %.1f s)",
					 (long long)unc.first, burn_j_secs(unc.t_first),
					 (long long)unc.last, burn_j_secs(unc.t_last), burn_j_secs(unc.t_rise));
		if (cor_grew)
			finding_evidence(f,
					 "volatile corrected ECC: %lld at %.1f s, %lld at %.1f s "
					 "(first rise at %.1f s)",
					 (long long)cor.first, burn_j_secs(cor.t_first),
					 (long long)cor.last, burn_j_secs(cor.t_last), burn_j_secs(cor.t_rise));
		if (unc_grew)
			finding_fix(
			    f, FIX_ROOT | FIX_INTERRUPTS | FIX_SERVICE,
			    "drain the GPU and reset it (sudo nvidia-smi -r -i %d) so the bad rows "
			    "are remapped, then run gpuvet burn again; if uncorrectable errors "
			    "recur, RMA the board with its serial",
			    g->index);
		else
			finding_fix(f, 0,
				    "watch the count (gpuvet doctor); a GPU whose corrected "
				    "errors keep growing under load is failing: plan its RMA");
	}

	{
		int64_t t_pending = -1, t_failure = -1;
		bool pending_at_start = false;
		size_t nread = 0;

		for (i = 0; i < g->n; i++) {
			const struct burn_sample *s = &g->s[i];

			if (num_ok(&s->remap_pending)) {
				if (s->remap_pending.v && t_pending < 0) {
					t_pending = s->t_ns;
					pending_at_start = nread == 0;
				}
				nread++;
			}
			if (num_ok(&s->remap_failure) && s->remap_failure.v && t_failure < 0)
				t_failure = s->t_ns;
		}
		if (t_pending >= 0 || t_failure >= 0) {
			struct delta rows = counter_delta(g, FIELD(remapped_uncorrectable));

			f = finding_add(out, "burn.remap", SEV_FAIL, g->index, "%s",
					t_failure >= 0
					    ? "memory row remapping failed: no spare rows left"
					    : "a memory row remap waits for a GPU reset");
			burn_j_evidence_board(f, g);
			if (t_failure >= 0)
				finding_evidence(f, "remap failure set at %.1f s", burn_j_secs(t_failure));
			if (t_pending >= 0)
				finding_evidence(
				    f, "remap pending set at %.1f s%s", burn_j_secs(t_pending),
				    pending_at_start ? " (already at the first sample)" : "");
			if (rows.ok)
				finding_evidence(f,
						 "rows remapped for uncorrectable errors: %lld at "
						 "%.1f s, %lld at %.1f s",
						 (long long)rows.first, burn_j_secs(rows.t_first),
						 (long long)rows.last, burn_j_secs(rows.t_last));
			if (t_failure >= 0)
				finding_fix(
				    f, FIX_SERVICE,
				    "the board has used up its spare rows: RMA it with its serial");
			else
				finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
					    "drain the GPU and reset it (sudo nvidia-smi -r -i %d) "
					    "to apply "
					    "the remap, then run gpuvet burn again",
					    g->index);
		}
	}

	if (rep.ok && rep.last - rep.first > BURN_PCIE_REPLAYS_MAX) {
		f = finding_add(out, "burn.pcie_replays", SEV_WARN, g->index,
				"PCIe replays grew by %lld during the run",
				(long long)(rep.last - rep.first));
		burn_j_evidence_board(f, g);
		finding_evidence(f,
				 "PCIe replay counter: %lld at %.1f s, %lld at %.1f s (more than "
				 "%d in a run is DCGM's limit)",
				 (long long)rep.first, burn_j_secs(rep.t_first), (long long)rep.last,
				 burn_j_secs(rep.t_last), BURN_PCIE_REPLAYS_MAX);
		finding_fix(
		    f, FIX_SERVICE | FIX_INTERRUPTS,
		    "reseat the GPU and its riser or cable; if replays follow the slot after "
		    "swapping cards, the slot or riser is at fault, if they follow the serial, "
		    "the card");
	}
}

static void judge_timeline(const struct burn_gpu_run *g, const struct timeline *tl,
			   struct findings *out)
{
	struct finding *f;
	char reasons[160];

	if (tl->nlink_low && share_over(tl->nlink_low, tl->nlink, BURN_EVENT_SHARE)) {
		const struct burn_sample *s = &tl->link_low;

		f = finding_add(out, "burn.pcie_link", SEV_WARN, g->index,
				"PCIe link below its maximum under load");
		burn_j_evidence_board(f, g);
		finding_evidence(f,
				 "PCIe Gen%lld x%lld of Gen%lld x%lld at %.1f s; below its maximum "
				 "in %zu of %zu samples under load",
				 (long long)s->pcie_gen.v, (long long)s->pcie_width.v,
				 (long long)s->pcie_max_gen.v, (long long)s->pcie_max_width.v,
				 burn_j_secs(tl->t_link_low), tl->nlink_low, tl->nlink);
		finding_fix(f, FIX_SERVICE | FIX_INTERRUPTS,
			    "reseat the GPU and its riser; swap slots with a sibling: if the link "
			    "follows the slot, the slot or riser is at fault");
	}

	{
		bool hot_share = share_over(tl->nthermal, tl->nce, BURN_EVENT_SHARE);
		bool margin_fail = tl->has_margin && tl->margin_min_c < BURN_MARGIN_FAIL_C;
		bool margin_warn = tl->has_margin && tl->margin_min_c < BURN_MARGIN_WARN_C;

		if (hot_share || margin_warn) {
			f = finding_add(
			    out, "burn.thermal", hot_share || margin_fail ? SEV_FAIL : SEV_WARN,
			    g->index, "%s",
			    hot_share ? "clocks slowed down for heat during the run"
				      : "the GPU ran close to its slowdown temperature");
			burn_j_evidence_board(f, g);
			if (tl->nthermal)
				finding_evidence(f,
						 "thermal slowdown (SW_THERMAL or HW_THERMAL) "
						 "active in %zu of %zu samples, first at %.1f s",
						 tl->nthermal, tl->nce, burn_j_secs(tl->t_thermal));
			if (tl->has_margin)
				finding_evidence(f,
						 "margin to slowdown: %lld C at %.1f s (under %d C "
						 "fails, under %d C warns)",
						 (long long)tl->margin_min_c,
						 burn_j_secs(tl->t_margin_min), BURN_MARGIN_FAIL_C,
						 BURN_MARGIN_WARN_C);
			if (tl->has_temp)
				finding_evidence(f, "hottest: %lld C at %.1f s",
						 (long long)tl->temp_max_c, burn_j_secs(tl->t_temp_max));
			finding_fix(f, FIX_SERVICE,
				    "check the cooling: fans (nvidia-smi -q -d FAN or the BMC), "
				    "airflow and blanking panels, inlet temperature, dust; compare "
				    "with the GPU's siblings in the same chassis");
		}
	}

	if (tl->nbrake) {
		f = finding_add(out, "burn.power_brake", SEV_FAIL, g->index,
				"hardware power brake asserted during the run");
		burn_j_evidence_board(f, g);
		finding_evidence(f, "HW_POWER_BRAKE active in %zu of %zu samples, first at %.1f s",
				 tl->nbrake, tl->nce, burn_j_secs(tl->t_brake));
		finding_fix(f, FIX_SERVICE,
			    "the brake is an external signal: check the power supplies and their "
			    "redundancy, the GPU's power cables and the BMC's power events");
	}

	burn_j_ce_names(tl->ce_seen_loaded, reasons, sizeof(reasons));
	if (tl->fig.has_sm && tl->fig.sm_max_med > 0 &&
	    tl->fig.sm_med < BURN_CLOCK_LOW_SHARE * tl->fig.sm_max_med) {
		bool explained =
		    tl->nce_loaded &&
		    ((double)tl->npowercap_loaded >= BURN_REASON_EXPLAINS_SHARE * tl->nce_loaded ||
		     (double)tl->nheat_loaded >= BURN_REASON_EXPLAINS_SHARE * tl->nce_loaded);

		if (!explained) {
			f = finding_add(
			    out, "burn.clock_low", SEV_WARN, g->index,
			    "SM clock low under load with no power cap or heat to explain it");
			burn_j_evidence_board(f, g);
			finding_evidence(f,
					 "median SM clock under load: %.0f MHz of %.0f MHz max "
					 "(%.0f %%; under %.0f %% warns)",
					 tl->fig.sm_med, tl->fig.sm_max_med,
					 100 * tl->fig.sm_med / tl->fig.sm_max_med,
					 100 * BURN_CLOCK_LOW_SHARE);
			finding_evidence(f,
					 "clock-event reasons seen under load: %s (%zu samples "
					 "read)",
					 reasons, tl->nce_loaded);
			finding_fix(
			    f, FIX_SERVICE,
			    "check application clocks and clock locks (nvidia-smi -q -d "
			    "CLOCK), then the power supply and the BMC's events: HW_SLOWDOWN is "
			    "an external signal");
		}
	}

	if (tl->any_tflops && tl->has_power && tl->power_limit_mw > 0 && tl->fig.has_sm &&
	    tl->fig.sm_max_med > 0 &&
	    tl->fig.sm_med >= BURN_CLOCK_FULL_SHARE * tl->fig.sm_max_med &&
	    (double)tl->power_max_mw < BURN_POWER_LOW_SHARE * tl->power_limit_mw) {
		f = finding_add(out, "burn.power_low", SEV_WARN, g->index,
				"power stayed well below the limit at full clock under the stress");
		burn_j_evidence_board(f, g);
		finding_evidence(
		    f,
		    "peak power under load: %.1f W at %.1f s of a %.1f W limit "
		    "(%.0f %%; under %.0f %% warns)",
		    tl->power_max_mw / 1000.0, burn_j_secs(tl->t_power_max), tl->power_limit_mw / 1000.0,
		    100 * tl->power_max_mw / tl->power_limit_mw, 100 * BURN_POWER_LOW_SHARE);
		finding_evidence(f, "median SM clock under load: %.0f MHz of %.0f MHz max",
				 tl->fig.sm_med, tl->fig.sm_max_med);
		if (tl->fig.has_tflops)
			finding_evidence(f, "median throughput: %.1f TFLOP/s", tl->fig.tflops_med);
		finding_fix(f, 0,
			    "the GPU is held back by something other than power: compare its "
			    "TFLOP/s with its siblings and the model's figure (gpuvet bench), and "
			    "check memory clocks and the stress's precision");
	}
}

/* The median of one figure over the other GPUs of g's model, with their list. */
static bool sibling_median(const struct burn_gpu_run *gpus, const struct figures *figs, size_t n,
			   size_t me, bool tflops, double *med, struct strbuf *list, size_t *nsib)
{
	double *v = xcalloc(n, sizeof(double));
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (i == me || strcmp(gpus[i].name, gpus[me].name) != 0)
			continue;
		if (tflops ? !figs[i].has_tflops : !figs[i].has_sm)
			continue;
		v[k] = tflops ? figs[i].tflops_med : figs[i].sm_med;
		sb_addf(list, "%sGPU %d %.*f", k ? ", " : "", gpus[i].index, tflops ? 1 : 0, v[k]);
		k++;
	}
	if (k)
		*med = burn_j_median(v, k);
	*nsib = k;
	free(v);
	return k > 0;
}

static void judge_siblings(const struct burn_gpu_run *gpus, const struct figures *figs, size_t n,
			   size_t me, struct findings *out)
{
	static const struct {
		bool tflops;
		const char *what, *unit;
	} figures[] = {
	    {true, "median throughput", "TFLOP/s"},
	    {false, "median SM clock under load", "MHz"},
	};
	struct finding *f = NULL;
	size_t k;

	if (!gpus[me].name[0])
		return;
	for (k = 0; k < ARRAY_SIZE(figures); k++) {
		bool tf = figures[k].tflops;
		double mine = tf ? figs[me].tflops_med : figs[me].sm_med, med = 0, short_by;
		struct strbuf list;
		size_t nsib;
		enum severity sev;

		if (tf ? !figs[me].has_tflops : !figs[me].has_sm)
			continue;
		sb_init(&list);
		if (!sibling_median(gpus, figs, n, me, tf, &med, &list, &nsib) || med <= 0 ||
		    mine >= (1 - BURN_SIBLING_WARN) * med) {
			sb_release(&list);
			continue;
		}
		short_by = 1 - mine / med;
		sev = short_by > BURN_SIBLING_FAIL ? SEV_FAIL : SEV_WARN;
		if (!f) {
			f = finding_add(out, "burn.slow_vs_siblings", sev, gpus[me].index,
					"%.0f %% below its siblings of the same model (%s)",
					100 * short_by, figures[k].what);
			burn_j_evidence_board(f, &gpus[me]);
		} else if (sev > f->sev) {
			f->sev = sev;
		}
		finding_evidence(f,
				 "%s: %.*f %s against a median of %.*f over %zu sibling%s (%s); "
				 "more than %.0f %% below warns, more than %.0f %% fails",
				 figures[k].what, tf ? 1 : 0, mine, figures[k].unit, tf ? 1 : 0,
				 med, nsib, nsib == 1 ? "" : "s", list.buf, 100 * BURN_SIBLING_WARN,
				 100 * BURN_SIBLING_FAIL);
		sb_release(&list);
	}
	if (f)
		finding_fix(f, FIX_SERVICE | FIX_INTERRUPTS,
			    "swap this GPU's slot with a faster sibling and run gpuvet burn again: "
			    "if the slowness follows the serial, the card is at fault (RMA), if it "
			    "stays with the slot, check its cooling, power and riser");
}

static void judge_pass(const struct burn_gpu_run *g, const struct timeline *tl,
		       struct findings *out)
{
	struct finding *f = finding_add(out, "burn.pass", SEV_OK, g->index,
					"passed: no wrong result, error or slowdown");

	burn_j_evidence_board(f, g);
	if (!g->mem || g->c.products)
		finding_evidence(f, "matrix products: %llu, all checked",
				 (unsigned long long)g->c.products);
	if (g->mem)
		finding_evidence(f,
				 "memory test: %.2f GiB, %llu complete pass%s, %llu words checked, "
				 "none wrong",
				 (double)g->mem->bytes / (1u << 30),
				 (unsigned long long)g->mem->passes, g->mem->passes == 1 ? "" : "es",
				 (unsigned long long)g->mem->words_checked);
	if (tl->fig.has_tflops)
		finding_evidence(f, "median throughput: %.1f TFLOP/s", tl->fig.tflops_med);
	if (tl->fig.has_sm)
		finding_evidence(f, "median SM clock under load: %.0f MHz%s", tl->fig.sm_med,
				 tl->fig.sm_max_med > 0 ? "" : " (max unread)");
	if (tl->has_power)
		finding_evidence(f, "peak power: %.1f W at %.1f s%s", tl->power_max_mw / 1000.0,
				 burn_j_secs(tl->t_power_max),
				 tl->power_limit_mw > 0 ? "" : " (limit unread)");
	if (tl->has_temp)
		finding_evidence(f, "hottest: %lld C at %.1f s", (long long)tl->temp_max_c,
				 burn_j_secs(tl->t_temp_max));
	if (g->bw)
		burn_bw_evidence(f, g->bw);
	burn_p2p_evidence(f, g);
}

enum severity burn_judge(const struct burn_gpu_run *gpus, size_t n, struct findings *out)
{
	struct timeline *tls = xcalloc(n + 1, sizeof(*tls));
	struct figures *figs = xcalloc(n + 1, sizeof(*figs));
	enum severity worst = SEV_OK;
	size_t i;

	/* every GPU's figures first: the sibling rule needs them all */
	for (i = 0; i < n; i++) {
		read_timeline(&gpus[i], &tls[i]);
		figs[i] = tls[i].fig;
	}
	for (i = 0; i < n; i++) {
		const struct burn_gpu_run *g = &gpus[i];
		size_t start = out->n;
		enum severity sev;

		judge_run_state(g, out);
		judge_counts(g, out);
		judge_counters(g, out);
		judge_timeline(g, &tls[i], out);
		judge_siblings(gpus, figs, n, i, out);
		burn_judge_bandwidth(gpus, n, i, out);
		burn_judge_p2p(g, out);
		burn_judge_power(g, out, start);
		/* a missing view is not a fault of the GPU: it can still pass on its counters */
		if (findings_worst_since(out, start) < SEV_WARN)
			judge_pass(g, &tls[i], out);
		if (tls[i].nread == 0) {
			struct finding *f = finding_add(
			    out, "burn.no_telemetry", SEV_WARN, g->index,
			    "no telemetry was read: heat, power and clocks were not judged");

			burn_j_evidence_board(f, g);
			finding_evidence(f, "samples: %zu, none with a value read", g->n);
			finding_fix(f, 0,
				    "run gpuvet doctor: NVML must answer for telemetry; the "
				    "verdict rests on the run's own counters");
		}
		sev = findings_worst_since(out, start);
		if (sev > worst)
			worst = sev;
	}
	free(tls);
	free(figs);
	return worst;
}
