/*
 * intel.h: what the Intel backend (gpu/intel.c, backend_i915 and backend_xe of gpu/backend.h)
 * exports beside its table: the utilisation of a GPU from two readings of its DRM clients
 * (gpu/drmfdinfo.h), a pure function so that tests can hand it constructed readings.
 */
#ifndef GPUVET_INTEL_H
#define GPUVET_INTEL_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "drmfdinfo.h"

/*
 * The engine utilisation of one GPU between two readings of its clients (prev taken dt_ns
 * before cur; both for this GPU only), into out:
 *   util_gpu_pct  the compute class (i915 render/compute, xe rcs/ccs),
 *   dec_pct       the video engines (i915 video, xe vcs), which encode and decode alike,
 *   enc_pct       n/a: no Intel engine is the encoder's own (its work is in dec_pct),
 * each the summed busy share of the clients, capped at 100 (a class of several engines, or
 * several clients on several engines, can add up to more than one engine's time). i915 gives
 * busy nanoseconds (drm-engine-*), compared with dt_ns; xe gives busy cycles over the GPU's
 * total cycles (drm-cycles-* / drm-total-cycles-*), a ratio of its own that needs no dt_ns.
 * A client seen only in cur opened within the window, so its busy nanoseconds all fall in it;
 * its xe cycles cannot be split without an earlier reading and are left out. A client seen
 * only in prev closed in between and its last work is lost. A counter that went backwards
 * (a reset) adds nothing. A class no client reports is VAL_NA (the GPU has no such engine);
 * with no client at all every class is 0: nothing has the GPU open. Only the clients of
 * processes this user may read count (another user's need root), so for an ordinary user the
 * share is a lower bound. The processes and their memory are the probe's (probe_sysfs.c).
 */
void intel_util_from_clients(const struct drm_client *prev, size_t nprev,
			     const struct drm_client *cur, size_t ncur, int64_t dt_ns,
			     struct gpu_sample *out);

#endif
