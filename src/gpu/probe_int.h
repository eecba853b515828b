/*
 * probe_int.h: what the parts of the NVML and CUDA backend (probe.h) share, and nothing
 * outside them includes: the session, the call macro, storing answers in the model, and the
 * readers one part calls in another.
 *
 *   probe.c         storing answers, the NVML session, one task per GPU, the public entry points
 *   probe_static.c  static facts of one GPU
 *   probe_sample.c  samples: the fast, health, process and slow tiers, and the monitor's reads
 *   probe_cuda.c    the CUDA driver API
 *   probe_gpm.c     GPM metrics
 *   probe_topo.c    topology: ancestors, P2P, NVLink, affinity
 */
#ifndef GPUVET_PROBE_INT_H
#define GPUVET_PROBE_INT_H

#include "../vendor/nvml.h"
#include "../vendor/watchdog.h"
#include "probe.h"

#define GPU_COUNT_MAX 256
#define PROC_COUNT_MAX 4096

/* The sample being filled: answers of "GPU is lost" mark it. Thread-local so that collectors
 * may sample different GPUs (or tiers) from several threads. */
extern _Thread_local struct gpu_sample *cur_sample;

struct probe {
	struct nvml_lib nv;
	bool nv_loaded, nv_inited;
	nvml_dev *handles;
	unsigned nhandles;
};

/* Call api.fn when the symbol exists, after telling the watchdog what we are about to do, and
 * tell it when the call is back. NV_ARGS names the call's scalar inputs too (nargs of a0, a1),
 * so that a hang is reported, and recorded, under the key its answer would have had. */
#define NV_ARGS(p, gpu, key, nargs, a0, a1, fn, ...)                                               \
	(watchdog_note_args(key, (gpu), (nargs), (long)(a0), (long)(a1)),                          \
	 watchdog_returned((p)->nv.api.fn ? (p)->nv.api.fn(__VA_ARGS__)                            \
					  : NVML_ERROR_FUNCTION_NOT_FOUND))
#define NV(p, gpu, key, fn, ...) NV_ARGS(p, gpu, key, 0, 0, 0, fn, __VA_ARGS__)

/* the sysfs backends' GPUs (probe_sysfs.c): appended after NVML's; one sample, or the fast
 * groups of mask, handed to the GPU's backend */
void sysfs_open(struct gpu_system *sys, unsigned flags);
void sysfs_sample(const struct gpu *g, unsigned flags, struct gpu_sample *s);
int sysfs_sample_fast(const struct gpu *g, unsigned mask, unsigned *unsup, struct gpu_sample *out);

/* storing answers (probe.c) */
void nv_state(struct num *n, const char *call, int rc);
void nv_num(const struct gpu *g, struct num *n, const char *key, int rc, int64_t v);
void nv_pair(const struct gpu *g, const char *key, int rc, bool is_unsigned, struct num *a,
	     int64_t va, struct num *b, int64_t vb);
void clean_string(char *s, size_t n);
void nv_text(const struct gpu *g, struct text *t, const char *key, int rc, char *buf, size_t n);
void lib_info_from(struct lib_info *li, const struct vlib *l);

/* static facts (probe_static.c) */
void cpulist_from_mask(const unsigned long *mask, size_t words, char *out, size_t n);
void read_static(struct probe *p, struct gpu *g, nvml_dev h, unsigned flags);

/* samples (probe_sample.c) */
void read_memory(struct probe *p, const struct gpu *g, nvml_dev h, struct gpu_sample *s,
		 struct num *total);
int field_value(const struct nvml_field_value *f, int call_rc, int64_t *v);
void read_fields(struct probe *p, const struct gpu *g, nvml_dev h, const unsigned *ids,
		 struct num *const *dest, size_t n);
bool read_fast(struct probe *p, const struct gpu *g, nvml_dev h, unsigned mask, unsigned *unsup,
	       struct gpu_sample *s);
void read_sample(struct probe *p, const struct gpu *g, nvml_dev h, unsigned flags,
		 struct gpu_sample *s);

/* the CUDA driver API (probe_cuda.c) */
void probe_cuda(struct gpu_system *sys);
void match_cuda(struct gpu_system *sys);

#endif
