/*
 * test_backend_amd.c: the amdgpu backend (src/gpu/amdgpu.c) on the constructed AMD machines
 * of tests/scenarios/sysfs/ (written by gen.py there), replayed as `gpuvet --replay FILE` does:
 * sysgpu_scan, then every function of the backend, checking each value, the file it names as
 * evidence, and the n/a and error cases.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/backend.h"
#include "gpu/probe.h"
#include "replay/replay.h"
#include "sysfsmachine.h"
#include "test.h"
#include "testpaths.h"
#include "util/util.h"

static bool num_is(const struct num *n, int64_t v, const char *call)
{
	if (n->st != VAL_OK || n->v != v || !n->call || strcmp(n->call, call) != 0 ||
	    n->lib != LIB_HOST) {
		printf("# got st %d v %lld call %s, want %lld from %s\n", n->st, (long long)n->v,
		       n->call ? n->call : "(null)", (long long)v, call);
		return false;
	}
	return true;
}

static bool text_is(const struct text *t, const char *s, const char *call)
{
	if (t->st != VAL_OK || strcmp(t->s, s) != 0 || !t->call || strcmp(t->call, call) != 0) {
		printf("# got st %d '%s' call %s, want '%s' from %s\n", t->st, t->s,
		       t->call ? t->call : "(null)", s, call);
		return false;
	}
	return true;
}

/* st VAL_NA or VAL_ERR, naming call */
static bool num_not(const struct num *n, int st, const char *call)
{
	return n->st == st && n->call && strcmp(n->call, call) == 0 && n->lib == LIB_HOST;
}

/* the backend's table is complete (a stub lacks functions) */
static bool has_all(const struct sysgpu *sg)
{
	return sg->be && sg->be->read_static && sg->be->read_fast && sg->be->read_health &&
	       sg->be->read_energy && sg->be->close;
}

static bool text_not(const struct text *t, int st, const char *call)
{
	return t->st == st && t->call && strcmp(t->call, call) == 0 && !t->s[0];
}

/* ---- 2x MI300X --------------------------------------------------------------------------- */

static void mi300x_checks(struct sysgpu *sg, size_t n)
{
	struct gpu_static st;
	struct gpu_sample s;
	struct num energy;
	unsigned unsup = 0;

	CHECK(n == 2);
	CHECK(sg[0].be == &backend_amdgpu && sg[1].be == &backend_amdgpu);
	CHECK(has_all(&sg[0]));
	CHECK_STR(sg[0].bdf, "0000:0c:00.0");
	CHECK_STR(sg[1].bdf, "0000:22:00.0");
	CHECK(str_ends(sg[0].hwmon, "/hwmon/hwmon2"));
	CHECK_STR(sg[0].render, "/dev/dri/renderD128");

	memset(&st, 0, sizeof(st));
	sg[0].be->read_static(&sg[0], &st, PROBE_STATIC | PROBE_STATIC_SLOW);
	CHECK(text_is(&st.name, "AMD Instinct MI300X OAM", "product_name"));
	CHECK(text_is(&st.uuid, "a1b2c3d4e5f60718", "unique_id"));
	CHECK(text_is(&st.serial, "692312000101", "serial_number"));
	CHECK(text_is(&st.vbios, "113-M3000100-102", "vbios_version"));
	CHECK(text_is(&st.bus_id, "0000:0c:00.0", "device"));
	CHECK(text_is(&st.driver, "amdgpu", "driver"));
	CHECK(num_is(&st.pci_device_id, 0x74a11002, "device"));
	CHECK(num_is(&st.pci_subsystem_id, 0x74a11002, "subsystem_device"));
	CHECK(num_is(&st.mem_total_bytes, 206158430208LL, "mem_info_vram_total"));
	CHECK(num_is(&st.mem_gtt_total_bytes, 1621404278784LL, "mem_info_gtt_total"));
	CHECK(text_is(&st.clock_levels_sm, "500,1420,2100", "pp_dpm_sclk"));
	CHECK(num_is(&st.clock_max_sm_mhz, 2100, "pp_dpm_sclk"));
	CHECK(text_is(&st.clock_levels_mem, "900,1100,1200,1300", "pp_dpm_mclk"));
	CHECK(num_is(&st.clock_max_mem_mhz, 1300, "pp_dpm_mclk"));
	CHECK(num_is(&st.power_limit_mw, 750000, "power1_cap"));
	CHECK(num_is(&st.power_enforced_mw, 750000, "power1_cap"));
	CHECK(num_is(&st.power_max_mw, 750000, "power1_cap_max"));
	CHECK(num_is(&st.power_min_mw, 0, "power1_cap_min"));
	CHECK(num_is(&st.power_default_mw, 750000, "power1_cap_default"));
	CHECK(num_is(&st.pcie_gen_max, 5, "max_link_speed"));
	CHECK(num_is(&st.pcie_width_max, 16, "max_link_width"));
	CHECK(num_is(&st.numa_node, 0, "numa_node"));
	CHECK(text_is(&st.cpu_affinity, "0-47,96-143", "local_cpulist"));
	/* no edge sensor: the limits are the junction's */
	CHECK(num_is(&st.temp_slowdown_c, 100, "temp2_crit"));
	CHECK(num_is(&st.temp_shutdown_c, 105, "temp2_emergency"));
	CHECK(num_is(&st.temp_gpu_max_c, 100, "temp2_crit"));
	CHECK(num_is(&st.temp_mem_max_c, 95, "temp3_crit"));
	CHECK(text_is(&st.gfx_target, "gfx942", "/sys/class/kfd/kfd/topology/nodes/*/properties"));
	CHECK(num_is(&st.ecc_current, 1, "ras/features"));

	memset(&st, 0, sizeof(st));
	sg[1].be->read_static(&sg[1], &st, PROBE_STATIC);
	CHECK(text_is(&st.uuid, "b2c3d4e5f6071829", "unique_id"));
	CHECK(num_is(&st.numa_node, 1, "numa_node"));
	CHECK(text_is(&st.gfx_target, "gfx942", "/sys/class/kfd/kfd/topology/nodes/*/properties"));

	memset(&s, 0, sizeof(s));
	sg[0].be->read_fast(&sg[0], PF_ALL | PF_MEDIA, &unsup, &s);
	CHECK(num_is(&s.util_gpu_pct, 37, "gpu_busy_percent"));
	CHECK(num_is(&s.util_mem_pct, 12, "mem_busy_percent"));
	CHECK(num_is(&s.mem_used_bytes, 1234567168LL, "mem_info_vram_used"));
	CHECK(num_is(&s.mem_free_bytes, 206158430208LL - 1234567168LL, "mem_info_vram_total"));
	CHECK(num_is(&s.gtt_used_bytes, 20971520, "mem_info_gtt_used"));
	CHECK(num_is(&s.temp_c, 45, "temp2_input"));
	CHECK(num_is(&s.mem_temp_c, 38, "temp3_input"));
	CHECK(num_is(&s.temp_margin_c, 55, "temp2_crit - temp2_input"));
	CHECK(num_is(&s.power_mw, 152000, "power1_input")); /* no power1_average on MI300 */
	CHECK(num_is(&s.clock_sm_mhz, 1420, "pp_dpm_sclk"));
	CHECK(num_is(&s.clock_gr_mhz, 1420, "pp_dpm_sclk"));
	CHECK(num_is(&s.clock_mem_mhz, 1300, "pp_dpm_mclk"));
	CHECK(num_is(&s.pcie_gen, 5, "current_link_speed"));
	CHECK(num_is(&s.pcie_width, 16, "current_link_width"));
	CHECK(s.fan_pct.st == VAL_NA); /* no fan on an OAM module */
	CHECK(s.pstate.st == VAL_NA && s.clock_events.st == VAL_NA && s.enc_pct.st == VAL_NA);
	CHECK((unsup & (PF_FAN | PF_PSTATE | PF_CLOCK_EVENTS | PF_FIELDS | PF_CLOCK_VIDEO)) ==
	      (PF_FAN | PF_PSTATE | PF_CLOCK_EVENTS | PF_FIELDS | PF_CLOCK_VIDEO));
	CHECK((unsup & PF_MEDIA) == PF_MEDIA);
	CHECK(!(unsup & (PF_UTIL | PF_MEMORY | PF_TEMP | PF_TEMP_MARGIN | PF_POWER | PF_CLOCK_SM |
			 PF_CLOCK_MEM | PF_PCIE_GEN | PF_PCIE_WIDTH)));

	memset(&s, 0, sizeof(s));
	sg[0].be->read_health(&sg[0], &s);
	CHECK(num_is(&s.ecc_vol_uncorrected, 0, "ras/umc_err_count"));
	CHECK(num_is(&s.ecc_vol_corrected, 2, "ras/umc_err_count"));
	/* every block: umc 2 + gfx 1 corrected */
	CHECK(num_is(&s.ecc_agg_uncorrected, 0, "ras/*_err_count"));
	CHECK(num_is(&s.ecc_agg_corrected, 3, "ras/*_err_count"));
	CHECK(num_is(&s.pcie_replays, 0, "pcie_replay_count"));
	memset(&s, 0, sizeof(s));
	sg[1].be->read_health(&sg[1], &s);
	CHECK(num_is(&s.ecc_vol_uncorrected, 1, "ras/umc_err_count"));
	CHECK(num_is(&s.ecc_vol_corrected, 5, "ras/umc_err_count"));
	CHECK(num_is(&s.ecc_agg_uncorrected, 1, "ras/*_err_count"));
	CHECK(num_is(&s.ecc_agg_corrected, 5, "ras/*_err_count"));
	CHECK(num_is(&s.pcie_replays, 3, "pcie_replay_count"));

	memset(&energy, 0, sizeof(energy));
	sg[0].be->read_energy(&sg[0], &energy);
	CHECK(num_is(&energy, 123456789, "energy1_input"));
}

static void test_mi300x(void)
{
	struct sysgpu *sg;
	size_t n = open_machine("amd-mi300x.json", &sg);

	mi300x_checks(sg, n);
	close_machine(sg, n);
}

/* read_fast reads only the groups asked for */
static void mask_checks(struct sysgpu *sg, size_t n)
{
	struct gpu_sample s;
	unsigned unsup = 0;

	CHECK(n == 2);
	memset(&s, 0, sizeof(s));
	sg[1].be->read_fast(&sg[1], PF_UTIL | PF_TEMP, &unsup, &s);
	CHECK(num_is(&s.util_gpu_pct, 0, "gpu_busy_percent"));
	CHECK(num_is(&s.temp_c, 41, "temp2_input"));
	CHECK(s.power_mw.st == VAL_UNSET && s.mem_used_bytes.st == VAL_UNSET);
	CHECK(s.clock_sm_mhz.st == VAL_UNSET && s.pcie_gen.st == VAL_UNSET);
	CHECK(s.temp_margin_c.st == VAL_UNSET && s.pstate.st == VAL_UNSET);
	CHECK(unsup == 0);
}

static void test_fast_mask(void)
{
	struct sysgpu *sg;
	size_t n = open_machine("amd-mi300x.json", &sg);

	mask_checks(sg, n);
	close_machine(sg, n);
}

/* ---- 1x Radeon RX 7900 XTX ----------------------------------------------------------------- */

static void rx7900_checks(struct sysgpu *sg, size_t n)
{
	struct gpu_static st;
	struct gpu_sample s;
	struct num energy;
	unsigned unsup = 0;

	CHECK(n == 1); /* card0-DP-1 is a connector, not a card */
	CHECK_STR(sg[0].bdf, "0000:03:00.0");
	CHECK(has_all(&sg[0]));
	CHECK(sg[0].device_id == 0x744c && sg[0].revision == 0xc8);

	memset(&st, 0, sizeof(st));
	sg[0].be->read_static(&sg[0], &st, PROBE_STATIC);
	/* no product_name: the name comes from the device id and revision */
	CHECK(text_is(&st.name, "AMD Radeon RX 7900 XTX", "device"));
	CHECK(text_not(&st.uuid, VAL_NA, "unique_id"));
	CHECK(text_not(&st.serial, VAL_NA, "serial_number"));
	CHECK(num_is(&st.pci_subsystem_id, 0x471d1da2, "subsystem_device"));
	CHECK(num_is(&st.pcie_gen_max, 4, "max_link_speed"));
	CHECK(num_not(&st.numa_node, VAL_NA, "numa_node"));    /* -1: no NUMA affinity */
	CHECK(num_is(&st.temp_slowdown_c, 100, "temp1_crit")); /* the edge sensor's */
	CHECK(num_is(&st.temp_shutdown_c, 105, "temp1_emergency"));
	CHECK(num_is(&st.temp_gpu_max_c, 110, "temp2_crit"));
	CHECK(num_is(&st.temp_mem_max_c, 108, "temp3_crit"));
	CHECK(num_is(&st.power_min_mw, 305000, "power1_cap_min"));
	CHECK(text_is(&st.gfx_target, "gfx1100", "/sys/class/kfd/kfd/topology/nodes/*/properties"));
	CHECK(num_not(&st.ecc_current, VAL_NA, "ras/features")); /* no RAS on this board */

	memset(&s, 0, sizeof(s));
	sg[0].be->read_fast(&sg[0], PF_ALL, &unsup, &s);
	CHECK(num_is(&s.temp_c, 52, "temp1_input"));
	CHECK(num_is(&s.mem_temp_c, 60, "temp3_input"));
	CHECK(num_is(&s.temp_margin_c, 48, "temp1_crit - temp1_input"));
	CHECK(num_is(&s.power_mw, 78000, "power1_average"));
	CHECK(num_is(&s.fan_pct, 76 * 100 / 255, "pwm1"));
	CHECK(num_is(&s.clock_sm_mhz, 2235, "pp_dpm_sclk"));
	CHECK(num_is(&s.clock_mem_mhz, 1250, "pp_dpm_mclk"));
	CHECK(num_is(&s.util_gpu_pct, 98, "gpu_busy_percent"));
	CHECK(num_is(&s.pcie_gen, 4, "current_link_speed"));
	CHECK(!(unsup & (PF_FAN | PF_TEMP | PF_POWER)));

	memset(&s, 0, sizeof(s));
	sg[0].be->read_health(&sg[0], &s);
	CHECK(num_not(&s.ecc_vol_uncorrected, VAL_NA, "ras/umc_err_count"));
	CHECK(num_not(&s.ecc_vol_corrected, VAL_NA, "ras/umc_err_count"));
	CHECK(num_not(&s.ecc_agg_uncorrected, VAL_NA, "ras/*_err_count"));
	CHECK(num_is(&s.pcie_replays, 0, "pcie_replay_count"));

	memset(&energy, 0, sizeof(energy));
	sg[0].be->read_energy(&sg[0], &energy);
	CHECK(num_not(&energy, VAL_NA, "energy1_input"));
}

static void test_rx7900xtx(void)
{
	struct sysgpu *sg;
	size_t n = open_machine("amd-rx7900xtx.json", &sg);

	rx7900_checks(sg, n);
	close_machine(sg, n);
}

/* ---- faults: an unreadable hwmon, a missing file, a link of unknown speed ------------------ */

static bool denied(const struct num *n, const char *call)
{
	return num_not(n, VAL_ERR, call) && n->rc == -EACCES && n->reason == REASON_NO_PERMISSION;
}

static void faults_checks(struct sysgpu *sg, size_t n)
{
	struct gpu_static st;
	struct gpu_sample s;
	struct num energy;
	unsigned unsup = 0;

	CHECK(n == 1); /* the BMC's card0 is bound to ast */
	CHECK_STR(sg[0].card, "card1");
	CHECK_STR(sg[0].bdf, "0000:0a:00.0");
	CHECK(has_all(&sg[0]));

	memset(&st, 0, sizeof(st));
	sg[0].be->read_static(&sg[0], &st, PROBE_STATIC);
	CHECK(text_is(&st.name, "AMD GPU [1002:73df]", "device"));
	CHECK(denied(&st.power_limit_mw, "power1_cap"));
	CHECK(denied(&st.power_default_mw, "power1_cap_default"));
	/* the labels cannot be read, so neither can the limits: an error, not n/a */
	CHECK(denied(&st.temp_slowdown_c, "temp1_label"));
	CHECK(denied(&st.temp_mem_max_c, "temp1_label"));
	CHECK(num_is(&st.clock_max_sm_mhz, 2581, "pp_dpm_sclk"));
	CHECK(st.clock_levels_mem.st == VAL_ERR && st.clock_levels_mem.rc == -EACCES);
	CHECK(denied(&st.clock_max_mem_mhz, "pp_dpm_mclk"));
	CHECK(num_is(&st.pcie_gen_max, 4, "max_link_speed"));
	CHECK(text_not(&st.gfx_target, VAL_NA, "/sys/class/kfd/kfd/topology/nodes/*/properties"));

	memset(&s, 0, sizeof(s));
	sg[0].be->read_fast(&sg[0], PF_ALL, &unsup, &s);
	CHECK(num_not(&s.util_gpu_pct, VAL_NA, "gpu_busy_percent"));
	CHECK(num_is(&s.util_mem_pct, 3, "mem_busy_percent"));
	CHECK(!(unsup & PF_UTIL)); /* mem_busy_percent still answers */
	CHECK(denied(&s.temp_c, "temp1_label"));
	CHECK(denied(&s.power_mw, "power1_average"));
	CHECK(denied(&s.fan_pct, "pwm1"));
	CHECK(s.clock_mem_mhz.st == VAL_ERR && s.clock_mem_mhz.rc == -EACCES);
	CHECK(num_is(&s.clock_sm_mhz, 500, "pp_dpm_sclk"));
	/* "Unknown": no value, but nothing failed */
	CHECK(num_not(&s.pcie_gen, VAL_NA, "current_link_speed"));
	CHECK(s.pcie_gen.rc == -ENODATA);
	CHECK(num_is(&s.pcie_width, 16, "current_link_width"));
	/* errors are not "unsupported": the caller keeps asking */
	CHECK(!(unsup & (PF_TEMP | PF_POWER | PF_FAN | PF_CLOCK_MEM | PF_PCIE_GEN)));

	memset(&energy, 0, sizeof(energy));
	sg[0].be->read_energy(&sg[0], &energy);
	CHECK(denied(&energy, "energy1_input"));
}

static void test_faults(void)
{
	struct sysgpu *sg;
	size_t n = open_machine("amd-faults.json", &sg);

	faults_checks(sg, n);
	close_machine(sg, n);
}

int main(void)
{
	RUN(test_mi300x);
	RUN(test_fast_mask);
	RUN(test_rx7900xtx);
	RUN(test_faults);
	return TEST_DONE();
}
