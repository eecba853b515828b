/*
 * test_backend_intel.c: the Intel backend (gpu/intel.c) on the constructed machines of
 * tests/scenarios/sysfs/ (an Arc A770 on i915 beside an integrated GPU, a Max 1550 on xe),
 * replayed as `gpuvet --replay FILE` does: which cards sysgpu_scan finds, the static facts and
 * samples with their evidence and n/a cases, power from the energy counter (first sample, a
 * wrap, a reset, a counter root alone may read); and the utilisation from two constructed
 * readings of DRM clients (i915's busy nanoseconds, xe's cycles, clients that opened, closed
 * or went back between the readings).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/backend.h"
#include "gpu/intel.h"
#include "gpu/probe.h"
#include "replay/replay.h"
#include "sysfsmachine.h"
#include "test.h"
#include "testpaths.h"
#include "util/util.h"

/* the fast groups read from files (utilisation needs /proc, which these machines lack) */
#define FILE_GROUPS (PF_ALL & ~PF_UTIL)

static bool from(const struct num *n, const char *call)
{
	return n->call && strcmp(n->call, call) == 0 && n->lib == LIB_HOST;
}

static bool na(const struct num *n)
{
	return n->st == VAL_NA && n->reason == REASON_NOT_SUPPORTED;
}

static void test_a770_scan(void)
{
	struct sysgpu *g = NULL;
	size_t n = open_machine("intel-arc-a770.json", &g);

	/* the integrated GPU is a GPU too, listed first in bus order, not taken for the Arc */
	CHECK(n == 2);
	CHECK_STR(g[0].bdf, "0000:00:02.0");
	CHECK_STR(g[0].card, "card0");
	CHECK(g[0].be == &backend_i915);
	CHECK(g[0].device_id == 0xa780 && g[0].vendor_id == 0x8086);
	CHECK(g[0].hwmon[0] == 0);
	CHECK_STR(g[1].bdf, "0000:03:00.0");
	CHECK_STR(g[1].card, "card1");
	CHECK(g[1].be == &backend_i915);
	CHECK(g[1].device_id == 0x56a0);
	CHECK(g[1].hwmon[0] != 0);
	CHECK_STR(g[1].render, "/dev/dri/renderD129");
	close_machine(g, n);
}

static void test_a770_static(void)
{
	struct sysgpu *g = NULL;
	size_t n = open_machine("intel-arc-a770.json", &g);
	struct gpu_static arc, igpu;

	CHECK(n == 2);
	memset(&arc, 0, sizeof(arc));
	memset(&igpu, 0, sizeof(igpu));
	g[1].be->read_static(&g[1], &arc, PROBE_STATIC | PROBE_STATIC_SLOW);
	g[0].be->read_static(&g[0], &igpu, PROBE_STATIC | PROBE_STATIC_SLOW);
	CHECK_STR(arc.name.s, "Intel Arc A770");
	CHECK_STR(arc.bus_id.s, "0000:03:00.0");
	CHECK_STR(arc.driver.s, "i915");
	CHECK(num_ok(&arc.pci_device_id) && arc.pci_device_id.v == 0x56a08086);
	CHECK(num_ok(&arc.pci_subsystem_id) && arc.pci_subsystem_id.v == 0x10208086);
	/* i915 keeps these in the card folder, not under device/ */
	CHECK(num_ok(&arc.mem_total_bytes) && arc.mem_total_bytes.v == 16LL << 30);
	CHECK(from(&arc.mem_total_bytes, "lmem_total_bytes"));
	CHECK(num_ok(&arc.clock_max_gr_mhz) && arc.clock_max_gr_mhz.v == 2400);
	CHECK(from(&arc.clock_max_gr_mhz, "gt_RP0_freq_mhz"));
	/* hwmon's microwatts in milliwatts */
	CHECK(num_ok(&arc.power_limit_mw) && arc.power_limit_mw.v == 190000);
	CHECK(from(&arc.power_limit_mw, "power1_max"));
	CHECK(num_ok(&arc.power_default_mw) && arc.power_default_mw.v == 225000);
	CHECK(from(&arc.power_default_mw, "power1_rated_max"));
	/* the slot's Gen4 x16 from the card's switch, not the GPU's own 2.5 GT/s x1 */
	CHECK(num_ok(&arc.pcie_gen_max) && arc.pcie_gen_max.v == 4);
	CHECK(num_ok(&arc.pcie_width_max) && arc.pcie_width_max.v == 16);
	/* numa_node -1: no NUMA, n/a rather than node -1 */
	CHECK(na(&arc.numa_node));
	CHECK_STR(arc.cpu_affinity.s, "0-23");
	CHECK(arc.ecc_current.st == VAL_UNSET);

	CHECK_STR(igpu.name.s, "Intel GPU [8086:a780]");
	CHECK_STR(igpu.driver.s, "i915");
	/* integrated: system memory, no hwmon, no PCIe link; n/a, never 0 */
	CHECK(na(&igpu.mem_total_bytes) && from(&igpu.mem_total_bytes, "lmem_total_bytes"));
	CHECK(na(&igpu.power_limit_mw));
	CHECK(na(&igpu.pcie_gen_max));
	CHECK(num_ok(&igpu.clock_max_gr_mhz) && igpu.clock_max_gr_mhz.v == 1650);
	close_machine(g, n);
}

static void test_a770_fast(void)
{
	struct sysgpu *g = NULL;
	size_t n = open_machine("intel-arc-a770.json", &g);
	struct gpu_sample s, si;
	unsigned unsup = 0, unsup_igpu = 0;

	CHECK(n == 2);
	memset(&s, 0, sizeof(s));
	memset(&si, 0, sizeof(si));
	g[1].be->read_fast(&g[1], FILE_GROUPS, &unsup, &s);
	CHECK(num_ok(&s.clock_gr_mhz) && s.clock_gr_mhz.v == 2100);
	CHECK(from(&s.clock_gr_mhz, "gt_act_freq_mhz"));
	CHECK(num_ok(&s.clock_sm_mhz) && s.clock_sm_mhz.v == 2100);
	CHECK(num_ok(&s.pcie_gen) && s.pcie_gen.v == 4);
	CHECK(num_ok(&s.pcie_width) && s.pcie_width.v == 16);
	/* the first sample took a second reading 20 ms later; a counter that did not move (a
	 * replay's files never do) says nothing: n/a, not 0 W, and the reading is kept */
	CHECK(na(&s.power_mw) && from(&s.power_mw, "energy1_input"));
	CHECK(g[1].energy_uj_prev == 123456789012ULL && g[1].energy_t_prev != 0);
	CHECK(!(unsup & PF_POWER));
	/* nor on the next sample, a second later: still n/a, not 0 W */
	g[1].energy_t_prev -= 1000000000;
	memset(&s, 0, sizeof(s));
	g[1].be->read_fast(&g[1], PF_POWER, NULL, &s);
	CHECK(na(&s.power_mw) && from(&s.power_mw, "energy1_input"));
	memset(&s, 0, sizeof(s));
	g[1].be->read_fast(&g[1], FILE_GROUPS, &unsup, &s);
	/* i915 on 6.8 has no hwmon temperature and no fan duty cycle */
	CHECK(na(&s.temp_c) && (unsup & PF_TEMP));
	CHECK(na(&s.fan_pct) && (unsup & PF_FAN));
	CHECK(na(&s.mem_used_bytes) && (unsup & PF_MEMORY));
	CHECK(unsup & PF_CLOCK_MEM);
	CHECK(!(unsup & (PF_CLOCK_GR | PF_PCIE_GEN | PF_PCIE_WIDTH)));

	/* one second after a reading 1 J lower: 1 W */
	g[1].energy_uj_prev = 123456789012ULL - 1000000;
	g[1].energy_t_prev = now_ns() - 1000000000;
	memset(&s, 0, sizeof(s));
	g[1].be->read_fast(&g[1], PF_POWER, NULL, &s);
	CHECK(num_ok(&s.power_mw) && s.power_mw.v >= 990 && s.power_mw.v <= 1000);
	CHECK(from(&s.power_mw, "energy1_input"));

	/* a counter far above the current one went back (the driver reloaded): no power from
	 * it, and the current reading becomes the next one's start */
	g[1].energy_uj_prev = 123456789012ULL + 1000000000000ULL;
	g[1].energy_t_prev = now_ns() - 1000000000;
	memset(&s, 0, sizeof(s));
	g[1].be->read_fast(&g[1], PF_POWER, NULL, &s);
	CHECK(s.power_mw.st != VAL_OK);
	CHECK(g[1].energy_uj_prev == 123456789012ULL);

	/* the integrated GPU: asleep at 0 MHz is a value; no hwmon, so no power */
	g[0].be->read_fast(&g[0], FILE_GROUPS, &unsup_igpu, &si);
	CHECK(num_ok(&si.clock_gr_mhz) && si.clock_gr_mhz.v == 0);
	CHECK(na(&si.power_mw) && (unsup_igpu & PF_POWER));
	CHECK(na(&si.pcie_gen) && (unsup_igpu & PF_PCIE_GEN));
	close_machine(g, n);
}

static void test_a770_energy_root_only(void)
{
	struct sysgpu *g = NULL;
	size_t n = open_machine("intel-arc-a770-energy-root.json", &g);
	struct gpu_sample s;
	struct num e;
	unsigned unsup = 0;

	CHECK(n == 2);
	memset(&s, 0, sizeof(s));
	memset(&e, 0, sizeof(e));
	g[1].be->read_fast(&g[1], PF_POWER, &unsup, &s);
	CHECK(s.power_mw.st == VAL_ERR && s.power_mw.reason == REASON_NO_PERMISSION);
	CHECK(s.power_mw.rc == -EACCES && from(&s.power_mw, "energy1_input"));
	/* an error is not "unsupported": the next sample asks again */
	CHECK(!(unsup & PF_POWER));
	g[1].be->read_energy(&g[1], &e);
	CHECK(e.st == VAL_ERR && from(&e, "energy1_input"));
	close_machine(g, n);
}

static void test_max1550(void)
{
	struct sysgpu *g = NULL;
	size_t n = open_machine("intel-max1550.json", &g);
	struct gpu_static st;
	struct gpu_sample s;
	struct num e;
	unsigned unsup = 0;

	CHECK(n == 1);
	CHECK(g[0].be == &backend_xe);
	CHECK_STR(g[0].bdf, "0000:18:00.0");
	memset(&st, 0, sizeof(st));
	memset(&s, 0, sizeof(s));
	g[0].be->read_static(&g[0], &st, PROBE_STATIC);
	CHECK_STR(st.name.s, "Intel Data Center GPU Max 1550");
	CHECK_STR(st.driver.s, "xe");
	/* two tiles of 64 GiB */
	CHECK(num_ok(&st.mem_total_bytes) && st.mem_total_bytes.v == 128LL << 30);
	CHECK(from(&st.mem_total_bytes, "tile*/physical_vram_size_bytes"));
	CHECK(num_ok(&st.clock_max_gr_mhz) && st.clock_max_gr_mhz.v == 1600);
	CHECK(from(&st.clock_max_gr_mhz, "tile*/gt*/freq0/rp0_freq"));
	CHECK(num_ok(&st.power_limit_mw) && st.power_limit_mw.v == 600000);
	CHECK(num_ok(&st.pcie_gen_max) && st.pcie_gen_max.v == 5);
	CHECK(num_ok(&st.numa_node) && st.numa_node.v == 0);
	CHECK_STR(st.cpu_affinity.s, "0-55,112-167");

	g[0].be->read_fast(&g[0], FILE_GROUPS, &unsup, &s);
	/* the faster tile's actual frequency */
	CHECK(num_ok(&s.clock_gr_mhz) && s.clock_gr_mhz.v == 1550);
	CHECK(from(&s.clock_gr_mhz, "tile*/gt*/freq0/act_freq"));
	CHECK(num_ok(&s.temp_c) && s.temp_c.v == 45 && from(&s.temp_c, "temp2_input"));
	CHECK(num_ok(&s.mem_temp_c) && s.mem_temp_c.v == 52 && from(&s.mem_temp_c, "temp3_input"));
	CHECK(!(unsup & (PF_TEMP | PF_FIELDS)));
	CHECK(num_ok(&s.pcie_gen) && s.pcie_gen.v == 5);

	/* a 32-bit counter that wrapped: 0.5 J before the wrap and 1.5 J after, in one second */
	g[0].energy_uj_prev = 0xffffffffULL + 1 - 500000;
	g[0].energy_t_prev = now_ns() - 1000000000;
	memset(&s, 0, sizeof(s));
	g[0].be->read_fast(&g[0], PF_POWER, NULL, &s);
	CHECK(num_ok(&s.power_mw) && s.power_mw.v >= 1980 && s.power_mw.v <= 2000);

	memset(&e, 0, sizeof(e));
	g[0].be->read_energy(&g[0], &e);
	CHECK(num_ok(&e) && e.v == 1500 && from(&e, "energy1_input"));
	close_machine(g, n);
}

static void test_max1550_package_channel(void)
{
	struct sysgpu *g = NULL;
	size_t n = open_machine("intel-max1550-pkg.json", &g);
	struct gpu_static st;
	struct num e;

	CHECK(n == 1);
	memset(&st, 0, sizeof(st));
	memset(&e, 0, sizeof(e));
	g[0].be->read_static(&g[0], &st, PROBE_STATIC);
	CHECK(num_ok(&st.power_limit_mw) && st.power_limit_mw.v == 450000);
	CHECK(from(&st.power_limit_mw, "power2_max"));
	CHECK(num_ok(&st.power_default_mw) && st.power_default_mw.v == 600000);
	g[0].be->read_energy(&g[0], &e);
	CHECK(num_ok(&e) && e.v == 2500 && from(&e, "energy2_input"));
	close_machine(g, n);
}

/* ---- utilisation from DRM clients ------------------------------------------------------------ */

static struct drm_client client(unsigned pid, uint64_t id, int64_t mem)
{
	struct drm_client c;

	memset(&c, 0, sizeof(c));
	c.pid = pid;
	c.client_id = id;
	c.mem_bytes = mem;
	c.gtt_bytes = -1;
	str_copy(c.pdev, "0000:03:00.0", sizeof(c.pdev));
	str_copy(c.driver, "i915", sizeof(c.driver));
	return c;
}

/* i915: busy nanoseconds of every class */
static void busy(struct drm_client *c, uint64_t compute, uint64_t dec, uint64_t enc)
{
	c->busy_ns[DRM_CLASS_COMPUTE] = compute;
	c->busy_ns[DRM_CLASS_DEC] = dec;
	c->busy_ns[DRM_CLASS_ENC] = enc;
	c->busy_ns[DRM_CLASS_COPY] = 0;
	c->has[DRM_CLASS_COMPUTE] = c->has[DRM_CLASS_DEC] = c->has[DRM_CLASS_ENC] =
	    c->has[DRM_CLASS_COPY] = true;
}

/* xe: cycles over total cycles of the compute and video classes */
static void cycles(struct drm_client *c, uint64_t compute, uint64_t dec, uint64_t total)
{
	str_copy(c->driver, "xe", sizeof(c->driver));
	c->cycles[DRM_CLASS_COMPUTE] = compute;
	c->cycles[DRM_CLASS_DEC] = dec;
	c->total_cycles[DRM_CLASS_COMPUTE] = c->total_cycles[DRM_CLASS_DEC] = total;
	c->has_cycles[DRM_CLASS_COMPUTE] = c->has_cycles[DRM_CLASS_DEC] = true;
}

static void test_util_i915_ns(void)
{
	struct drm_client prev[3], cur[4];
	struct gpu_sample s;

	memset(&s, 0, sizeof(s));
	/* A: half the second on render, a fifth on video, with 1 GiB */
	prev[0] = client(100, 1, 1LL << 30);
	busy(&prev[0], 1000000000, 0, 0);
	cur[0] = client(100, 1, 1LL << 30);
	busy(&cur[0], 1500000000, 200000000, 0);
	/* C closed between the readings: its work is gone, it is no process any more */
	prev[1] = client(300, 3, 4096);
	busy(&prev[1], 0, 0, 0);
	/* D's counter went back (a reset): it adds nothing, and does not wrap to a huge value */
	prev[2] = client(400, 4, -1);
	busy(&prev[2], 5000000000ULL, 0, 0);
	cur[1] = client(400, 4, -1);
	busy(&cur[1], 1000000000, 0, 0);
	/* B opened within the window: all its 0.3 s of render fall in it */
	cur[2] = client(200, 2, 512 << 20);
	busy(&cur[2], 300000000, 0, 0);
	/* A's second client (another open of the device), idle */
	cur[3] = client(100, 5, 1LL << 20);
	busy(&cur[3], 0, 0, 0);
	prev[0].busy_ns[DRM_CLASS_ENC] = cur[0].busy_ns[DRM_CLASS_ENC] = 0;

	intel_util_from_clients(prev, 3, cur, 4, 1000000000, &s);
	CHECK(num_ok(&s.util_gpu_pct) && s.util_gpu_pct.v == 80);
	CHECK(s.util_gpu_pct.lib == LIB_HOST && s.util_gpu_pct.call);
	CHECK(num_ok(&s.dec_pct) && s.dec_pct.v == 20);
	/* the video engines encode too: no encoder of its own, n/a rather than 0 */
	CHECK(na(&s.enc_pct));
}

static void test_util_xe_cycles(void)
{
	struct drm_client prev[2], cur[3];
	struct gpu_sample s;

	memset(&s, 0, sizeof(s));
	/* 600 of 1000 cycles on rcs/ccs, 100 on vcs; the GPU's clock, not dt, is the base */
	prev[0] = client(100, 1, 1LL << 30);
	cycles(&prev[0], 1000, 50, 10000);
	cur[0] = client(100, 1, 1LL << 30);
	cycles(&cur[0], 1600, 150, 11000);
	/* cycles that went back add nothing */
	prev[1] = client(200, 2, 0);
	cycles(&prev[1], 9000, 0, 10000);
	cur[1] = client(200, 2, 0);
	cycles(&cur[1], 10, 0, 11000);
	/* a new client's cycles since it opened cannot be split without an earlier reading */
	cur[2] = client(300, 3, 0);
	cycles(&cur[2], 900000, 0, 11000);

	intel_util_from_clients(prev, 2, cur, 3, 5 /* ns: ignored by cycles */, &s);
	CHECK(num_ok(&s.util_gpu_pct) && s.util_gpu_pct.v == 60);
	CHECK(num_ok(&s.dec_pct) && s.dec_pct.v == 10);
	CHECK(na(&s.enc_pct));
}

static void test_util_capped_and_idle(void)
{
	struct drm_client prev[2], cur[2];
	struct gpu_sample s;

	memset(&s, 0, sizeof(s));
	/* two clients at 80% each on a class of several engines: capped at 100 */
	prev[0] = client(100, 1, -1);
	busy(&prev[0], 0, 0, 0);
	prev[1] = client(200, 2, -1);
	busy(&prev[1], 0, 0, 0);
	cur[0] = client(100, 1, -1);
	busy(&cur[0], 800000000, 0, 0);
	cur[1] = client(200, 2, -1);
	busy(&cur[1], 800000000, 0, 0);
	intel_util_from_clients(prev, 2, cur, 2, 1000000000, &s);
	CHECK(num_ok(&s.util_gpu_pct) && s.util_gpu_pct.v == 100);

	/* nobody has the GPU open: idle, a value of 0 */
	intel_util_from_clients(cur, 2, NULL, 0, 1000000000, &s);
	CHECK(num_ok(&s.util_gpu_pct) && s.util_gpu_pct.v == 0);
	CHECK(num_ok(&s.dec_pct) && s.dec_pct.v == 0);

	/* clients that report no video class: a GPU without video engines, n/a and not 0 */
	cur[0].has[DRM_CLASS_DEC] = cur[1].has[DRM_CLASS_DEC] = false;
	intel_util_from_clients(prev, 2, cur, 2, 1000000000, &s);
	CHECK(num_ok(&s.util_gpu_pct) && s.util_gpu_pct.v == 100);
	CHECK(na(&s.dec_pct));
}

int main(void)
{
	RUN(test_a770_scan);
	RUN(test_a770_static);
	RUN(test_a770_fast);
	RUN(test_a770_energy_root_only);
	RUN(test_max1550);
	RUN(test_max1550_package_channel);
	RUN(test_util_i915_ns);
	RUN(test_util_xe_cycles);
	RUN(test_util_capped_and_idle);
	return TEST_DONE();
}
