/*
 * tier.c: the table of which tier fills each reading of struct gpu (see tier.h).
 *
 * The fast groups follow probe_sample.c's read_fast, one NVML call each; the health rows are
 * what probe_sample.c's read_sample reads with PROBE_HEALTH and PROBE_SLOW. The table rows are
 * what `status` shows: on the H200s the first call of each other query costs 1-4 ms per GPU,
 * so a --query of only these costs what the table costs.
 */
#include "tier.h"

#include <string.h>

#include "../util/util.h"
#include "probe.h"

#define G(member) offsetof(struct gpu, member)

static const struct tier_member members[] = {
	/* static facts the status table shows (PROBE_BRIEF) */
	{G(st.name), MT_STATIC, 0, true},
	{G(st.uuid), MT_STATIC, 0, true},
	{G(st.bus_id), MT_STATIC, 0, true},
	{G(st.pci_device_id), MT_STATIC, 0, true},
	{G(st.pci_subsystem_id), MT_STATIC, 0, true},
	{G(st.mem_total_bytes), MT_STATIC, 0, true},
	{G(st.pcie_gen_max), MT_STATIC, 0, true},
	{G(st.pcie_width_max), MT_STATIC, 0, true},
	{G(st.ecc_current), MT_STATIC, 0, true},
	{G(st.power_limit_mw), MT_STATIC, 0, true},
	/* the sysfs backends' static facts (gpu/backend.h): read with the brief ones */
	{G(st.driver), MT_STATIC, 0, true},
	{G(st.gfx_target), MT_STATIC, 0, true},
	{G(st.clock_levels_sm), MT_STATIC, 0, false},
	{G(st.clock_levels_mem), MT_STATIC, 0, false},
	{G(st.mem_gtt_total_bytes), MT_STATIC, 0, false},
	/* the fast tier */
	{G(s.util_gpu_pct), MT_FAST, PF_UTIL, true},
	{G(s.util_mem_pct), MT_FAST, PF_UTIL, true},
	{G(s.mem_used_bytes), MT_FAST, PF_MEMORY, true},
	{G(s.mem_free_bytes), MT_FAST, PF_MEMORY, true},
	{G(s.mem_reserved_bytes), MT_FAST, PF_MEMORY, true},
	{G(s.gtt_used_bytes), MT_FAST, PF_MEMORY, false},
	{G(s.temp_c), MT_FAST, PF_TEMP, true},
	{G(s.mem_temp_c), MT_FAST, PF_FIELDS, false},
	{G(s.temp_margin_c), MT_FAST, PF_TEMP_MARGIN, true},
	{G(s.power_mw), MT_FAST, PF_POWER, true},
	{G(s.power_avg_mw), MT_FAST, PF_FIELDS, false},
	{G(s.clock_sm_mhz), MT_FAST, PF_CLOCK_SM, true},
	{G(s.clock_mem_mhz), MT_FAST, PF_CLOCK_MEM, false},
	{G(s.clock_gr_mhz), MT_FAST, PF_CLOCK_GR, false},
	{G(s.clock_video_mhz), MT_FAST, PF_CLOCK_VIDEO, false},
	{G(s.pstate), MT_FAST, PF_PSTATE, false},
	{G(s.fan_pct), MT_FAST, PF_FAN, false},
	{G(s.enc_pct), MT_FAST, PF_ENC, false},
	{G(s.dec_pct), MT_FAST, PF_DEC, false},
	{G(s.jpg_pct), MT_FAST, PF_JPG, false},
	{G(s.ofa_pct), MT_FAST, PF_OFA, false},
	{G(s.bar1_used_bytes), MT_FAST, PF_BAR1, false},
	{G(s.clock_events), MT_FAST, PF_CLOCK_EVENTS, true},
	{G(s.pcie_gen), MT_FAST, PF_PCIE_GEN, true},
	{G(s.pcie_width), MT_FAST, PF_PCIE_WIDTH, true},
	{G(s.nprocs), MT_FAST, 0, false}, /* PROBE_PROCS, on the fast tier's tick */
	/* the health counters, PCIe throughput and energy */
	{G(s.recovery_action), MT_HEALTH, 0, false},
	{G(s.ce_sw_power_ns), MT_HEALTH, 0, false},
	{G(s.ce_sync_boost_ns), MT_HEALTH, 0, false},
	{G(s.ce_sw_thermal_ns), MT_HEALTH, 0, false},
	{G(s.ce_hw_thermal_ns), MT_HEALTH, 0, false},
	{G(s.ce_hw_power_brake_ns), MT_HEALTH, 0, false},
	{G(s.pcie_replays), MT_HEALTH, 0, false},
	{G(s.ecc_vol_corrected), MT_HEALTH, 0, false},
	/* the one health counter `status` shows (PROBE_ECC) */
	{G(s.ecc_vol_uncorrected), MT_HEALTH, 0, true},
	{G(s.ecc_agg_corrected), MT_HEALTH, 0, false},
	{G(s.ecc_agg_uncorrected), MT_HEALTH, 0, false},
	{G(s.remap_corrected), MT_HEALTH, 0, false},
	{G(s.remap_uncorrected), MT_HEALTH, 0, false},
	{G(s.remap_pending), MT_HEALTH, 0, false},
	{G(s.remap_failure), MT_HEALTH, 0, false},
	{G(s.retired_sbe), MT_HEALTH, 0, false},
	{G(s.retired_dbe), MT_HEALTH, 0, false},
	{G(s.retired_pending), MT_HEALTH, 0, false},
	{G(s.fabric_state), MT_HEALTH, 0, false},
	{G(s.fabric_status), MT_HEALTH, 0, false},
	{G(s.pcie_tx_kbps), MT_HEALTH, 0, false},
	{G(s.pcie_rx_kbps), MT_HEALTH, 0, false},
	{G(s.energy_mj), MT_HEALTH, 0, false},
};

const struct tier_member *tier_find(size_t off)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(members); i++)
		if (members[i].off == off)
			return &members[i];
	return NULL;
}

void tier_copy(struct gpu_sample *d, const struct gpu_sample *s, enum member_tier t)
{
	size_t i;

	/* every row of a sample tier is a struct num of struct gpu_sample, at off - G(s) */
	for (i = 0; i < ARRAY_SIZE(members); i++)
		if (members[i].tier == t)
			memcpy((char *)d + (members[i].off - G(s)),
			       (const char *)s + (members[i].off - G(s)), sizeof(struct num));
}

void tier_copy_groups(struct gpu_sample *d, const struct gpu_sample *s, unsigned mask)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(members); i++)
		if (members[i].tier == MT_FAST && (members[i].fast_group & mask))
			memcpy((char *)d + (members[i].off - G(s)),
			       (const char *)s + (members[i].off - G(s)), sizeof(struct num));
}

unsigned tier_table_groups(void)
{
	unsigned groups = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(members); i++)
		if (members[i].table)
			groups |= members[i].fast_group;
	return groups;
}
