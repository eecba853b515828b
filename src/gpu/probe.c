/*
 * probe.c: the NVML and CUDA backend of the device model (see probe.h).
 *
 * Each query follows one pattern: name the call for the watchdog, make it (or note that the
 * symbol is missing), hand the answer to the recorder under a stable key, and store value,
 * "not supported" or error in the model. The keys and the order of recorded values are the
 * contract with the fake libraries in tests/nvml-replay; docs/scenarios.md lists them.
 */
#define _GNU_SOURCE
#include "probe.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/util.h"
#include "../vendor/cuda.h"
#include "../vendor/nvml.h"
#include "../vendor/watchdog.h"
#include "busid.h"
#include "reason.h"
#include "topo.h"

#define GPU_COUNT_MAX 256
#define PROC_COUNT_MAX 4096

/* The sample being filled: answers of "GPU is lost" mark it. Thread-local so that collectors
 * may sample different GPUs (or tiers) from several threads. */
static _Thread_local struct gpu_sample *cur_sample;

struct probe {
	struct nvml_lib nv;
	bool nv_loaded, nv_inited;
	nvml_dev *handles;
	unsigned nhandles;
};

/* the device model's own names for NVML's values (device.h) */
_Static_assert((int)COMPUTE_MODE_PROHIBITED == (int)NVML_COMPUTEMODE_PROHIBITED &&
		       (int)COMPUTE_MODE_EXCLUSIVE_PROCESS == (int)NVML_COMPUTEMODE_EXCLUSIVE_PROCESS,
	       "compute modes as NVML numbers them");
_Static_assert((int)FABRIC_STATE_NOT_STARTED == (int)NVML_GPU_FABRIC_STATE_NOT_STARTED &&
		       (int)FABRIC_STATE_IN_PROGRESS == (int)NVML_GPU_FABRIC_STATE_IN_PROGRESS &&
		       (int)FABRIC_STATE_COMPLETED == (int)NVML_GPU_FABRIC_STATE_COMPLETED,
	       "fabric states as NVML numbers them");

/* ---- storing answers ---------------------------------------------------------------------- */

static void nv_state(struct num *n, const char *call, int rc)
{
	n->call = call;
	n->rc = rc;
	n->lib = LIB_NVML;
	n->reason = (unsigned char)reason_of(LIB_NVML, rc);
	if (rc == NVML_SUCCESS)
		n->st = VAL_OK;
	else if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND)
		n->st = VAL_NA;
	else
		n->st = VAL_ERR;
}

static void nv_num(const struct gpu *g, struct num *n, const char *key, int rc, int64_t v)
{
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", g ? (int)g->index : -1, key, rc, rc ? "" : "i", v);
	nv_state(n, key, rc);
	if (rc == NVML_SUCCESS)
		n->v = v;
	if (g && rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
		cur_sample->lost = true;
}

/* NVML strings are fixed buffers; keep printable ASCII only, so garbage never reaches a
 * terminal or a JSON document. */
static void clean_string(char *s, size_t n)
{
	size_t i;

	s[n - 1] = '\0';
	for (i = 0; s[i]; i++)
		if (!isprint((unsigned char)s[i]))
			s[i] = '?';
	str_trim(s);
}

static void nv_text(const struct gpu *g, struct text *t, const char *key, int rc, char *buf, size_t n)
{
	if (rc == NVML_SUCCESS)
		clean_string(buf, n);
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", g ? (int)g->index : -1, key, rc, rc ? "" : "s", buf);
	t->call = key;
	t->rc = rc;
	t->lib = LIB_NVML;
	t->reason = (unsigned char)reason_of(LIB_NVML, rc);
	if (rc == NVML_SUCCESS) {
		t->st = VAL_OK;
		str_copy(t->s, buf, sizeof(t->s));
	} else {
		t->st = (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND) ? VAL_NA
											   : VAL_ERR;
	}
	if (g && rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
		cur_sample->lost = true;
}

/* Call api.fn when the symbol exists, after telling the watchdog what we are about to do, and
 * tell it when the call is back. NV_ARGS names the call's scalar inputs too (nargs of a0, a1),
 * so that a hang is reported, and recorded, under the key its answer would have had. */
#define NV_ARGS(p, gpu, key, nargs, a0, a1, fn, ...)                                               \
	(watchdog_note_args(key, (gpu), (nargs), (long)(a0), (long)(a1)),                          \
	 watchdog_returned((p)->nv.api.fn ? (p)->nv.api.fn(__VA_ARGS__)                            \
					  : NVML_ERROR_FUNCTION_NOT_FOUND))
#define NV(p, gpu, key, fn, ...) NV_ARGS(p, gpu, key, 0, 0, 0, fn, __VA_ARGS__)

static void lib_info_from(struct lib_info *li, const struct vlib *l)
{
	size_t i;

	li->attempted = true;
	str_copy(li->path, l->path, sizeof(li->path));
	str_copy(li->version, l->version, sizeof(li->version));
	str_copy(li->error, l->error, sizeof(li->error));
	li->missing[0] = '\0';
	for (i = 0; i < l->nmissing; i++) {
		if (i)
			str_append(li->missing, " ", sizeof(li->missing));
		str_append(li->missing, l->missing[i], sizeof(li->missing));
	}
}

/* ---- static facts -------------------------------------------------------------------------- */

static void read_memory(struct probe *p, const struct gpu *g, nvml_dev h, struct gpu_sample *s,
			struct num *total);
static void read_fields(struct probe *p, const struct gpu *g, nvml_dev h, const unsigned *ids,
			struct num *const *dest, size_t n);

static void cpulist_from_mask(const unsigned long *mask, size_t words, char *out, size_t n)
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
static void read_static(struct probe *p, struct gpu *g, nvml_dev h, unsigned flags)
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
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", gi, "nvmlDeviceGetEccMode", rc, rc ? "" : "ii", (int64_t)i1,
			 (int64_t)i2);
	nv_state(&st->ecc_current, "nvmlDeviceGetEccMode", rc);
	nv_state(&st->ecc_pending, "nvmlDeviceGetEccMode", rc);
	st->ecc_current.v = i1;
	st->ecc_pending.v = i2;

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
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", gi, "nvmlDeviceGetCudaComputeCapability", rc, rc ? "" : "ii",
			 (int64_t)i1, (int64_t)i2);
	nv_state(&st->cc_major, "nvmlDeviceGetCudaComputeCapability", rc);
	nv_state(&st->cc_minor, "nvmlDeviceGetCudaComputeCapability", rc);
	st->cc_major.v = i1;
	st->cc_minor.v = i2;

	U32(clock_max_gr_mhz, "nvmlDeviceGetMaxClockInfo(0)", DeviceGetMaxClockInfo, NVML_CLOCK_GRAPHICS);
	U32(clock_max_sm_mhz, "nvmlDeviceGetMaxClockInfo(1)", DeviceGetMaxClockInfo, NVML_CLOCK_SM);
	U32(clock_max_mem_mhz, "nvmlDeviceGetMaxClockInfo(2)", DeviceGetMaxClockInfo, NVML_CLOCK_MEM);
	U32(clock_max_video_mhz, "nvmlDeviceGetMaxClockInfo(3)", DeviceGetMaxClockInfo,
	    NVML_CLOCK_VIDEO);

	u = u2 = 0;
	rc = NV(p, gi, "nvmlDeviceGetPowerManagementLimitConstraints",
		DeviceGetPowerManagementLimitConstraints, h, &u, &u2);
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", gi, "nvmlDeviceGetPowerManagementLimitConstraints", rc,
			 rc ? "" : "uu", (uint64_t)u, (uint64_t)u2);
	nv_state(&st->power_min_mw, "nvmlDeviceGetPowerManagementLimitConstraints", rc);
	nv_state(&st->power_max_mw, "nvmlDeviceGetPowerManagementLimitConstraints", rc);
	st->power_min_mw.v = u;
	st->power_max_mw.v = u2;
	U32(power_default_mw, "nvmlDeviceGetPowerManagementDefaultLimit",
	    DeviceGetPowerManagementDefaultLimit);
	U32(power_limit_mw, "nvmlDeviceGetPowerManagementLimit", DeviceGetPowerManagementLimit);
	U32(mem_bus_width_bits, "nvmlDeviceGetMemoryBusWidth", DeviceGetMemoryBusWidth);
	U32(multi_gpu_board, "nvmlDeviceGetMultiGpuBoard", DeviceGetMultiGpuBoard);
	U32(cores, "nvmlDeviceGetNumGpuCores", DeviceGetNumGpuCores);

	u = u2 = 0;
	rc = NV(p, gi, "nvmlDeviceGetMigMode", DeviceGetMigMode, h, &u, &u2);
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
		rec_call("nvml", gi, "nvmlDeviceGetMigMode", rc, rc ? "" : "uu", (uint64_t)u,
			 (uint64_t)u2);
	nv_state(&st->mig_current, "nvmlDeviceGetMigMode", rc);
	nv_state(&st->mig_pending, "nvmlDeviceGetMigMode", rc);
	st->mig_current.v = u;
	st->mig_pending.v = u2;
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

/* ---- samples ------------------------------------------------------------------------------- */

/* Memory of one GPU into s; the total (a static fact) into *total when given. */
static void read_memory(struct probe *p, const struct gpu *g, nvml_dev h, struct gpu_sample *s,
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
static int field_value(const struct nvml_field_value *f, int call_rc, int64_t *v)
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
static void read_fields(struct probe *p, const struct gpu *g, nvml_dev h, const unsigned *ids,
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
static bool read_fast(struct probe *p, const struct gpu *g, nvml_dev h, unsigned mask,
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
		if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
			rec_call("nvml", gi, "nvmlDeviceGetUtilizationRates", rc, rc ? "" : "uu",
				 (uint64_t)ut.gpu, (uint64_t)ut.memory);
		nv_state(&s->util_gpu_pct, "nvmlDeviceGetUtilizationRates", rc);
		nv_state(&s->util_mem_pct, "nvmlDeviceGetUtilizationRates", rc);
		s->util_gpu_pct.v = ut.gpu;
		s->util_mem_pct.v = ut.memory;
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
	return true;
#undef U32
#undef MEMO
#undef NA_RC
}

/* One sample of one GPU, the tiers in flags (PROBE_FAST, PROBE_HEALTH, PROBE_PROCS,
 * PROBE_SLOW), into s. Only reads g's index and static facts. */
static void read_sample(struct probe *p, const struct gpu *g, nvml_dev h, unsigned flags,
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
		unsigned mask = (flags & PROBE_FAST) ? PF_ALL
						     : PF_UTIL | PF_MEMORY | PF_TEMP | PF_TEMP_MARGIN |
							       PF_POWER | PF_CLOCK_SM | PF_CLOCK_EVENTS |
							       PF_PCIE_GEN | PF_PCIE_WIDTH;

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
			if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
				rec_call("nvml", gi, "nvmlDeviceGetGpuFabricInfo", rc, rc ? "" : "ii",
					 (int64_t)state, (int64_t)status);
			nv_state(&s->fabric_state, "nvmlDeviceGetGpuFabricInfo", rc);
			nv_state(&s->fabric_status, "nvmlDeviceGetGpuFabricInfo", rc);
			s->fabric_state.v = state;
			s->fabric_status.v = status;
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

/* ---- one task per GPU ----------------------------------------------------------------------
 *
 * On the H200s most NVML calls cost 0.5-4 ms the first time (a round trip to the GPU's
 * firmware), nvmlDeviceGetHandleByIndex 7 ms and nvmlDeviceValidateInforom 70 ms: a one-shot
 * command runs one thread per GPU, each attached to the caller's watchdog, so the time is
 * that of the slowest GPU rather than the sum.
 */

typedef void (*gpu_fn)(struct probe *p, struct gpu_system *sys, unsigned i, unsigned flags);

struct gpu_task {
	struct probe *p;
	struct gpu_system *sys;
	unsigned index, flags;
	gpu_fn fn;
	struct watch *w;
};

static void *gpu_task_run(void *arg)
{
	struct gpu_task *t = arg;

	watchdog_attach(t->w);
	t->fn(t->p, t->sys, t->index, t->flags);
	watchdog_detach();
	return NULL;
}

static void for_each_gpu(struct probe *p, struct gpu_system *sys, unsigned flags, gpu_fn fn,
			 bool parallel)
{
	struct gpu_task *tasks;
	pthread_t *tids;
	bool *started;
	unsigned i;

	if (!parallel || sys->ngpus < 2) {
		for (i = 0; i < sys->ngpus; i++)
			fn(p, sys, i, flags);
		return;
	}
	tasks = xcalloc(sys->ngpus, sizeof(*tasks));
	tids = xcalloc(sys->ngpus, sizeof(*tids));
	started = xcalloc(sys->ngpus, sizeof(*started));
	for (i = 0; i < sys->ngpus; i++) {
		tasks[i] = (struct gpu_task){p, sys, i, flags, fn, watchdog_self()};
		started[i] = pthread_create(&tids[i], NULL, gpu_task_run, &tasks[i]) == 0;
		if (!started[i])
			fn(p, sys, i, flags);
	}
	for (i = 0; i < sys->ngpus; i++)
		if (started[i])
			pthread_join(tids[i], NULL);
	free(started);
	free(tids);
	free(tasks);
}

static void open_gpu(struct probe *p, struct gpu_system *sys, unsigned i, unsigned flags)
{
	struct gpu *g = &sys->gpus[i];
	int rc;

	rc = NV(p, (int)i, "nvmlDeviceGetHandleByIndex", DeviceGetHandleByIndex, i, &p->handles[i]);
	rec_call("nvml", (int)i, "nvmlDeviceGetHandleByIndex", rc, "");
	if (rc != NVML_SUCCESS) {
		p->handles[i] = NULL;
		g->st.name.st = VAL_ERR;
		g->st.name.rc = rc;
		g->st.name.call = "nvmlDeviceGetHandleByIndex";
		g->st.name.lib = LIB_NVML;
		g->st.name.reason = (unsigned char)reason_of(LIB_NVML, rc);
		if (rc == NVML_ERROR_GPU_IS_LOST)
			g->s.lost = true;
		return;
	}
	if (flags & (PROBE_STATIC | PROBE_BRIEF))
		read_static(p, g, p->handles[i], flags);
}

static void sample_gpu(struct probe *p, struct gpu_system *sys, unsigned i, unsigned flags)
{
	if (i < p->nhandles && p->handles[i])
		read_sample(p, &sys->gpus[i], p->handles[i], flags, &sys->gpus[i].s);
}

/* ---- NVML session --------------------------------------------------------------------------- */

static int nvml_open(struct probe *p, struct gpu_system *sys, unsigned flags, struct err *e)
{
	struct err le;
	char buf[96];
	int rc, iv = 0;
	unsigned count = 0, i;
	int64_t t0;

	err_clear(&le);
	sys->nvml_lib.attempted = true;
	if (nvml_load(&p->nv, &le) != 0) {
		lib_info_from(&sys->nvml_lib, &p->nv.lib);
		if (!sys->nvml_lib.error[0])
			str_copy(sys->nvml_lib.error, le.msg, sizeof(sys->nvml_lib.error));
		return 0;
	}
	p->nv_loaded = true;
	sys->nvml_lib.loaded = true;
	lib_info_from(&sys->nvml_lib, &p->nv.lib);

	watchdog_note("nvmlInit", -1);
	t0 = now_ns();
	rc = watchdog_returned(p->nv.api.Init());
	sys->nvml_init_ns = now_ns() - t0;
	rec_call("nvml", -1, "nvmlInit", rc, "");
	reason_set_call(&sys->nvml_init, LIB_NVML, "nvmlInit_v2", rc);
	if (rc != NVML_SUCCESS)
		return 0;
	p->nv_inited = true;

	memset(buf, 0, sizeof(buf));
	rc = NV(p, -1, "nvmlSystemGetDriverVersion", SystemGetDriverVersion, buf, 80);
	nv_text(NULL, &sys->driver_version, "nvmlSystemGetDriverVersion", rc, buf, sizeof(buf));
	memset(buf, 0, sizeof(buf));
	rc = NV(p, -1, "nvmlSystemGetNVMLVersion", SystemGetNVMLVersion, buf, 80);
	nv_text(NULL, &sys->nvml_version, "nvmlSystemGetNVMLVersion", rc, buf, sizeof(buf));
	rc = NV(p, -1, "nvmlSystemGetCudaDriverVersion", SystemGetCudaDriverVersion, &iv);
	nv_num(NULL, &sys->cuda_driver_version, "nvmlSystemGetCudaDriverVersion", rc, iv);

	rc = NV(p, -1, "nvmlDeviceGetCount", DeviceGetCount, &count);
	nv_num(NULL, &sys->count, "nvmlDeviceGetCount", rc, count);
	if (rc != NVML_SUCCESS)
		return 0;
	if (count > GPU_COUNT_MAX) {
		sys->count.st = VAL_ERR;
		sys->count.rc = NVML_ERROR_UNKNOWN;
		sys->count.reason = (unsigned char)reason_of(LIB_NVML, NVML_ERROR_UNKNOWN);
		return err_set(e, EXIT_ERROR, "nvmlDeviceGetCount returned an implausible count %u",
			       count);
	}
	sys->gpus = xcalloc(count ? count : 1, sizeof(*sys->gpus));
	p->handles = xcalloc(count ? count : 1, sizeof(*p->handles));
	sys->ngpus = count;
	p->nhandles = count;
	for (i = 0; i < count; i++)
		sys->gpus[i].index = i;
	for_each_gpu(p, sys, flags, open_gpu, true);
	return 0;
}

/* ---- CUDA ----------------------------------------------------------------------------------- */

static void cu_state(struct num *n, const char *call, int rc)
{
	n->call = call;
	n->rc = rc;
	n->lib = LIB_CUDA;
	n->reason = (unsigned char)reason_of(LIB_CUDA, rc);
	n->st = rc == CUDA_SUCCESS ? VAL_OK : (rc == CUDA_ERROR_NOT_SUPPORTED ? VAL_NA : VAL_ERR);
}

static void probe_cuda(struct gpu_system *sys)
{
	struct cuda_lib cl;
	struct err le;
	int rc, v = 0, n = 0, i;
	int64_t t0;

	err_clear(&le);
	sys->cuda_lib.attempted = true;
	if (cuda_load(&cl, &le) != 0) {
		lib_info_from(&sys->cuda_lib, &cl.lib);
		if (!sys->cuda_lib.error[0])
			str_copy(sys->cuda_lib.error, le.msg, sizeof(sys->cuda_lib.error));
		return;
	}
	sys->cuda_lib.loaded = true;
	lib_info_from(&sys->cuda_lib, &cl.lib);

	watchdog_note("cuDriverGetVersion", -1);
	rc = watchdog_returned(cl.api.DriverGetVersion(&v));
	rec_call("cuda", -1, "cuDriverGetVersion", rc, rc ? "" : "i", (int64_t)v);
	cu_state(&sys->cuda_version, "cuDriverGetVersion", rc);
	sys->cuda_version.v = v;

	watchdog_note("cuInit", -1);
	t0 = now_ns();
	rc = watchdog_returned(cl.api.Init(0));
	sys->cuda_init_ns = now_ns() - t0;
	rec_call("cuda", -1, "cuInit", rc, "");
	reason_set_call(&sys->cuda_init, LIB_CUDA, "cuInit", rc);
	if (rc != CUDA_SUCCESS)
		goto out;

	watchdog_note("cuDeviceGetCount", -1);
	rc = watchdog_returned(cl.api.DeviceGetCount(&n));
	rec_call("cuda", -1, "cuDeviceGetCount", rc, rc ? "" : "i", (int64_t)n);
	cu_state(&sys->cuda_count, "cuDeviceGetCount", rc);
	sys->cuda_count.v = n;
	if (rc != CUDA_SUCCESS || n <= 0 || n > GPU_COUNT_MAX)
		goto out;
	sys->cuda_devs = xcalloc((size_t)n, sizeof(*sys->cuda_devs));
	sys->ncuda = (unsigned)n;
	for (i = 0; i < n; i++) {
		struct cuda_device *d = &sys->cuda_devs[i];
		cu_device dev = 0;
		char buf[128];
		size_t mem = 0;
		static const struct {
			int attr;
			const char *key;
			size_t off;
		} attrs[] = {
			{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cuDeviceGetAttribute(75)",
			 offsetof(struct cuda_device, cc_major)},
			{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cuDeviceGetAttribute(76)",
			 offsetof(struct cuda_device, cc_minor)},
			{CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "cuDeviceGetAttribute(16)",
			 offsetof(struct cuda_device, sm_count)},
			{CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "cuDeviceGetAttribute(13)",
			 offsetof(struct cuda_device, clock_khz)},
			{CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "cuDeviceGetAttribute(36)",
			 offsetof(struct cuda_device, mem_clock_khz)},
			{CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "cuDeviceGetAttribute(37)",
			 offsetof(struct cuda_device, bus_width_bits)},
			{CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "cuDeviceGetAttribute(38)",
			 offsetof(struct cuda_device, l2_bytes)},
		};
		size_t a;

		watchdog_note("cuDeviceGet", i);
		rc = watchdog_returned(cl.api.DeviceGet(&dev, i));
		rec_call("cuda", i, "cuDeviceGet", rc, rc ? "" : "i", (int64_t)dev);
		if (rc != CUDA_SUCCESS)
			continue;
		memset(buf, 0, sizeof(buf));
		watchdog_note("cuDeviceGetName", i);
		rc = watchdog_returned(cl.api.DeviceGetName ? cl.api.DeviceGetName(buf, 96, dev)
							    : CUDA_ERROR_NOT_SUPPORTED);
		if (rc == CUDA_SUCCESS)
			clean_string(buf, sizeof(buf));
		rec_call("cuda", i, "cuDeviceGetName", rc, rc ? "" : "s", buf);
		if (rc == CUDA_SUCCESS) {
			str_copy(d->name.s, buf, sizeof(d->name.s));
			d->name.st = VAL_OK;
		}
		memset(buf, 0, sizeof(buf));
		watchdog_note("cuDeviceGetPCIBusId", i);
		rc = watchdog_returned(cl.api.DeviceGetPCIBusId
					   ? cl.api.DeviceGetPCIBusId(buf, 64, dev)
					   : CUDA_ERROR_NOT_SUPPORTED);
		if (rc == CUDA_SUCCESS)
			clean_string(buf, sizeof(buf));
		rec_call("cuda", i, "cuDeviceGetPCIBusId", rc, rc ? "" : "s", buf);
		if (rc == CUDA_SUCCESS) {
			str_copy(d->bus_id.s, buf, sizeof(d->bus_id.s));
			d->bus_id.st = VAL_OK;
		}
		watchdog_note("cuDeviceTotalMem", i);
		rc = watchdog_returned(cl.api.DeviceTotalMem ? cl.api.DeviceTotalMem(&mem, dev)
							     : CUDA_ERROR_NOT_SUPPORTED);
		rec_call("cuda", i, "cuDeviceTotalMem", rc, rc ? "" : "u", (uint64_t)mem);
		cu_state(&d->mem_total_bytes, "cuDeviceTotalMem", rc);
		d->mem_total_bytes.v = (int64_t)mem;
		for (a = 0; a < ARRAY_SIZE(attrs); a++) {
			struct num *dst = (struct num *)((char *)d + attrs[a].off);

			v = 0;
			/* noted under the recorded key, "cuDeviceGetAttribute(16)" */
			watchdog_note(attrs[a].key, i);
			rc = watchdog_returned(
			    cl.api.DeviceGetAttribute
				? cl.api.DeviceGetAttribute(&v, attrs[a].attr, dev)
				: CUDA_ERROR_NOT_SUPPORTED);
			rec_call("cuda", i, attrs[a].key, rc, rc ? "" : "i", (int64_t)v);
			cu_state(dst, "cuDeviceGetAttribute", rc);
			dst->v = v;
		}
	}
out:
	/* libcuda is left loaded: unloading it after cuInit is not supported by the driver */
	(void)0;
}

/* Give each NVML GPU the CUDA-only facts (SM count) of the CUDA device on the same bus. */
static void match_cuda(struct gpu_system *sys)
{
	unsigned i, j;

	for (i = 0; i < sys->ngpus; i++) {
		struct gpu *g = &sys->gpus[i];

		if (!text_ok(&g->st.bus_id))
			continue;
		for (j = 0; j < sys->ncuda; j++) {
			const struct cuda_device *d = &sys->cuda_devs[j];

			/* NVML says 00000000:00:06.0, CUDA 0000:00:06.0 */
			if (text_ok(&d->bus_id) && bus_id_same(g->st.bus_id.s, d->bus_id.s)) {
				g->st.sm_count = d->sm_count;
				break;
			}
		}
	}
}

/* ---- public ------------------------------------------------------------------------------- */

int probe_open(struct probe **out, struct gpu_system *sys, unsigned flags, struct err *e)
{
	struct probe *p = xcalloc(1, sizeof(*p));

	*out = p;
	if (flags & PROBE_NVML)
		return nvml_open(p, sys, flags, e);
	return 0;
}

int probe_sample(struct probe *p, struct gpu_system *sys, unsigned flags, struct err *e)
{
	unsigned i;

	(void)e;
	if (!p->nv_inited)
		return 0;
	(void)i;
	/* long-lived collectors sample on their own threads: one at a time here */
	for_each_gpu(p, sys, flags, sample_gpu, false);
	return 0;
}

int probe_sample_gpu(struct probe *p, const struct gpu *g, unsigned flags, struct gpu_sample *out)
{
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return -1;
	read_sample(p, g, p->handles[g->index], flags, out);
	return 0;
}

void probe_close(struct probe *p)
{
	if (!p)
		return;
	if (p->nv_inited) {
		watchdog_note("nvmlShutdown", -1);
		p->nv.api.Shutdown();
		watchdog_done();
	}
	if (p->nv_loaded)
		nvml_unload(&p->nv);
	free(p->handles);
	free(p);
}

struct probe_job {
	struct gpu_system *sys;
	unsigned flags;
	struct err e;
	int rc;
};

struct cuda_task {
	struct gpu_system *sys;
	struct watch *w;
};

static void *cuda_task_run(void *arg)
{
	struct cuda_task *t = arg;

	watchdog_attach(t->w);
	probe_cuda(t->sys);
	watchdog_detach();
	return NULL;
}

static void probe_job_run(void *arg)
{
	struct probe_job *j = arg;
	struct probe *p = NULL;
	struct cuda_task ct = {j->sys, watchdog_self()};
	pthread_t cuda_tid;
	bool cuda_thread = false;

	j->rc = 0;
	/* cuInit (0.5 s on the H200s) runs beside the NVML queries, not after them */
	if (j->flags & PROBE_CUDA)
		cuda_thread = pthread_create(&cuda_tid, NULL, cuda_task_run, &ct) == 0;
	if (j->flags & PROBE_NVML) {
		j->rc = probe_open(&p, j->sys, j->flags, &j->e);
		if (j->rc == 0 &&
		    (j->flags & (PROBE_SAMPLE | PROBE_TABLE | PROBE_ECC | PROBE_PROCS | PROBE_SLOW)))
			for_each_gpu(p, j->sys, j->flags, sample_gpu, true);
		/* one-shot: leave NVML to process exit (nvmlShutdown costs 3-8 ms) */
		free(p ? p->handles : NULL);
		free(p);
	}
	if (cuda_thread)
		pthread_join(cuda_tid, NULL);
	else if (j->flags & PROBE_CUDA)
		probe_cuda(j->sys);
	if (j->flags & PROBE_CUDA)
		match_cuda(j->sys);
}

int probe_run(struct gpu_system *sys, unsigned flags, struct err *e)
{
	/* The job lives on the heap: if the watchdog fires, the worker may still write to it. */
	struct probe_job *j = xcalloc(1, sizeof(*j));
	struct gpu_system *work = xcalloc(1, sizeof(*work));
	struct watchdog_hang hang;
	int rc;

	j->sys = work;
	j->flags = flags;
	if (watchdog_run_report(probe_job_run, j, 0, &hang, e) != 0) {
		/* abandon j and work to the hung thread */
		sys->hung = true;
		str_copy(sys->hang_msg, e->msg, sizeof(sys->hang_msg));
		str_copy(sys->hang_call, hang.call, sizeof(sys->hang_call));
		sys->hang_gpu = hang.gpu;
		return -1;
	}
	*sys = *work;
	free(work);
	rc = j->rc;
	if (rc != 0 && e)
		*e = j->e;
	free(j);
	return rc;
}

void gpu_system_free(struct gpu_system *sys)
{
	unsigned i;

	for (i = 0; i < sys->ngpus; i++)
		free(sys->gpus[i].s.procs);
	free(sys->gpus);
	free(sys->cuda_devs);
	memset(sys, 0, sizeof(*sys));
}

void gpu_clock_events_str(uint64_t bits, bool include_idle, char *out, size_t n)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{CE_GPU_IDLE, "idle"},
		{CE_APP_CLOCKS, "app clocks"},
		{CE_SW_POWER_CAP, "sw power cap"},
		{CE_HW_SLOWDOWN, "hw slowdown"},
		{CE_SYNC_BOOST, "sync boost"},
		{CE_SW_THERMAL, "sw thermal"},
		{CE_HW_THERMAL, "hw thermal"},
		{CE_HW_POWER_BRAKE, "hw power brake"},
		{CE_DISPLAY_CLOCKS, "display clocks"},
	};
	size_t i;

	out[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(bits & names[i].bit) || (!include_idle && names[i].bit == CE_GPU_IDLE))
			continue;
		if (out[0])
			str_append(out, ", ", n);
		str_append(out, names[i].name, n);
	}
}

/* ---- monitor additions (gpu/collector.c, cmd/topo.c) ---------------------------------------- */


int probe_sample_fast(struct probe *p, const struct gpu *g, unsigned mask, unsigned *unsup,
		      struct gpu_sample *out)
{
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

void probe_field_values(struct probe *p, const struct gpu *g, const unsigned *ids,
			const unsigned *scopes, size_t n, struct num *out)
{
	struct nvml_field_value fv[64];
	int gi = (int)g->index;
	size_t i, done;
	int rc;

	memset(out, 0, n * sizeof(*out));
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

	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return;
	rc = NV(p, (int)g->index, "nvmlDeviceGetTotalEnergyConsumption",
		DeviceGetTotalEnergyConsumption, p->handles[g->index], &ull);
	nv_num(g, energy_mj, "nvmlDeviceGetTotalEnergyConsumption", rc, (int64_t)ull);
}

/* ---- GPM ---- */

struct probe_gpm {
	struct nvml_gpm_sample *prev, *cur;
	bool have_prev;
};

static const unsigned gpm_ids[GPM_NMETRICS] = {
	NVML_GPM_METRIC_SM_UTIL,
	NVML_GPM_METRIC_SM_OCCUPANCY,
	NVML_GPM_METRIC_ANY_TENSOR_UTIL,
	NVML_GPM_METRIC_DRAM_BW_UTIL,
};

void probe_gpm_open(struct probe *p, const struct gpu *g, struct probe_gpm **out,
		    struct num *supported)
{
	struct nvml_gpm_support sup;
	struct probe_gpm *gs;
	int gi = (int)g->index, rc;

	*out = NULL;
	if (!p->nv_inited || g->index >= p->nhandles || !p->handles[g->index]) {
		nv_state(supported, "nvmlGpmQueryDeviceSupport", NVML_ERROR_UNINITIALIZED);
		return;
	}
	memset(&sup, 0, sizeof(sup));
	sup.version = NVML_GPM_SUPPORT_VERSION;
	rc = NV(p, gi, "nvmlGpmQueryDeviceSupport", GpmQueryDeviceSupport, p->handles[g->index],
		&sup);
	nv_num(g, supported, "nvmlGpmQueryDeviceSupport", rc, sup.is_supported_device ? 1 : 0);
	if (rc != NVML_SUCCESS || !sup.is_supported_device || !p->nv.api.GpmSampleAlloc ||
	    !p->nv.api.GpmSampleGet || !p->nv.api.GpmMetricsGet || !p->nv.api.GpmSampleFree)
		return;
	gs = xcalloc(1, sizeof(*gs));
	watchdog_note("nvmlGpmSampleAlloc", gi);
	rc = watchdog_returned(p->nv.api.GpmSampleAlloc(&gs->prev));
	if (rc == NVML_SUCCESS) {
		watchdog_note("nvmlGpmSampleAlloc", gi);
		rc = watchdog_returned(p->nv.api.GpmSampleAlloc(&gs->cur));
	}
	if (rc != NVML_SUCCESS) {
		probe_gpm_close(p, gs);
		nv_state(supported, "nvmlGpmSampleAlloc", NVML_ERROR_MEMORY);
		return;
	}
	*out = gs;
}

void probe_gpm_read(struct probe *p, const struct gpu *g, struct probe_gpm *gs, struct num *out)
{
	struct nvml_gpm_metrics_get *mg;
	struct nvml_gpm_sample *tmp;
	int gi = (int)g->index, rc;
	size_t i;

	if (!gs || !p->nv_inited || g->index >= p->nhandles || !p->handles[g->index])
		return;
	rc = NV(p, gi, "nvmlGpmSampleGet", GpmSampleGet, p->handles[g->index], gs->cur);
	rec_call("nvml", gi, "nvmlGpmSampleGet", rc, "");
	if (rc != NVML_SUCCESS) {
		for (i = 0; i < GPM_NMETRICS; i++)
			nv_state(&out[i], "nvmlGpmSampleGet", rc);
		if (rc == NVML_ERROR_GPU_IS_LOST && cur_sample)
			cur_sample->lost = true;
		gs->have_prev = false;
		return;
	}
	if (gs->have_prev) {
		/* the struct is 20 KiB: on the heap, not the collector thread's stack */
		mg = xcalloc(1, sizeof(*mg));
		mg->version = NVML_GPM_METRICS_GET_VERSION;
		mg->num_metrics = GPM_NMETRICS;
		mg->sample1 = gs->prev;
		mg->sample2 = gs->cur;
		for (i = 0; i < GPM_NMETRICS; i++)
			mg->metrics[i].metric_id = gpm_ids[i];
		rc = NV_ARGS(p, gi, "nvmlGpmMetricsGet", 1, gpm_ids[0], 0, GpmMetricsGet, mg);
		for (i = 0; i < GPM_NMETRICS; i++) {
			char key[48];
			int mrc = rc ? rc : mg->metrics[i].nvml_return;
			double v = mg->metrics[i].value;

			if (mrc == NVML_SUCCESS && !(v >= 0 && v <= 100.5))
				mrc = NVML_ERROR_UNKNOWN; /* NaN or out of range: garbage */
			str_fmt(key, sizeof(key), "nvmlGpmMetricsGet(%u)", gpm_ids[i]);
			nv_num(g, &out[i], key, mrc, mrc ? 0 : (int64_t)(v * 1000.0 + 0.5));
		}
		free(mg);
	}
	tmp = gs->prev;
	gs->prev = gs->cur;
	gs->cur = tmp;
	gs->have_prev = true;
}

void probe_gpm_close(struct probe *p, struct probe_gpm *gs)
{
	if (!gs)
		return;
	if (p && p->nv_inited && p->nv.api.GpmSampleFree) {
		watchdog_note("nvmlGpmSampleFree", -1);
		if (gs->prev)
			p->nv.api.GpmSampleFree(gs->prev);
		if (gs->cur)
			p->nv.api.GpmSampleFree(gs->cur);
		watchdog_done();
	}
	free(gs);
}

/* ---- topology ---- */

static void mask_to_list(struct probe *p, const struct gpu *g, nvml_dev h, struct text *out)
{
	unsigned long mask[16];
	int64_t words[16];
	size_t i;
	int rc;

	memset(mask, 0, sizeof(mask));
	rc = NV(p, (int)g->index, "nvmlDeviceGetMemoryAffinity", DeviceGetMemoryAffinity, h, 16,
		mask, NVML_AFFINITY_SCOPE_NODE);
	if (rc != NVML_ERROR_FUNCTION_NOT_FOUND) {
		for (i = 0; i < 16; i++)
			words[i] = (int64_t)mask[i];
		rec_call_rows("nvml", (int)g->index, "nvmlDeviceGetMemoryAffinity", rc, "i",
			      rc ? 0 : 16, words);
	}
	out->call = "nvmlDeviceGetMemoryAffinity";
	out->rc = rc;
	out->lib = LIB_NVML;
	out->reason = (unsigned char)reason_of(LIB_NVML, rc);
	if (rc == NVML_SUCCESS) {
		cpulist_from_mask(mask, 16, out->s, sizeof(out->s));
		out->st = out->s[0] ? VAL_OK : VAL_NA;
	} else {
		out->st = rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND
				  ? VAL_NA
				  : VAL_ERR;
	}
}

int probe_topology(struct probe *p, const struct gpu_system *sys, struct topo *t)
{
	unsigned i, j, c, l;
	int rc;

	topo_init(t, sys->ngpus);
	if (!p->nv_inited)
		return 0;
	for (i = 0; i < sys->ngpus && i < p->nhandles; i++) {
		const struct gpu *g = &sys->gpus[i];
		struct topo_gpu *tg = &t->gpus[i];
		nvml_dev h = p->handles[i];
		int gi = (int)i;

		if (!h || g->s.lost)
			continue;
		mask_to_list(p, g, h, &tg->numa_affinity);
		for (j = 0; j < sys->ngpus && j < p->nhandles; j++) {
			nvml_dev h2 = p->handles[j];
			char key[64];
			int v = 0;

			if (j == i || !h2)
				continue;
			if (j > i) {
				str_fmt(key, sizeof(key), "nvmlDeviceGetTopologyCommonAncestor(%u)", j);
				rc = NV_ARGS(p, gi, "nvmlDeviceGetTopologyCommonAncestor", 1, j, 0,
					     DeviceGetTopologyCommonAncestor, h, h2, &v);
				nv_num(g, topo_ancestor(t, i, j), key, rc, v);
				*topo_ancestor(t, j, i) = *topo_ancestor(t, i, j);
			}
			for (c = 0; c < TOPO_P2P_N; c++) {
				v = 0;
				str_fmt(key, sizeof(key), "nvmlDeviceGetP2PStatus(%u,%u)", j, c);
				rc = NV_ARGS(p, gi, "nvmlDeviceGetP2PStatus", 2, j, c,
					     DeviceGetP2PStatus, h, h2, (int)c, &v);
				nv_num(g, topo_p2p(t, i, j, c), key, rc, v);
			}
		}
		for (l = 0; l < GPU_MAX_LINKS; l++) {
			struct topo_link *lk = &tg->links[l];
			struct nvml_pci_info pci;
			unsigned uv = 0;
			int state = 0;
			char key[64];

			str_fmt(key, sizeof(key), "nvmlDeviceGetNvLinkState(%u)", l);
			rc = NV_ARGS(p, gi, "nvmlDeviceGetNvLinkState", 1, l, 0,
				     DeviceGetNvLinkState, h, l, &state);
			nv_num(g, &lk->active, key, rc, state);
			if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND ||
			    rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_GPU_IS_LOST)
				break; /* links are numbered densely: the first missing one ends them */
			tg->nlinks = l + 1;
			lk->remote_gpu = -1;
			str_fmt(key, sizeof(key), "nvmlDeviceGetNvLinkVersion(%u)", l);
			rc = NV_ARGS(p, gi, "nvmlDeviceGetNvLinkVersion", 1, l, 0,
				     DeviceGetNvLinkVersion, h, l, &uv);
			nv_num(g, &lk->version, key, rc, uv);
			memset(&pci, 0, sizeof(pci));
			str_fmt(key, sizeof(key), "nvmlDeviceGetNvLinkRemotePciInfo(%u)", l);
			rc = NV_ARGS(p, gi, "nvmlDeviceGetNvLinkRemotePciInfo", 1, l, 0,
				     DeviceGetNvLinkRemotePciInfo, h, l, &pci);
			if (rc == NVML_SUCCESS)
				clean_string(pci.bus_id, sizeof(pci.bus_id));
			if (rc != NVML_ERROR_FUNCTION_NOT_FOUND)
				rec_call("nvml", gi, key, rc, rc ? "" : "suuuuu", pci.bus_id,
					 (uint64_t)pci.domain, (uint64_t)pci.bus, (uint64_t)pci.device,
					 (uint64_t)pci.pci_device_id, (uint64_t)pci.pci_subsystem_id);
			lk->remote_bus.call = "nvmlDeviceGetNvLinkRemotePciInfo";
			lk->remote_bus.rc = rc;
			lk->remote_bus.lib = LIB_NVML;
			lk->remote_bus.reason = (unsigned char)reason_of(LIB_NVML, rc);
			lk->remote_bus.st = rc == NVML_SUCCESS ? VAL_OK
					    : (rc == NVML_ERROR_NOT_SUPPORTED ||
					       rc == NVML_ERROR_FUNCTION_NOT_FOUND)
						    ? VAL_NA
						    : VAL_ERR;
			if (rc == NVML_SUCCESS)
				str_copy(lk->remote_bus.s, pci.bus_id, sizeof(lk->remote_bus.s));
		}
		if (tg->nlinks) {
			unsigned ids[GPU_MAX_LINKS], scopes[GPU_MAX_LINKS];
			struct num speed[GPU_MAX_LINKS];

			for (l = 0; l < tg->nlinks; l++) {
				ids[l] = NVML_FI_DEV_NVLINK_GET_SPEED;
				scopes[l] = l;
			}
			probe_field_values(p, g, ids, scopes, tg->nlinks, speed);
			for (l = 0; l < tg->nlinks; l++)
				tg->links[l].speed_mbytes_s = speed[l];
		}
	}
	topo_count_links(t, sys);
	return 0;
}
