/*
 * probe_static.c: the static facts of one GPU, read once when a session opens it (see
 * probe_int.h for the parts of the backend).
 */
#define _GNU_SOURCE
#include "probe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "reason.h"

/* ---- static facts -------------------------------------------------------------------------- */

void cpulist_from_mask(const unsigned long *mask, size_t words, char *out, size_t n)
{
	size_t bits = words * sizeof(unsigned long) * 8, i;
	long start = -1;

	out[0] = '\0';
	for (i = 0; i <= bits; i++) {
		bool set = i < bits && (mask[i / (sizeof(unsigned long) * 8)] >>
					(i % (sizeof(unsigned long) * 8))) & 1UL;
		char part[32];

		if (set && start < 0)
			start = (long)i;
		if (!set && start >= 0) {
			if ((long)i - 1 == start)
				str_fmt(part, sizeof(part), "%s%ld", out[0] ? "," : "", start);
			else
				str_fmt(part, sizeof(part), "%s%ld-%ld", out[0] ? "," : "", start,
					(long)i - 1);
			str_append(out, part, n);
			start = -1;
		}
	}
}

/* The bus id and PCI ids of one GPU. Also called on a GPU that answered "lost": NVML may
 * still know its address, and where it does not, handle calls on a lost GPU answer 15 at
 * once; the watchdog still guards the call. */
static void read_pci_info(struct probe *p, struct gpu *g, nvml_dev h)
{
	struct gpu_static *st = &g->st;
	struct nvml_pci_info pci;
	int gi = (int)g->index, rc;

	memset(&pci, 0, sizeof(pci));
	rc = NV(p, gi, "nvmlDeviceGetPciInfo", DeviceGetPciInfo, h, &pci);
	if (rc == NVML_SUCCESS)
		clean_string(pci.bus_id, sizeof(pci.bus_id));
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", gi, "nvmlDeviceGetPciInfo", rc, rc ? "" : "suuuuu", pci.bus_id,
			 (uint64_t)pci.domain, (uint64_t)pci.bus, (uint64_t)pci.device,
			 (uint64_t)pci.pci_device_id, (uint64_t)pci.pci_subsystem_id);
	nv_state(&st->pci_device_id, "nvmlDeviceGetPciInfo", rc);
	nv_state(&st->pci_subsystem_id, "nvmlDeviceGetPciInfo", rc);
	st->bus_id.call = "nvmlDeviceGetPciInfo";
	st->bus_id.rc = rc;
	st->bus_id.lib = LIB_NVML;
	st->bus_id.reason = st->pci_device_id.reason;
	st->bus_id.st = st->pci_device_id.st;
	if (rc == NVML_SUCCESS) {
		st->pci_device_id.v = pci.pci_device_id;
		st->pci_subsystem_id.v = pci.pci_subsystem_id;
		str_copy(st->bus_id.s, pci.bus_id, sizeof(st->bus_id.s));
	}
}

/* Static facts of one GPU: the brief set always (what `status` shows), the rest with
 * PROBE_STATIC, and the slow queries with PROBE_STATIC_SLOW. */
void read_static(struct probe *p, struct gpu *g, nvml_dev h, unsigned flags)
{
	struct gpu_static *st = &g->st;
	int gi = (int)g->index;
	char buf[128];
	unsigned u = 0, u2 = 0;
	int i1 = 0, i2 = 0, rc;

#define TEXT(field, key, fn)                                                                       \
	do {                                                                                       \
		memset(buf, 0, sizeof(buf));                                                       \
		rc = NV(p, gi, key, fn, h, buf, 96);                                               \
		nv_text(g, &st->field, key, rc, buf, sizeof(buf));                                 \
	} while (0)
#define U32(field, key, fn, ...)                                                                   \
	do {                                                                                       \
		u = 0;                                                                             \
		rc = NV(p, gi, key, fn, h, ##__VA_ARGS__, &u);                                     \
		nv_num(g, &st->field, key, rc, u);                                                 \
	} while (0)

	/* static reads mark the GPU's own sample when it is lost */
	cur_sample = &g->s;
	TEXT(name, "nvmlDeviceGetName", DeviceGetName);
	if (g->s.lost) {
		/* the bus id still names the GPU, so doctor can match it to its PCI function */
		read_pci_info(p, g, h);
		cur_sample = NULL;
		return;
	}
	read_memory(p, g, h, &g->s, &st->mem_total_bytes);
	TEXT(uuid, "nvmlDeviceGetUUID", DeviceGetUUID);
	read_pci_info(p, g, h);

	U32(pcie_gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", DeviceGetMaxPcieLinkGeneration);
	U32(pcie_width_max, "nvmlDeviceGetMaxPcieLinkWidth", DeviceGetMaxPcieLinkWidth);
	/* MIG mode and instances are part of the brief set: the status table shows them */
	u = u2 = 0;
	rc = NV(p, gi, "nvmlDeviceGetMigMode", DeviceGetMigMode, h, &u, &u2);
	nv_pair(g, "nvmlDeviceGetMigMode", rc, true, &st->mig_current, u, &st->mig_pending, u2);
	if (num_ok(&st->mig_current) && st->mig_current.v == 1) {
		unsigned max = 0, i, have = 0;

		rc = NV(p, gi, "nvmlDeviceGetMaxMigDeviceCount", DeviceGetMaxMigDeviceCount, h, &max);
		nv_num(g, &st->mig_instances, "nvmlDeviceGetMaxMigDeviceCount", rc, max);
		if (rc == NVML_SUCCESS) {
			for (i = 0; i < max && i < 64; i++) {
				nvml_dev mh = NULL;
				char key[64];
				int r2;

				str_fmt(key, sizeof(key), "nvmlDeviceGetMigDeviceHandleByIndex(%u)", i);
				r2 = NV_ARGS(p, gi, "nvmlDeviceGetMigDeviceHandleByIndex", 1, i, 0,
					     DeviceGetMigDeviceHandleByIndex, h, i, &mh);
				rec_call("nvml", gi, key, r2, "");
				if (r2 == NVML_SUCCESS)
					have++;
			}
			st->mig_instances.v = have;
		}
	}

	if (!(flags & PROBE_STATIC)) {
		/* The status table: ECC mode, the uncorrected ECC count and the power limit in
		 * one nvmlDeviceGetFieldValues call instead of three calls of 2-10 ms each on
		 * the H200s (the count belongs to the sample; in one-shot use it is read here). */
		static const unsigned ids[] = {NVML_FI_DEV_ECC_CURRENT, NVML_FI_DEV_ECC_DBE_VOL_TOTAL,
					       NVML_FI_DEV_POWER_CURRENT_LIMIT};
		struct num *dest[] = {&st->ecc_current, &g->s.ecc_vol_uncorrected,
				      &st->power_limit_mw};

		read_fields(p, g, h, ids, dest, ARRAY_SIZE(ids));
		goto slow;
	}
	U32(power_enforced_mw, "nvmlDeviceGetEnforcedPowerLimit", DeviceGetEnforcedPowerLimit);
	i1 = i2 = 0;
	rc = NV(p, gi, "nvmlDeviceGetEccMode", DeviceGetEccMode, h, &i1, &i2);
	nv_pair(g, "nvmlDeviceGetEccMode", rc, false, &st->ecc_current, i1, &st->ecc_pending, i2);

	TEXT(serial, "nvmlDeviceGetSerial", DeviceGetSerial);
	TEXT(board_part, "nvmlDeviceGetBoardPartNumber", DeviceGetBoardPartNumber);
	TEXT(vbios, "nvmlDeviceGetVbiosVersion", DeviceGetVbiosVersion);
	TEXT(inforom_image, "nvmlDeviceGetInforomImageVersion", DeviceGetInforomImageVersion);

	U32(pcie_gen_max_gpu, "nvmlDeviceGetGpuMaxPcieLinkGeneration",
	    DeviceGetGpuMaxPcieLinkGeneration);
	i1 = 0;
	rc = NV(p, gi, "nvmlDeviceGetBrand", DeviceGetBrand, h, &i1);
	nv_num(g, &st->brand, "nvmlDeviceGetBrand", rc, i1);
	U32(arch, "nvmlDeviceGetArchitecture", DeviceGetArchitecture);
	U32(minor_number, "nvmlDeviceGetMinorNumber", DeviceGetMinorNumber);

	i1 = i2 = 0;
	rc = NV(p, gi, "nvmlDeviceGetCudaComputeCapability", DeviceGetCudaComputeCapability, h, &i1,
		&i2);
	nv_pair(g, "nvmlDeviceGetCudaComputeCapability", rc, false, &st->cc_major, i1,
		&st->cc_minor, i2);

	U32(clock_max_gr_mhz, "nvmlDeviceGetMaxClockInfo(0)", DeviceGetMaxClockInfo, NVML_CLOCK_GRAPHICS);
	U32(clock_max_sm_mhz, "nvmlDeviceGetMaxClockInfo(1)", DeviceGetMaxClockInfo, NVML_CLOCK_SM);
	U32(clock_max_mem_mhz, "nvmlDeviceGetMaxClockInfo(2)", DeviceGetMaxClockInfo, NVML_CLOCK_MEM);
	U32(clock_max_video_mhz, "nvmlDeviceGetMaxClockInfo(3)", DeviceGetMaxClockInfo,
	    NVML_CLOCK_VIDEO);

	u = u2 = 0;
	rc = NV(p, gi, "nvmlDeviceGetPowerManagementLimitConstraints",
		DeviceGetPowerManagementLimitConstraints, h, &u, &u2);
	nv_pair(g, "nvmlDeviceGetPowerManagementLimitConstraints", rc, true, &st->power_min_mw, u,
		&st->power_max_mw, u2);
	U32(power_default_mw, "nvmlDeviceGetPowerManagementDefaultLimit",
	    DeviceGetPowerManagementDefaultLimit);
	U32(power_limit_mw, "nvmlDeviceGetPowerManagementLimit", DeviceGetPowerManagementLimit);
	U32(mem_bus_width_bits, "nvmlDeviceGetMemoryBusWidth", DeviceGetMemoryBusWidth);
	U32(multi_gpu_board, "nvmlDeviceGetMultiGpuBoard", DeviceGetMultiGpuBoard);
	U32(cores, "nvmlDeviceGetNumGpuCores", DeviceGetNumGpuCores);

	i1 = 0;
	rc = NV(p, gi, "nvmlDeviceGetPersistenceMode", DeviceGetPersistenceMode, h, &i1);
	nv_num(g, &st->persistence, "nvmlDeviceGetPersistenceMode", rc, i1);
	i1 = 0;
	rc = NV(p, gi, "nvmlDeviceGetComputeMode", DeviceGetComputeMode, h, &i1);
	nv_num(g, &st->compute_mode, "nvmlDeviceGetComputeMode", rc, i1);
	U32(numa_node, "nvmlDeviceGetNumaNodeId", DeviceGetNumaNodeId);
	U32(temp_shutdown_c, "nvmlDeviceGetTemperatureThreshold(0)", DeviceGetTemperatureThreshold,
	    NVML_TEMPERATURE_THRESHOLD_SHUTDOWN);
	U32(temp_slowdown_c, "nvmlDeviceGetTemperatureThreshold(1)", DeviceGetTemperatureThreshold,
	    NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
	U32(temp_mem_max_c, "nvmlDeviceGetTemperatureThreshold(2)", DeviceGetTemperatureThreshold,
	    NVML_TEMPERATURE_THRESHOLD_MEM_MAX);
	U32(temp_gpu_max_c, "nvmlDeviceGetTemperatureThreshold(3)", DeviceGetTemperatureThreshold,
	    NVML_TEMPERATURE_THRESHOLD_GPU_MAX);
	{
		unsigned long long bits = 0;

		rc = NV(p, gi, "nvmlDeviceGetSupportedClocksEventReasons",
			DeviceGetSupportedClocksEventReasons, h, &bits);
		nv_num(g, &st->ce_supported, "nvmlDeviceGetSupportedClocksEventReasons", rc,
		       (int64_t)bits);
	}
	{
		unsigned link, active = 0;
		int any_ok = 0, last_rc = NVML_ERROR_NOT_SUPPORTED;

		for (link = 0; link < GPU_MAX_LINKS; link++) {
			char key[64];
			int state = 0;

			str_fmt(key, sizeof(key), "nvmlDeviceGetNvLinkState(%u)", link);
			rc = NV_ARGS(p, gi, "nvmlDeviceGetNvLinkState", 1, link, 0,
				     DeviceGetNvLinkState, h, link, &state);
			if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
				rec_call("nvml", gi, key, rc, rc ? "" : "i", (int64_t)state);
			nv_state(&g->s.nvlink_active[link], "nvmlDeviceGetNvLinkState", rc);
			g->s.nvlink_active[link].v = state;
			last_rc = rc;
			if (rc == NVML_SUCCESS) {
				any_ok = 1;
				if (state)
					active++;
			} else if (rc == NVML_ERROR_NOT_SUPPORTED ||
				   rc == NVML_ERROR_FUNCTION_NOT_FOUND) {
				/* links are numbered densely: the first unsupported one ends them */
				if (link > 0)
					break;
			}
			if (rc == NVML_ERROR_GPU_IS_LOST)
				break;
		}
		nv_state(&st->nvlink_count, "nvmlDeviceGetNvLinkState", any_ok ? 0 : last_rc);
		st->nvlink_count.v = active;
	}
slow:
	if (flags & PROBE_STATIC_SLOW) {
		/* 20 ms and 70 ms per GPU on the H200s: doctor and topo only */
		{
			unsigned long mask[16];
			size_t i;

			memset(mask, 0, sizeof(mask));
			rc = NV(p, gi, "nvmlDeviceGetCpuAffinity", DeviceGetCpuAffinity, h, 16, mask);
			if (rc != NVML_ERROR_FUNCTION_NOT_FOUND) {
				int64_t words[16];

				for (i = 0; i < 16; i++)
					words[i] = (int64_t)mask[i];
				rec_call_rows("nvml", gi, "nvmlDeviceGetCpuAffinity", rc, "i",
					      rc ? 0 : 16, words);
			}
			st->cpu_affinity.call = "nvmlDeviceGetCpuAffinity";
			st->cpu_affinity.rc = rc;
			st->cpu_affinity.lib = LIB_NVML;
			st->cpu_affinity.reason = (unsigned char)reason_of(LIB_NVML, rc);
			if (rc == NVML_SUCCESS) {
				cpulist_from_mask(mask, 16, st->cpu_affinity.s, sizeof(st->cpu_affinity.s));
				st->cpu_affinity.st = VAL_OK;
			} else {
				st->cpu_affinity.st = rc == NVML_ERROR_NOT_SUPPORTED ||
							      rc == NVML_ERROR_FUNCTION_NOT_FOUND
							      ? VAL_NA
							      : VAL_ERR;
			}
		}

		rc = NV(p, gi, "nvmlDeviceValidateInforom", DeviceValidateInforom, h);
		if (rc == NVML_ERROR_CORRUPTED_INFOROM) {
			rec_call("nvml", gi, "nvmlDeviceValidateInforom", rc, "");
			st->inforom_valid.call = "nvmlDeviceValidateInforom";
			st->inforom_valid.lib = LIB_NVML;
			num_set(&st->inforom_valid, 0);
		} else {
			nv_num(g, &st->inforom_valid, "nvmlDeviceValidateInforom", rc, 1);
		}

	}
	cur_sample = NULL;
#undef TEXT
#undef U32
}
