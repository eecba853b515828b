/*
 * probe_sample.c: samples of one GPU: the fast, health, process and slow tiers, and the finer
 * reads the monitor makes on a long-lived session (see probe_int.h for the parts of the backend).
 */
#define _GNU_SOURCE
#include "probe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "backend.h"
#include "reason.h"
#include "tier.h"

/* ---- samples ------------------------------------------------------------------------------- */

/* Memory of one GPU into s; the total (a static fact) into *total when given. */
void read_memory(struct probe *p, const struct gpu *g, nvml_dev h, struct gpu_sample *s,
		 struct num *total)
{
	struct nvml_memory_v2 m2;
	struct num dummy;
	int gi = (int)g->index;
	int rc;

	if (!total)
		total = &dummy;
	memset(&m2, 0, sizeof(m2));
	m2.version = NVML_STRUCT_VERSION(struct nvml_memory_v2, 2);
	rc = NV(p, gi, "nvmlDeviceGetMemoryInfo_v2", DeviceGetMemoryInfo_v2, h, &m2);
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", gi, "nvmlDeviceGetMemoryInfo_v2", rc, rc ? "" : "uuuu", m2.total,
			 m2.reserved, m2.free, m2.used);
	if (rc == NVML_SUCCESS) {
		nv_state(total, "nvmlDeviceGetMemoryInfo_v2", rc);
		nv_state(&s->mem_used_bytes, "nvmlDeviceGetMemoryInfo_v2", rc);
		nv_state(&s->mem_free_bytes, "nvmlDeviceGetMemoryInfo_v2", rc);
		nv_state(&s->mem_reserved_bytes, "nvmlDeviceGetMemoryInfo_v2", rc);
		total->v = (int64_t)m2.total;
		s->mem_used_bytes.v = (int64_t)m2.used;
		s->mem_free_bytes.v = (int64_t)m2.free;
		s->mem_reserved_bytes.v = (int64_t)m2.reserved;
		return;
	}
	{
		struct nvml_memory m1;

		memset(&m1, 0, sizeof(m1));
		rc = NV(p, gi, "nvmlDeviceGetMemoryInfo", DeviceGetMemoryInfo, h, &m1);
		if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
			rec_call("nvml", gi, "nvmlDeviceGetMemoryInfo", rc, rc ? "" : "uuu", m1.total,
				 m1.free, m1.used);
		nv_state(total, "nvmlDeviceGetMemoryInfo", rc);
		nv_state(&s->mem_used_bytes, "nvmlDeviceGetMemoryInfo", rc);
		nv_state(&s->mem_free_bytes, "nvmlDeviceGetMemoryInfo", rc);
		nv_state(&s->mem_reserved_bytes, "nvmlDeviceGetMemoryInfo", NVML_ERROR_NOT_SUPPORTED);
		total->v = (int64_t)m1.total;
		s->mem_used_bytes.v = (int64_t)m1.used;
		s->mem_free_bytes.v = (int64_t)m1.free;
		if (rc == NVML_ERROR_GPU_IS_LOST)
			s->lost = true;
	}
}

/* One entry of an nvmlDeviceGetFieldValues answer: its return code (the call's own when that
 * failed, UNKNOWN for a value type we do not know) and its value in *v. */
int field_value(const struct nvml_field_value *f, int call_rc, int64_t *v)
{
	int rc = call_rc ? call_rc : f->nvml_return;

	*v = 0;
	switch (f->value_type) {
	case NVML_VALUE_TYPE_DOUBLE: *v = (int64_t)f->value.d; break;
	case NVML_VALUE_TYPE_UNSIGNED_INT: *v = f->value.ui; break;
	case NVML_VALUE_TYPE_UNSIGNED_LONG: *v = (int64_t)f->value.ul; break;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *v = (int64_t)f->value.ull; break;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *v = f->value.sll; break;
	case NVML_VALUE_TYPE_SIGNED_INT: *v = f->value.si; break;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT: *v = f->value.us; break;
	default:
		if (!rc)
			rc = NVML_ERROR_UNKNOWN;
	}
	return rc;
}

/* One nvmlDeviceGetFieldValues call for the fields of a tier that have no function of their
 * own. */
void read_fields(struct probe *p, const struct gpu *g, nvml_dev h, const unsigned *ids,
		 struct num *const *dest, size_t n)
{
	struct nvml_field_value fv[16];
	int gi = (int)g->index;
	size_t i;
	int rc;

	memset(fv, 0, sizeof(fv));
	for (i = 0; i < n; i++)
		fv[i].field_id = ids[i];
	/* a hang is told under the first field's key: the fake library asks for it first */
	rc = NV_ARGS(p, gi, "nvmlDeviceGetFieldValues", 1, ids[0], 0, DeviceGetFieldValues, h,
		     (int)n, fv);
	for (i = 0; i < n; i++) {
		char key[64];
		int64_t v;
		int frc = field_value(&fv[i], rc, &v);

		str_fmt(key, sizeof(key), "nvmlDeviceGetFieldValues(%u)", ids[i]);
		/* each field is recorded on its own, so a replay can answer any subset */
		nv_num(g, dest[i], key, frc, v);
		dest[i]->call = "nvmlDeviceGetFieldValues";
	}
}

static void read_processes(struct probe *p, const struct gpu *g, nvml_dev h, struct gpu_sample *s)
{
	static const struct {
		char type;
		const char *key;
	} kinds[] = {{'C', "nvmlDeviceGetComputeRunningProcesses"},
		     {'G', "nvmlDeviceGetGraphicsRunningProcesses"}};
	int gi = (int)g->index;
	size_t k;
	int worst = NVML_SUCCESS;
	bool any = false;

	free(s->procs);
	s->procs = NULL;
	s->procs_len = 0;
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct nvml_process_info *info = NULL;
		unsigned count = 0, i, tries;
		int rc = NVML_ERROR_FUNCTION_NOT_FOUND;
		int64_t *vals;

		/* the list can grow between the sizing call and the real one: retry a few times */
		for (tries = 0; tries < 4; tries++) {
			unsigned want = count + 8;

			free(info);
			info = xcalloc(want, sizeof(*info));
			count = want;
			if (k == 0 && p->nv.api.DeviceGetComputeRunningProcesses)
				rc = NV(p, gi, kinds[k].key, DeviceGetComputeRunningProcesses, h,
					&count, info);
			else if (k == 1 && p->nv.api.DeviceGetGraphicsRunningProcesses)
				rc = NV(p, gi, kinds[k].key, DeviceGetGraphicsRunningProcesses, h,
					&count, info);
			else {
				/* pre-470 drivers: the shorter struct; widen it */
				struct nvml_process_info_v1 *v1 = xcalloc(want, sizeof(*v1));

				if (k == 0)
					rc = NV(p, gi, kinds[k].key, DeviceGetComputeRunningProcesses_v1,
						h, &count, v1);
				else
					rc = NV(p, gi, kinds[k].key,
						DeviceGetGraphicsRunningProcesses_v1, h, &count, v1);
				for (i = 0; rc == NVML_SUCCESS && i < count && i < want; i++) {
					info[i].pid = v1[i].pid;
					info[i].used_gpu_memory = v1[i].used_gpu_memory;
					info[i].gpu_instance_id = info[i].compute_instance_id = ~0U;
				}
				free(v1);
			}
			if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
				break;
			if (count > PROC_COUNT_MAX) {
				rc = NVML_ERROR_UNKNOWN;
				break;
			}
		}
		if (rc == NVML_SUCCESS && count > PROC_COUNT_MAX)
			rc = NVML_ERROR_UNKNOWN;
		vals = xcalloc((size_t)(rc == NVML_SUCCESS ? count : 0) * 4 + 1, sizeof(*vals));
		for (i = 0; rc == NVML_SUCCESS && i < count; i++) {
			vals[i * 4] = info[i].pid;
			vals[i * 4 + 1] = info[i].used_gpu_memory == NVML_VALUE_NOT_AVAILABLE_ULL
						  ? -1
						  : (int64_t)info[i].used_gpu_memory;
			vals[i * 4 + 2] = info[i].gpu_instance_id;
			vals[i * 4 + 3] = info[i].compute_instance_id;
		}
		if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
			rec_call_rows("nvml", gi, kinds[k].key, rc, "iiii",
				      rc == NVML_SUCCESS ? count : 0, vals);
		if (rc == NVML_SUCCESS) {
			any = true;
			s->procs = xrealloc(s->procs, (s->procs_len + count + 1) * sizeof(*s->procs));
			for (i = 0; i < count; i++) {
				struct gpu_proc *gp;

				/* sanity: drivers 535.43-535.86 mix struct layouts (monitor-anchors 3.3) */
				if (vals[i * 4] <= 0)
					continue;
				gp = &s->procs[s->procs_len++];
				gp->pid = (unsigned)vals[i * 4];
				gp->mem_bytes = vals[i * 4 + 1];
				if (num_ok(&g->st.mem_total_bytes) &&
				    gp->mem_bytes > g->st.mem_total_bytes.v)
					gp->mem_bytes = -1;
				gp->type = kinds[k].type;
				gp->gi = (unsigned)vals[i * 4 + 2];
				gp->ci = (unsigned)vals[i * 4 + 3];
			}
		} else if (worst == NVML_SUCCESS) {
			worst = rc;
		}
		free(vals);
		free(info);
		if (rc == NVML_ERROR_GPU_IS_LOST)
			s->lost = true;
	}
	nv_state(&s->nprocs, "nvmlDeviceGetComputeRunningProcesses", any ? 0 : worst);
	s->nprocs.v = (int64_t)s->procs_len;
}

/* The fast tier: the groups of fields in mask (enum probe_fast), into s. Groups that answer
 * "not supported" (or whose symbol is missing) are added to *unsup when unsup is given, so a
 * collector can skip them afterwards. Returns false when the GPU answered "lost" to the
 * utilisation query, which ends the tier early (nothing else would answer). */
bool read_fast(struct probe *p, const struct gpu *g, nvml_dev h, unsigned mask,
	       unsigned *unsup, struct gpu_sample *s)
{
	int gi = (int)g->index;
	unsigned u = 0;
	int rc, i1;
	unsigned long long ull;

#define NA_RC(r) ((r) == NVML_ERROR_NOT_SUPPORTED || (r) == NVML_ERROR_FUNCTION_NOT_FOUND)
#define MEMO(bit)                                                                                  \
	do {                                                                                       \
		if (unsup && NA_RC(rc))                                                            \
			*unsup |= (bit);                                                           \
	} while (0)
#define U32(bit, field, key, fn, ...)                                                              \
	do {                                                                                       \
		if (mask & (bit)) {                                                                \
			u = 0;                                                                     \
			rc = NV(p, gi, key, fn, h, ##__VA_ARGS__, &u);                             \
			nv_num(g, &s->field, key, rc, u);                                          \
			MEMO(bit);                                                                 \
		}                                                                                  \
	} while (0)

	if (mask & PF_UTIL) {
		struct nvml_utilization ut = {0, 0};

		rc = NV(p, gi, "nvmlDeviceGetUtilizationRates", DeviceGetUtilizationRates, h, &ut);
		nv_pair(g, "nvmlDeviceGetUtilizationRates", rc, true, &s->util_gpu_pct, ut.gpu,
			&s->util_mem_pct, ut.memory);
		MEMO(PF_UTIL);
		if (rc == NVML_ERROR_GPU_IS_LOST) {
			s->lost = true;
			return false;
		}
	}
	if (mask & PF_MEMORY) {
		read_memory(p, g, h, s, NULL);
		rc = s->mem_used_bytes.rc;
		MEMO(PF_MEMORY);
	}
	U32(PF_TEMP, temp_c, "nvmlDeviceGetTemperature(0)", DeviceGetTemperature, NVML_TEMPERATURE_GPU);
	if (mask & PF_TEMP_MARGIN) {
		struct nvml_margin_temperature mt;

		memset(&mt, 0, sizeof(mt));
		mt.version = NVML_STRUCT_VERSION(struct nvml_margin_temperature, 1);
		rc = NV(p, gi, "nvmlDeviceGetMarginTemperature", DeviceGetMarginTemperature, h, &mt);
		nv_num(g, &s->temp_margin_c, "nvmlDeviceGetMarginTemperature", rc,
		       mt.margin_temperature);
		MEMO(PF_TEMP_MARGIN);
	}
	U32(PF_POWER, power_mw, "nvmlDeviceGetPowerUsage", DeviceGetPowerUsage);
	if (mask & PF_FIELDS) {
		static const unsigned fast_ids[] = {NVML_FI_DEV_MEMORY_TEMP, NVML_FI_DEV_POWER_AVERAGE};
		struct num *fast_dest[] = {&s->mem_temp_c, &s->power_avg_mw};

		read_fields(p, g, h, fast_ids, fast_dest, ARRAY_SIZE(fast_ids));
		if (unsup && s->mem_temp_c.st == VAL_NA && s->power_avg_mw.st == VAL_NA)
			*unsup |= PF_FIELDS;
	}
	U32(PF_CLOCK_GR, clock_gr_mhz, "nvmlDeviceGetClockInfo(0)", DeviceGetClockInfo,
	    NVML_CLOCK_GRAPHICS);
	U32(PF_CLOCK_SM, clock_sm_mhz, "nvmlDeviceGetClockInfo(1)", DeviceGetClockInfo, NVML_CLOCK_SM);
	U32(PF_CLOCK_MEM, clock_mem_mhz, "nvmlDeviceGetClockInfo(2)", DeviceGetClockInfo,
	    NVML_CLOCK_MEM);
	U32(PF_CLOCK_VIDEO, clock_video_mhz, "nvmlDeviceGetClockInfo(3)", DeviceGetClockInfo,
	    NVML_CLOCK_VIDEO);
	if (mask & PF_PSTATE) {
		i1 = 0;
		rc = NV(p, gi, "nvmlDeviceGetPerformanceState", DeviceGetPerformanceState, h, &i1);
		nv_num(g, &s->pstate, "nvmlDeviceGetPerformanceState", rc, i1);
		MEMO(PF_PSTATE);
	}
	U32(PF_FAN, fan_pct, "nvmlDeviceGetFanSpeed", DeviceGetFanSpeed);
	if (mask & PF_CLOCK_EVENTS) {
		ull = 0;
		rc = NV(p, gi, "nvmlDeviceGetCurrentClocksEventReasons",
			DeviceGetCurrentClocksEventReasons, h, &ull);
		nv_num(g, &s->clock_events, "nvmlDeviceGetCurrentClocksEventReasons", rc, (int64_t)ull);
		MEMO(PF_CLOCK_EVENTS);
	}
	U32(PF_PCIE_GEN, pcie_gen, "nvmlDeviceGetCurrPcieLinkGeneration",
	    DeviceGetCurrPcieLinkGeneration);
	U32(PF_PCIE_WIDTH, pcie_width, "nvmlDeviceGetCurrPcieLinkWidth", DeviceGetCurrPcieLinkWidth);
#define MEDIA(bit, field, key, fn)                                                                 \
	do {                                                                                       \
		if (mask & (bit)) {                                                                \
			unsigned period_us = 0;                                                    \
			u = 0;                                                                     \
			rc = NV(p, gi, key, fn, h, &u, &period_us);                                \
			nv_num(g, &s->field, key, rc, u);                                          \
			MEMO(bit);                                                                 \
		}                                                                                  \
	} while (0)
	/* the media engines answer a utilisation and the period it covers, which is not kept */
	MEDIA(PF_ENC, enc_pct, "nvmlDeviceGetEncoderUtilization", DeviceGetEncoderUtilization);
	MEDIA(PF_DEC, dec_pct, "nvmlDeviceGetDecoderUtilization", DeviceGetDecoderUtilization);
	MEDIA(PF_JPG, jpg_pct, "nvmlDeviceGetJpgUtilization", DeviceGetJpgUtilization);
	MEDIA(PF_OFA, ofa_pct, "nvmlDeviceGetOfaUtilization", DeviceGetOfaUtilization);
#undef MEDIA
	if (mask & PF_BAR1) {
		struct nvml_bar1_memory b;

		memset(&b, 0, sizeof(b));
		rc = NV(p, gi, "nvmlDeviceGetBAR1MemoryInfo", DeviceGetBAR1MemoryInfo, h, &b);
		if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
			rec_call("nvml", gi, "nvmlDeviceGetBAR1MemoryInfo", rc, rc ? "" : "uuu",
				 b.total, b.free, b.used);
		nv_state(&s->bar1_used_bytes, "nvmlDeviceGetBAR1MemoryInfo", rc);
		s->bar1_used_bytes.v = (int64_t)b.used;
		if (rc == NVML_ERROR_GPU_IS_LOST)
			s->lost = true;
		MEMO(PF_BAR1);
	}
	return true;
#undef U32
#undef MEMO
#undef NA_RC
}

/* One sample of one GPU, the tiers in flags (PROBE_FAST, PROBE_HEALTH, PROBE_PROCS,
 * PROBE_SLOW), into s. Only reads g's index and static facts. */
void read_sample(struct probe *p, const struct gpu *g, nvml_dev h, unsigned flags,
		 struct gpu_sample *s)
{
	int gi = (int)g->index;
	unsigned u = 0, u2 = 0, u3 = 0, u4 = 0;
	int rc, i1;
	unsigned long long ull;

#define U32(field, key, fn, ...)                                                                   \
	do {                                                                                       \
		u = 0;                                                                             \
		rc = NV(p, gi, key, fn, h, ##__VA_ARGS__, &u);                                     \
		nv_num(g, &s->field, key, rc, u);                                                  \
	} while (0)
#define ULL(field, key, fn, ...)                                                                   \
	do {                                                                                       \
		ull = 0;                                                                           \
		rc = NV(p, gi, key, fn, h, ##__VA_ARGS__, &ull);                                   \
		nv_num(g, &s->field, key, rc, (int64_t)ull);                                       \
	} while (0)

	cur_sample = s;
	s->t_ns = now_ns();
	if (flags & (PROBE_FAST | PROBE_TABLE)) {
		/* the table tier: only what `status` shows (each first call costs 1-3 ms) */
		unsigned mask = (flags & PROBE_FAST) ? PF_ALL : tier_table_groups();

		/* a recording holds what watch's dmon columns may ask, so its replay answers them */
		if ((flags & PROBE_FAST) && rec_active())
			mask |= PF_MEDIA;

		if (!read_fast(p, g, h, mask, NULL, s)) {
			cur_sample = NULL;
			return;
		}
	}
	/* with PROBE_BRIEF the count was read with the static facts */
	if ((flags & PROBE_ECC) && !(flags & (PROBE_HEALTH | PROBE_BRIEF)))
		ULL(ecc_vol_uncorrected, "nvmlDeviceGetTotalEccErrors(1,0)", DeviceGetTotalEccErrors,
		    NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
	if (flags & PROBE_HEALTH) {
		static const unsigned health_ids[] = {
			NVML_FI_DEV_GET_GPU_RECOVERY_ACTION,
			NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP,
			NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST,
			NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN,
			NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN,
			NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN,
		};
		struct num *health_dest[] = {
			&s->recovery_action,  &s->ce_sw_power_ns,   &s->ce_sync_boost_ns,
			&s->ce_sw_thermal_ns, &s->ce_hw_thermal_ns, &s->ce_hw_power_brake_ns,
		};

		read_fields(p, g, h, health_ids, health_dest, ARRAY_SIZE(health_ids));
		U32(pcie_replays, "nvmlDeviceGetPcieReplayCounter", DeviceGetPcieReplayCounter);
		ULL(ecc_vol_corrected, "nvmlDeviceGetTotalEccErrors(0,0)", DeviceGetTotalEccErrors,
		    NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC);
		ULL(ecc_vol_uncorrected, "nvmlDeviceGetTotalEccErrors(1,0)", DeviceGetTotalEccErrors,
		    NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC);
		ULL(ecc_agg_corrected, "nvmlDeviceGetTotalEccErrors(0,1)", DeviceGetTotalEccErrors,
		    NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC);
		ULL(ecc_agg_uncorrected, "nvmlDeviceGetTotalEccErrors(1,1)", DeviceGetTotalEccErrors,
		    NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC);

		rc = NV(p, gi, "nvmlDeviceGetRemappedRows", DeviceGetRemappedRows, h, &u, &u2, &u3,
			&u4);
		if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
			rec_call("nvml", gi, "nvmlDeviceGetRemappedRows", rc, rc ? "" : "uuuu",
				 (uint64_t)u, (uint64_t)u2, (uint64_t)u3, (uint64_t)u4);
		nv_state(&s->remap_corrected, "nvmlDeviceGetRemappedRows", rc);
		nv_state(&s->remap_uncorrected, "nvmlDeviceGetRemappedRows", rc);
		nv_state(&s->remap_pending, "nvmlDeviceGetRemappedRows", rc);
		nv_state(&s->remap_failure, "nvmlDeviceGetRemappedRows", rc);
		s->remap_corrected.v = u;
		s->remap_uncorrected.v = u2;
		s->remap_pending.v = u3;
		s->remap_failure.v = u4;
		if (!num_ok(&s->remap_pending)) {
			/* page retirement is the pre-Ampere mechanism; skip it where rows are
			 * remapped */
			unsigned count = 0;

			rc = NV(p, gi, "nvmlDeviceGetRetiredPages(0)", DeviceGetRetiredPages, h,
				NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT, &count, NULL);
			if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
				rc = NVML_SUCCESS;
			nv_num(g, &s->retired_sbe, "nvmlDeviceGetRetiredPages(0)", rc, count);
			count = 0;
			rc = NV(p, gi, "nvmlDeviceGetRetiredPages(1)", DeviceGetRetiredPages, h,
				NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT, &count, NULL);
			if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
				rc = NVML_SUCCESS;
			nv_num(g, &s->retired_dbe, "nvmlDeviceGetRetiredPages(1)", rc, count);
			i1 = 0;
			rc = NV(p, gi, "nvmlDeviceGetRetiredPagesPendingStatus",
				DeviceGetRetiredPagesPendingStatus, h, &i1);
			nv_num(g, &s->retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus", rc, i1);
		}
		{
			struct nvml_fabric_info_v2 f2;
			int state = 0, status = 0;

			memset(&f2, 0, sizeof(f2));
			f2.version = NVML_STRUCT_VERSION(struct nvml_fabric_info_v2, 2);
			rc = NV(p, gi, "nvmlDeviceGetGpuFabricInfo", DeviceGetGpuFabricInfoV, h, &f2);
			state = f2.state;
			status = f2.status;
			if (rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
			    rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
				struct nvml_fabric_info f1;

				memset(&f1, 0, sizeof(f1));
				rc = NV(p, gi, "nvmlDeviceGetGpuFabricInfo", DeviceGetGpuFabricInfo, h,
					&f1);
				state = f1.state;
				status = f1.status;
			}
			nv_pair(g, "nvmlDeviceGetGpuFabricInfo", rc, false, &s->fabric_state, state,
				&s->fabric_status, status);
			if (num_ok(&s->fabric_state) && state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) {
				s->fabric_state.st = VAL_NA;
				s->fabric_status.st = VAL_NA;
			}
		}
	}
	if (flags & PROBE_PROCS)
		read_processes(p, g, h, s);
	if (flags & PROBE_SLOW) {
		U32(pcie_tx_kbps, "nvmlDeviceGetPcieThroughput(0)", DeviceGetPcieThroughput,
		    NVML_PCIE_UTIL_TX_BYTES);
		U32(pcie_rx_kbps, "nvmlDeviceGetPcieThroughput(1)", DeviceGetPcieThroughput,
		    NVML_PCIE_UTIL_RX_BYTES);
		ULL(energy_mj, "nvmlDeviceGetTotalEnergyConsumption", DeviceGetTotalEnergyConsumption);
	}
	cur_sample = NULL;
#undef U32
#undef ULL
}

/* ---- monitor additions (gpu/collector.c, cmd/topo.c) ---------------------------------------- */

int probe_sample_fast(struct probe *p, const struct gpu *g, unsigned mask, unsigned *unsup,
		      struct gpu_sample *out)
{
	if (g->sg)
		return sysfs_sample_fast(g, mask, unsup, out);
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return -1;
	cur_sample = out;
	out->t_ns = now_ns();
	read_fast(p, g, p->handles[g->index], mask, unsup, out);
	cur_sample = NULL;
	return 0;
}

/* Recorded time stamps of process samples are ages (negative microseconds before the call),
 * so a replay can serve them as fresh samples at any later time (tests/nvml-replay). */
static void record_util_samples(int gi, int rc, const struct nvml_process_utilization_sample *s,
				unsigned n, uint64_t now_us)
{
	int64_t *vals;
	unsigned i;

	if (!rec_active())
		return;
	vals = xcalloc((size_t)n * 6 + 1, sizeof(*vals));
	for (i = 0; i < n; i++) {
		vals[i * 6] = s[i].pid;
		vals[i * 6 + 1] = (int64_t)s[i].timestamp - (int64_t)now_us;
		vals[i * 6 + 2] = s[i].sm_util;
		vals[i * 6 + 3] = s[i].mem_util;
		vals[i * 6 + 4] = s[i].enc_util;
		vals[i * 6 + 5] = s[i].dec_util;
	}
	rec_call_rows("nvml", gi, "nvmlDeviceGetProcessUtilization", rc, "iiiiii", rc ? 0 : n, vals);
	free(vals);
}

void probe_process_util(struct probe *p, const struct gpu *g, uint64_t last_seen_us,
			struct proc_util_sample **out, size_t *n, struct num *status)
{
	struct nvml_process_utilization_sample *buf = NULL;
	unsigned count = 0, i, tries;
	int gi = (int)g->index;
	nvml_dev h;
	int rc;

	*out = NULL;
	*n = 0;
	if (g->sg) {
		num_nvidia_only(status);
		return;
	}
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index]) {
		nv_state(status, "nvmlDeviceGetProcessUtilization", NVML_ERROR_UNINITIALIZED);
		return;
	}
	h = p->handles[g->index];
	/* size query: NULL buffer, the driver says how many slots it has */
	rc = NV(p, gi, "nvmlDeviceGetProcessUtilization", DeviceGetProcessUtilization, h, NULL,
		&count, last_seen_us);
	/* the size query answers "insufficient size" on the 580 driver; older ones may say success */
	for (tries = 0; (rc == NVML_ERROR_INSUFFICIENT_SIZE || (rc == NVML_SUCCESS && !buf && count));
	     tries++) {
		if (tries == 4) {
			rc = NVML_ERROR_UNKNOWN; /* it keeps growing: give up this tick */
			break;
		}
		if (count == 0) {
			rc = NVML_SUCCESS; /* an empty ring */
			break;
		}
		if (count > PROC_COUNT_MAX) {
			rc = NVML_ERROR_UNKNOWN;
			break;
		}
		free(buf);
		buf = xcalloc(count, sizeof(*buf));
		rc = NV(p, gi, "nvmlDeviceGetProcessUtilization", DeviceGetProcessUtilization, h, buf,
			&count, last_seen_us);
	}
	if (rc == NVML_SUCCESS && !buf)
		count = 0; /* the size query itself succeeded: nothing to read */
	if (rc == NVML_SUCCESS && count > PROC_COUNT_MAX)
		rc = NVML_ERROR_UNKNOWN;
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		record_util_samples(gi, rc == NVML_ERROR_NOT_FOUND ? 0 : rc, buf,
				    rc == NVML_SUCCESS ? count : 0,
				    (uint64_t)(wall_time() * 1e6));
	/* "not found": no sample newer than last_seen_us, which means nobody ran since */
	nv_state(status, "nvmlDeviceGetProcessUtilization", rc == NVML_ERROR_NOT_FOUND ? 0 : rc);
	if (rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
		cur_sample->lost = true;
	if (rc == NVML_SUCCESS && count) {
		*out = xcalloc(count, sizeof(**out));
		for (i = 0; i < count; i++) {
			(*out)[i].pid = buf[i].pid;
			(*out)[i].ts_us = buf[i].timestamp;
			(*out)[i].sm_pct = buf[i].sm_util;
			(*out)[i].mem_pct = buf[i].mem_util;
			(*out)[i].enc_pct = buf[i].enc_util;
			(*out)[i].dec_pct = buf[i].dec_util;
		}
		*n = count;
	}
	free(buf);
}

/* Recorded like process samples: rows [age in us before the call, value type, value], under
 * "nvmlDeviceGetSamples(1)" (the sampling type), so a replay serves them as fresh. */
static void record_samples(int gi, int rc, int type, const struct nvml_sample *s, unsigned n,
			   const int64_t *v, uint64_t now_us)
{
	int64_t *vals;
	unsigned i;

	if (!rec_active())
		return;
	vals = xcalloc((size_t)n * 3 + 1, sizeof(*vals));
	for (i = 0; i < n; i++) {
		vals[i * 3] = (int64_t)s[i].timestamp - (int64_t)now_us;
		vals[i * 3 + 1] = type;
		vals[i * 3 + 2] = v[i];
	}
	rec_call_rows("nvml", gi, "nvmlDeviceGetSamples(1)", rc, "iii", rc ? 0 : n, vals);
	free(vals);
}

void probe_util_samples(struct probe *p, const struct gpu *g, uint64_t last_seen_us,
			struct util_sample **out, size_t *n, struct num *status)
{
	static const char key[] = "nvmlDeviceGetSamples(1)";
	struct nvml_sample *buf = NULL;
	unsigned count = 0, i, tries, kept = 0;
	int gi = (int)g->index, type = -1, rc;
	int64_t *v = NULL;
	nvml_dev h;

	*out = NULL;
	*n = 0;
	if (g->sg) {
		num_nvidia_only(status);
		return;
	}
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index]) {
		nv_state(status, key, NVML_ERROR_UNINITIALIZED);
		return;
	}
	h = p->handles[g->index];
	/* size query: no buffer, the driver says how many samples it holds */
	/* a hang is named "nvmlDeviceGetSamples(1)", the key of the answer (watchdog.h) */
	rc = NV_ARGS(p, gi, "nvmlDeviceGetSamples", 1, NVML_GPU_UTILIZATION_SAMPLES, 0,
		     DeviceGetSamples, h, NVML_GPU_UTILIZATION_SAMPLES, last_seen_us, &type, &count,
		     NULL);
	for (tries = 0;
	     (rc == NVML_ERROR_INSUFFICIENT_SIZE || (rc == NVML_SUCCESS && !buf && count));
	     tries++) {
		if (tries == 4 || count > PROC_COUNT_MAX) {
			rc = NVML_ERROR_UNKNOWN; /* it keeps growing, or is absurd: not this tick */
			break;
		}
		if (count == 0) {
			rc = NVML_SUCCESS;
			break;
		}
		free(buf);
		buf = xcalloc(count, sizeof(*buf));
		rc = NV_ARGS(p, gi, "nvmlDeviceGetSamples", 1, NVML_GPU_UTILIZATION_SAMPLES, 0,
			     DeviceGetSamples, h, NVML_GPU_UTILIZATION_SAMPLES, last_seen_us, &type,
			     &count, buf);
	}
	if (rc == NVML_SUCCESS && (!buf || count > PROC_COUNT_MAX))
		count = 0;
	if (rc == NVML_SUCCESS && count) {
		v = xcalloc(count, sizeof(*v));
		for (i = 0; i < count; i++) {
			struct nvml_field_value f;

			/* the value's type comes back with the call (unsigned int on the drivers
			 * seen): read through the field-value decoder */
			memset(&f, 0, sizeof(f));
			f.value_type = type;
			f.value = buf[i].value;
			if (field_value(&f, 0, &v[i]) != NVML_SUCCESS)
				rc = NVML_ERROR_UNKNOWN;
		}
	}
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		record_samples(gi, rc == NVML_ERROR_NOT_FOUND ? 0 : rc, type, buf,
			       rc == NVML_SUCCESS ? count : 0, v, (uint64_t)(wall_time() * 1e6));
	/* "not found": no sample newer than last_seen_us */
	nv_state(status, key, rc == NVML_ERROR_NOT_FOUND ? 0 : rc);
	if (rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
		cur_sample->lost = true;
	if (rc == NVML_SUCCESS && count) {
		*out = xcalloc(count, sizeof(**out));
		for (i = 0; i < count; i++) {
			if (buf[i].timestamp <= last_seen_us || v[i] < 0 || v[i] > 100)
				continue; /* not newer after all, or not a percentage */
			(*out)[kept].ts_us = buf[i].timestamp;
			(*out)[kept].pct = (int)v[i];
			kept++;
		}
		*n = kept;
		if (!kept) {
			free(*out);
			*out = NULL;
		}
	}
	free(v);
	free(buf);
}

void probe_field_values(struct probe *p, const struct gpu *g, const unsigned *ids,
			const unsigned *scopes, size_t n, struct num *out)
{
	struct nvml_field_value fv[64];
	int gi = (int)g->index;
	size_t i, done;
	int rc;

	memset(out, 0, n * sizeof(*out));
	if (g->sg) {
		for (i = 0; i < n; i++)
			num_nvidia_only(&out[i]);
		return;
	}
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index]) {
		for (i = 0; i < n; i++)
			nv_state(&out[i], "nvmlDeviceGetFieldValues", NVML_ERROR_UNINITIALIZED);
		return;
	}
	for (done = 0; done < n; done += ARRAY_SIZE(fv)) {
		size_t m = n - done < ARRAY_SIZE(fv) ? n - done : ARRAY_SIZE(fv);

		memset(fv, 0, sizeof(fv));
		for (i = 0; i < m; i++) {
			fv[i].field_id = ids[done + i];
			fv[i].scope_id = scopes ? scopes[done + i] : 0;
		}
		rc = NV_ARGS(p, gi, "nvmlDeviceGetFieldValues", scopes ? 2 : 1, ids[done],
			     scopes ? scopes[done] : 0, DeviceGetFieldValues, p->handles[g->index],
			     (int)m, fv);
		for (i = 0; i < m; i++) {
			char key[64];
			int64_t v;
			int frc = field_value(&fv[i], rc, &v);

			if (scopes)
				str_fmt(key, sizeof(key), "nvmlDeviceGetFieldValues(%u,%u)",
					ids[done + i], scopes[done + i]);
			else
				str_fmt(key, sizeof(key), "nvmlDeviceGetFieldValues(%u)", ids[done + i]);
			nv_num(g, &out[done + i], key, frc, v);
			out[done + i].call = "nvmlDeviceGetFieldValues";
		}
	}
}

void probe_pcie_counters(struct probe *p, const struct gpu *g, struct num *out, bool *narrow)
{
	struct nvml_field_value fv[2];
	int gi = (int)g->index, rc;
	size_t i;

	*narrow = false;
	memset(out, 0, 2 * sizeof(*out));
	if (g->sg) {
		num_nvidia_only(&out[0]);
		num_nvidia_only(&out[1]);
		return;
	}
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index]) {
		for (i = 0; i < 2; i++)
			nv_state(&out[i], "nvmlDeviceGetFieldValues", NVML_ERROR_UNINITIALIZED);
		return;
	}
	memset(fv, 0, sizeof(fv));
	fv[0].field_id = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;
	fv[1].field_id = NVML_FI_DEV_PCIE_COUNT_RX_BYTES;
	rc = NV_ARGS(p, gi, "nvmlDeviceGetFieldValues", 1, fv[0].field_id, 0, DeviceGetFieldValues,
		     p->handles[g->index], 2, fv);
	for (i = 0; i < 2; i++) {
		char key[64];
		int64_t v;
		int frc = field_value(&fv[i], rc, &v);

		str_fmt(key, sizeof(key), "nvmlDeviceGetFieldValues(%u)", fv[i].field_id);
		nv_num(g, &out[i], key, frc, v);
		out[i].call = "nvmlDeviceGetFieldValues";
		if (frc == NVML_SUCCESS && (fv[i].value_type == NVML_VALUE_TYPE_UNSIGNED_INT ||
					    fv[i].value_type == NVML_VALUE_TYPE_SIGNED_INT ||
					    fv[i].value_type == NVML_VALUE_TYPE_UNSIGNED_SHORT))
			*narrow = true;
	}
}

void probe_pcie_throughput(struct probe *p, const struct gpu *g, struct gpu_sample *s)
{
	int gi = (int)g->index;
	unsigned u = 0;
	int rc;

	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return;
	rc = NV(p, gi, "nvmlDeviceGetPcieThroughput(0)", DeviceGetPcieThroughput,
		p->handles[g->index], NVML_PCIE_UTIL_TX_BYTES, &u);
	nv_num(g, &s->pcie_tx_kbps, "nvmlDeviceGetPcieThroughput(0)", rc, u);
	u = 0;
	rc = NV(p, gi, "nvmlDeviceGetPcieThroughput(1)", DeviceGetPcieThroughput,
		p->handles[g->index], NVML_PCIE_UTIL_RX_BYTES, &u);
	nv_num(g, &s->pcie_rx_kbps, "nvmlDeviceGetPcieThroughput(1)", rc, u);
}

void probe_energy(struct probe *p, const struct gpu *g, struct num *energy_mj)
{
	unsigned long long ull = 0;
	int rc;

	if (g->sg) {
		if (g->sg->be->read_energy)
			g->sg->be->read_energy(g->sg, energy_mj);
		return;
	}
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return;
	rc = NV(p, (int)g->index, "nvmlDeviceGetTotalEnergyConsumption",
		DeviceGetTotalEnergyConsumption, p->handles[g->index], &ull);
	nv_num(g, energy_mj, "nvmlDeviceGetTotalEnergyConsumption", rc, (int64_t)ull);
}
