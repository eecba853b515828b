/*
 * device.h: the device model, what gpuvet knows about each GPU and the driver stack.
 *
 * Filled by gpu/probe.c from NVML (and the CUDA driver API for what NVML lacks), or from a
 * replayed recording through the same code. Static facts are read once; a sample is one
 * snapshot of everything that changes. Every field carries its own outcome (value.h), and
 * every field name carries its unit. Nothing here depends on NVML or CUDA headers.
 */
#ifndef GPUVET_DEVICE_H
#define GPUVET_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "value.h"

#define GPU_MAX_LINKS 18

/* Clock-event reason bits, as NVML numbers them. */
enum {
	CE_GPU_IDLE = 0x1,
	CE_APP_CLOCKS = 0x2,
	CE_SW_POWER_CAP = 0x4,
	CE_HW_SLOWDOWN = 0x8,
	CE_SYNC_BOOST = 0x10,
	CE_SW_THERMAL = 0x20,
	CE_HW_THERMAL = 0x40,
	CE_HW_POWER_BRAKE = 0x80,
	CE_DISPLAY_CLOCKS = 0x100,
};

/* Compute modes (st.compute_mode), fabric registration states (s.fabric_state) and the
 * driver's recovery actions (s.recovery_action), as NVML numbers them (gpu/probe.c checks the
 * first two against vendor/nvml.h at compile time), so code above gpu/ needs no NVML header. */
enum {
	COMPUTE_MODE_DEFAULT = 0,
	COMPUTE_MODE_EXCLUSIVE_THREAD = 1,
	COMPUTE_MODE_PROHIBITED = 2,
	COMPUTE_MODE_EXCLUSIVE_PROCESS = 3,
};
enum {
	FABRIC_STATE_NOT_SUPPORTED = 0,
	FABRIC_STATE_NOT_STARTED = 1,
	FABRIC_STATE_IN_PROGRESS = 2,
	FABRIC_STATE_COMPLETED = 3,
};
enum {
	RECOVERY_NONE = 0,
	RECOVERY_GPU_RESET = 1,
	RECOVERY_NODE_REBOOT = 2,
	RECOVERY_DRAIN_P2P = 3,
	RECOVERY_DRAIN_AND_RESET = 4,
	RECOVERY_BUS_RESET = 5,
};

struct gpu_static {
	struct text name, uuid, serial, bus_id, board_part, vbios, inforom_image;
	struct num brand, arch, minor_number;
	struct num pci_device_id;    /* device << 16 | vendor, e.g. 0x233510de */
	struct num pci_subsystem_id;
	struct num mem_total_bytes;
	struct num cc_major, cc_minor;
	struct num sm_count; /* from CUDA (NVML has no SM count) */
	struct num cores;    /* NVML's CUDA-core count, where supported */
	struct num clock_max_sm_mhz, clock_max_mem_mhz, clock_max_gr_mhz, clock_max_video_mhz;
	struct num power_min_mw, power_max_mw, power_default_mw, power_limit_mw,
		power_enforced_mw;
	struct num pcie_gen_max;     /* the link's maximum: min(device, slot) */
	struct num pcie_gen_max_gpu; /* the GPU's own maximum */
	struct num pcie_width_max;
	struct num mem_bus_width_bits;
	struct num ecc_current, ecc_pending;
	struct num mig_current, mig_pending;
	struct num mig_instances; /* MIG devices that exist */
	struct num persistence;
	struct num compute_mode;
	struct num numa_node;
	struct text cpu_affinity; /* "0-31" */
	struct num multi_gpu_board;
	struct num inforom_valid; /* 1 valid, 0 corrupted */
	struct num nvlink_count; /* active links */
	struct num temp_slowdown_c, temp_shutdown_c, temp_gpu_max_c, temp_mem_max_c;
	struct num ce_supported; /* clock-event reasons this GPU can report (CE_* bits) */
	/* GPUs of the sysfs backends (gpu/backend.h) */
	struct text driver;	    /* the kernel driver bound: "amdgpu", "i915", "xe" */
	struct text gfx_target;	    /* AMD's ISA target: "gfx942" */
	struct text clock_levels_sm, clock_levels_mem; /* DPM levels in MHz: "500,1700,2100" */
	struct num mem_gtt_total_bytes; /* system memory the GPU may map (AMD's GTT) */
};

struct gpu_proc {
	unsigned pid;
	int64_t mem_bytes; /* -1 when the driver withholds it */
	char type;	   /* 'C' compute, 'G' graphics */
	unsigned gi, ci;   /* MIG instance ids, 0xffffffff when none */
};

struct gpu_sample {
	int64_t t_ns; /* monotonic time of the sample */
	struct num util_gpu_pct, util_mem_pct;
	struct num mem_used_bytes, mem_free_bytes, mem_reserved_bytes;
	struct num temp_c, mem_temp_c;
	struct num temp_margin_c; /* degrees below the slowdown limit (Hopper's T.Limit) */
	struct num power_mw, power_avg_mw, energy_mj;
	struct num clock_sm_mhz, clock_mem_mhz, clock_gr_mhz, clock_video_mhz;
	struct num pstate;
	struct num fan_pct;
	/* media engines (encoder, decoder, JPEG, optical flow), where the GPU has them */
	struct num enc_pct, dec_pct, jpg_pct, ofa_pct;
	struct num bar1_used_bytes; /* BAR1 aperture in use */
	struct num gtt_used_bytes;  /* AMD: system memory mapped for the GPU */
	struct num clock_events; /* CE_* bits active now */
	/* time spent in each slowdown since the driver loaded, in nanoseconds */
	struct num ce_sw_power_ns, ce_sync_boost_ns, ce_sw_thermal_ns, ce_hw_thermal_ns,
		ce_hw_power_brake_ns;
	struct num pcie_gen, pcie_width, pcie_replays;
	struct num pcie_tx_kbps, pcie_rx_kbps; /* slow: only when asked */
	struct num ecc_vol_corrected, ecc_vol_uncorrected, ecc_agg_corrected, ecc_agg_uncorrected;
	struct num remap_corrected, remap_uncorrected, remap_pending, remap_failure;
	struct num retired_sbe, retired_dbe, retired_pending;
	struct num fabric_state, fabric_status;
	struct num recovery_action;
	struct num nvlink_active[GPU_MAX_LINKS];
	struct num nprocs; /* compute + graphics processes */
	struct gpu_proc *procs;
	size_t procs_len;
	bool lost; /* some call answered "GPU is lost" */
};

struct sysgpu;

struct gpu {
	unsigned index;	     /* NVML index; after NVML's, the sysfs GPUs in bus order */
	unsigned char vendor; /* enum gpu_vendor (gpu/backend.h): 0 NVIDIA */
	struct sysgpu *sg;    /* the sysfs backend's GPU, NULL for NVML's */
	struct gpu_static st;
	struct gpu_sample s;
};

/* What the CUDA driver API says about one device, to line it up with NVML's view. */
struct cuda_device {
	struct text name, bus_id;
	struct num cc_major, cc_minor, sm_count, mem_total_bytes, clock_khz, mem_clock_khz,
		bus_width_bits, l2_bytes;
};

struct lib_info {
	bool attempted;
	bool loaded;
	char path[4096];
	char version[64];
	char error[512];
	char missing[1024]; /* space-separated optional symbols not found */
};

struct gpu_system {
	/* NVML */
	struct lib_info nvml_lib;
	struct num nvml_init; /* v = NVML return code of nvmlInit; st VAL_OK when called */
	int64_t nvml_init_ns;
	struct text driver_version, nvml_version;
	struct num cuda_driver_version; /* from NVML: 13000 = 13.0 */
	struct num count;
	struct gpu *gpus;
	unsigned ngpus;
	/* CUDA */
	struct lib_info cuda_lib;
	struct num cuda_version; /* cuDriverGetVersion */
	struct num cuda_init;	 /* v = CUresult of cuInit(0) */
	int64_t cuda_init_ns;
	struct num cuda_count;
	struct cuda_device *cuda_devs;
	unsigned ncuda;
	/* the sysfs backends' GPUs (gpu/backend.h), whose struct gpu follow NVML's */
	struct sysgpu *sysgpus;
	unsigned nsysgpus;
	/* a vendor call that hung, when the watchdog fired: the message, and the call's
	 * recording key ("nvmlDeviceGetPowerUsage", "cuInit") and GPU (-1: system-wide) */
	bool hung;
	char hang_msg[512];
	char hang_call[96];
	int hang_gpu;
};

/* Decode a clock-event bit set into words: "sw power cap, hw slowdown". */
void gpu_clock_events_str(uint64_t bits, bool include_idle, char *out, size_t n);

#endif
