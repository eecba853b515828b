/*
 * test_burn_judge.c: burn's verdict rules (burn/judge.c) on constructed timelines: a healthy
 * run passes; each rule fires on its own fault (throttling, ECC and Xid events mid-run, a slow
 * sibling among four...) with the values and times in its evidence, and stays silent just
 * below its threshold; an unread value never triggers anything.
 */
#include <stdio.h>
#include <string.h>

#include "burn/judge.h"
#include "burn/stress.h"
#include "gpu/device.h"
#include "test.h"
#include "util/util.h"

#define NS  60 /* samples per timeline, one a second */
#define SEC 1000000000LL

static struct burn_sample tl[4][NS];

static void set(struct num *n, int64_t v)
{
	num_set(n, v);
}

/* An H200 under a healthy stress: 62 C of a 90 C slowdown, 650 of 700 W, 1980 MHz of 1980,
 * PCIe Gen5 x16, counters still, 600 TFLOP/s. */
static void healthy(struct burn_sample *s, size_t n)
{
	size_t i;

	memset(s, 0, n * sizeof(*s));
	for (i = 0; i < n; i++) {
		s[i].t_ns = (int64_t)i * SEC;
		set(&s[i].temp_c, 62);
		set(&s[i].temp_slowdown_c, 90);
		set(&s[i].power_mw, 650000);
		set(&s[i].power_limit_mw, 700000);
		set(&s[i].sm_mhz, 1980);
		set(&s[i].sm_max_mhz, 1980);
		set(&s[i].clock_events, 0);
		set(&s[i].ecc_corrected, 4);
		set(&s[i].ecc_uncorrected, 0);
		set(&s[i].remap_pending, 0);
		set(&s[i].remap_failure, 0);
		set(&s[i].remapped_uncorrectable, 0);
		set(&s[i].pcie_replays, 10);
		set(&s[i].pcie_gen, 5);
		set(&s[i].pcie_width, 16);
		set(&s[i].pcie_max_gen, 5);
		set(&s[i].pcie_max_width, 16);
		s[i].tflops = 600;
	}
}

static struct burn_gpu_run gpu(int index, const struct burn_sample *s, size_t n)
{
	struct burn_gpu_run g;

	memset(&g, 0, sizeof(g));
	g.index = index;
	str_copy(g.name, "NVIDIA H200", sizeof(g.name));
	str_fmt(g.serial, sizeof(g.serial), "16543210%02d", index);
	str_fmt(g.bus_id, sizeof(g.bus_id), "00000000:%02X:00.0", 0x18 + index);
	g.s = s;
	g.n = n;
	g.c.products = 12000;
	g.c.xid_last = -1;
	return g;
}

static struct findings fs;
static enum severity worst;

static void judge(const struct burn_gpu_run *g, size_t n)
{
	findings_free(&fs);
	memset(&fs, 0, sizeof(fs));
	worst = burn_judge(g, n, &fs);
}

static const struct finding *find(const char *id, int gpu_index)
{
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (!strcmp(fs.v[i].def->id, id) && fs.v[i].gpu == gpu_index)
			return &fs.v[i];
	return NULL;
}

static size_t count_for(int gpu_index)
{
	size_t i, k = 0;

	for (i = 0; i < fs.n; i++)
		k += fs.v[i].gpu == gpu_index;
	return k;
}

static bool evidence_has(const struct finding *f, const char *needle)
{
	int i;

	for (i = 0; f && i < f->nevidence; i++)
		if (strstr(f->evidence[i], needle))
			return true;
	return false;
}

/* Only burn.pass for GPU 0: the judged rule stayed silent. */
static bool passes_only(void)
{
	return find("burn.pass", 0) && count_for(0) == 1 && worst == SEV_OK;
}

static void test_healthy_passes(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	CHECK(passes_only());
	f = find("burn.pass", 0);
	CHECK(f->sev == SEV_OK && f->fix == NULL);
	CHECK(evidence_has(f, "serial 1654321000, PCI 00000000:18:00.0"));
	CHECK(evidence_has(f, "matrix products: 12000"));
	CHECK(evidence_has(f, "600.0 TFLOP/s"));
	CHECK(evidence_has(f, "1980 MHz"));
	CHECK(evidence_has(f, "650.0 W"));
	CHECK(evidence_has(f, "hottest: 62 C"));
	/* at the power cap the whole run is normal under a stress (a power-limited H200) */
	for (size_t i = 0; i < NS; i++)
		set(&tl[0][i].clock_events, CE_SW_POWER_CAP);
	judge(&g, 1);
	CHECK(passes_only());
}

static void test_wrong_results(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	g = gpu(0, tl[0], NS);
	g.c.compare_errors = 3;
	judge(&g, 1);
	f = find("burn.wrong_results", 0);
	CHECK(f && f->sev == SEV_FAIL && worst == SEV_FAIL && !find("burn.pass", 0));
	CHECK(!strstr(f->summary, "consistently"));
	CHECK(evidence_has(f, "between result buffers: 3"));
	CHECK(f->fix && strstr(f->fix, "RMA") && strstr(f->fix, "1654321000"));

	/* all buffers agree but are off the reference: what gpu-burn misses */
	g.c.compare_errors = 0;
	g.c.reference_errors = 7;
	judge(&g, 1);
	f = find("burn.wrong_results", 0);
	CHECK(f && f->sev == SEV_FAIL && strstr(f->summary, "consistently wrong"));
	CHECK(evidence_has(f, "off the reference: 7"));
}

static void test_nan_and_memory(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	g = gpu(0, tl[0], NS);
	g.c.nan_inf = 2;
	judge(&g, 1);
	f = find("burn.nan_inf", 0);
	CHECK(f && f->sev == SEV_FAIL && evidence_has(f, "NaN or Inf elements: 2"));
	CHECK(!find("burn.memory_errors", 0));

	g.c.nan_inf = 0;
	g.c.mem_errors = 9;
	judge(&g, 1);
	f = find("burn.memory_errors", 0);
	CHECK(f && f->sev == SEV_FAIL && evidence_has(f, "wrong: 9") && !find("burn.pass", 0));
}

/* The memory finding names the ranges in hex, the patterns, what was tested, and the ECC and
 * remap deltas of the memory phase's samples only (the compute phase's rise is not its). */
static void test_memory_evidence(void)
{
	struct burn_memtest mem;
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	memset(&mem, 0, sizeof(mem));
	mem.bytes = 120ull << 30;
	mem.free_bytes = 133ull << 30;
	mem.chunks = 120;
	mem.passes = 3;
	mem.words_checked = 3ull * 7 * (mem.bytes / 8);
	mem.errors = 7;
	mem.nbad = 2;
	mem.bad[0].first = mem.bad[0].last = 0x9a00000;
	mem.bad[0].words = 3;
	mem.bad[1].first = 0x1234000;
	mem.bad[1].last = 0x1235ff8;
	mem.bad[1].words = 2;
	str_copy(mem.failed_patterns, "walking-ones,moving-inversions",
		 sizeof(mem.failed_patterns));
	healthy(tl[0], NS);
	for (i = 0; i < NS; i++)
		tl[0][i].phase = i < 20 ? BURN_MODE_MEMORY : BURN_MODE_COMPUTE;
	for (i = 10; i < NS; i++)
		set(&tl[0][i].ecc_corrected, 6); /* +2 during the memory phase */
	for (i = 30; i < NS; i++)
		set(&tl[0][i].ecc_uncorrected, 1); /* during compute: not the memory phase's */
	g = gpu(0, tl[0], NS);
	g.mem = &mem;
	g.c.mem_errors = mem.errors;
	judge(&g, 1);
	f = find("burn.memory_errors", 0);
	CHECK(f && f->sev == SEV_FAIL && evidence_has(f, "wrong: 7"));
	CHECK(evidence_has(f, "0x9a00000 (3 reads)") &&
	      evidence_has(f, "0x1234000-0x1235ff8 (2 reads)"));
	CHECK(evidence_has(f, "2 more failing reads past the offsets recorded"));
	CHECK(evidence_has(f, "patterns that saw errors: walking-ones,moving-inversions"));
	CHECK(evidence_has(f, "tested: 120.00 GiB (90 % of 133.00 GiB free) in 120 chunks, 3 "
			      "complete passes"));
	CHECK(evidence_has(f, "during the memory phase (20 samples): volatile ECC corrected +2, "
			      "uncorrected +0; rows remapped for uncorrectable errors +0; remap "
			      "pending clear, remap failure clear"));

	/* no sample in the memory phase: no ECC line; a clean memory test passes and says so */
	for (i = 0; i < NS; i++)
		tl[0][i].phase = BURN_MODE_COMPUTE;
	judge(&g, 1);
	CHECK(!evidence_has(find("burn.memory_errors", 0), "during the memory phase"));
	healthy(tl[0], NS);
	memset(&mem, 0, sizeof(mem));
	mem.bytes = 1ull << 30;
	mem.passes = 2;
	mem.words_checked = 2 * 7 * (mem.bytes / 8);
	g = gpu(0, tl[0], NS);
	g.mem = &mem;
	judge(&g, 1);
	CHECK(evidence_has(find("burn.pass", 0), "memory test: 1.00 GiB, 2 complete passes"));
}

/* ECC counters rising mid-run: uncorrected fails, corrected alone warns, with the times. */
static void test_ecc_mid_run(void)
{
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	for (i = 30; i < NS; i++)
		set(&tl[0][i].ecc_uncorrected, 2);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	f = find("burn.ecc_new", 0);
	CHECK(f && f->sev == SEV_FAIL && strstr(f->summary, "uncorrectable"));
	CHECK(evidence_has(f, "uncorrected ECC: 0 at 0.0 s, 2 at 59.0 s (first rise at 30.0 s)"));

	healthy(tl[0], NS);
	for (i = 45; i < NS; i++)
		set(&tl[0][i].ecc_corrected, 5);
	judge(&g, 1);
	f = find("burn.ecc_new", 0);
	CHECK(f && f->sev == SEV_WARN && evidence_has(f, "first rise at 45.0 s"));
	CHECK(worst == SEV_WARN && !find("burn.pass", 0));
}

static void test_remap(void)
{
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	for (i = 20; i < NS; i++) {
		set(&tl[0][i].remap_pending, 1);
		set(&tl[0][i].remapped_uncorrectable, 1);
	}
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	f = find("burn.remap", 0);
	CHECK(f && f->sev == SEV_FAIL && evidence_has(f, "remap pending set at 20.0 s"));
	CHECK(!evidence_has(f, "already"));
	CHECK(f->fix && strstr(f->fix, "nvidia-smi -r -i 0"));

	healthy(tl[0], NS);
	set(&tl[0][50].remap_failure, 1);
	judge(&g, 1);
	f = find("burn.remap", 0);
	CHECK(f && f->sev == SEV_FAIL && evidence_has(f, "remap failure set at 50.0 s"));
	CHECK(f->fix && strstr(f->fix, "RMA"));
}

static void test_xid(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	g = gpu(0, tl[0], NS);
	g.c.xid_new = 2;
	g.c.xid_last = 79;
	judge(&g, 1);
	f = find("burn.xid", 0);
	CHECK(f && f->sev == SEV_FAIL && strstr(f->summary, "Xid 79"));
	CHECK(evidence_has(f, "2 new Xid lines") && evidence_has(f, "last code 79"));
	CHECK(worst == SEV_FAIL);
}

static void test_pcie_replays(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	set(&tl[0][NS - 1].pcie_replays, 10 + 80);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	CHECK(passes_only()); /* 80: DCGM's limit, not above it */
	set(&tl[0][NS - 1].pcie_replays, 10 + 81);
	judge(&g, 1);
	f = find("burn.pcie_replays", 0);
	CHECK(f && f->sev == SEV_WARN && evidence_has(f, "10 at 0.0 s, 91 at 59.0 s"));
}

/* A link that trains down under load warns; one that is down only while idle does not. */
static void test_pcie_link(void)
{
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	for (i = 0; i < 10; i++) {
		tl[0][i].tflops = 0; /* warming up: not under load */
		set(&tl[0][i].pcie_gen, 1);
	}
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	CHECK(passes_only());

	for (i = 40; i < NS; i++)
		set(&tl[0][i].pcie_gen, 4);
	judge(&g, 1);
	f = find("burn.pcie_link", 0);
	CHECK(f && f->sev == SEV_WARN);
	CHECK(evidence_has(f, "PCIe Gen4 x16 of Gen5 x16 at 40.0 s"));
	CHECK(evidence_has(f, "in 20 of 50 samples under load"));
}

/* Thermal slowdown mid-run for ten seconds fails; one lone sample (under 5 %) does not. */
static void test_throttle_mid_run(void)
{
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	set(&tl[0][33].clock_events, CE_HW_THERMAL);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	CHECK(passes_only());

	for (i = 20; i < 30; i++)
		set(&tl[0][i].clock_events, CE_SW_THERMAL);
	judge(&g, 1);
	f = find("burn.thermal", 0);
	CHECK(f && f->sev == SEV_FAIL && worst == SEV_FAIL);
	CHECK(evidence_has(f, "active in 11 of 60 samples, first at 20.0 s"));
	CHECK(f->fix && strstr(f->fix, "cooling"));
	/* heat explains the clock: no clock_low beside it */
	CHECK(!find("burn.clock_low", 0));
}

static void test_thermal_margin(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	set(&tl[0][40].temp_c, 81); /* margin 9 C */
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	f = find("burn.thermal", 0);
	CHECK(f && f->sev == SEV_WARN && evidence_has(f, "margin to slowdown: 9 C at 40.0 s"));
	CHECK(evidence_has(f, "hottest: 81 C at 40.0 s"));

	set(&tl[0][40].temp_c, 86); /* margin 4 C */
	judge(&g, 1);
	f = find("burn.thermal", 0);
	CHECK(f && f->sev == SEV_FAIL);

	set(&tl[0][40].temp_c, 80); /* margin 10 C: clear */
	judge(&g, 1);
	CHECK(passes_only());
}

static void test_power_brake(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	set(&tl[0][12].clock_events, CE_HW_POWER_BRAKE | CE_HW_SLOWDOWN);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	f = find("burn.power_brake", 0);
	CHECK(f && f->sev == SEV_FAIL && evidence_has(f, "in 1 of 60 samples, first at 12.0 s"));
}

/* A low clock with HW_SLOWDOWN warns and names it; the same clock at the power cap does not. */
static void test_clock_low(void)
{
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	for (i = 0; i < NS; i++) {
		set(&tl[0][i].sm_mhz, 1200);
		set(&tl[0][i].clock_events, CE_HW_SLOWDOWN);
	}
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	f = find("burn.clock_low", 0);
	CHECK(f && f->sev == SEV_WARN);
	CHECK(evidence_has(f, "1200 MHz of 1980 MHz max (61 %"));
	CHECK(evidence_has(f, "reasons seen under load: HW_SLOWDOWN"));

	for (i = 0; i < NS; i++)
		set(&tl[0][i].clock_events, CE_SW_POWER_CAP);
	judge(&g, 1);
	CHECK(passes_only());

	/* 71 % of max: above the line */
	for (i = 0; i < NS; i++) {
		set(&tl[0][i].clock_events, 0);
		set(&tl[0][i].sm_mhz, 1410);
	}
	judge(&g, 1);
	CHECK(!find("burn.clock_low", 0));
}

static void test_power_low(void)
{
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	for (i = 0; i < NS; i++)
		set(&tl[0][i].power_mw, 400000);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	f = find("burn.power_low", 0);
	CHECK(f && f->sev == SEV_WARN && evidence_has(f, "400.0 W at 0.0 s of a 700.0 W limit"));

	/* no TFLOP/s samples (a memory test): not judged */
	for (i = 0; i < NS; i++)
		tl[0][i].tflops = -1;
	judge(&g, 1);
	CHECK(passes_only());
}

/* Four H200s, GPU 2 slower: 15 % below warns, 35 % below fails, each sibling named. */
static void test_slow_sibling_among_four(void)
{
	struct burn_gpu_run g[4];
	const struct finding *f;
	int k;
	size_t i;

	for (k = 0; k < 4; k++) {
		healthy(tl[k], NS);
		for (i = 0; i < NS; i++)
			tl[k][i].tflops = 600 + k; /* 600, 601, (602), 603 */
		g[k] = gpu(k, tl[k], NS);
	}
	for (i = 0; i < NS; i++)
		tl[2][i].tflops = 510;
	judge(g, 4);
	f = find("burn.slow_vs_siblings", 2);
	CHECK(f && f->sev == SEV_WARN && worst == SEV_WARN);
	CHECK(evidence_has(f, "median throughput: 510.0 TFLOP/s against a median of 601.0"));
	CHECK(evidence_has(f, "3 siblings (GPU 0 600.0, GPU 1 601.0, GPU 3 603.0)"));
	CHECK(find("burn.pass", 0) && find("burn.pass", 1) && find("burn.pass", 3));
	CHECK(!find("burn.pass", 2));

	for (i = 0; i < NS; i++) {
		tl[2][i].tflops = 390;
		set(&tl[2][i].sm_mhz, 1500);
	}
	judge(g, 4);
	f = find("burn.slow_vs_siblings", 2);
	CHECK(f && f->sev == SEV_FAIL);
	CHECK(evidence_has(f, "median SM clock under load: 1500 MHz against a median of 1980"));

	/* 9 % below: within the tolerance */
	for (i = 0; i < NS; i++) {
		tl[2][i].tflops = 548;
		set(&tl[2][i].sm_mhz, 1980);
	}
	judge(g, 4);
	CHECK(find("burn.pass", 2) && !find("burn.slow_vs_siblings", 2));

	/* another model is no sibling */
	for (i = 0; i < NS; i++)
		tl[2][i].tflops = 390;
	str_copy(g[2].name, "NVIDIA H100 80GB HBM3", sizeof(g[2].name));
	judge(g, 4);
	CHECK(find("burn.pass", 2) && !find("burn.slow_vs_siblings", 2));
}

/* Unread values (not VAL_OK) are skipped, never read as 0, whatever v holds. */
static void test_unread_values_trigger_nothing(void)
{
	struct burn_gpu_run g;
	size_t i;

	healthy(tl[0], NS);
	set(&tl[0][NS - 1].ecc_uncorrected, 0);
	for (i = 0; i < NS; i += 2) {
		/* an unread slowdown threshold: read as 0, the margin would be -62 C */
		tl[0][i].temp_slowdown_c.st = VAL_NA;
		tl[0][i].temp_slowdown_c.v = 0;
		/* unread clock-event reasons with every bit in v */
		tl[0][i].clock_events.st = VAL_ERR;
		tl[0][i].clock_events.v = 0xffff;
		/* an unread SM clock and power: read as 0, a low clock and low power */
		tl[0][i].sm_mhz.st = VAL_ERR;
		tl[0][i].sm_mhz.v = 0;
		tl[0][i].power_mw.st = VAL_NA;
		tl[0][i].power_mw.v = 0;
		/* an unread PCIe link: read as 0, below its maximum */
		tl[0][i].pcie_gen.st = VAL_ERR;
		tl[0][i].pcie_gen.v = 0;
		/* remap flags unread with v set */
		tl[0][i].remap_pending.st = VAL_ERR;
		tl[0][i].remap_pending.v = 1;
	}
	/* a counter unread at the start: read as 0, ECC and replays would seem to grow */
	tl[0][0].ecc_corrected.st = VAL_ERR;
	tl[0][0].ecc_corrected.v = 0;
	tl[0][0].pcie_replays.st = VAL_UNSET;
	tl[0][0].pcie_replays.v = -1000;
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	CHECK(passes_only());
}

static void test_run_state(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	healthy(tl[0], NS);
	g = gpu(0, tl[0], NS);
	g.c.stopped = true;
	judge(&g, 1);
	f = find("burn.stopped", 0);
	CHECK(f && f->sev == SEV_INFO && find("burn.pass", 0) && worst == SEV_INFO);

	g.c.stopped = false;
	g.c.hung = true;
	judge(&g, 1);
	f = find("burn.hung", 0);
	CHECK(f && f->sev == SEV_FAIL && !find("burn.pass", 0));
	CHECK(f->fix && strstr(f->fix, "power cables"));

	g.c.hung = false;
	g.c.lost = true;
	judge(&g, 1);
	f = find("burn.lost", 0);
	CHECK(f && f->sev == SEV_FAIL && evidence_has(f, "serial 1654321000"));
}

/* No samples: a warning, and the GPU still passes on its counters (or fails on them). */
static void test_no_telemetry(void)
{
	struct burn_gpu_run g = gpu(0, NULL, 0);
	const struct finding *f;
	size_t i;

	judge(&g, 1);
	f = find("burn.no_telemetry", 0);
	CHECK(f && f->sev == SEV_WARN && find("burn.pass", 0) && worst == SEV_WARN);

	/* samples with nothing read count as none */
	memset(tl[0], 0, sizeof(tl[0]));
	for (i = 0; i < NS; i++)
		tl[0][i].tflops = -1;
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	CHECK(find("burn.no_telemetry", 0) && find("burn.pass", 0));

	g.c.compare_errors = 1;
	judge(&g, 1);
	CHECK(find("burn.no_telemetry", 0) && !find("burn.pass", 0) && worst == SEV_FAIL);
}

/* The worst severity over every GPU comes back; each GPU gets its own findings. */
static void test_worst_over_gpus(void)
{
	struct burn_gpu_run g[2];

	healthy(tl[0], NS);
	healthy(tl[1], NS);
	g[0] = gpu(0, tl[0], NS);
	g[1] = gpu(1, tl[1], NS);
	g[1].c.xid_new = 1;
	g[1].c.xid_last = 48;
	judge(g, 2);
	CHECK(worst == SEV_FAIL);
	CHECK(find("burn.pass", 0) && count_for(0) == 1);
	CHECK(find("burn.xid", 1) && !find("burn.pass", 1));
	CHECK(findings_worst(&fs) == SEV_FAIL);
}

/* ---- the bandwidth phase and the power phase ---------------------------------------------- */

/* An H200's bandwidth phase: its copy kernel at 4100 of the 4800 GB/s HBM peak, pinned copies
 * at 53 and 54 GB/s on a Gen5 x16 link (expected 0.8 x 63.0 = 50.4 GB/s). */
static void healthy_bw(struct burn_bw *bw)
{
	memset(bw, 0, sizeof(*bw));
	bw->device_gbs = 4100;
	bw->device_expect_gbs = 4800;
	bw->h2d_gbs = 53;
	bw->d2h_gbs = 54;
	bw->link_gen = 5;
	bw->link_width = 16;
	bw->link_expect_gbs = burn_bandwidth_link_expect(5, 16);
	bw->device_bytes = 1ull << 30;
	bw->host_bytes = 256ull << 20;
}

static void test_bandwidth_healthy_passes(void)
{
	struct burn_gpu_run g;
	struct burn_bw bw;

	CHECK(burn_bandwidth_link_expect(5, 16) > 50.3 && burn_bandwidth_link_expect(5, 16) < 50.5);
	CHECK(burn_bandwidth_link_expect(1, 16) > 3.19 && burn_bandwidth_link_expect(1, 16) < 3.21);
	CHECK(burn_bandwidth_link_expect(0, 16) < 0);
	healthy(tl[0], NS);
	healthy_bw(&bw);
	g = gpu(0, tl[0], NS);
	g.bw = &bw;
	judge(&g, 1);
	CHECK(passes_only());
	CHECK(
	    evidence_has(find("burn.pass", 0),
			 "bandwidth: device memory 4100.0 GB/s (85 % of 4800.0 expected); host to "
			 "GPU 53.0 GB/s (105 % of 50.4 expected); GPU to host 54.0 GB/s (107 % of "
			 "50.4 expected)"));
}

static void test_bandwidth_low_device(void)
{
	struct burn_gpu_run g;
	struct burn_bw bw;
	const struct finding *f;

	healthy(tl[0], NS);
	healthy_bw(&bw);
	bw.device_gbs = 3000; /* 62 % of the peak */
	g = gpu(0, tl[0], NS);
	g.bw = &bw;
	judge(&g, 1);
	f = find("burn.bandwidth_low", 0);
	CHECK(f && f->sev == SEV_WARN && worst == SEV_WARN && !find("burn.pass", 0));
	CHECK(evidence_has(f, "device memory (copy kernel, HBM traffic): 3000.0 GB/s, 62 % of the "
			      "4800.0 GB/s expected (the model's HBM peak) (under 70 % warns)"));
	CHECK(f && strstr(f->fix, "memory clock") && !strstr(f->fix, "BIOS"));
	/* 71 % of the peak: silent */
	bw.device_gbs = 3400;
	judge(&g, 1);
	CHECK(passes_only());
}

/* A Gen5 x16 card that trained at Gen4: its copies reach half the expected rate. */
static void test_bandwidth_low_link(void)
{
	struct burn_gpu_run g;
	struct burn_bw bw;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	for (i = NS - 5; i < NS; i++) {
		tl[0][i].phase = BURN_MODE_BANDWIDTH;
		tl[0][i].tflops = 0;
		set(&tl[0][i].pcie_gen, 4);
	}
	healthy_bw(&bw);
	bw.h2d_gbs = 25.1;
	g = gpu(0, tl[0], NS);
	g.bw = &bw;
	judge(&g, 1);
	f = find("burn.bandwidth_low", 0);
	CHECK(f && f->sev == SEV_WARN);
	CHECK(evidence_has(f, "host to GPU (pinned copy): 25.1 GB/s, 50 % of the 50.4 GB/s "
			      "expected of the link (under 60 % warns)"));
	CHECK(!evidence_has(f, "GPU to host"));
	CHECK(evidence_has(f, "link maximum: PCIe Gen5 x16"));
	CHECK(evidence_has(f, "link during the phase: PCIe Gen4 x16, below its maximum"));
	CHECK(f && strstr(f->fix, "BIOS") && strstr(f->fix, "swap slots"));
	/* 61 % of the expected rate: silent */
	bw.h2d_gbs = 30.8;
	for (i = NS - 5; i < NS; i++)
		set(&tl[0][i].pcie_gen, 5);
	judge(&g, 1);
	CHECK(!find("burn.bandwidth_low", 0) && find("burn.pass", 0));
}

/* Four GPUs of a model nobody profiled (no expected figures): GPU 1's device memory 20 % below
 * the other three warns, 10 % below does not; a GPU of another model is no sibling. */
static void test_bandwidth_low_vs_siblings(void)
{
	struct burn_gpu_run g[4];
	struct burn_bw bw[4];
	const struct finding *f;
	int k;

	for (k = 0; k < 4; k++) {
		healthy(tl[k], NS);
		healthy_bw(&bw[k]);
		bw[k].device_expect_gbs = -1;
		bw[k].link_expect_gbs = -1;
		bw[k].link_gen = bw[k].link_width = 0;
		bw[k].device_gbs = 2000 + 10 * k;
		g[k] = gpu(k, tl[k], NS);
		str_copy(g[k].name, "NVIDIA Future GPU", sizeof(g[k].name));
		g[k].bw = &bw[k];
	}
	bw[1].device_gbs = 1620; /* 80 % of 2020 */
	judge(g, 4);
	f = find("burn.bandwidth_low", 1);
	CHECK(f && f->sev == SEV_WARN);
	CHECK(evidence_has(f, "expected: n/a (the memory clock or bus width unknown)"));
	CHECK(evidence_has(f, "1620.0 GB/s, 80 % of their median 2020.0 GB/s over 3 GPUs (under "
			      "85 % warns)"));
	CHECK(find("burn.pass", 0) && find("burn.pass", 2) && find("burn.pass", 3));
	bw[1].device_gbs = 1820; /* 90 % */
	judge(g, 4);
	CHECK(!find("burn.bandwidth_low", 1) && find("burn.pass", 1));
	bw[1].device_gbs = 1620;
	str_copy(g[1].name, "NVIDIA Other GPU", sizeof(g[1].name));
	judge(g, 4);
	CHECK(!find("burn.bandwidth_low", 1));
}

static void test_copy_errors(void)
{
	struct burn_gpu_run g;
	struct burn_bw bw;
	const struct finding *f;

	healthy(tl[0], NS);
	healthy_bw(&bw);
	bw.bad_words = 3;
	g = gpu(0, tl[0], NS);
	g.bw = &bw;
	judge(&g, 1);
	f = find("burn.copy_errors", 0);
	CHECK(f && f->sev == SEV_FAIL && worst == SEV_FAIL);
	CHECK(evidence_has(f, "differed from the source: 3"));
}

/* The power phase over the last 20 samples: power, its limit, the SM clock and the reasons. */
static void power_phase(struct burn_sample *s, int64_t power_mw, int64_t sm_mhz, int64_t ce)
{
	size_t i;

	for (i = NS - 20; i < NS; i++) {
		s[i].phase = BURN_MODE_POWER;
		set(&s[i].power_mw, power_mw);
		set(&s[i].sm_mhz, sm_mhz);
		set(&s[i].clock_events, ce);
	}
}

/* What a real H200 does: at its 700 W limit with SW_POWER_CAP set and the clock below max. A
 * pass, and the report says what the phase reached. */
static void test_power_phase_at_limit_passes(void)
{
	struct burn_gpu_run g;
	const struct finding *f;
	size_t i;

	healthy(tl[0], NS);
	power_phase(tl[0], 698000, 1500, CE_SW_POWER_CAP);
	/* the ramp in the phase's first half does not count */
	for (i = NS - 20; i < NS - 10; i++)
		set(&tl[0][i].power_mw, 300000);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	CHECK(worst == SEV_INFO && find("burn.pass", 0) && !find("burn.power_not_reached", 0));
	CHECK(!find("burn.clock_low", 0));
	f = find("burn.power", 0);
	CHECK(f && f->sev == SEV_INFO);
	CHECK(f && !strcmp(f->summary,
			   "power phase: 698.0 W, 100 % of the 700.0 W limit, SM clock 1500 MHz"));
	CHECK(evidence_has(f, "698.0 W mean, 100 % of the 700.0 W limit"));
	CHECK(evidence_has(f, "SM clock held there: 1500 MHz median, 76 % of 1980 MHz max"));
	CHECK(evidence_has(f, "reasons there: SW_POWER_CAP; power cap in 10"));
}

static void test_power_not_reached(void)
{
	struct burn_gpu_run g;
	const struct finding *f;

	/* 500 of 700 W, the clock at 81 % of max, no reason */
	healthy(tl[0], NS);
	power_phase(tl[0], 500000, 1600, 0);
	g = gpu(0, tl[0], NS);
	judge(&g, 1);
	f = find("burn.power_not_reached", 0);
	CHECK(f && f->sev == SEV_WARN && worst == SEV_WARN && !find("burn.pass", 0));
	CHECK(f && strstr(f->summary, "71 % of the power limit"));
	CHECK(evidence_has(f, "500.0 W mean, 71 % of the 700.0 W limit"));
	CHECK(evidence_has(f, "1600 MHz median, 81 % of 1980 MHz max"));
	CHECK(!find("burn.power", 0));

	/* HW_SLOWDOWN explains nothing: it is the fault, named */
	power_phase(tl[0], 500000, 1600, CE_HW_SLOWDOWN);
	judge(&g, 1);
	f = find("burn.power_not_reached", 0);
	CHECK(f && evidence_has(f, "reasons there: HW_SLOWDOWN"));

	/* 91 % of the limit: reached */
	power_phase(tl[0], 637000, 1600, 0);
	judge(&g, 1);
	CHECK(!find("burn.power_not_reached", 0) && find("burn.power", 0) && find("burn.pass", 0));

	/* at full clock the card gives what it can: not this rule's */
	power_phase(tl[0], 600000, 1980, 0);
	judge(&g, 1);
	CHECK(!find("burn.power_not_reached", 0) && find("burn.pass", 0));

	/* the power cap (the limit averaged over a window) or heat explains it */
	power_phase(tl[0], 500000, 1600, CE_SW_POWER_CAP);
	judge(&g, 1);
	CHECK(!find("burn.power_not_reached", 0));
	power_phase(tl[0], 500000, 1600, CE_SW_THERMAL);
	judge(&g, 1);
	CHECK(!find("burn.power_not_reached", 0) && find("burn.thermal", 0));

	/* a clock low enough for burn.clock_low: that finding names it, once */
	for (size_t i = 0; i < NS; i++)
		set(&tl[0][i].sm_mhz, 1000);
	power_phase(tl[0], 500000, 1000, 0);
	judge(&g, 1);
	CHECK(find("burn.clock_low", 0) && !find("burn.power_not_reached", 0));
	CHECK(find("burn.power", 0));
}

/* ---- GPU to GPU --------------------------------------------------------------------------- */

static struct burn_p2p pairs[6];

/* Four H200 on one NVSwitch (18 links of NVLink 4 each): every pair pushes 380 GB/s of the
 * 382.5 expected (0.8 x 18 x 26.5625), both ways. */
static void p2p_four(struct burn_gpu_run *g)
{
	struct bench_gpu a;
	size_t k = 0;
	int i, j;

	memset(&a, 0, sizeof(a));
	a.cc_major = 9;
	for (i = 0; i < 4; i++)
		for (j = i + 1; j < 4; j++, k++) {
			struct burn_p2p *p = &pairs[k];

			memset(p, 0, sizeof(*p));
			p->a = i;
			p->b = j;
			p->ia = i;
			p->ib = j;
			p->can_ab = p->can_ba = true;
			p->ab_gbs = p->ba_gbs = 380;
			p->bytes = 64 << 20;
			burn_p2p_expect(&a, &a, 18, 10, p);
		}
	for (i = 0; i < 4; i++) {
		healthy(tl[i], NS);
		g[i] = gpu(i, tl[i], NS);
		g[i].p2p = pairs;
		g[i].np2p = k;
	}
}

static void test_p2p_expect(void)
{
	struct bench_gpu a, b;
	struct burn_p2p p;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.cc_major = b.cc_major = 9;
	a.pcie_gen = b.pcie_gen = 5;
	a.pcie_width = 16;
	b.pcie_width = 8;
	burn_p2p_expect(&a, &b, 18, 10, &p);
	CHECK(p.path == BURN_PATH_NVLINK && p.expect_gbs > 382.4 && p.expect_gbs < 382.6);
	CHECK(!strcmp(p.path_what, "NVLink 18 x 26.56 GB/s"));
	/* no links: the PCIe path below one switch, at the slower link (x8) */
	burn_p2p_expect(&a, &b, 0, 10, &p);
	CHECK(p.path == BURN_PATH_PCIE && p.pcie_level == 10 &&
	      !strcmp(p.path_what, "PCIe Gen5 x8 (PIX)"));
	CHECK(p.expect_gbs > 25.1 && p.expect_gbs < 25.3);
	/* across the CPUs: n/a, but the kind is known */
	burn_p2p_expect(&a, &b, 0, 50, &p);
	CHECK(p.path == BURN_PATH_PCIE && p.expect_gbs < 0 && !strcmp(p.path_what, "PCIe (SYS)"));
	/* no topology */
	burn_p2p_expect(&a, &b, -1, -1, &p);
	CHECK(p.path == BURN_PATH_UNKNOWN && p.expect_gbs < 0 && !p.path_what[0]);
}

static void test_p2p_healthy_passes(void)
{
	struct burn_gpu_run g[4];
	int i;

	p2p_four(g);
	judge(g, 4);
	for (i = 0; i < 4; i++) {
		CHECK(find("burn.pass", i) && !find("burn.p2p_low", i) &&
		      !find("burn.p2p_unavailable", i));
		CHECK(evidence_has(find("burn.pass", i), "GPU to GPU: with GPU "));
	}
	CHECK(evidence_has(find("burn.pass", 0),
			   "with GPU 3 380.0 out, 380.0 in GB/s (99 % of 382.5 expected)"));
	CHECK(worst == SEV_OK);
}

static void test_p2p_low_vs_expected(void)
{
	struct burn_gpu_run g[4];
	const struct finding *f;

	/* every pair at 200 GB/s: 52 % of the expected, no pair below the others */
	p2p_four(g);
	for (size_t k = 0; k < 6; k++)
		pairs[k].ab_gbs = pairs[k].ba_gbs = 200;
	judge(g, 4);
	f = find("burn.p2p_low", 0);
	CHECK(f && f->sev == SEV_WARN && worst == SEV_WARN && !find("burn.pass", 0));
	CHECK(evidence_has(f, "GPU 0 -> GPU 1: 200.0 GB/s, 52 % of the 382.5 GB/s expected of "
			      "NVLink 18 x 26.56 GB/s (under 60 % warns)"));
	CHECK(evidence_has(f, "3 of this GPU's 3 pairs measured low: every pair"));
	CHECK(f->fix && strstr(f->fix, "nvidia-smi topo -m") && strstr(f->fix, "NVLink bridge"));
	/* 62 %: above the line */
	p2p_four(g);
	for (size_t k = 0; k < 6; k++)
		pairs[k].ab_gbs = pairs[k].ba_gbs = 237;
	judge(g, 4);
	CHECK(!find("burn.p2p_low", 0) && find("burn.pass", 0));
}

static void test_p2p_low_vs_others(void)
{
	struct burn_gpu_run g[4];
	const struct finding *f;
	int i;

	/* pair 1 <-> 2 at 300 GB/s one way: above the expected's 60 %, 79 % of the others */
	p2p_four(g);
	pairs[3].ab_gbs = 300; /* pairs: 0-1 0-2 0-3 1-2 1-3 2-3 */
	judge(g, 4);
	for (i = 0; i < 4; i++)
		CHECK(!find("burn.p2p_low", i) == (i == 0 || i == 3));
	f = find("burn.p2p_low", 1);
	CHECK(f && evidence_has(f, "GPU 1 -> GPU 2: 300.0 GB/s, 78 % of the 382.5 GB/s expected"));
	CHECK(evidence_has(f, "79 % of the median 380.0 GB/s of 10 other copies over the same "
			      "kind of path (under 85 % warns)"));
	CHECK(evidence_has(f, "1 of this GPU's 3 pairs measured low: the rest are not"));
	CHECK(!evidence_has(f, "GPU 2 -> GPU 1"));
	/* 86 % of the others: silent */
	pairs[3].ab_gbs = 327;
	judge(g, 4);
	CHECK(!find("burn.p2p_low", 1) && !find("burn.p2p_low", 2));
	/* without a known path the others still judge it */
	p2p_four(g);
	for (size_t k = 0; k < 6; k++)
		burn_p2p_expect(&(struct bench_gpu){0}, &(struct bench_gpu){0}, -1, -1, &pairs[k]);
	pairs[3].ab_gbs = 100;
	judge(g, 4);
	f = find("burn.p2p_low", 2);
	CHECK(f && evidence_has(f, "GPU 1 -> GPU 2: 100.0 GB/s, expected: n/a (path unknown)"));
	/* a pair across the CPUs is not held against pairs under one switch */
	p2p_four(g);
	for (size_t k = 0; k < 6; k++) {
		struct bench_gpu x = {0};

		x.pcie_gen = 5;
		x.pcie_width = 16;
		pairs[k].ab_gbs = pairs[k].ba_gbs = 45;
		burn_p2p_expect(&x, &x, 0, k == 3 ? 50 : 10, &pairs[k]);
	}
	pairs[3].ab_gbs = pairs[3].ba_gbs = 20;
	judge(g, 4);
	for (i = 0; i < 4; i++)
		CHECK(!find("burn.p2p_low", i));
}

static void test_p2p_unavailable_and_errors(void)
{
	struct burn_gpu_run g[4];
	const struct finding *f;

	p2p_four(g);
	pairs[5].can_ab = pairs[5].can_ba = false; /* 2 and 3 */
	pairs[5].ab_gbs = pairs[5].ba_gbs = -1;
	pairs[4].can_ba = false; /* 3 cannot write 1 */
	pairs[4].ba_gbs = -1;
	judge(g, 4);
	f = find("burn.p2p_unavailable", 2);
	CHECK(f && f->sev == SEV_INFO &&
	      strstr(f->summary, "GPU 2 and GPU 3 cannot reach each other"));
	CHECK(evidence_has(f, "cuDeviceCanAccessPeer: GPU 2 -> GPU 3 no, GPU 3 -> GPU 2 no"));
	CHECK(find("burn.p2p_unavailable", 3) && !find("burn.p2p_unavailable", 0));
	f = find("burn.p2p_unavailable", 1);
	CHECK(f && strstr(f->summary, "GPU 3 cannot reach GPU 1's memory directly"));
	/* information: the GPUs still pass */
	CHECK(find("burn.pass", 2) && find("burn.pass", 3) && worst < SEV_WARN);

	/* a peer copy read back wrong: both GPUs of the pair fail */
	p2p_four(g);
	pairs[0].bad_words = 3;
	judge(g, 4);
	f = find("burn.copy_errors", 0);
	CHECK(f && f->sev == SEV_FAIL && strstr(f->summary, "with GPU 1 read back 3 wrong words"));
	CHECK(find("burn.copy_errors", 1) && !find("burn.copy_errors", 2) && worst == SEV_FAIL);
}

int main(void)
{
	RUN(test_healthy_passes);
	RUN(test_wrong_results);
	RUN(test_nan_and_memory);
	RUN(test_memory_evidence);
	RUN(test_ecc_mid_run);
	RUN(test_remap);
	RUN(test_xid);
	RUN(test_pcie_replays);
	RUN(test_pcie_link);
	RUN(test_throttle_mid_run);
	RUN(test_thermal_margin);
	RUN(test_power_brake);
	RUN(test_clock_low);
	RUN(test_power_low);
	RUN(test_slow_sibling_among_four);
	RUN(test_unread_values_trigger_nothing);
	RUN(test_run_state);
	RUN(test_no_telemetry);
	RUN(test_worst_over_gpus);
	RUN(test_bandwidth_healthy_passes);
	RUN(test_bandwidth_low_device);
	RUN(test_bandwidth_low_link);
	RUN(test_bandwidth_low_vs_siblings);
	RUN(test_copy_errors);
	RUN(test_power_phase_at_limit_passes);
	RUN(test_power_not_reached);
	RUN(test_p2p_expect);
	RUN(test_p2p_healthy_passes);
	RUN(test_p2p_low_vs_expected);
	RUN(test_p2p_low_vs_others);
	RUN(test_p2p_unavailable_and_errors);
	findings_free(&fs);
	return TEST_DONE();
}
