/*
 * nvml.h: gpuvet's own declarations of the part of NVML it uses, and the loaded library.
 *
 * No NVIDIA header is needed to build gpuvet: the constants, structs and function types below
 * are written from NVML's public API reference (driver 580, CUDA 13.0) and checked against
 * nvml.h on the H200 machines. Only vendor/ and the backend in gpu/ include this file.
 *
 * Struct versions: NVML marks versioned structs with sizeof(struct) | (version << 24).
 */
#ifndef GPUVET_NVML_H
#define GPUVET_NVML_H

#include <stdbool.h>
#include <stddef.h>

#include "loader.h"

/* Return codes (nvmlReturn_t). */
enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_INSUFFICIENT_POWER = 8,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_IRQ_ISSUE = 11,
	NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_CORRUPTED_INFOROM = 14,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_RESET_REQUIRED = 16,
	NVML_ERROR_OPERATING_SYSTEM = 17,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_IN_USE = 19,
	NVML_ERROR_MEMORY = 20,
	NVML_ERROR_NO_DATA = 21,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_NOT_READY = 27,
	NVML_ERROR_GPU_NOT_FOUND = 28,
	NVML_ERROR_UNKNOWN = 999,
};

enum { NVML_TEMPERATURE_GPU = 0 };
enum {
	NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
	NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
	NVML_TEMPERATURE_THRESHOLD_MEM_MAX = 2,
	NVML_TEMPERATURE_THRESHOLD_GPU_MAX = 3,
};
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum { NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT = 0, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT = 1 };
enum {
	NVML_COMPUTEMODE_DEFAULT = 0,
	NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
	NVML_COMPUTEMODE_PROHIBITED = 2,
	NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
};
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
enum { NVML_NVLINK_MAX_LINKS = 18 };
enum {
	NVML_TOPOLOGY_INTERNAL = 0,
	NVML_TOPOLOGY_SINGLE = 10,
	NVML_TOPOLOGY_MULTIPLE = 20,
	NVML_TOPOLOGY_HOSTBRIDGE = 30,
	NVML_TOPOLOGY_NODE = 40,
	NVML_TOPOLOGY_SYSTEM = 50,
};
enum {
	NVML_P2P_CAPS_INDEX_READ = 0,
	NVML_P2P_CAPS_INDEX_WRITE = 1,
	NVML_P2P_CAPS_INDEX_NVLINK = 2,
	NVML_P2P_CAPS_INDEX_ATOMICS = 3,
};
/* nvmlGpuP2PStatus_t */
enum {
	NVML_P2P_STATUS_OK = 0,
	NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = 1,
	NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
	NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
	NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
	NVML_P2P_STATUS_NOT_SUPPORTED = 5,
	NVML_P2P_STATUS_UNKNOWN = 6,
};
enum { NVML_AFFINITY_SCOPE_NODE = 0, NVML_AFFINITY_SCOPE_SOCKET = 1 };
/* nvmlNvlinkVersion_t: what nvmlDeviceGetNvLinkVersion answers (2 is NVLink 2.0, 6 is 4.0) */
enum {
	NVML_NVLINK_VERSION_INVALID = 0,
	NVML_NVLINK_VERSION_1_0 = 1,
	NVML_NVLINK_VERSION_2_0 = 2,
	NVML_NVLINK_VERSION_2_2 = 3,
	NVML_NVLINK_VERSION_3_0 = 4,
	NVML_NVLINK_VERSION_3_1 = 5,
	NVML_NVLINK_VERSION_4_0 = 6,
	NVML_NVLINK_VERSION_5_0 = 7,
};
/* GPM metric ids (nvmlGpmMetricId_t), Hopper and later */
enum {
	NVML_GPM_METRIC_GRAPHICS_UTIL = 1,
	NVML_GPM_METRIC_SM_UTIL = 2,
	NVML_GPM_METRIC_SM_OCCUPANCY = 3,
	NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,
	NVML_GPM_METRIC_DRAM_BW_UTIL = 10,
};
#define NVML_GPM_METRICS_GET_VERSION 1U
#define NVML_GPM_SUPPORT_VERSION 1U
enum {
	NVML_PERF_POLICY_POWER = 0,
	NVML_PERF_POLICY_THERMAL = 1,
	NVML_PERF_POLICY_SYNC_BOOST = 2,
	NVML_PERF_POLICY_BOARD_LIMIT = 3,
	NVML_PERF_POLICY_LOW_UTILIZATION = 4,
	NVML_PERF_POLICY_RELIABILITY = 5,
};
/* nvmlGpuFabricState_t */
enum {
	NVML_GPU_FABRIC_STATE_NOT_SUPPORTED = 0,
	NVML_GPU_FABRIC_STATE_NOT_STARTED = 1,
	NVML_GPU_FABRIC_STATE_IN_PROGRESS = 2,
	NVML_GPU_FABRIC_STATE_COMPLETED = 3,
};

/* Field identifiers for nvmlDeviceGetFieldValues (never renumbered by NVIDIA). */
enum {
	NVML_FI_DEV_ECC_CURRENT = 1,
	NVML_FI_DEV_ECC_DBE_VOL_TOTAL = 4,
	NVML_FI_DEV_PERF_POLICY_POWER = 74,
	NVML_FI_DEV_PERF_POLICY_THERMAL = 75,
	NVML_FI_DEV_PERF_POLICY_SYNC_BOOST = 76,
	NVML_FI_DEV_MEMORY_TEMP = 82,
	NVML_FI_DEV_NVLINK_LINK_COUNT = 91,
	NVML_FI_DEV_PCIE_REPLAY_COUNTER = 94,
	NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER = 95,
	NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138,
	NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139,
	NVML_FI_DEV_NVLINK_GET_SPEED = 164, /* MB/s, scope = link */
	NVML_FI_DEV_POWER_AVERAGE = 185,
	NVML_FI_DEV_POWER_INSTANT = 186,
	NVML_FI_DEV_POWER_CURRENT_LIMIT = 190,
	NVML_FI_DEV_PCIE_COUNT_TX_BYTES = 197, /* byte counters, driver 550 and later */
	NVML_FI_DEV_PCIE_COUNT_RX_BYTES = 198,
	NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES = 202, /* scope = link */
	NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES = 204,
	NVML_FI_DEV_GET_GPU_RECOVERY_ACTION = 230,
	NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_POWER_CAP = 74,
	NVML_FI_DEV_CLOCKS_EVENT_REASON_SYNC_BOOST = 76,
	/* renumbered in the CUDA 13.0 nvml.h (251-253 earlier); counters are in ns */
	NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN = 269,
	NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN = 270,
	NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN = 271,
};
enum {
	NVML_VALUE_TYPE_DOUBLE = 0,
	NVML_VALUE_TYPE_UNSIGNED_INT = 1,
	NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
	NVML_VALUE_TYPE_SIGNED_INT = 5,
	NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};

/* Clock-event reason bits (nvmlClocksEventReasons). */
enum {
	NVML_CE_GPU_IDLE = 0x1,
	NVML_CE_APPLICATIONS_CLOCKS_SETTING = 0x2,
	NVML_CE_SW_POWER_CAP = 0x4,
	NVML_CE_HW_SLOWDOWN = 0x8,
	NVML_CE_SYNC_BOOST = 0x10,
	NVML_CE_SW_THERMAL_SLOWDOWN = 0x20,
	NVML_CE_HW_THERMAL_SLOWDOWN = 0x40,
	NVML_CE_HW_POWER_BRAKE_SLOWDOWN = 0x80,
	NVML_CE_DISPLAY_CLOCK_SETTING = 0x100,
};

#define NVML_STRUCT_VERSION(type, ver) ((unsigned)(sizeof(type) | ((ver) << 24U)))

struct nvml_device; /* opaque handle */

struct nvml_pci_info { /* nvmlPciInfo_t (v3 layout) */
	char bus_id_legacy[16];
	unsigned domain;
	unsigned bus;
	unsigned device;
	unsigned pci_device_id;	   /* device << 16 | vendor */
	unsigned pci_subsystem_id; /* subsystem << 16 | subsystem vendor */
	char bus_id[32];
};

struct nvml_memory { /* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct nvml_memory_v2 { /* nvmlMemory_v2_t */
	unsigned version;
	unsigned long long total, reserved, free, used;
};

struct nvml_bar1_memory { /* nvmlBAR1Memory_t */
	unsigned long long total, free, used;
};

struct nvml_utilization { /* nvmlUtilization_t */
	unsigned gpu, memory;
};

union nvml_value { /* nvmlValue_t */
	double d;
	unsigned int ui;
	unsigned long ul;
	unsigned long long ull;
	signed long long sll;
	signed int si;
	unsigned short us;
};

/* nvmlSamplingType_t: which of the driver's sample rings nvmlDeviceGetSamples reads */
#define NVML_GPU_UTILIZATION_SAMPLES 1

struct nvml_sample { /* nvmlSample_t */
	unsigned long long timestamp; /* CPU time stamp, microseconds since the epoch */
	union nvml_value value;	      /* of the type the call hands back */
};

struct nvml_field_value { /* nvmlFieldValue_t */
	unsigned field_id;
	unsigned scope_id;
	long long timestamp;
	long long latency_usec;
	int value_type;
	int nvml_return;
	union nvml_value value;
};

struct nvml_margin_temperature { /* nvmlMarginTemperature_v1_t */
	unsigned version;
	int margin_temperature;
};

struct nvml_fabric_info { /* nvmlGpuFabricInfo_t */
	unsigned char cluster_uuid[16];
	int status;
	unsigned clique_id;
	unsigned char state;
};

struct nvml_fabric_info_v2 { /* nvmlGpuFabricInfo_v2_t, for nvmlDeviceGetGpuFabricInfoV */
	unsigned version;
	unsigned char cluster_uuid[16];
	int status;
	unsigned clique_id;
	unsigned char state;
	unsigned health_mask;
};

struct nvml_process_info { /* nvmlProcessInfo_t as returned by the _v3 and _v2 calls */
	unsigned pid;
	unsigned long long used_gpu_memory;
	unsigned gpu_instance_id;
	unsigned compute_instance_id;
};

struct nvml_process_info_v1 { /* nvmlProcessInfo_v1_t, for the unsuffixed calls */
	unsigned pid;
	unsigned long long used_gpu_memory;
};

struct nvml_process_utilization_sample { /* nvmlProcessUtilizationSample_t */
	unsigned pid;
	unsigned long long timestamp; /* us */
	unsigned sm_util, mem_util, enc_util, dec_util;
};

struct nvml_gpm_sample; /* opaque nvmlGpmSample_t */

struct nvml_gpm_metric { /* nvmlGpmMetric_t */
	unsigned metric_id;
	int nvml_return;
	double value;
	struct {
		char *short_name, *long_name, *unit;
	} info;
};

/* nvmlGpmMetricsGet_t ends in metrics[NVML_GPM_METRIC_MAX], and NVML_GPM_METRIC_MAX grew from 98
 * to 333 across headers while the version stayed 1: NVML reads num_metrics entries only. We
 * allocate more slots than any header has, so no driver can write past the end. */
#define NVML_GPM_METRIC_SLOTS 512
struct nvml_gpm_metrics_get { /* nvmlGpmMetricsGet_t */
	unsigned version;
	unsigned num_metrics;
	struct nvml_gpm_sample *sample1, *sample2;
	struct nvml_gpm_metric metrics[NVML_GPM_METRIC_SLOTS];
};

struct nvml_gpm_support { /* nvmlGpmSupport_t */
	unsigned version;
	unsigned is_supported_device;
};

#define NVML_VALUE_NOT_AVAILABLE_ULL (~0ULL)

typedef struct nvml_device *nvml_dev; /* the one typedef: NVML's handle is a pointer */

/* The functions gpuvet calls. Names follow NVML's without the nvml prefix. */
struct nvml_api {
	int (*Init)(void);
	int (*Shutdown)(void);
	int (*SystemGetDriverVersion)(char *, unsigned);
	int (*SystemGetNVMLVersion)(char *, unsigned);
	int (*SystemGetCudaDriverVersion)(int *);
	int (*DeviceGetCount)(unsigned *);
	int (*DeviceGetHandleByIndex)(unsigned, nvml_dev *);
	int (*DeviceGetName)(nvml_dev, char *, unsigned);
	int (*DeviceGetUUID)(nvml_dev, char *, unsigned);
	int (*DeviceGetSerial)(nvml_dev, char *, unsigned);
	int (*DeviceGetPciInfo)(nvml_dev, struct nvml_pci_info *);
	int (*DeviceGetBoardPartNumber)(nvml_dev, char *, unsigned);
	int (*DeviceGetVbiosVersion)(nvml_dev, char *, unsigned);
	int (*DeviceGetInforomImageVersion)(nvml_dev, char *, unsigned);
	int (*DeviceValidateInforom)(nvml_dev);
	int (*DeviceGetBrand)(nvml_dev, int *);
	int (*DeviceGetArchitecture)(nvml_dev, unsigned *);
	int (*DeviceGetMinorNumber)(nvml_dev, unsigned *);
	int (*DeviceGetMemoryInfo_v2)(nvml_dev, struct nvml_memory_v2 *);
	int (*DeviceGetMemoryInfo)(nvml_dev, struct nvml_memory *);
	int (*DeviceGetCudaComputeCapability)(nvml_dev, int *, int *);
	int (*DeviceGetMaxClockInfo)(nvml_dev, int, unsigned *);
	int (*DeviceGetClockInfo)(nvml_dev, int, unsigned *);
	int (*DeviceGetPowerManagementLimitConstraints)(nvml_dev, unsigned *, unsigned *);
	int (*DeviceGetPowerManagementDefaultLimit)(nvml_dev, unsigned *);
	int (*DeviceGetPowerManagementLimit)(nvml_dev, unsigned *);
	int (*DeviceGetEnforcedPowerLimit)(nvml_dev, unsigned *);
	int (*DeviceGetPowerUsage)(nvml_dev, unsigned *);
	/* media engines: the utilisation and the sampling period in us (watch's -s u) */
	int (*DeviceGetEncoderUtilization)(nvml_dev, unsigned *, unsigned *);
	int (*DeviceGetDecoderUtilization)(nvml_dev, unsigned *, unsigned *);
	int (*DeviceGetJpgUtilization)(nvml_dev, unsigned *, unsigned *);
	int (*DeviceGetOfaUtilization)(nvml_dev, unsigned *, unsigned *);
	int (*DeviceGetBAR1MemoryInfo)(nvml_dev, struct nvml_bar1_memory *);
	int (*DeviceGetTotalEnergyConsumption)(nvml_dev, unsigned long long *);
	int (*DeviceGetMaxPcieLinkGeneration)(nvml_dev, unsigned *);
	int (*DeviceGetGpuMaxPcieLinkGeneration)(nvml_dev, unsigned *);
	int (*DeviceGetMaxPcieLinkWidth)(nvml_dev, unsigned *);
	int (*DeviceGetCurrPcieLinkGeneration)(nvml_dev, unsigned *);
	int (*DeviceGetCurrPcieLinkWidth)(nvml_dev, unsigned *);
	int (*DeviceGetPcieReplayCounter)(nvml_dev, unsigned *);
	int (*DeviceGetPcieThroughput)(nvml_dev, int, unsigned *);
	int (*DeviceGetEccMode)(nvml_dev, int *, int *);
	int (*DeviceGetMigMode)(nvml_dev, unsigned *, unsigned *);
	int (*DeviceGetMaxMigDeviceCount)(nvml_dev, unsigned *);
	int (*DeviceGetMigDeviceHandleByIndex)(nvml_dev, unsigned, nvml_dev *);
	int (*DeviceGetPersistenceMode)(nvml_dev, int *);
	int (*DeviceGetComputeMode)(nvml_dev, int *);
	int (*DeviceGetNumaNodeId)(nvml_dev, unsigned *);
	int (*DeviceGetCpuAffinity)(nvml_dev, unsigned, unsigned long *);
	int (*DeviceGetMemoryBusWidth)(nvml_dev, unsigned *);
	int (*DeviceGetMultiGpuBoard)(nvml_dev, unsigned *);
	int (*DeviceGetNumGpuCores)(nvml_dev, unsigned *);
	int (*DeviceGetUtilizationRates)(nvml_dev, struct nvml_utilization *);
	int (*DeviceGetTemperature)(nvml_dev, int, unsigned *);
	int (*DeviceGetTemperatureThreshold)(nvml_dev, int, unsigned *);
	int (*DeviceGetMarginTemperature)(nvml_dev, struct nvml_margin_temperature *);
	int (*DeviceGetFieldValues)(nvml_dev, int, struct nvml_field_value *);
	int (*DeviceGetPerformanceState)(nvml_dev, int *);
	int (*DeviceGetCurrentClocksEventReasons)(nvml_dev, unsigned long long *);
	int (*DeviceGetSupportedClocksEventReasons)(nvml_dev, unsigned long long *);
	int (*DeviceGetTotalEccErrors)(nvml_dev, int, int, unsigned long long *);
	int (*DeviceGetRemappedRows)(nvml_dev, unsigned *, unsigned *, unsigned *, unsigned *);
	int (*DeviceGetRetiredPages)(nvml_dev, int, unsigned *, unsigned long long *);
	int (*DeviceGetRetiredPagesPendingStatus)(nvml_dev, int *);
	int (*DeviceGetGpuFabricInfoV)(nvml_dev, struct nvml_fabric_info_v2 *);
	int (*DeviceGetGpuFabricInfo)(nvml_dev, struct nvml_fabric_info *);
	int (*DeviceGetFanSpeed)(nvml_dev, unsigned *);
	int (*DeviceGetComputeRunningProcesses)(nvml_dev, unsigned *, struct nvml_process_info *);
	int (*DeviceGetGraphicsRunningProcesses)(nvml_dev, unsigned *, struct nvml_process_info *);
	/* drivers before 470 only have the unsuffixed calls, with the shorter v1 struct */
	int (*DeviceGetComputeRunningProcesses_v1)(nvml_dev, unsigned *, struct nvml_process_info_v1 *);
	int (*DeviceGetGraphicsRunningProcesses_v1)(nvml_dev, unsigned *, struct nvml_process_info_v1 *);
	int (*DeviceGetProcessUtilization)(nvml_dev, struct nvml_process_utilization_sample *,
					   unsigned *, unsigned long long);
	/* (device, sampling type, last seen time stamp, value type out, count in/out, samples) */
	int (*DeviceGetSamples)(nvml_dev, int, unsigned long long, int *, unsigned *,
				struct nvml_sample *);
	int (*DeviceGetNvLinkState)(nvml_dev, unsigned, int *);
	int (*DeviceGetNvLinkVersion)(nvml_dev, unsigned, unsigned *);
	int (*DeviceGetNvLinkRemotePciInfo)(nvml_dev, unsigned, struct nvml_pci_info *);
	int (*DeviceGetTopologyCommonAncestor)(nvml_dev, nvml_dev, int *);
	int (*DeviceGetP2PStatus)(nvml_dev, nvml_dev, int, int *);
	/* monitor (top, watch, topo) */
	int (*DeviceGetMemoryAffinity)(nvml_dev, unsigned, unsigned long *, int);
	int (*GpmQueryDeviceSupport)(nvml_dev, struct nvml_gpm_support *);
	int (*GpmSampleAlloc)(struct nvml_gpm_sample **);
	int (*GpmSampleFree)(struct nvml_gpm_sample *);
	int (*GpmSampleGet)(nvml_dev, struct nvml_gpm_sample *);
	int (*GpmMetricsGet)(struct nvml_gpm_metrics_get *);
};

struct nvml_lib {
	struct vlib lib;
	struct nvml_api api;
};

/* Load and bind libnvidia-ml.so.1 (GPUVET_NVML_LIBRARY overrides). Does not call Init. */
int nvml_load(struct nvml_lib *n, struct err *e);
void nvml_unload(struct nvml_lib *n);
/* NVML's name for a return code ("Not Supported"), from our own table. */
const char *nvml_error_name(int rc);

#endif
