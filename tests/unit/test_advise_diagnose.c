/*
 * test_advise_diagnose.c: advise's diagnosis (advise/diagnose.c) on constructed timelines: a
 * healthy busy job gives advise.ok alone; each cause of the nine fires on its own planted
 * bottleneck with its figures in the evidence and its fix in PyTorch's words; mixtures rank
 * the costlier cause first; noise (a steady PCIe rate on a busy GPU, 100 % utilisation with GPM
 * unread, a GPU at its power cap a little below max clock, an allocator warming up) raises
 * nothing; unread values never count as 0.
 *
 * The timelines are built with a local helper: advise/timeline.c (adv_tick_add) belongs to the
 * sampler's side.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/diagnose.h"
#include "gpu/device.h"
#include "test.h"
#include "util/util.h"

#define NT  200 /* ticks per timeline: 20 s at 100 ms */
#define MS  1000000LL
#define GIB (1024LL * 1024 * 1024)
#define MIB (1024LL * 1024)

static struct adv_timeline tl;
static struct findings fs;
static enum severity worst;

/* Every reading of a fresh tick is unread (VAL_NA), as adv_tick_add's contract says. */
static void all_na(struct num *n, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		n[i].st = VAL_NA;
}

static struct adv_tick *tick_add(int64_t t_ns)
{
	struct adv_tick *k;
	int g;

	if (tl.nticks == tl.cap_ticks) {
		tl.cap_ticks = tl.cap_ticks ? tl.cap_ticks * 2 : 64;
		tl.ticks = xrealloc(tl.ticks, tl.cap_ticks * sizeof(*tl.ticks));
	}
	k = &tl.ticks[tl.nticks++];
	memset(k, 0, sizeof(*k));
	k->t_ns = t_ns;
	all_na((struct num *)&k->h, sizeof(k->h) / sizeof(struct num));
	for (g = 0; g < ADV_MAX_GPUS; g++)
		all_na((struct num *)&k->g[g], sizeof(k->g[g]) / sizeof(struct num));
	return k;
}

static void util_add(int64_t t_ns, int gpu, int pct)
{
	if (tl.nutil == tl.cap_util) {
		tl.cap_util = tl.cap_util ? tl.cap_util * 2 : 256;
		tl.util = xrealloc(tl.util, tl.cap_util * sizeof(*tl.util));
	}
	tl.util[tl.nutil].t_ns = t_ns;
	tl.util[tl.nutil].gpu = gpu;
	tl.util[tl.nutil++].pct = pct;
}

static void reset(void)
{
	free(tl.ticks);
	free(tl.util);
	memset(&tl, 0, sizeof(tl));
	findings_free(&fs);
	memset(&fs, 0, sizeof(fs));
}

static void set(struct num *n, int64_t v)
{
	num_set(n, v);
}

/* An H200 (Gen5 x16, 55 GB/s pinned, 141 GiB, GPM read) per GPU, the first ngpus held by a
 * PyTorch job on a 32-CPU machine; every tick healthy: 97 % utilised, SM active 85 %, 2 GB/s
 * in, full clock, 40 GiB used; the host: main thread 60 % of a core, 8 workers at 300 %
 * together, no pressure. */
static void healthy(int ngpus, int nheld)
{
	int g, i;

	reset();
	tl.pid = 4242;
	str_copy(tl.cmd, "python train.py --epochs 10", sizeof(tl.cmd));
	str_copy(tl.framework, "pytorch", sizeof(tl.framework));
	tl.ncpus = 32;
	tl.cg_quota_cores.st = VAL_NA;
	tl.tick_ns = 100 * MS;
	tl.ngpus = ngpus;
	for (g = 0; g < ngpus; g++) {
		struct adv_gpu_facts *f = &tl.gpus[g];

		f->index = g;
		str_copy(f->name, "NVIDIA H200", sizeof(f->name));
		set(&f->mem_total_bytes, 141 * GIB);
		set(&f->power_limit_mw, 700000);
		set(&f->sm_max_mhz, 1980);
		set(&f->pcie_gen, 5);
		set(&f->pcie_width, 16);
		set(&f->pcie_max_gen, 5);
		set(&f->pcie_max_width, 16);
		set(&f->pcie_peak_bytes_s, 55000000000LL);
		f->job_holds = g < nheld;
		f->gpm = true;
	}
	for (i = 0; i < NT; i++) {
		struct adv_tick *k = tick_add((int64_t)i * 100 * MS);

		set(&k->h.tree_cpu_pct, 400);
		set(&k->h.main_cpu_pct, 90);
		set(&k->h.main_thread_max_pct, 60);
		set(&k->h.workers, 8);
		set(&k->h.workers_cpu_pct, 300);
		set(&k->h.workers_busy, 3);
		set(&k->h.tree_blocked_io, 0);
		set(&k->h.read_bytes_s, 50000000);
		set(&k->h.cpu_pressure_pct, 2);
		set(&k->h.io_pressure_pct, 1);
		set(&k->h.cg_throttled_pct, 0);
		set(&k->h.host_busy_pct, 500);
		for (g = 0; g < ngpus; g++) {
			struct adv_gpu_tick *t = &k->g[g];
			bool held = g < nheld;

			set(&t->util_pct, held ? 97 : 0);
			set(&t->sm_active_pct, held ? 85 : 0);
			set(&t->sm_occupancy_pct, held ? 45 : 0);
			set(&t->tensor_active_pct, held ? 40 : 0);
			set(&t->dram_active_pct, held ? 30 : 0);
			set(&t->pcie_rx_bytes_s, held ? 2000000000LL : 0);
			set(&t->pcie_tx_bytes_s, held ? 100000000LL : 0);
			set(&t->nvlink_rx_bytes_s, 0);
			set(&t->nvlink_tx_bytes_s, 0);
			set(&t->power_mw, held ? 550000 : 70000);
			set(&t->sm_mhz, held ? 1980 : 345);
			set(&t->clock_events, held ? 0 : CE_GPU_IDLE);
			set(&t->temp_c, held ? 62 : 30);
			set(&t->mem_used_bytes, held ? 40 * GIB : 512 * MIB);
			set(&t->job_mem_bytes, held ? 39 * GIB : 0);
			set(&t->job_sm_pct, held ? 95 : 0);
		}
	}
}

/* NVML's finer samples on GPU position 0, every sample_ms, idle (0 %) for gap_ms of every
 * period_ms and busy (100 %) otherwise; the ticks get the matching mean. */
static void plant_gaps(int sample_ms, int period_ms, int gap_ms)
{
	int64_t t;
	size_t i;

	for (t = 0; t < (int64_t)NT * 100; t += sample_ms)
		util_add(t * MS, 0, t % period_ms < gap_ms ? 0 : 100);
	for (i = 0; i < tl.nticks; i++)
		set(&tl.ticks[i].g[0].util_pct, 100 - 100 * gap_ms / period_ms);
}

/* Every tick: one host field / GPU field set to v. */
#define ALL_H(field, v)                                                                            \
	do {                                                                                       \
		size_t i_;                                                                         \
		for (i_ = 0; i_ < tl.nticks; i_++)                                                 \
			set(&tl.ticks[i_].h.field, (v));                                           \
	} while (0)
#define ALL_G(gpu, field, v)                                                                       \
	do {                                                                                       \
		size_t i_;                                                                         \
		for (i_ = 0; i_ < tl.nticks; i_++)                                                 \
			set(&tl.ticks[i_].g[gpu].field, (v));                                      \
	} while (0)

static void dump(void);

static void diagnose(void)
{
	findings_free(&fs);
	memset(&fs, 0, sizeof(fs));
	worst = (enum severity)advise_diagnose(&tl, &fs);
	dump();
}

/* GPUVET_TEST_DUMP=1 prints what each test got, for working on a rule */
static void dump(void)
{
	size_t i;
	int e;

	if (!getenv("GPUVET_TEST_DUMP"))
		return;
	for (i = 0; i < fs.n; i++) {
		printf("# %s [%s] %s\n", fs.v[i].def->id, severity_name(fs.v[i].sev),
		       fs.v[i].summary);
		for (e = 0; e < fs.v[i].nevidence; e++)
			printf("#   %s\n", fs.v[i].evidence[e]);
		if (fs.v[i].fix)
			printf("#   fix: %s\n", fs.v[i].fix);
	}
}

static int pos(const char *id)
{
	size_t i;

	for (i = 0; i < fs.n; i++)
		if (strcmp(fs.v[i].def->id, id) == 0)
			return (int)i;
	return -1;
}

static bool has(const char *id)
{
	return pos(id) >= 0;
}

static const struct finding *get(const char *id)
{
	int p = pos(id);

	return p >= 0 ? &fs.v[p] : NULL;
}

static bool ev_has(const char *id, const char *s)
{
	const struct finding *f = get(id);
	int i;

	if (!f)
		return false;
	for (i = 0; i < f->nevidence; i++)
		if (strstr(f->evidence[i], s))
			return true;
	return strstr(f->summary, s) != NULL;
}

static bool fix_has(const char *id, const char *s)
{
	const struct finding *f = get(id);

	return f && f->fix && strstr(f->fix, s);
}

/* ---- healthy and noise ----------------------------------------------------------------- */

static void test_healthy_ok_alone(void)
{
	healthy(1, 1);
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.ok"));
	CHECK(worst == SEV_OK);
	CHECK(fs.v[0].gpu == 0);
	CHECK(ev_has("advise.ok", "97 %"));
	CHECK(ev_has("advise.ok", "SM active (GPM): median 85 %"));
}

static void test_noise_steady_pcie_busy(void)
{
	/* a busy GPU fed at 30 GB/s all the time: the copies overlap, nothing is lost */
	healthy(1, 1);
	ALL_G(0, pcie_rx_bytes_s, 30000000000LL);
	ALL_H(main_thread_max_pct, 100);
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.ok"));
}

static void test_noise_gpm_unread(void)
{
	/* 100 % utilised, GPM not read: no small-kernel finding without evidence */
	healthy(1, 1);
	ALL_G(0, util_pct, 100);
	ALL_G(0, sm_active_pct, 0);
	ALL_G(0, sm_occupancy_pct, 0);
	for (size_t i = 0; i < tl.nticks; i++) {
		tl.ticks[i].g[0].sm_active_pct.st = VAL_NA;
		tl.ticks[i].g[0].sm_occupancy_pct.st = VAL_NA;
	}
	tl.gpus[0].gpm = false;
	diagnose();
	CHECK(!has("advise.small_work"));
	CHECK(has("advise.ok"));
	CHECK(ev_has("advise.ok", "not read"));
}

static void test_noise_power_cap_at_full_load(void)
{
	/* an H200 at full load sits at its power cap a little below max clock: normal */
	healthy(1, 1);
	ALL_G(0, clock_events, CE_SW_POWER_CAP);
	ALL_G(0, sm_mhz, 1830);
	ALL_G(0, power_mw, 699000);
	diagnose();
	CHECK(!has("advise.throttled"));
	CHECK(has("advise.ok"));
}

static void test_noise_allocator_warmup(void)
{
	/* memory climbs for the first 2 s (the caching allocator), then holds */
	size_t i;

	healthy(1, 1);
	for (i = 0; i < tl.nticks; i++)
		set(&tl.ticks[i].g[0].job_mem_bytes, (int64_t)(i < 20 ? i : 20) * GIB);
	diagnose();
	CHECK(!has("advise.memory_growth"));
	CHECK(has("advise.ok"));
}

/* ---- each cause on its own ---------------------------------------------------------------- */

static void test_input_pipeline_no_workers(void)
{
	/* 120 ms idle of every 200 ms step, the main process at 100 % of a core, no workers */
	healthy(1, 1);
	plant_gaps(20, 200, 120);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(main_cpu_pct, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	ALL_G(0, pcie_rx_bytes_s, 300000000);
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.input_pipeline"));
	CHECK(worst == SEV_WARN);
	CHECK(ev_has("advise.input_pipeline", "idle 60 %"));
	CHECK(ev_has("advise.input_pipeline", "median 120 ms"));
	CHECK(ev_has("advise.input_pipeline", "every 200 ms"));
	CHECK(ev_has("advise.input_pipeline", "regular"));
	CHECK(ev_has("advise.input_pipeline", "estimated share of lost GPU time: 60 %"));
	CHECK(fix_has("advise.input_pipeline", "num_workers=16"));
	CHECK(fix_has("advise.input_pipeline", "pin_memory=True"));
	CHECK(fix_has("advise.input_pipeline", "persistent_workers=True"));
}

static void test_input_pipeline_saturated_workers(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 45);
	ALL_H(workers, 4);
	ALL_H(workers_cpu_pct, 395);
	diagnose();
	CHECK(has("advise.input_pipeline"));
	CHECK(ev_has("advise.input_pipeline", "saturated"));
	CHECK(fix_has("advise.input_pipeline", "num_workers=8"));
	CHECK(!has("advise.unclear"));
}

static void test_input_pipeline_generic_words(void)
{
	healthy(1, 1);
	tl.framework[0] = '\0';
	plant_gaps(20, 200, 120);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	diagnose();
	CHECK(has("advise.input_pipeline"));
	CHECK(!fix_has("advise.input_pipeline", "DataLoader"));
	CHECK(fix_has("advise.input_pipeline", "tf.data"));
}

static void test_input_io(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 50);
	ALL_H(io_pressure_pct, 45);
	ALL_H(tree_blocked_io, 3);
	ALL_H(workers, 4);
	ALL_H(workers_cpu_pct, 80);
	ALL_H(read_bytes_s, 800000000);
	diagnose();
	CHECK(has("advise.input_io"));
	CHECK(!has("advise.input_pipeline"));
	CHECK(ev_has("advise.input_io", "800.0 MB/s"));
	CHECK(ev_has("advise.input_io", "45 %"));
	CHECK(fix_has("advise.input_io", "prefetch_factor"));
}

static void test_sync_points(void)
{
	/* 30 ms stalls every 100 ms step, the main thread spinning, the link quiet, 4 idle workers
	 */
	healthy(1, 1);
	plant_gaps(10, 100, 30);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 4);
	ALL_H(workers_cpu_pct, 100);
	ALL_G(0, pcie_rx_bytes_s, 50000000);
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.sync_points"));
	CHECK(ev_has("advise.sync_points", "median 30 ms"));
	CHECK(ev_has("advise.sync_points", "10.0 steps/s"));
	CHECK(fix_has("advise.sync_points", ".item()"));
	CHECK(fix_has("advise.sync_points", "set_sync_debug_mode"));
}

static void test_sync_points_no_workers_data_on_gpu(void)
{
	/* no loader at all (data on the GPU), short regular stalls: a sync, not the input */
	healthy(1, 1);
	plant_gaps(10, 100, 30);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	ALL_G(0, pcie_rx_bytes_s, 0);
	diagnose();
	CHECK(has("advise.sync_points"));
	CHECK(!has("advise.input_pipeline"));
}

static void test_h2d_pageable(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 50);
	ALL_G(0, pcie_rx_bytes_s, 15000000000LL);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	diagnose();
	CHECK(has("advise.h2d_copies"));
	CHECK(!has("advise.input_pipeline"));
	CHECK(!has("advise.sync_points"));
	CHECK(ev_has("advise.h2d_copies", "pageable"));
	CHECK(ev_has("advise.h2d_copies", "15.0 GB/s"));
	CHECK(ev_has("advise.h2d_copies", "55.0 GB/s"));
	CHECK(fix_has("advise.h2d_copies", "pin_memory=True"));
	CHECK(fix_has("advise.h2d_copies", "non_blocking=True"));
}

static void test_h2d_link_bound_peak_from_link(void)
{
	/* no measured peak: the link's rate x 0.8 (Gen5 x16: 50.4 GB/s) */
	healthy(1, 1);
	tl.gpus[0].pcie_peak_bytes_s.st = VAL_NA;
	ALL_G(0, util_pct, 40);
	ALL_G(0, pcie_rx_bytes_s, 48000000000LL);
	diagnose();
	CHECK(has("advise.h2d_copies"));
	CHECK(ev_has("advise.h2d_copies", "link's peak"));
	CHECK(ev_has("advise.h2d_copies", "line rate"));
	CHECK(fix_has("advise.h2d_copies", "uint8"));
}

static void test_throttled_thermal(void)
{
	healthy(1, 1);
	ALL_G(0, clock_events, CE_SW_THERMAL | CE_SW_POWER_CAP);
	ALL_G(0, sm_mhz, 1400);
	ALL_G(0, temp_c, 88);
	diagnose();
	CHECK(has("advise.throttled"));
	CHECK(!has("advise.ok"));
	CHECK(ev_has("advise.throttled", "1400 of 1980 MHz"));
	CHECK(ev_has("advise.throttled", "SW_THERMAL"));
	CHECK(ev_has("advise.throttled", "88 C"));
	CHECK(fix_has("advise.throttled", "TEMPERATURE"));
}

static void test_small_work(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 98);
	ALL_G(0, sm_active_pct, 20);
	ALL_G(0, sm_occupancy_pct, 8);
	diagnose();
	CHECK(has("advise.small_work"));
	CHECK(ev_has("advise.small_work", "median 20 %"));
	CHECK(ev_has("advise.small_work", "occupancy (GPM): median 8 %"));
	CHECK(ev_has("advise.small_work", "estimated share of lost GPU time: 78 %"));
	CHECK(fix_has("advise.small_work", "reduce-overhead"));
}

static void test_memory_full(void)
{
	healthy(1, 1);
	ALL_G(0, mem_used_bytes, 138 * GIB);
	diagnose();
	CHECK(has("advise.memory_full"));
	CHECK(ev_has("advise.memory_full", "98 %"));
	CHECK(fix_has("advise.memory_full", "torch.autocast"));
	CHECK(!has("advise.memory_growth"));
}

static void test_memory_growth_leak(void)
{
	/* 40 GiB + 100 MiB/s with +-50 MiB of noise: 101 GiB left, full in about 17 min */
	size_t i;

	healthy(1, 1);
	for (i = 0; i < tl.nticks; i++) {
		int64_t noise = (i % 3 == 0 ? 50 : i % 3 == 1 ? -50 : 0) * MIB;

		set(&tl.ticks[i].g[0].job_mem_bytes, 40 * GIB + (int64_t)i * 10 * MIB + noise);
		set(&tl.ticks[i].g[0].mem_used_bytes, 41 * GIB + (int64_t)i * 10 * MIB + noise);
	}
	diagnose();
	CHECK(has("advise.memory_growth"));
	CHECK(ev_has("advise.memory_growth", "grows 99.9 MiB/s"));
	CHECK(ev_has("advise.memory_growth", "second half 100.1 MiB/s"));
	CHECK(ev_has("advise.memory_growth", "about 17 min"));
	CHECK(fix_has("advise.memory_growth", "loss.item()"));
	CHECK(!has("advise.ok"));
}

static void test_gpus_idle(void)
{
	healthy(4, 4);
	ALL_G(1, util_pct, 1);
	ALL_G(2, util_pct, 0);
	ALL_G(3, util_pct, 2);
	diagnose();
	CHECK(has("advise.gpus_idle"));
	CHECK(get("advise.gpus_idle")->gpu == -1);
	CHECK(ev_has("advise.gpus_idle", "GPU 0 works"));
	CHECK(ev_has("advise.gpus_idle", "GPU 2 0 %"));
	CHECK(fix_has("advise.gpus_idle", "--nproc_per_node=4"));
	CHECK(!has("advise.unclear"));
}

static void test_nccl_wait_straggler(void)
{
	int g;

	healthy(4, 4);
	for (g = 0; g < 4; g++) {
		ALL_G(g, nvlink_rx_bytes_s, 40000000000LL);
		ALL_G(g, nvlink_tx_bytes_s, 40000000000LL);
		ALL_G(g, util_pct, 96);
		ALL_G(g, sm_active_pct, g == 2 ? 80 : 12);
	}
	diagnose();
	CHECK(has("advise.nccl_wait"));
	CHECK(ev_has("advise.nccl_wait", "GPU 2 is the straggler"));
	CHECK(fix_has("advise.nccl_wait", "NCCL_DEBUG=INFO"));
	/* SMs empty while NVLink moves: the waiting explains it, not small kernels */
	CHECK(!has("advise.small_work"));
}

static void test_gpus_unused_info(void)
{
	healthy(8, 1);
	diagnose();
	CHECK(has("advise.gpus_unused"));
	CHECK(get("advise.gpus_unused")->sev == SEV_INFO);
	CHECK(ev_has("advise.gpus_unused", "7 others"));
	CHECK(fix_has("advise.gpus_unused", "--nproc_per_node=8"));
	CHECK(has("advise.ok"));
	CHECK(worst == SEV_INFO);
}

static void test_cpu_work(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 0);
	ALL_G(0, sm_active_pct, 0);
	ALL_H(tree_cpu_pct, 1600);
	ALL_H(main_cpu_pct, 1600);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.cpu_work"));
	CHECK(ev_has("advise.cpu_work", "16.0 cores"));
	CHECK(fix_has("advise.cpu_work", "model.to(device)"));
}

static void test_starved_host_quota(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 50);
	ALL_H(cg_throttled_pct, 60);
	set(&tl.cg_quota_cores, 2);
	ALL_H(tree_cpu_pct, 200);
	ALL_H(main_thread_max_pct, 70);
	ALL_H(workers, 2);
	ALL_H(workers_cpu_pct, 120);
	diagnose();
	CHECK(has("advise.starved_host"));
	CHECK(ev_has("advise.starved_host", "throttled 60 %"));
	CHECK(ev_has("advise.starved_host", "quota: 2.0 cores"));
	CHECK(fix_has("advise.starved_host", "--cpus-per-task=4"));
}

static void test_starved_host_crowded(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 50);
	ALL_H(cpu_pressure_pct, 55);
	ALL_H(host_busy_pct, 3150);
	ALL_H(tree_cpu_pct, 150);
	ALL_H(main_thread_max_pct, 60);
	diagnose();
	CHECK(has("advise.starved_host"));
	CHECK(ev_has("advise.starved_host", "other processes"));
	CHECK(fix_has("advise.starved_host", "renice"));
}

static void test_unclear_names_the_profilers(void)
{
	healthy(1, 1);
	ALL_G(0, util_pct, 50);
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.unclear"));
	CHECK(worst == SEV_WARN);
	CHECK(fix_has("advise.unclear", "nsys profile -t cuda,nvtx,osrt"));
	CHECK(fix_has("advise.unclear", "python train.py --epochs 10"));
	CHECK(fix_has("advise.unclear", "cannot attach"));
	CHECK(fix_has("advise.unclear", "torch.profiler"));
}

static void test_no_samples(void)
{
	healthy(1, 1);
	tl.nticks = 5;
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.no_samples"));
	CHECK(worst == SEV_WARN);
}

/* --duration 1 at --interval 1000: two ticks; the answer says it is too short and how long
 * is enough at that tick, not the default's 30 s at 100 ms */
static void test_too_short_at_1000_ms(void)
{
	size_t i;

	healthy(1, 1);
	tl.tick_ns = 1000 * MS;
	tl.nticks = 2;
	for (i = 0; i < tl.nticks; i++)
		tl.ticks[i].t_ns = (int64_t)i * 1000 * MS;
	diagnose();
	CHECK(fs.n == 1);
	CHECK(ev_has("advise.no_samples", "too short to judge: 2 ticks"));
	CHECK(ev_has("advise.no_samples", "(2.0 s at 1000 ms)"));
	CHECK(fix_has("advise.no_samples", "at least 21 s at this tick"));
	CHECK(worst == SEV_WARN);
}

/* MIG: utilisation n/a in every tick of a long enough run; no idle verdict, the limit named,
 * GPM's SM activity shown where read, not taken for utilisation */
static void test_util_unreadable_mig(void)
{
	healthy(1, 1);
	ALL_G(0, sm_active_pct, 30);
	ALL_H(main_cpu_pct, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	{
		size_t i;

		for (i = 0; i < tl.nticks; i++)
			tl.ticks[i].g[0].util_pct.st = VAL_NA;
	}
	diagnose();
	CHECK(fs.n == 1);
	CHECK(ev_has("advise.no_samples", "utilisation cannot be read (n/a in 200 of 200 ticks)"));
	CHECK(ev_has("advise.no_samples", "SM active (GPM): median 30 %"));
	CHECK(fix_has("advise.no_samples", "nsys profile"));
	CHECK(!fix_has("advise.no_samples", "sample at least"));
	CHECK(fs.v[0].gpu == 0);
	/* no GPM either: said so */
	{
		size_t i;

		for (i = 0; i < tl.nticks; i++)
			tl.ticks[i].g[0].sm_active_pct.st = VAL_NA;
	}
	diagnose();
	CHECK(fs.n == 1);
	CHECK(ev_has("advise.no_samples", "SM active: not read either"));
}

static void test_unread_never_zero(void)
{
	/* the GPU half idle, nothing on the host read: no rule may fire on a missing figure */
	size_t i;

	healthy(1, 1);
	ALL_G(0, util_pct, 50);
	for (i = 0; i < tl.nticks; i++) {
		all_na((struct num *)&tl.ticks[i].h, sizeof(tl.ticks[i].h) / sizeof(struct num));
		tl.ticks[i].g[0].pcie_rx_bytes_s.st = VAL_NA;
		tl.ticks[i].g[0].sm_active_pct.st = VAL_NA;
		tl.ticks[i].g[0].clock_events.st = VAL_NA;
		tl.ticks[i].g[0].mem_used_bytes.st = VAL_NA;
		tl.ticks[i].g[0].job_mem_bytes.st = VAL_NA;
	}
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.unclear"));
}

/* ---- mixtures: the costlier cause first ----------------------------------------------------- */

static void test_rank_pipeline_before_throttle(void)
{
	/* 60 % idle for the input; the clock 10 % low in the busy 40 %: the input first */
	healthy(1, 1);
	plant_gaps(20, 200, 120);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	ALL_G(0, clock_events, CE_HW_THERMAL);
	ALL_G(0, sm_mhz, 1700);
	diagnose();
	CHECK(has("advise.input_pipeline"));
	CHECK(has("advise.throttled"));
	CHECK(pos("advise.input_pipeline") < pos("advise.throttled"));
}

static void test_small_work_launch_bound(void)
{
	/* tiny kernels: the GPU "utilised" half the time in gaps shorter than a sample, SM active
	 * 5 %, the main thread launching at 100 %: small work, not a sync point or the input */
	healthy(1, 1);
	ALL_G(0, util_pct, 45);
	ALL_G(0, sm_active_pct, 5);
	ALL_G(0, sm_occupancy_pct, 10);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	ALL_G(0, pcie_rx_bytes_s, 1000000);
	diagnose();
	CHECK(pos("advise.small_work") == 0);
	CHECK(fs.n == 1);
	CHECK(ev_has("advise.small_work", "launch-bound"));
	CHECK(ev_has("advise.small_work", "11 % of the utilised time"));
	CHECK(fix_has("advise.small_work", "larger batch"));
}

static void test_rank_small_work_claims_short_gaps(void)
{
	/* short regular gaps, the main thread busy, but the kernels fill a fifth of the SMs: the
	 * launches are the cause, ranked first, and no sync point is blamed besides */
	healthy(1, 1);
	plant_gaps(10, 100, 20);
	ALL_G(0, sm_active_pct, 20);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 4);
	ALL_H(workers_cpu_pct, 100);
	ALL_G(0, pcie_rx_bytes_s, 10000000);
	diagnose();
	CHECK(has("advise.small_work"));
	CHECK(pos("advise.small_work") == 0);
	CHECK(!has("advise.sync_points"));
}

static void test_starved_host_affinity(void)
{
	/* five runnable processes on one core shared with a hog: pressure high, machine idle */
	healthy(1, 1);
	ALL_G(0, util_pct, 30);
	ALL_H(cpu_pressure_pct, 90);
	ALL_H(host_busy_pct, 250);
	ALL_H(tree_cpu_pct, 50);
	ALL_H(main_thread_max_pct, 20);
	ALL_H(workers, 4);
	ALL_H(workers_busy, 4);
	ALL_H(workers_cpu_pct, 40);
	diagnose();
	CHECK(pos("advise.starved_host") == 0);
	CHECK(ev_has("advise.starved_host", "wait for a core"));
	CHECK(fix_has("advise.starved_host", "taskset -cp 4242"));
}

/* ---- as measured on an H200 (advise PID --duration 15, 100 ms ticks, GPM read, NVML's finer
 * samples not read: tl.util empty) ----------------------------------------------------------- */

/* Every tick: a field set from a repeating pattern (what real ticks look like: jitter around a
 * level; a thread's CPU moves in steps of 10 % at the kernel's 100 Hz over a 100 ms tick). */
#define CYCLE_H(field, ...)                                                                        \
	do {                                                                                       \
		static const int64_t v_[] = {__VA_ARGS__};                                         \
		size_t i_;                                                                         \
		for (i_ = 0; i_ < tl.nticks; i_++)                                                 \
			set(&tl.ticks[i_].h.field, v_[i_ % ARRAY_SIZE(v_)]);                       \
	} while (0)
#define CYCLE_G(gpu, field, ...)                                                                   \
	do {                                                                                       \
		static const int64_t v_[] = {__VA_ARGS__};                                         \
		size_t i_;                                                                         \
		for (i_ = 0; i_ < tl.nticks; i_++)                                                 \
			set(&tl.ticks[i_].g[gpu].field, v_[i_ % ARRAY_SIZE(v_)]);                  \
	} while (0)

static void test_h200_small_launch_bound_low_util(void)
{
	/* small.py: batch 8, tiny layers: utilisation a steady 12 % (some ticks under 10 %, none
	 * near 0), SM active about 1 %, the host loop launching at 100 % of a core, split over
	 * the main thread (forward, optimizer) and autograd's thread (backward), neither at 90 %;
	 * no workers, the link idle; the first finding was advise.unclear */
	healthy(1, 1);
	CYCLE_G(0, util_pct, 12, 9, 15, 11, 14, 8, 13, 10, 16, 12);
	CYCLE_G(0, sm_active_pct, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1);
	ALL_G(0, sm_occupancy_pct, 2);
	ALL_G(0, tensor_active_pct, 0);
	ALL_G(0, pcie_rx_bytes_s, 20000000);
	CYCLE_H(main_thread_max_pct, 60, 50, 60, 50, 60);
	CYCLE_H(main_cpu_pct, 100, 90, 100, 110, 100);
	CYCLE_H(tree_cpu_pct, 100, 90, 100, 110, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	ALL_H(workers_busy, 0);
	diagnose();
	CHECK(pos("advise.small_work") == 0);
	CHECK(!has("advise.unclear"));
	CHECK(!has("advise.input_pipeline"));
	CHECK(!has("advise.sync_points"));
	CHECK(ev_has("advise.small_work", "launch-bound"));
	CHECK(ev_has("advise.small_work", "steady"));
	CHECK(fix_has("advise.small_work", "larger batch"));
	CHECK(fix_has("advise.small_work", "reduce-overhead"));
	CHECK(fix_has("advise.small_work", "CUDA graphs"));
}

static void test_h200_sync_steady_ticks(void)
{
	/* sync.py: .item(), print, .cpu() and synchronize() every 19 ms step: utilisation 60-90 %
	 * in every tick (the gaps are inside each tick), SM active about 80 % of it, the main
	 * process at 70-90 % of a core (it launches, then waits in the sync) split over the main
	 * thread and autograd's, no workers (the data is on the GPU), the link quiet; the first
	 * finding was advise.unclear */
	healthy(1, 1);
	CYCLE_G(0, util_pct, 74, 68, 81, 77, 62, 85, 72, 79, 70, 76);
	CYCLE_G(0, sm_active_pct, 60, 55, 66, 62, 50, 69, 58, 64, 57, 61);
	ALL_G(0, pcie_rx_bytes_s, 30000000);
	CYCLE_H(main_thread_max_pct, 50, 60, 40, 50, 60);
	CYCLE_H(main_cpu_pct, 80, 90, 70, 80, 90);
	CYCLE_H(tree_cpu_pct, 80, 90, 70, 80, 90);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	ALL_H(workers_busy, 0);
	diagnose();
	CHECK(pos("advise.sync_points") == 0);
	CHECK(get("advise.sync_points")->sev == SEV_WARN);
	CHECK(!has("advise.unclear"));
	CHECK(!has("advise.small_work"));
	CHECK(!has("advise.input_pipeline"));
	/* the share lost is the idle time: 100 - 74 % utilisation */
	CHECK(ev_has("advise.sync_points", "estimated share of lost GPU time: 26 %"));
	CHECK(ev_has("advise.sync_points", "steady"));
	CHECK(fix_has("advise.sync_points", "set_sync_debug_mode(\"warn\")"));
	CHECK(fix_has("advise.sync_points", "profiler"));
	CHECK(!fix_has("advise.sync_points", "CUDA_LAUNCH_BLOCKING"));
}

static void test_h200_sync_vs_small_by_sm(void)
{
	/* the same steady 74 % with the main thread busy, but SM active a tenth of it: the
	 * launches are too small (advise.small_work), not a sync point */
	healthy(1, 1);
	CYCLE_G(0, util_pct, 74, 68, 81, 77, 62, 85, 72, 79, 70, 76);
	ALL_G(0, sm_active_pct, 7);
	ALL_G(0, pcie_rx_bytes_s, 30000000);
	CYCLE_H(main_thread_max_pct, 100, 90, 100, 110, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	diagnose();
	CHECK(pos("advise.small_work") == 0);
	CHECK(!has("advise.sync_points"));
	CHECK(!has("advise.unclear"));
}

static void test_h200_h2d_pageable_moderate_rate(void)
{
	/* h2d.py: a 77 MB pageable batch copied with a blocking .to("cuda") every 13.7 ms step:
	 * utilisation 23 %, PCIe receive 5.6 GB/s sustained (10 % of the 55 GB/s pinned peak: the
	 * 1 s counter averages the copy with the compute), the main thread at 100 % in the copy,
	 * no workers; the first finding was advise.input_pipeline */
	size_t i;

	healthy(1, 1);
	CYCLE_G(0, util_pct, 23, 21, 25, 22, 24, 23);
	CYCLE_G(0, sm_active_pct, 18, 16, 20, 17, 19, 18);
	ALL_G(0, pcie_rx_bytes_s, 5600000000LL);
	/* the first second: no earlier counter reading, no rate */
	for (i = 0; i < 10; i++)
		tl.ticks[i].g[0].pcie_rx_bytes_s.st = VAL_NA;
	CYCLE_H(main_thread_max_pct, 100, 90, 100, 110, 100);
	ALL_H(main_cpu_pct, 100);
	ALL_H(tree_cpu_pct, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	diagnose();
	CHECK(pos("advise.h2d_copies") == 0);
	CHECK(!has("advise.input_pipeline"));
	CHECK(!has("advise.unclear"));
	CHECK(ev_has("advise.h2d_copies", "5.6 GB/s"));
	CHECK(ev_has("advise.h2d_copies", "pageable"));
	CHECK(ev_has("advise.h2d_copies", "main process's busiest thread"));
	CHECK(fix_has("advise.h2d_copies", "pin_memory"));
	CHECK(fix_has("advise.h2d_copies", "non_blocking=True"));
}

static void test_h2d_moderate_rate_peak_unknown(void)
{
	/* the same with the link's rate unknown (no peak, no generation or width read) */
	healthy(1, 1);
	tl.gpus[0].pcie_peak_bytes_s.st = VAL_NA;
	tl.gpus[0].pcie_gen.st = tl.gpus[0].pcie_max_gen.st = VAL_NA;
	ALL_G(0, util_pct, 23);
	ALL_G(0, pcie_rx_bytes_s, 5600000000LL);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	diagnose();
	CHECK(pos("advise.h2d_copies") == 0);
	CHECK(!has("advise.input_pipeline"));
	CHECK(ev_has("advise.h2d_copies", "unknown"));
}

static void test_h2d_saturated_workers_stay_input(void)
{
	/* a loader whose workers are saturated also moves its batches (4 GB/s): more workers is
	 * the fix, the copies are not what the GPU waits for */
	healthy(1, 1);
	ALL_G(0, util_pct, 45);
	ALL_G(0, pcie_rx_bytes_s, 4000000000LL);
	ALL_H(workers, 4);
	ALL_H(workers_cpu_pct, 395);
	diagnose();
	CHECK(pos("advise.input_pipeline") == 0);
	CHECK(ev_has("advise.input_pipeline", "saturated"));
	CHECK(!has("advise.h2d_copies"));
}

static void test_input_coarse_low_util_stays_input(void)
{
	/* input.py on 100 ms ticks: a 160 ms batch prepared on one core, then a few ms of
	 * full-size kernels: utilisation low and fairly steady too, but the SMs full while a
	 * kernel runs: the input pipeline, not launch-bound small work */
	healthy(1, 1);
	CYCLE_G(0, util_pct, 8, 0, 12, 6, 0, 10, 8, 0, 14, 6);
	CYCLE_G(0, sm_active_pct, 6, 0, 10, 5, 0, 8, 6, 0, 11, 5);
	ALL_G(0, pcie_rx_bytes_s, 300000000);
	CYCLE_H(main_thread_max_pct, 100, 90, 100, 110, 100);
	ALL_H(main_cpu_pct, 100);
	ALL_H(tree_cpu_pct, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	diagnose();
	CHECK(pos("advise.input_pipeline") == 0);
	CHECK(!has("advise.small_work"));
	CHECK(!has("advise.sync_points"));
}

static void test_h200_healthy_ok_only(void)
{
	/* healthy.py: a convnet on batches already on the GPU, utilisation 98-100 %, SM active
	 * about 88 %, the main thread at 100 % (it runs ahead and waits for room in the launch
	 * queue), no workers, the link quiet, at the power cap a little below max clock */
	healthy(1, 1);
	CYCLE_G(0, util_pct, 99, 100, 98, 100, 99);
	CYCLE_G(0, sm_active_pct, 88, 90, 86, 89, 87);
	ALL_G(0, sm_occupancy_pct, 30);
	ALL_G(0, pcie_rx_bytes_s, 20000000);
	ALL_G(0, clock_events, CE_SW_POWER_CAP);
	CYCLE_G(0, sm_mhz, 1755, 1830, 1785, 1980, 1800);
	ALL_G(0, power_mw, 698000);
	CYCLE_H(main_thread_max_pct, 100, 90, 100, 110, 100);
	ALL_H(workers, 0);
	ALL_H(workers_cpu_pct, 0);
	ALL_H(workers_busy, 0);
	diagnose();
	CHECK(fs.n == 1);
	CHECK(has("advise.ok"));
	CHECK(worst == SEV_OK);
}

static void test_rank_oom_soon_first(void)
{
	size_t i;

	healthy(1, 1);
	plant_gaps(20, 200, 120);
	ALL_H(main_thread_max_pct, 100);
	ALL_H(workers, 0);
	for (i = 0; i < tl.nticks; i++)
		set(&tl.ticks[i].g[0].job_mem_bytes, 100 * GIB + (int64_t)i * 20 * MIB);
	diagnose();
	CHECK(has("advise.input_pipeline"));
	CHECK(has("advise.memory_growth"));
	CHECK(pos("advise.memory_growth") == 0);
}

int main(void)
{
	RUN(test_healthy_ok_alone);
	RUN(test_noise_steady_pcie_busy);
	RUN(test_noise_gpm_unread);
	RUN(test_noise_power_cap_at_full_load);
	RUN(test_noise_allocator_warmup);
	RUN(test_input_pipeline_no_workers);
	RUN(test_input_pipeline_saturated_workers);
	RUN(test_input_pipeline_generic_words);
	RUN(test_input_io);
	RUN(test_sync_points);
	RUN(test_sync_points_no_workers_data_on_gpu);
	RUN(test_h2d_pageable);
	RUN(test_h2d_link_bound_peak_from_link);
	RUN(test_throttled_thermal);
	RUN(test_small_work);
	RUN(test_memory_full);
	RUN(test_memory_growth_leak);
	RUN(test_gpus_idle);
	RUN(test_nccl_wait_straggler);
	RUN(test_gpus_unused_info);
	RUN(test_cpu_work);
	RUN(test_starved_host_quota);
	RUN(test_starved_host_crowded);
	RUN(test_unclear_names_the_profilers);
	RUN(test_no_samples);
	RUN(test_too_short_at_1000_ms);
	RUN(test_util_unreadable_mig);
	RUN(test_unread_never_zero);
	RUN(test_rank_pipeline_before_throttle);
	RUN(test_small_work_launch_bound);
	RUN(test_starved_host_affinity);
	RUN(test_rank_small_work_claims_short_gaps);
	RUN(test_rank_oom_soon_first);
	RUN(test_h200_small_launch_bound_low_util);
	RUN(test_h200_sync_steady_ticks);
	RUN(test_h200_sync_vs_small_by_sm);
	RUN(test_h200_h2d_pageable_moderate_rate);
	RUN(test_h2d_moderate_rate_peak_unknown);
	RUN(test_h2d_saturated_workers_stay_input);
	RUN(test_input_coarse_low_util_stays_input);
	RUN(test_h200_healthy_ok_only);
	reset();
	return TEST_DONE();
}
