/*
 * drmfdinfo.h: the DRM clients of the machine's processes, from /proc/PID/fdinfo (the kernel's
 * Documentation/gpu/drm-usage-stats.rst): which process uses which GPU, its memory, and the
 * time each engine spent on its work. The same keys for every driver that implements them
 * (amdgpu, i915, xe, and more); names differ per driver only in the engine and region names.
 *
 * One client is one open DRM file (drm-client-id, unique per device); a process that holds it
 * through several descriptors (dup, fork) is counted once. Reads go through host/host.h.
 */
#ifndef GPUVET_DRMFDINFO_H
#define GPUVET_DRMFDINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* engine classes, whatever the driver calls them */
enum drm_class {
	DRM_CLASS_COMPUTE = 0, /* amdgpu gfx/compute, i915 render/compute, xe rcs/ccs */
	DRM_CLASS_COPY,        /* amdgpu dma/sdma, i915 copy, xe bcs */
	DRM_CLASS_DEC,         /* amdgpu dec/jpeg/vcn; Intel's video engines (i915 video, xe
				  vcs), which encode and decode */
	DRM_CLASS_ENC,         /* amdgpu enc (Intel has no engine of its own for it; its video
				  enhancement engines, video-enhance and vecs, are not counted) */
	DRM_NCLASSES,
};

struct drm_client {
	unsigned pid;
	uint64_t client_id;
	char driver[16]; /* drm-driver */
	char pdev[16];   /* drm-pdev: "0000:03:00.0" */
	/* device-local memory in bytes (drm-memory-vram, drm-resident-vram0, drm-resident-local0,
	 * ...): -1 when the driver gives none */
	int64_t mem_bytes;
	int64_t gtt_bytes; /* drm-memory-gtt: -1 none */
	/* per class: busy nanoseconds (drm-engine-*), or for xe cycles (drm-cycles-*) with the
	 * total cycles over the same time (drm-total-cycles-*); has[] false when the class is not
	 * reported */
	uint64_t busy_ns[DRM_NCLASSES];
	uint64_t cycles[DRM_NCLASSES], total_cycles[DRM_NCLASSES];
	bool has[DRM_NCLASSES], has_cycles[DRM_NCLASSES];
};

/* The class of an engine name ("gfx", "render", "rcs", ...), or -1 for one not counted. */
int drm_engine_class(const char *engine);

/* Parse one fdinfo file's text into c (pid left alone). Returns false when the file is not a
 * DRM client (no drm-driver line). */
bool drm_fdinfo_parse(const char *text, struct drm_client *c);

/* Every DRM client of every process this user may read, for the devices in pdevs (NULL: all),
 * one entry per (pdev, client id), into *out (the caller's to free) and *n. Processes whose fd
 * folder cannot be read (another user's, when not root) are counted in *unreadable (may be
 * NULL). Returns 0, or -errno when /proc cannot be listed (then *n is 0). One sweep of /proc
 * serves every call within 5 ms of it (the collector's GPU threads at one tick); thread-safe. */
int drm_clients_scan(const char *const *pdevs, size_t npdevs, struct drm_client **out, size_t *n,
		     unsigned *unreadable);

#endif
