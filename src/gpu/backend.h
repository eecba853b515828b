/*
 * backend.h: the GPUs gpuvet reads without a vendor library, through the kernel's sysfs and
 * DRM interfaces (AMD's amdgpu, Intel's i915 and xe), beside NVML's.
 *
 * NVML is the first backend and stays in gpu/probe.c; these are the others. Each backend is a
 * table of functions (struct gpu_backend) over one GPU's state (struct sysgpu); gpu/probe.c
 * finds them with sysgpu_scan() after NVML's and appends them to gpu_system's GPUs, so every
 * command that reads the device model (status, top, watch, serve, record, doctor) reads them
 * too. Every read goes through host/host.h, so a recording keeps the files and a replay or a
 * constructed tree (tests/scenarios/sysfs/) answers the same.
 *
 * A field a backend cannot read stays VAL_UNSET or is VAL_NA with a call naming why; a field
 * only NVIDIA has is VAL_NA with call "NVIDIA only" (backend_mark_nvidia_only), so it shows
 * n/a and says so instead of 0. Evidence for a sysfs value is the file it came from: call is
 * a string literal naming the file relative to the device folder ("gpu_busy_percent",
 * "hwmon/power1_average"), lib is LIB_HOST.
 */
#ifndef GPUVET_BACKEND_H
#define GPUVET_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

/* struct gpu's vendor (0 so that a zeroed gpu is NVML's) */
enum gpu_vendor {
	GPU_VENDOR_NVIDIA = 0,
	GPU_VENDOR_AMD,
	GPU_VENDOR_INTEL,
};

/* One GPU read through sysfs: where it lives and its backend's state between samples. */
struct sysgpu {
	const struct gpu_backend *be;
	char card[16];   /* "card0" */
	char dev[256];   /* its device folder, "/sys/class/drm/card0/device" */
	char pci[256];   /* that folder resolved: "/sys/devices/pci0000:00/.../0000:03:00.0" */
	char bdf[16];    /* "0000:03:00.0" */
	char hwmon[288]; /* "/sys/class/drm/card0/device/hwmon/hwmon3", "" when none */
	char render[32]; /* "/dev/dri/renderD128", "" when none */
	unsigned vendor_id, device_id, revision;
	char driver[16]; /* "amdgpu", "i915", "xe" */
	/* energy between samples, for backends that derive power from an energy counter */
	uint64_t energy_uj_prev;
	int64_t energy_t_prev;
	/* engine busy time between samples (drm fdinfo), per engine class of gpu/drmfdinfo.h */
	uint64_t busy_ns_prev[4];
	int64_t busy_t_prev;
	void *priv; /* the backend's own, freed by its close() */
};

struct gpu_backend {
	const char *name;   /* "amdgpu", "i915", "xe" */
	const char *vendor; /* "AMD", "Intel" */
	enum gpu_vendor vendor_id;
	/* the kernel driver a DRM card must be bound to for this backend to read it */
	const char *driver;
	/* Static facts into st: name, uuid (where the board has a unique id), serial, bus_id,
	 * vbios, pci ids, mem_total_bytes, clock maxima, power limits, PCIe maxima, numa node, CPU
	 * affinity, temperature limits. flags are probe.h's PROBE_* (PROBE_STATIC_SLOW: the slow
	 * ones too). */
	void (*read_static)(struct sysgpu *sg, struct gpu_static *st, unsigned flags);
	/* The fast-tier groups of mask (probe.h's PF_*) into out; groups this GPU cannot give are
	 * or-ed into *unsup (may be NULL). */
	void (*read_fast)(struct sysgpu *sg, unsigned mask, unsigned *unsup,
			  struct gpu_sample *out);
	/* The health tier: RAS error counts into ecc_*, PCIe replays where the board has them. */
	void (*read_health)(struct sysgpu *sg, struct gpu_sample *out);
	/* Energy since the driver loaded, in mJ (VAL_NA when the board has no counter). */
	void (*read_energy)(struct sysgpu *sg, struct num *energy_mj);
	/* free priv */
	void (*close)(struct sysgpu *sg);
};

extern const struct gpu_backend backend_amdgpu, backend_i915, backend_xe;

/* The GPUs the sysfs backends read: every /sys/class/drm/cardN (no connector names) whose
 * driver one of them names, in PCI bus order. *out is the caller's (sysgpu_free). Returns the
 * count; 0 when there is none or /sys/class/drm cannot be listed. */
size_t sysgpu_scan(struct sysgpu **out);
void sysgpu_free(struct sysgpu *v, size_t n);

/* n is a reading only NVIDIA's driver gives: VAL_NA with call "NVIDIA only". */
void num_nvidia_only(struct num *n);
/* Mark every field of g only NVIDIA's driver has (MIG, NVLink, compute mode, persistence,
 * InfoROM, retired pages, remapped rows, clock-event reasons, fabric, compute capability)
 * VAL_NA with call "NVIDIA only". */
void backend_mark_nvidia_only(struct gpu *g);

/* "NVIDIA", "AMD" or "Intel" */
const char *gpu_vendor_name(const struct gpu *g);

/* ---- helpers for backends: sysfs values with their evidence ---------------------------------
 * Each reads sg->dev/rel (or an absolute path when rel starts with '/'), and sets n to the
 * value (scaled by mul/div) with call = rel, lib LIB_HOST; VAL_NA when the file is absent,
 * VAL_ERR with rc = -errno when it cannot be read (EACCES: another user's) or does not parse. */
void sysfs_num(const struct sysgpu *sg, const char *rel, int64_t mul, int64_t div, struct num *n);
/* n as a failed read of call: VAL_NA for -ENOENT, else VAL_ERR with rc (-EACCES and -EPERM:
 * no permission). */
void sysfs_fail(struct num *n, const char *call, int rc);
void sysfs_text(const struct sysgpu *sg, const char *rel, struct text *t);
/* A file at an absolute path (the card folder, /sys/class/drm/cardN, holds i915's frequency
 * files; a PCI bridge above the GPU): call is the literal the caller names it by. */
void sysfs_num_at(const char *path, const char *call, int64_t mul, int64_t div, struct num *n);
/* hwmon's file name (e.g. "power1_average") under sg->hwmon; call is the literal hwrel. */
void sysfs_hwmon(const struct sysgpu *sg, const char *hwrel, int64_t mul, int64_t div,
		 struct num *n);
/* PCIe link from the device's current_link_speed/width and max_link_speed/width ("16.0 GT/s
 * PCIe" is generation 4). A speed of "Unknown" (a link that is down, a virtual function) is
 * VAL_NA with rc -ENODATA. */
void sysfs_pcie_link(const struct sysgpu *sg, struct num *gen, struct num *width, bool max);

#endif
