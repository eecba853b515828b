/*
 * nvml.c: loading libnvidia-ml.so.1 and binding the calls of struct nvml_api.
 *
 * Required: init, shutdown, device count and handles; everything else is optional and a
 * missing symbol only turns off the fields it feeds (the backend in gpu/probe.c reports those
 * fields as "not supported by this driver's NVML").
 */
#include "nvml.h"

#include <stddef.h>
#include <string.h>

#include "../util/util.h"

#define SYM(field, req, ...) {{__VA_ARGS__}, offsetof(struct nvml_api, field), req}

static const struct vsym nvml_syms[] = {
	SYM(Init, true, "nvmlInit_v2", "nvmlInit"),
	SYM(Shutdown, true, "nvmlShutdown"),
	SYM(DeviceGetCount, true, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"),
	SYM(DeviceGetHandleByIndex, true, "nvmlDeviceGetHandleByIndex_v2",
	    "nvmlDeviceGetHandleByIndex"),
	SYM(SystemGetDriverVersion, false, "nvmlSystemGetDriverVersion"),
	SYM(SystemGetNVMLVersion, false, "nvmlSystemGetNVMLVersion"),
	SYM(SystemGetCudaDriverVersion, false, "nvmlSystemGetCudaDriverVersion_v2",
	    "nvmlSystemGetCudaDriverVersion"),
	SYM(DeviceGetName, false, "nvmlDeviceGetName"),
	SYM(DeviceGetUUID, false, "nvmlDeviceGetUUID"),
	SYM(DeviceGetSerial, false, "nvmlDeviceGetSerial"),
	SYM(DeviceGetPciInfo, false, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"),
	SYM(DeviceGetBoardPartNumber, false, "nvmlDeviceGetBoardPartNumber"),
	SYM(DeviceGetVbiosVersion, false, "nvmlDeviceGetVbiosVersion"),
	SYM(DeviceGetInforomImageVersion, false, "nvmlDeviceGetInforomImageVersion"),
	SYM(DeviceValidateInforom, false, "nvmlDeviceValidateInforom"),
	SYM(DeviceGetBrand, false, "nvmlDeviceGetBrand"),
	SYM(DeviceGetArchitecture, false, "nvmlDeviceGetArchitecture"),
	SYM(DeviceGetMinorNumber, false, "nvmlDeviceGetMinorNumber"),
	SYM(DeviceGetMemoryInfo_v2, false, "nvmlDeviceGetMemoryInfo_v2"),
	SYM(DeviceGetMemoryInfo, false, "nvmlDeviceGetMemoryInfo"),
	SYM(DeviceGetCudaComputeCapability, false, "nvmlDeviceGetCudaComputeCapability"),
	SYM(DeviceGetMaxClockInfo, false, "nvmlDeviceGetMaxClockInfo"),
	SYM(DeviceGetClockInfo, false, "nvmlDeviceGetClockInfo"),
	SYM(DeviceGetPowerManagementLimitConstraints, false,
	    "nvmlDeviceGetPowerManagementLimitConstraints"),
	SYM(DeviceGetPowerManagementDefaultLimit, false, "nvmlDeviceGetPowerManagementDefaultLimit"),
	SYM(DeviceGetPowerManagementLimit, false, "nvmlDeviceGetPowerManagementLimit"),
	SYM(DeviceGetEnforcedPowerLimit, false, "nvmlDeviceGetEnforcedPowerLimit"),
	SYM(DeviceGetPowerUsage, false, "nvmlDeviceGetPowerUsage"),
	SYM(DeviceGetEncoderUtilization, false, "nvmlDeviceGetEncoderUtilization"),
	SYM(DeviceGetDecoderUtilization, false, "nvmlDeviceGetDecoderUtilization"),
	SYM(DeviceGetJpgUtilization, false, "nvmlDeviceGetJpgUtilization"),
	SYM(DeviceGetOfaUtilization, false, "nvmlDeviceGetOfaUtilization"),
	SYM(DeviceGetBAR1MemoryInfo, false, "nvmlDeviceGetBAR1MemoryInfo"),
	SYM(DeviceGetTotalEnergyConsumption, false, "nvmlDeviceGetTotalEnergyConsumption"),
	SYM(DeviceGetMaxPcieLinkGeneration, false, "nvmlDeviceGetMaxPcieLinkGeneration"),
	SYM(DeviceGetGpuMaxPcieLinkGeneration, false, "nvmlDeviceGetGpuMaxPcieLinkGeneration"),
	SYM(DeviceGetMaxPcieLinkWidth, false, "nvmlDeviceGetMaxPcieLinkWidth"),
	SYM(DeviceGetCurrPcieLinkGeneration, false, "nvmlDeviceGetCurrPcieLinkGeneration"),
	SYM(DeviceGetCurrPcieLinkWidth, false, "nvmlDeviceGetCurrPcieLinkWidth"),
	SYM(DeviceGetPcieReplayCounter, false, "nvmlDeviceGetPcieReplayCounter"),
	SYM(DeviceGetPcieThroughput, false, "nvmlDeviceGetPcieThroughput"),
	SYM(DeviceGetEccMode, false, "nvmlDeviceGetEccMode"),
	SYM(DeviceGetMigMode, false, "nvmlDeviceGetMigMode"),
	SYM(DeviceGetMaxMigDeviceCount, false, "nvmlDeviceGetMaxMigDeviceCount"),
	SYM(DeviceGetMigDeviceHandleByIndex, false, "nvmlDeviceGetMigDeviceHandleByIndex"),
	SYM(DeviceGetPersistenceMode, false, "nvmlDeviceGetPersistenceMode"),
	SYM(DeviceGetComputeMode, false, "nvmlDeviceGetComputeMode"),
	SYM(DeviceGetNumaNodeId, false, "nvmlDeviceGetNumaNodeId"),
	SYM(DeviceGetCpuAffinity, false, "nvmlDeviceGetCpuAffinity"),
	SYM(DeviceGetMemoryBusWidth, false, "nvmlDeviceGetMemoryBusWidth"),
	SYM(DeviceGetMultiGpuBoard, false, "nvmlDeviceGetMultiGpuBoard"),
	SYM(DeviceGetNumGpuCores, false, "nvmlDeviceGetNumGpuCores"),
	SYM(DeviceGetUtilizationRates, false, "nvmlDeviceGetUtilizationRates"),
	SYM(DeviceGetTemperature, false, "nvmlDeviceGetTemperature"),
	SYM(DeviceGetTemperatureThreshold, false, "nvmlDeviceGetTemperatureThreshold"),
	SYM(DeviceGetMarginTemperature, false, "nvmlDeviceGetMarginTemperature"),
	SYM(DeviceGetFieldValues, false, "nvmlDeviceGetFieldValues"),
	SYM(DeviceGetPerformanceState, false, "nvmlDeviceGetPerformanceState"),
	SYM(DeviceGetCurrentClocksEventReasons, false, "nvmlDeviceGetCurrentClocksEventReasons",
	    "nvmlDeviceGetCurrentClocksThrottleReasons"),
	SYM(DeviceGetSupportedClocksEventReasons, false, "nvmlDeviceGetSupportedClocksEventReasons",
	    "nvmlDeviceGetSupportedClocksThrottleReasons"),
	SYM(DeviceGetTotalEccErrors, false, "nvmlDeviceGetTotalEccErrors"),
	SYM(DeviceGetRemappedRows, false, "nvmlDeviceGetRemappedRows"),
	SYM(DeviceGetRetiredPages, false, "nvmlDeviceGetRetiredPages"),
	SYM(DeviceGetRetiredPagesPendingStatus, false, "nvmlDeviceGetRetiredPagesPendingStatus"),
	SYM(DeviceGetGpuFabricInfoV, false, "nvmlDeviceGetGpuFabricInfoV"),
	SYM(DeviceGetGpuFabricInfo, false, "nvmlDeviceGetGpuFabricInfo"),
	SYM(DeviceGetFanSpeed, false, "nvmlDeviceGetFanSpeed"),
	SYM(DeviceGetComputeRunningProcesses, false, "nvmlDeviceGetComputeRunningProcesses_v3",
	    "nvmlDeviceGetComputeRunningProcesses_v2"),
	SYM(DeviceGetGraphicsRunningProcesses, false, "nvmlDeviceGetGraphicsRunningProcesses_v3",
	    "nvmlDeviceGetGraphicsRunningProcesses_v2"),
	SYM(DeviceGetComputeRunningProcesses_v1, false, "nvmlDeviceGetComputeRunningProcesses"),
	SYM(DeviceGetGraphicsRunningProcesses_v1, false, "nvmlDeviceGetGraphicsRunningProcesses"),
	SYM(DeviceGetProcessUtilization, false, "nvmlDeviceGetProcessUtilization"),
	SYM(DeviceGetSamples, false, "nvmlDeviceGetSamples"),
	SYM(DeviceGetNvLinkState, false, "nvmlDeviceGetNvLinkState"),
	SYM(DeviceGetNvLinkVersion, false, "nvmlDeviceGetNvLinkVersion"),
	SYM(DeviceGetNvLinkRemotePciInfo, false, "nvmlDeviceGetNvLinkRemotePciInfo_v2"),
	SYM(DeviceGetTopologyCommonAncestor, false, "nvmlDeviceGetTopologyCommonAncestor"),
	SYM(DeviceGetP2PStatus, false, "nvmlDeviceGetP2PStatus"),
	SYM(DeviceGetMemoryAffinity, false, "nvmlDeviceGetMemoryAffinity"),
	SYM(GpmQueryDeviceSupport, false, "nvmlGpmQueryDeviceSupport"),
	SYM(GpmSampleAlloc, false, "nvmlGpmSampleAlloc"),
	SYM(GpmSampleFree, false, "nvmlGpmSampleFree"),
	SYM(GpmSampleGet, false, "nvmlGpmSampleGet"),
	SYM(GpmMetricsGet, false, "nvmlGpmMetricsGet"),
};

/* The layouts NVML's own header gives these structs on LP64 (lesson 2 of monitor-anchors.md):
 * a wrong stride shows only the first process, or garbage. */
_Static_assert(sizeof(struct nvml_process_info) == 24, "nvmlProcessInfo_v2_t is 24 bytes");
_Static_assert(sizeof(struct nvml_process_info_v1) == 16, "nvmlProcessInfo_v1_t is 16 bytes");
_Static_assert(sizeof(struct nvml_process_utilization_sample) == 32,
	       "nvmlProcessUtilizationSample_t is 32 bytes");
_Static_assert(sizeof(struct nvml_field_value) == 40, "nvmlFieldValue_t is 40 bytes");
_Static_assert(sizeof(struct nvml_sample) == 16, "nvmlSample_t is 16 bytes");
_Static_assert(sizeof(struct nvml_gpm_metric) == 40, "nvmlGpmMetric_t is 40 bytes");
_Static_assert(offsetof(struct nvml_gpm_metrics_get, metrics) == 24,
	       "nvmlGpmMetricsGet_t puts metrics[] at byte 24");
_Static_assert(sizeof(struct nvml_pci_info) == 68, "nvmlPciInfo_t is 68 bytes");

int nvml_load(struct nvml_lib *n, struct err *e)
{
	memset(n, 0, sizeof(*n));
	if (vlib_open(&n->lib, "NVML", "nvml", "libnvidia-ml.so.1", "GPUVET_NVML_LIBRARY", e) != 0)
		return -1;
	if (vlib_bind(&n->lib, nvml_syms, ARRAY_SIZE(nvml_syms), &n->api, e) != 0) {
		vlib_close(&n->lib);
		return -1;
	}
	return 0;
}

void nvml_unload(struct nvml_lib *n)
{
	vlib_close(&n->lib);
}

const char *nvml_error_name(int rc)
{
	switch (rc) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
	case NVML_ERROR_NOT_FOUND: return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
	case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT: return "Timeout";
	case NVML_ERROR_IRQ_ISSUE: return "Interrupt Request Issue";
	case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
	case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
	case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
	case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
	case NVML_ERROR_RESET_REQUIRED: return "GPU requires restart";
	case NVML_ERROR_OPERATING_SYSTEM: return "The operating system has blocked the request";
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "Driver/library version mismatch";
	case NVML_ERROR_IN_USE: return "In use by another client";
	case NVML_ERROR_MEMORY: return "Insufficient Memory";
	case NVML_ERROR_NO_DATA: return "No data";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
	case NVML_ERROR_NOT_READY: return "Not ready";
	case NVML_ERROR_GPU_NOT_FOUND: return "GPU not found";
	case NVML_ERROR_UNKNOWN: return "Unknown Error";
	default: return "unrecognised error";
	}
}
