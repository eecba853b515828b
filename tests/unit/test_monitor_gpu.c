/*
 * test_monitor_gpu.c: the GPU side of the live monitor: per-process utilisation samples
 * (time stamp, PID and range filters), rates from counters, the topology matrix text, and,
 * through the fake NVML of a replay, buffers that grow when NVML has more processes or samples
 * than the first buffer holds, and the collector end to end.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/collector.h"
#include "gpu/probe.h"
#include "gpu/procutil.h"
#include "gpu/topo.h"
#include "replay/replay.h"
#include "test.h"
#include "testpaths.h"
#include "tui/columns.h"
#include "util/util.h"

static struct num ok(int64_t v)
{
	struct num n;

	memset(&n, 0, sizeof(n));
	num_set(&n, v);
	return n;
}

static void test_samples_filtered(void)
{
	const uint64_t now = 1700000000000000ULL;
	const struct proc_util_sample s[] = {
		{100, now - 100000, 80, 40, 0, 0},     /* kept */
		{100, now - 300000, 60, 20, 0, 0},     /* kept: averaged with the first */
		{100, now - 90000, 37100, 0, 0, 0},    /* value out of range */
		{200, now - 100000, 50, 10, 0, 0},     /* PID not in the list */
		{100, now + 60000000, 99, 0, 0, 0},    /* a minute in the future */
		{100, now - 5000000, 10, 0, 0, 0},     /* before the window */
		{300, now - 100000, 0, 0, 5, 7},       /* kept */
	};
	const unsigned pids[] = {100, 300, 400};
	struct procutil_window w = {0, now, 1000000, 2000000};
	struct proc_util out[3];
	uint64_t newest;
	unsigned dropped;
	size_t n = procutil_filter(s, ARRAY_SIZE(s), pids, ARRAY_SIZE(pids), &w, out, &newest,
				   &dropped);

	CHECK(n == 2);
	CHECK(out[0].pid == 100 && out[0].sm_pct == 70 && out[0].mem_pct == 30 &&
	      out[0].nsamples == 2);
	CHECK(out[1].pid == 300 && out[1].sm_pct == 0 && out[1].enc_pct == 5 && out[1].dec_pct == 7);
	CHECK(dropped == 4);
	/* the window moves to the newest fresh sample, never into the future */
	CHECK(newest == now - 90000);

	/* the next call: only what is newer than last time */
	w.last_seen_us = newest;
	n = procutil_filter(s, ARRAY_SIZE(s), pids, ARRAY_SIZE(pids), &w, out, &newest, &dropped);
	CHECK(n == 0);
	CHECK(newest == now - 90000);
	/* nothing at all */
	n = procutil_filter(NULL, 0, pids, ARRAY_SIZE(pids), &w, out, &newest, &dropped);
	CHECK(n == 0 && dropped == 0);
}

static void test_rates(void)
{
	struct num a = ok(1000), b = ok(3000), bad;
	double r = -1;

	memset(&bad, 0, sizeof(bad));
	bad.st = VAL_NA;
	CHECK(rate_per_s(&a, 1000000000LL, &b, 3000000000LL, &r) && r == 1000.0);
	/* a counter that went backwards (driver reload) gives no rate */
	CHECK(!rate_per_s(&b, 1000000000LL, &a, 3000000000LL, &r));
	CHECK(!rate_per_s(&a, 3000000000LL, &b, 3000000000LL, &r));
	CHECK(!rate_per_s(&bad, 1000000000LL, &b, 3000000000LL, &r));
	/* a 32-bit counter that wrapped between readings: 5 GB/s over 200 ms read right */
	a = ok(4000000000LL);
	b = ok(4000000000LL + 1000000000LL - 4294967296LL);
	CHECK(rate_per_s_wrap32(&a, 0, &b, 200000000LL, &r) && r > 4.99e9 && r < 5.01e9);
	CHECK(!rate_per_s(&a, 0, &b, 200000000LL, &r));
	/* ... and one that did not wrap, or a 64-bit counter that went back: as rate_per_s */
	b = ok(4100000000LL);
	CHECK(rate_per_s_wrap32(&a, 0, &b, 1000000000LL, &r) && r == 100000000.0);
	a = ok(6000000000LL);
	b = ok(5000000000LL);
	CHECK(!rate_per_s_wrap32(&a, 0, &b, 1000000000LL, &r));
	/* 0.25 s throttled per second */
	a = ok(0);
	b = ok(500000000);
	CHECK(rate_busy_pct(&a, 0, &b, 2000000000LL, &r) && r > 24.99 && r < 25.01);
	b = ok(5000000000LL);
	CHECK(rate_busy_pct(&a, 0, &b, 2000000000LL, &r) && r == 100.0);
	CHECK(rate_cpu_pct(100, 300, 1000000000LL, 100) == 200.0);
	CHECK(rate_cpu_pct(300, 100, 1000000000LL, 100) == 0.0);
}

static struct gpu_system fake_sys(unsigned n)
{
	struct gpu_system sys;
	unsigned i;

	memset(&sys, 0, sizeof(sys));
	sys.ngpus = n;
	sys.gpus = xcalloc(n, sizeof(*sys.gpus));
	for (i = 0; i < n; i++) {
		sys.gpus[i].index = i;
		str_fmt(sys.gpus[i].st.bus_id.s, sizeof(sys.gpus[i].st.bus_id.s), "00000000:%02X:00.0",
			0x10 + i);
		sys.gpus[i].st.bus_id.st = VAL_OK;
		str_copy(sys.gpus[i].st.cpu_affinity.s, i < 2 ? "0-15" : "16-31",
			 sizeof(sys.gpus[i].st.cpu_affinity.s));
		sys.gpus[i].st.cpu_affinity.st = VAL_OK;
		sys.gpus[i].st.numa_node.st = VAL_NA;
	}
	return sys;
}

static void link_to(struct topo *t, unsigned from, unsigned l, const char *bus)
{
	struct topo_link *lk = &t->gpus[from].links[l];

	lk->active = ok(1);
	lk->version = ok(6);
	lk->speed_mbytes_s = ok(26562);
	str_copy(lk->remote_bus.s, bus, sizeof(lk->remote_bus.s));
	lk->remote_bus.st = VAL_OK;
	if (t->gpus[from].nlinks < l + 1)
		t->gpus[from].nlinks = l + 1;
}

static void test_topo_matrix(void)
{
	struct gpu_system sys = fake_sys(4);
	struct topo t;
	struct strbuf sb;
	char cell[16];
	unsigned l, i, j;

	topo_init(&t, 4);
	/* 0 and 1: 12 links; 0 and 2 share a PCIe switch; 3 is on the other socket; one link of
	 * GPU 2 goes to an NVSwitch */
	for (l = 0; l < 12; l++) {
		link_to(&t, 0, l, "0000:11:00.0");
		link_to(&t, 1, l, "00000000:10:00.0");
	}
	link_to(&t, 2, 0, "00000000:AA:00.0");
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			if (i != j)
				*topo_ancestor(&t, i, j) = ok(i == 3 || j == 3 ? 50 : (i + j == 2 ? 20 : 30));
	*topo_p2p(&t, 0, 1, TOPO_P2P_READ) = ok(0);
	*topo_p2p(&t, 0, 1, TOPO_P2P_WRITE) = ok(0);
	*topo_p2p(&t, 0, 3, TOPO_P2P_READ) = ok(3);
	topo_count_links(&t, &sys);
	CHECK(t.nvlinks[0 * 4 + 1] == 12 && t.nvlinks[1 * 4 + 0] == 12);
	CHECK(t.gpus[2].links[0].remote_gpu == -1);
	CHECK_STR(topo_cell(&t, 0, 0, cell, sizeof(cell)), "X");
	CHECK_STR(topo_cell(&t, 0, 1, cell, sizeof(cell)), "NV12");
	CHECK_STR(topo_cell(&t, 0, 2, cell, sizeof(cell)), "PXB");
	CHECK_STR(topo_cell(&t, 1, 2, cell, sizeof(cell)), "PHB");
	CHECK_STR(topo_cell(&t, 2, 3, cell, sizeof(cell)), "SYS");
	CHECK_STR(topo_p2p_word(topo_p2p(&t, 0, 3, TOPO_P2P_READ)), "TNS");
	CHECK_STR(topo_nvlink_version(&t.gpus[0].links[0].version), "4.0");
	CHECK(topo_gen_from_speed("32.0 GT/s PCIe") == 5);
	CHECK(topo_gen_from_speed("2.5 GT/s PCIe") == 1);
	CHECK(topo_gen_from_speed("Unknown") == -1);

	sb_init(&sb);
	topo_format(&t, &sys, NULL, &sb);
	CHECK(strstr(sb.buf, "       GPU0  GPU1  GPU2  GPU3  CPU Affinity    NUMA Affinity  GPU NUMA ID\n"));
	CHECK(strstr(sb.buf, "GPU0   X     NV12  PXB   SYS   0-15            N/A            N/A\n"));
	CHECK(strstr(sb.buf, "GPU3   SYS   SYS   SYS   X     16-31           N/A            N/A\n"));
	CHECK(strstr(sb.buf, "  NV#  = Connection traversing a bonded set of # NVLinks\n"));
	CHECK(strstr(sb.buf, "  PIX  = Connection traversing at most a single PCIe bridge\n"));
	CHECK(strstr(sb.buf, "GPU0        0-11   up     4.0      26.562 GB/s   GPU1\n"));
	CHECK(strstr(sb.buf, "00000000:AA:00.0 (not a GPU)"));
	CHECK(strstr(sb.buf, "GPU0 -> GPU3 read: TNS"));
	CHECK(strstr(sb.buf, "rw--"));
	sb_release(&sb);
	topo_free(&t);
	free(sys.gpus);
}

/* Pairs NVML gave no answer for: the PCIe level from sysfs paths, NV# from unknown far ends. */
static void test_topo_derived(void)
{
	struct gpu_system sys = fake_sys(4);
	struct topo t;
	struct strbuf sb;
	char cell[16];
	bool shown[4] = {true, false, true, false};
	unsigned l, i;
	enum topo_from from;

	/* both below one switch, under two switches, at the root bus, across host bridges */
	CHECK(topo_level_from_paths("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0",
				    "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0",
				    -1, -1, NULL, NULL) == 10);
	CHECK(topo_level_from_paths("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/0000:04:00.0/0000:05:00.0",
				    "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:06:00.0",
				    -1, -1, NULL, NULL) == 20);
	CHECK(topo_level_from_paths("/sys/devices/pci0000:00/0000:00:06.0",
				    "/sys/devices/pci0000:00/0000:00:07.0", -1, -1, NULL, NULL) == 30);
	CHECK(topo_level_from_paths("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
				    "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", 0, 0, NULL,
				    NULL) == 40);
	CHECK(topo_level_from_paths("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
				    "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", 0, 1, NULL,
				    NULL) == 50);
	CHECK(topo_level_from_paths("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
				    "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", -1, -1,
				    "0-15", "16-31") == 50);
	CHECK(topo_level_from_paths("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0",
				    "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", -1, -1, NULL,
				    NULL) == -1);
	/* a VM's ACPI folders above the host bridge */
	CHECK(topo_level_from_paths("/sys/devices/LNXSYSTM:00/LNXSYBUS:00/pci0000:00/0000:00:06.0",
				    "/sys/devices/LNXSYSTM:00/LNXSYBUS:00/pci0000:00/0000:00:07.0", -1,
				    -1, NULL, NULL) == 30);
	CHECK(topo_level_from_paths("/sys/devices/platform/foo", "/sys/devices/pci0000:00/0000:00:07.0",
				    -1, -1, NULL, NULL) == -1);

	/* 18 links up on each GPU, far ends not read; GPUs 0-2 joined the fabric, 3 did not */
	topo_init(&t, 4);
	for (i = 0; i < 4; i++) {
		for (l = 0; l < 18; l++) {
			t.gpus[i].links[l].active = ok(1);
			t.gpus[i].links[l].remote_bus.st = VAL_NA;
		}
		t.gpus[i].nlinks = 18;
		sys.gpus[i].s.fabric_state = ok(i < 3 ? FABRIC_STATE_COMPLETED : FABRIC_STATE_IN_PROGRESS);
		sys.gpus[i].s.fabric_status = ok(0);
	}
	t.sysfs_level[0 * 4 + 3] = t.sysfs_level[3 * 4 + 0] = 30;
	topo_count_links(&t, &sys);
	CHECK_STR(topo_cell(&t, 0, 2, cell, sizeof(cell)), "NV18");
	CHECK(topo_cell_from(&t, 0, 2) == TOPO_FROM_FABRIC);
	CHECK_STR(topo_cell(&t, 0, 3, cell, sizeof(cell)), "PHB");
	CHECK(topo_cell_from(&t, 0, 3) == TOPO_FROM_SYSFS);
	CHECK(topo_pcie_word(&t, 0, 3, &from) && from == TOPO_FROM_SYSFS);
	CHECK_STR(topo_cell(&t, 1, 3, cell, sizeof(cell)), "n/a");
	CHECK(topo_cell_from(&t, 1, 3) == TOPO_FROM_NONE);
	/* NVML's P2P answer wins over the fabric */
	*topo_p2p(&t, 0, 1, TOPO_P2P_NVLINK) = ok(5);
	topo_count_links(&t, &sys);
	CHECK_STR(topo_cell(&t, 0, 1, cell, sizeof(cell)), "n/a");
	CHECK(topo_cell_from(&t, 1, 0) == TOPO_FROM_FABRIC);
	sb_init(&sb);
	topo_format(&t, &sys, shown, &sb);
	CHECK(strstr(sb.buf, "       GPU0  GPU2  CPU Affinity"));
	CHECK(strstr(sb.buf, "GPU0   X     NV18* 0-15 "));
	CHECK(strstr(sb.buf, "both GPUs joined one NVLink fabric"));
	CHECK(!strstr(sb.buf, "GPU1 "));
	CHECK(!strstr(sb.buf, "GPU3"));
	sb_release(&sb);
	topo_free(&t);

	/* no fabric, no P2P: the only two GPUs with links, as many on each */
	topo_init(&t, 4);
	for (i = 1; i < 3; i++) {
		for (l = 0; l < 4; l++) {
			t.gpus[i].links[l].active = ok(1);
			t.gpus[i].links[l].remote_bus.st = VAL_NA;
		}
		t.gpus[i].nlinks = 4;
		sys.gpus[i].s.fabric_state.st = VAL_NA;
	}
	topo_count_links(&t, &sys);
	CHECK_STR(topo_cell(&t, 1, 2, cell, sizeof(cell)), "NV4");
	CHECK(topo_cell_from(&t, 2, 1) == TOPO_FROM_ONLY_PAIR);
	CHECK_STR(topo_cell(&t, 0, 1, cell, sizeof(cell)), "n/a");
	/* a third GPU with links: nothing says which pairs they join */
	t.gpus[0].links[0].active = ok(1);
	t.gpus[0].links[0].remote_bus.st = VAL_NA;
	t.gpus[0].nlinks = 1;
	topo_count_links(&t, &sys);
	CHECK_STR(topo_cell(&t, 1, 2, cell, sizeof(cell)), "n/a");
	topo_free(&t);
	free(sys.gpus);
}

static void test_columns(void)
{
	struct column c;

	CHECK(column_find("pwr", &c) && c.kind == COL_NUM && c.need_fast == PF_POWER);
	CHECK(column_find("rxpci", &c) && c.need_slow);
	CHECK(column_find("smact", &c) && c.need_gpm && c.json_div == 1000);
	CHECK(column_find("utilization.gpu", &c) && c.kind == COL_FIELD && c.need_fast == PF_UTIL);
	CHECK(column_find("ecc.errors.uncorrected.volatile.total", &c) && c.need_slow);
	CHECK(column_find("clocks_throttle_reasons.hw_slowdown", &c) && c.need_fast == PF_CLOCK_EVENTS);
	CHECK(!column_find("nonsense", &c));
}

static void test_buffers_grow(void)
{
	char top[PATH_MAX], libdir[PATH_MAX], scen[PATH_MAX + 64];
	struct gpu_system sys;
	struct probe *p = NULL;
	struct gpu_sample s;
	struct proc_util_sample *smp = NULL;
	struct num st;
	struct err e;
	size_t n = 0;

	test_paths(top, sizeof(top), libdir, sizeof(libdir));
	setenv("GPUVET_REPLAY_LIBDIR", libdir, 1);
	str_fmt(scen, sizeof(scen), "%s/tests/scenarios/monitor/manyprocs.json", top);
	memset(&sys, 0, sizeof(sys));
	memset(&s, 0, sizeof(s));
	err_clear(&e);
	CHECK(replay_start(scen, &e) == 0);
	CHECK(probe_open(&p, &sys, PROBE_NVML | PROBE_STATIC, &e) == 0);
	CHECK(sys.ngpus == 2);
	/* 20 processes: more than the 8 slots of the first call */
	CHECK(probe_sample_gpu(p, &sys.gpus[0], PROBE_PROCS, &s) == 0);
	CHECK(s.procs_len == 20);
	CHECK(s.procs[0].pid == 7001 && s.procs[19].pid == 7020);
	CHECK(s.procs[5].mem_bytes == 1024LL * 1024 * 1024);
	/* 100 samples: sized by the driver's answer */
	probe_process_util(p, &sys.gpus[0], 0, &smp, &n, &st);
	CHECK(num_ok(&st));
	CHECK(n == 100);
	CHECK(smp[0].pid == 7001 && smp[0].sm_pct == 10);
	free(smp);
	/* nothing newer than a time stamp in the future: success with no samples */
	probe_process_util(p, &sys.gpus[0], UINT64_MAX / 2, &smp, &n, &st);
	CHECK(num_ok(&st) && n == 0 && !smp);
	/* GPU 1 has an empty ring */
	probe_process_util(p, &sys.gpus[1], 0, &smp, &n, &st);
	CHECK(num_ok(&st) && n == 0);
	free(s.procs);
	probe_close(p);
	gpu_system_free(&sys);
	replay_finish();
}

static void test_collector_end_to_end(void)
{
	char top[PATH_MAX], libdir[PATH_MAX], scen[PATH_MAX + 64];
	struct mon_opts o;
	struct collector *c = NULL;
	struct mon_snapshot s;
	struct err e;
	size_t i, on0 = 0;
	uint64_t seq = 0, got;
	int64_t deadline;

	test_paths(top, sizeof(top), libdir, sizeof(libdir));
	setenv("GPUVET_REPLAY_LIBDIR", libdir, 1);
	str_fmt(scen, sizeof(scen), "%s/tests/scenarios/monitor/manyprocs.json", top);
	err_clear(&e);
	CHECK(replay_start(scen, &e) == 0);
	memset(&o, 0, sizeof(o));
	/* a tick longer than the samples' ages (50-149 ms), so the first look-back sees them */
	o.fast_ns = 200000000;
	o.slow_ns = 200000000;
	o.procs = true;
	o.gpm = true;
	CHECK(collector_open(&c, &o, &e) == 0);
	memset(&s, 0, sizeof(s));
	/* three ticks of 200 ms. Every wait is bounded: a collector that stalls, stops or never
	 * publishes fails here within 20 s instead of hanging the suite (collector_wait returns at
	 * once on a stalled or stopped collector: pause before asking again). */
	deadline = now_ns() + 20LL * 1000000000LL;
	while (seq < 3 && now_ns() < deadline) {
		got = collector_wait(c, seq, 1000);
		if (got == seq)
			usleep(50000);
		seq = got;
	}
	collector_copy(c, &s);
	if (s.seq < 3)
		printf("collector: %llu snapshots in 20 s, stalled %d\n", (unsigned long long)s.seq,
		       (int)s.stalled);
	CHECK(s.seq >= 3);
	CHECK(s.ngpus == 2);
	for (i = 0; i < s.nprocs; i++) {
		if (s.procs[i].gpu != 0)
			continue;
		on0++;
		if (!(s.procs[i].sm_pct >= 10 && s.procs[i].sm_pct <= 29))
			printf("pid %u sm %d\n", s.procs[i].nvml_pid, s.procs[i].sm_pct);
		CHECK(s.procs[i].sm_pct >= 10 && s.procs[i].sm_pct <= 29);
		CHECK(!s.procs[i].mapped); /* no /proc entries in this scenario */
	}
	CHECK(on0 == 20);
	CHECK(strstr(s.note, "20 GPU processes are not visible"));
	CHECK(num_ok(&s.gpus[0].gpm_supported) && s.gpus[0].gpm_supported.v == 1);
	CHECK(s.cost.fast_ticks >= 3 && s.cost.gpu_samples >= 6 && s.cost.fast_cpu_ns > 0);
	CHECK(!s.gpus[0].lost && !s.gpus[1].lost && !s.stalled);
	mon_snapshot_free(&s);
	collector_close(c);
	replay_finish();
}

int main(void)
{
	RUN(test_samples_filtered);
	RUN(test_rates);
	RUN(test_topo_matrix);
	RUN(test_topo_derived);
	RUN(test_columns);
	RUN(test_buffers_grow);
	RUN(test_collector_end_to_end);
	return TEST_DONE();
}
