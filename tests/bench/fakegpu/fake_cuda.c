/*
 * fake_cuda.c: a libcuda.so.1 whose "GPUs" are the CPU, so `gpuvet bench` runs from start to end
 * in CI (tests/cli/bench_fakegpu.sh). Not a model of any GPU's speed: it checks the harness
 * (contexts, kernel arguments, streams and events, every verification path, partial results on
 * Ctrl-C, the JSON and HTML) while the real kernels stay untested here.
 *
 * Device pointers are host pointers; every operation runs when it is queued, so an event
 * records the host clock. The kernels of src/kernels are re-implemented in C, by name, with the
 * argument lists of the .cu files (a mismatch shows as a verification failure or a crash).
 * The gate kernel returns at once (nothing can wait: execution is synchronous).
 *
 * Knobs (environment): FAKEGPU_COUNT (2), FAKEGPU_MEM_MIB (4096), FAKEGPU_MODULE_ERROR (a CUresult
 * for cuModuleLoadData*), FAKEGPU_CORRUPT (a kernel name, or its start, whose output gets one
 * wrong word), FAKEGPU_MEM_CLOCK_MHZ (1000: the memory clock, so the HBM peak of 64 GB/s at the
 * 256-bit bus can be set below or far above what the CPU copies, for burn's bandwidth verdict),
 * FAKEGPU_HANG=GPU:SECONDS (that long after cuInit, that device's
 * cuStreamSynchronize never returns: a hung GPU), FAKEGPU_LOST=GPU:SECONDS (from then on that
 * device's calls answer CUDA_ERROR_DEVICE_UNAVAILABLE: a GPU fallen off the bus),
 * FAKEGPU_ALLOC_MIB (allocations past that many MiB per device fail while cuMemGetInfo still
 * reports FAKEGPU_MEM_MIB: memory another process took meanwhile), FAKEGPU_NO_PEER=A:B (devices A
 * and B cannot access each other's memory: cuDeviceCanAccessPeer says 0 both ways),
 * FAKEGPU_SLOW_PEER=A:B (peer copies between A and B take ten times as long: a bad link),
 * FAKEGPU_CORRUPT=cuMemcpyPeerAsync (every peer copy gets one wrong word).
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../../src/kernels/pattern.h"
#include "../../../src/vendor/cuda.h"

#define EXPORT __attribute__((visibility("default")))
#define MAXDEV 8

struct fctx {
	int dev;
	int peer[MAXDEV];
};

static struct fctx ctxs[MAXDEV];
static __thread struct fctx *cur;
static int ndev = -1;
static size_t mem_total, mem_used[MAXDEV], alloc_limit;
static int module_error;
static const char *corrupt;
static int mem_clock_khz = 1000000;
/* FAKEGPU_HANG and FAKEGPU_LOST: the device (-1 none) and when, in seconds after cuInit */
static int hang_dev = -1, lost_dev = -1;
static double hang_s, lost_s, start_s;
/* FAKEGPU_NO_PEER and FAKEGPU_SLOW_PEER: a pair of devices, -1 none */
static int no_peer[2] = {-1, -1}, slow_peer[2] = {-1, -1};

struct alloc {
	void *p;
	size_t n;
	int dev;
	struct alloc *next;
};
static struct alloc *allocs; /* kept reachable: leak checkers stay quiet */
/* burn's workers allocate and free on their GPUs at once: the list and the counts are shared */
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;

static void setup(void)
{
	const char *s;

	if (ndev >= 0)
		return;
	s = getenv("FAKEGPU_COUNT");
	ndev = s ? atoi(s) : 2;
	if (ndev < 0 || ndev > MAXDEV)
		ndev = 2;
	s = getenv("FAKEGPU_MEM_MIB");
	mem_total = (size_t)(s ? atol(s) : 4096) << 20;
	s = getenv("FAKEGPU_MODULE_ERROR");
	module_error = s ? atoi(s) : 0;
	corrupt = getenv("FAKEGPU_CORRUPT");
	s = getenv("FAKEGPU_MEM_CLOCK_MHZ");
	if (s && atoi(s) > 0)
		mem_clock_khz = atoi(s) * 1000;
	s = getenv("FAKEGPU_ALLOC_MIB");
	alloc_limit = (size_t)(s ? atol(s) : 0) << 20;
	s = getenv("FAKEGPU_HANG");
	if (s && sscanf(s, "%d:%lf", &hang_dev, &hang_s) != 2)
		hang_dev = -1;
	s = getenv("FAKEGPU_LOST");
	if (s && sscanf(s, "%d:%lf", &lost_dev, &lost_s) != 2)
		lost_dev = -1;
	s = getenv("FAKEGPU_NO_PEER");
	if (s && sscanf(s, "%d:%d", &no_peer[0], &no_peer[1]) != 2)
		no_peer[0] = no_peer[1] = -1;
	s = getenv("FAKEGPU_SLOW_PEER");
	if (s && sscanf(s, "%d:%d", &slow_peer[0], &slow_peer[1]) != 2)
		slow_peer[0] = slow_peer[1] = -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The current context's device has fallen off the bus (FAKEGPU_LOST). */
static int lost(void)
{
	return cur && cur->dev == lost_dev && now_s() - start_s >= lost_s;
}

EXPORT int cuInit(unsigned f)
{
	(void)f;
	setup();
	if (start_s == 0)
		start_s = now_s();
	return ndev > 0 ? CUDA_SUCCESS : CUDA_ERROR_NO_DEVICE;
}
EXPORT int cuDriverGetVersion(int *v)
{
	*v = 13000;
	return 0;
}
EXPORT int cuDeviceGetCount(int *n)
{
	setup();
	*n = ndev;
	return 0;
}
EXPORT int cuDeviceGet(cu_device *d, int i)
{
	setup();
	if (i < 0 || i >= ndev)
		return CUDA_ERROR_INVALID_DEVICE;
	*d = i;
	return 0;
}
EXPORT int cuGetErrorName(int rc, const char **s)
{
	(void)rc;
	*s = "CUDA_ERROR_FAKE";
	return 0;
}
EXPORT int cuGetErrorString(int rc, const char **s)
{
	(void)rc;
	*s = "fake";
	return 0;
}
EXPORT int cuDeviceGetName(char *b, int n, cu_device d)
{
	snprintf(b, (size_t)n, "Fake GPU %d", d);
	return 0;
}
EXPORT int cuDeviceGetPCIBusId(char *b, int n, cu_device d)
{
	snprintf(b, (size_t)n, "0000:%02x:00.0", 0x10 + d);
	return 0;
}
EXPORT int cuDeviceTotalMem_v2(size_t *b, cu_device d)
{
	(void)d;
	setup();
	*b = mem_total;
	return 0;
}
EXPORT int cuDeviceGetUuid_v2(unsigned char *u, cu_device d)
{
	memset(u, d, 16);
	return 0;
}
EXPORT int cuDeviceGetAttribute(int *v, int a, cu_device d)
{
	(void)d;
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *v = 1000000; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 4; break;
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = mem_clock_khz; break;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = 256; break;
	case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 1 << 20; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
	case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *v = 2; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	default: *v = 0; break;
	}
	return 0;
}
EXPORT int cuDevicePrimaryCtxRetain(cu_ctx *c, cu_device d)
{
	ctxs[d].dev = d;
	*c = (cu_ctx)&ctxs[d];
	return 0;
}
EXPORT int cuDevicePrimaryCtxRelease_v2(cu_device d)
{
	(void)d;
	return 0;
}
EXPORT int cuCtxSetCurrent(cu_ctx c)
{
	cur = (struct fctx *)c;
	return 0;
}
EXPORT int cuCtxGetCurrent(cu_ctx *c)
{
	*c = (cu_ctx)cur;
	return 0;
}
EXPORT int cuCtxSynchronize(void)
{
	return cur ? 0 : CUDA_ERROR_INVALID_CONTEXT;
}
EXPORT int cuCtxEnablePeerAccess(cu_ctx peer, unsigned f)
{
	struct fctx *p = (struct fctx *)peer;

	(void)f;
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (cur->peer[p->dev])
		return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	cur->peer[p->dev] = 1;
	return 0;
}
EXPORT int cuCtxDisablePeerAccess(cu_ctx peer)
{
	struct fctx *p = (struct fctx *)peer;

	if (!cur || !cur->peer[p->dev])
		return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	cur->peer[p->dev] = 0;
	return 0;
}
static int is_pair(const int *pair, int a, int b)
{
	return (pair[0] == a && pair[1] == b) || (pair[0] == b && pair[1] == a);
}

EXPORT int cuDeviceCanAccessPeer(int *v, cu_device a, cu_device b)
{
	setup();
	*v = a != b && !is_pair(no_peer, a, b);
	return 0;
}
EXPORT int cuMemGetInfo_v2(size_t *fr, size_t *tot)
{
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	*tot = mem_total;
	*fr = mem_total - mem_used[cur->dev];
	return 0;
}

static void *fake_alloc(size_t n, int dev)
{
	struct alloc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->p = aligned_alloc(256, (n + 255) & ~(size_t)255);
	if (!a->p) {
		free(a);
		return NULL;
	}
	a->n = n;
	a->dev = dev;
	pthread_mutex_lock(&alloc_lock);
	a->next = allocs;
	allocs = a;
	if (dev >= 0)
		mem_used[dev] += n;
	pthread_mutex_unlock(&alloc_lock);
	return a->p;
}

static int fake_free(void *p)
{
	struct alloc **pp, *a = NULL;

	pthread_mutex_lock(&alloc_lock);
	for (pp = &allocs; *pp; pp = &(*pp)->next)
		if ((*pp)->p == p) {
			a = *pp;
			*pp = a->next;
			if (a->dev >= 0)
				mem_used[a->dev] -= a->n;
			break;
		}
	pthread_mutex_unlock(&alloc_lock);
	if (!a)
		return CUDA_ERROR_INVALID_VALUE;
	free(a->p);
	free(a);
	return 0;
}

EXPORT int cuMemAlloc_v2(cu_ptr *p, size_t n)
{
	void *q;

	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (lost())
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	if (mem_used[cur->dev] + n > mem_total ||
	    (alloc_limit && mem_used[cur->dev] + n > alloc_limit))
		return CUDA_ERROR_OUT_OF_MEMORY;
	q = fake_alloc(n, cur->dev);
	if (!q)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*p = (cu_ptr)(uintptr_t)q;
	return 0;
}
EXPORT int cuMemFree_v2(cu_ptr p)
{
	return fake_free((void *)(uintptr_t)p);
}
EXPORT int cuMemHostAlloc(void **p, size_t n, unsigned f)
{
	(void)f;
	*p = fake_alloc(n, -1);
	return *p ? 0 : CUDA_ERROR_OUT_OF_MEMORY;
}
EXPORT int cuMemFreeHost(void *p)
{
	return fake_free(p);
}
EXPORT int cuMemHostRegister_v2(void *p, size_t n, unsigned f)
{
	(void)p, (void)n, (void)f;
	return 0;
}
EXPORT int cuMemHostUnregister(void *p)
{
	(void)p;
	return 0;
}
EXPORT int cuMemHostGetDevicePointer_v2(cu_ptr *d, void *p, unsigned f)
{
	(void)f;
	*d = (cu_ptr)(uintptr_t)p;
	return 0;
}
#define P(x) ((void *)(uintptr_t)(x))
EXPORT int cuMemcpyHtoD_v2(cu_ptr d, const void *s, size_t n)
{
	if (lost())
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	memcpy(P(d), s, n);
	return 0;
}
EXPORT int cuMemcpyDtoH_v2(void *d, cu_ptr s, size_t n)
{
	if (lost())
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	memcpy(d, P(s), n);
	return 0;
}
EXPORT int cuMemcpyHtoDAsync_v2(cu_ptr d, const void *s, size_t n, cu_stream st)
{
	(void)st;
	memcpy(P(d), s, n);
	return 0;
}
EXPORT int cuMemcpyDtoHAsync_v2(void *d, cu_ptr s, size_t n, cu_stream st)
{
	(void)st;
	memcpy(d, P(s), n);
	return 0;
}
EXPORT int cuMemcpyDtoDAsync_v2(cu_ptr d, cu_ptr s, size_t n, cu_stream st)
{
	(void)st;
	memmove(P(d), P(s), n);
	return 0;
}
EXPORT int cuMemcpyPeerAsync(cu_ptr d, cu_ctx dc, cu_ptr s, cu_ctx sc, size_t n, cu_stream st)
{
	const struct fctx *dx = (const struct fctx *)dc, *sx = (const struct fctx *)sc;
	double t0 = now_s();

	(void)st;
	memmove(P(d), P(s), n);
	if (corrupt && !strcmp(corrupt, "cuMemcpyPeerAsync") && n >= 4)
		((uint32_t *)P(d))[n / 8] ^= 1u << 7;
	if (dx && sx && is_pair(slow_peer, dx->dev, sx->dev)) {
		/* nine times the copy's own time again: a tenth of the others' rate */
		double wait = 9 * (now_s() - t0);
		struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};

		nanosleep(&ts, NULL);
	}
	return 0;
}
EXPORT int cuMemsetD32Async(cu_ptr d, unsigned v, size_t n, cu_stream st)
{
	uint32_t *p = P(d);
	size_t i;

	(void)st;
	for (i = 0; i < n; i++)
		p[i] = v;
	return 0;
}
EXPORT int cuMemsetD8Async(cu_ptr d, unsigned char v, size_t n, cu_stream st)
{
	(void)st;
	memset(P(d), v, n);
	return 0;
}

/* ---- kernels ------------------------------------------------------------------------------ */

typedef void (*kfn)(void **a);
#define ARG(i, T) (*(T *)a[i])
#define PTR(i, T) ((T *)(uintptr_t)ARG(i, cu_ptr))

static void bad_word(uint64_t *bad, uint64_t *first, size_t i)
{
	(*bad)++;
	if (i < *first)
		*first = i;
}

static void k_spin(void **a)
{
	(void)a;
}
static void k_tick(void **a)
{
	(*PTR(0, uint64_t))++;
}
static void k_fill_u32(void **a)
{
	uint32_t *p = PTR(0, uint32_t);
	size_t n = ARG(1, size_t), i;
	uint64_t seed = ARG(2, uint64_t);

	for (i = 0; i < n; i++)
		p[i] = gv_pattern(seed, i);
}
static void k_verify_u32(void **a)
{
	const uint32_t *p = PTR(0, uint32_t);
	size_t n = ARG(1, size_t), i;
	uint64_t seed = ARG(2, uint64_t);

	for (i = 0; i < n; i++)
		if (p[i] != gv_pattern(seed, i))
			bad_word(PTR(3, uint64_t), PTR(4, uint64_t), i);
}
static void k_verify_stream(void **a)
{
	const uint32_t *p = PTR(0, uint32_t);
	size_t n = ARG(1, size_t), i;
	uint32_t seed = ARG(2, uint32_t);

	for (i = 0; i < n; i++)
		if (p[i] != gv_stream_word(seed, i))
			bad_word(PTR(3, uint64_t), PTR(4, uint64_t), i);
}
static void k_sum_u32(void **a)
{
	const uint32_t *p = PTR(0, uint32_t);
	size_t n = ARG(1, size_t), i;
	uint64_t s = 0;

	for (i = 0; i < n; i++)
		s += p[i];
	*PTR(2, uint64_t) += s;
}
static void k_fill_unit(void **a)
{
	float *p = PTR(0, float);
	size_t n = ARG(1, size_t), i;
	uint64_t seed = ARG(2, uint64_t);

	for (i = 0; i < n; i++)
		p[i] = gv_unit_float(gv_pattern(seed, i));
}
static void k_verify_triad(void **a)
{
	const float *x = PTR(0, float), *b = PTR(1, float), *c = PTR(2, float);
	float s = ARG(3, float);
	size_t n = ARG(4, size_t), i;

	for (i = 0; i < n; i++)
		if (x[i] != fmaf(s, c[i], b[i]))
			bad_word(PTR(5, uint64_t), PTR(6, uint64_t), i);
}

#include "fake_types.h"

static void k_fill_gemm(void **a)
{
	void *p = PTR(0, void);
	size_t n = ARG(1, size_t), i;
	uint64_t seed = ARG(2, uint64_t);
	int t = ARG(3, int), dist = ARG(4, int);

	for (i = 0; i < n; i++) {
		double v = gv_gemm_value(seed, i, dist);

		switch (t) {
		case GV_F64: ((double *)p)[i] = v; break;
		case GV_F32: ((float *)p)[i] = (float)v; break;
		case GV_F16: ((uint16_t *)p)[i] = fake_f16((float)v); break;
		case GV_BF16: ((uint16_t *)p)[i] = fake_bf16((float)v); break;
		default: ((uint8_t *)p)[i] = fake_e4m3((float)v); break;
		}
	}
}
static void k_gather_row(void **a)
{
	const unsigned char *src = PTR(0, const unsigned char);
	unsigned char *dst = PTR(1, unsigned char);
	size_t ld = ARG(2, size_t), row = ARG(3, size_t), len = ARG(4, size_t), l;
	int eb = ARG(5, int);

	for (l = 0; l < len; l++)
		memcpy(dst + l * (size_t)eb, src + (row + l * ld) * (size_t)eb, (size_t)eb);
}
static void k_fill_small_int(void **a)
{
	float *p = PTR(0, float);
	size_t n = ARG(1, size_t), i;
	uint64_t seed = ARG(2, uint64_t);

	for (i = 0; i < n; i++)
		p[i] = gv_small_int(gv_pattern(seed, i));
}
static void k_verify_allreduce(void **a)
{
	const float *p = PTR(0, float);
	size_t n = ARG(1, size_t), i;
	uint64_t seed = ARG(2, uint64_t);
	int nr = ARG(3, int), r;

	for (i = 0; i < n; i++) {
		float want = 0;

		for (r = 0; r < nr; r++)
			want += gv_small_int(gv_pattern(seed + (uint64_t)r, i));
		if (p[i] != want)
			bad_word(PTR(4, uint64_t), PTR(5, uint64_t), i);
	}
}
static void k_axpy(void **a)
{
	float *z = PTR(0, float);
	const float *x = PTR(1, float), *y = PTR(2, float);
	float s = ARG(3, float);
	size_t n = ARG(4, size_t), i;

	for (i = 0; i < n; i++)
		z[i] = fmaf(s, x[i], y[i]);
}
static void k_copy(void **a)
{
	memmove(PTR(0, void), PTR(1, void), ARG(2, size_t) * 16);
}
static void k_read(void **a)
{
	const uint32_t *p = PTR(0, uint32_t);
	size_t n = ARG(1, size_t) * 4, i;
	uint64_t s = 0;

	for (i = 0; i < n; i++)
		s += p[i];
	*PTR(2, uint64_t) += s;
}
static void k_write(void **a)
{
	uint32_t *p = PTR(0, uint32_t);
	size_t n = ARG(1, size_t) * 4, i;
	uint32_t seed = ARG(2, uint32_t);

	for (i = 0; i < n; i++)
		p[i] = gv_stream_word(seed, i);
}
static void k_triad(void **a)
{
	float *x = PTR(0, float);
	const float *b = PTR(1, float), *c = PTR(2, float);
	float s = ARG(3, float);
	size_t n = ARG(4, size_t) * 4, i;

	for (i = 0; i < n; i++)
		x[i] = fmaf(s, c[i], b[i]);
}
/* burn.cu's compare and fault injection, element by element */
static uint64_t burn_load(const void *p, size_t i, int eb)
{
	return eb == 8 ? ((const uint64_t *)p)[i]
	       : eb == 4 ? ((const uint32_t *)p)[i]
			 : ((const uint16_t *)p)[i];
}
static void k_burn_compare(void **a)
{
	const cu_ptr *bufs = PTR(0, cu_ptr);
	size_t nb = ARG(1, size_t), n = ARG(3, size_t), i, b;
	const void *ref = PTR(2, void);
	int dt = ARG(4, int), eb = ARG(5, int);
	uint64_t *counts = PTR(6, uint64_t);
	uint64_t ex = dt == GV_F64 ? 0x7ff0000000000000ull
		      : dt == GV_F32 ? 0x7f800000u
		      : dt == GV_F16 ? 0x7c00u
				     : 0x7f80u;

	for (b = 0; b < nb; b++)
		for (i = 0; i < n; i++) {
			uint64_t w = burn_load((const void *)(uintptr_t)bufs[b], i, eb);

			counts[0] += w != burn_load(ref, i, eb);
			counts[1] += (w & ex) == ex;
		}
}
static void k_burn_inject(void **a)
{
	void *p = PTR(0, void);
	size_t n = ARG(1, size_t), at = ARG(5, size_t), i;
	int dt = ARG(2, int), eb = ARG(3, int), mode = ARG(4, int);
	int mant = dt == GV_F64 ? 52 : dt == GV_F32 ? 23 : dt == GV_F16 ? 10 : 7;
	uint64_t nan = dt == GV_F64 ? 0x7ff8000000000000ull
		       : dt == GV_F32 ? 0x7fc00000u
		       : dt == GV_F16 ? 0x7e00u
				      : 0x7fc0u;

	for (i = 0; i < n; i++) {
		uint64_t w;

		if (mode != 2 && i != at)
			continue;
		w = burn_load(p, i, eb);
		w = mode == 0 ? w ^ 1u : mode == 1 ? nan : w + (1ull << (mant - 4));
		if (eb == 8)
			((uint64_t *)p)[i] = w;
		else if (eb == 4)
			((uint32_t *)p)[i] = (uint32_t)w;
		else
			((uint16_t *)p)[i] = (uint16_t)w;
	}
}
/* memtest.cu's kernels, word by word in the same order (descending too) */
#include "../../../src/kernels/memtest_pattern.h"

static void mt_record(uint64_t *res, uint64_t word)
{
	if (res[1] < GV_MT_SLOTS)
		res[2 + res[1]] = word;
	res[1]++;
}
static void k_mt_write(void **a)
{
	uint64_t *p = PTR(0, uint64_t), base = ARG(4, uint64_t), arg = ARG(3, uint64_t);
	size_t n = ARG(1, size_t), i;
	int pat = ARG(2, int);

	for (i = 0; i < n; i++)
		p[i] = gv_mt_word(pat, arg, base + i, (uint64_t)(uintptr_t)(p + i));
}
static void k_mt_verify(void **a)
{
	const uint64_t *p = PTR(0, uint64_t);
	uint64_t base = ARG(4, uint64_t), arg = ARG(3, uint64_t), *res = PTR(5, uint64_t);
	size_t n = ARG(1, size_t), i;
	int pat = ARG(2, int);

	for (i = 0; i < n; i++)
		if (p[i] != gv_mt_word(pat, arg, base + i, (uint64_t)(uintptr_t)(p + i))) {
			res[0]++;
			mt_record(res, base + i);
		}
}
static void k_mt_invert(void **a)
{
	uint64_t *p = PTR(0, uint64_t), base = ARG(4, uint64_t), arg = ARG(3, uint64_t);
	uint64_t *res = PTR(6, uint64_t);
	size_t n = ARG(1, size_t), j;
	int pat = ARG(2, int), desc = ARG(5, int);

	for (j = 0; j < n; j++) {
		size_t i = desc ? n - 1 - j : j;
		uint64_t want = gv_mt_word(pat, arg, base + i, (uint64_t)(uintptr_t)(p + i));

		if (p[i] != want) {
			res[0]++;
			mt_record(res, base + i);
		}
		p[i] = ~want;
	}
}
static void k_mt_stick(void **a)
{
	PTR(0, uint64_t)[ARG(1, size_t)] |= 1ull << ARG(2, int);
}

static const struct {
	const char *name;
	kfn fn;
	int out_arg; /* the argument FAKEGPU_CORRUPT spoils (a pointer), -1 none */
} kernels[] = {
	{"gv_spin", k_spin, -1},
	{"gv_tick", k_tick, -1},
	{"gv_fill_u32", k_fill_u32, -1},
	{"gv_verify_u32", k_verify_u32, -1},
	{"gv_verify_stream", k_verify_stream, -1},
	{"gv_sum_u32", k_sum_u32, -1},
	{"gv_fill_unit_f32", k_fill_unit, -1},
	{"gv_verify_triad", k_verify_triad, -1},
	{"gv_fill_gemm", k_fill_gemm, -1},
	{"gv_gather_row", k_gather_row, 1},
	{"gv_fill_small_int", k_fill_small_int, -1},
	{"gv_verify_allreduce", k_verify_allreduce, -1},
	{"gv_axpy", k_axpy, 0},
	{"gv_burn_compare", k_burn_compare, -1},
	{"gv_burn_inject", k_burn_inject, -1},
	{"gv_mt_write", k_mt_write, 0},
	{"gv_mt_verify", k_mt_verify, -1},
	{"gv_mt_invert", k_mt_invert, 0},
	{"gv_mt_stick", k_mt_stick, -1},
	{"gv_copy_gs4", k_copy, 0},
	{"gv_copy_gs8", k_copy, 0},
	{"gv_copy_bt4", k_copy, 0},
	{"gv_copy_bt8", k_copy, 0},
	{"gv_read_gs4", k_read, -1},
	{"gv_read_gs8", k_read, -1},
	{"gv_read_bt4", k_read, -1},
	{"gv_read_bt8", k_read, -1},
	{"gv_write_gs4", k_write, 0},
	{"gv_write_gs8", k_write, 0},
	{"gv_write_bt4", k_write, 0},
	{"gv_write_bt8", k_write, 0},
	{"gv_triad_gs4", k_triad, 0},
	{"gv_triad_gs8", k_triad, 0},
	{"gv_triad_bt4", k_triad, 0},
	{"gv_triad_bt8", k_triad, 0},
};

static int module_token;

EXPORT int cuModuleLoadData(cu_module *m, const void *img)
{
	(void)img;
	setup();
	if (module_error)
		return module_error;
	*m = (cu_module)&module_token;
	return 0;
}
EXPORT int cuModuleLoadDataEx(cu_module *m, const void *img, unsigned n, int *o, void **v)
{
	unsigned i;

	setup();
	if (module_error) {
		for (i = 0; i < n; i++)
			if (o[i] == CU_JIT_ERROR_LOG_BUFFER)
				snprintf(v[i], 64, "fake: no image for this GPU");
		return module_error;
	}
	return cuModuleLoadData(m, img);
}
EXPORT int cuModuleUnload(cu_module m)
{
	(void)m;
	return 0;
}
EXPORT int cuModuleGetFunction(cu_func *f, cu_module m, const char *name)
{
	size_t i;

	(void)m;
	for (i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (!strcmp(kernels[i].name, name)) {
			*f = (cu_func)(uintptr_t)(i + 1);
			return 0;
		}
	return CUDA_ERROR_NOT_FOUND;
}
EXPORT int cuLaunchKernel(cu_func f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			  unsigned by, unsigned bz, unsigned sh, cu_stream s, void **args,
			  void **extra)
{
	size_t k = (size_t)(uintptr_t)f - 1;

	(void)gy, (void)gz, (void)by, (void)bz, (void)sh, (void)s, (void)extra;
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (lost())
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	if (k >= sizeof(kernels) / sizeof(kernels[0]) || gx == 0 || bx == 0 || bx > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	kernels[k].fn(args);
	if (corrupt && kernels[k].out_arg >= 0 &&
	    !strncmp(corrupt, kernels[k].name, strlen(corrupt)))
		(*(uint32_t *)(uintptr_t)(*(cu_ptr *)args[kernels[k].out_arg]))++;
	return 0;
}
EXPORT int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, cu_func f, int b, size_t sh)
{
	(void)f, (void)sh;
	*n = 2048 / b;
	return 0;
}

/* ---- streams and events ------------------------------------------------------------------- */

static int stream_tokens[64], nstreams;
static double event_t[256];
static int nevents;

EXPORT int cuStreamCreate(cu_stream *s, unsigned f)
{
	(void)f;
	*s = (cu_stream)&stream_tokens[nstreams++ % 64];
	return 0;
}
EXPORT int cuStreamDestroy_v2(cu_stream s)
{
	(void)s;
	return 0;
}
EXPORT int cuStreamSynchronize(cu_stream s)
{
	(void)s;
	if (lost())
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	/* a hung GPU: the call never returns (the process ends around it) */
	while (cur && cur->dev == hang_dev && now_s() - start_s >= hang_s)
		sleep(3600);
	return 0;
}
EXPORT int cuStreamWaitEvent(cu_stream s, cu_event e, unsigned f)
{
	(void)s, (void)e, (void)f;
	return 0;
}
EXPORT int cuStreamQuery(cu_stream s)
{
	(void)s;
	return 0;
}
EXPORT int cuEventCreate(cu_event *e, unsigned f)
{
	(void)f;
	*e = (cu_event)&event_t[nevents++ % 256];
	return 0;
}
EXPORT int cuEventDestroy_v2(cu_event e)
{
	(void)e;
	return 0;
}
EXPORT int cuEventRecord(cu_event e, cu_stream s)
{
	(void)s;
	*(double *)e = now_s();
	return 0;
}
EXPORT int cuEventSynchronize(cu_event e)
{
	(void)e;
	return 0;
}
EXPORT int cuEventQuery(cu_event e)
{
	(void)e;
	return 0;
}
EXPORT int cuEventElapsedTime_v2(float *ms, cu_event a, cu_event b)
{
	*ms = (float)((*(double *)b - *(double *)a) * 1e3);
	return 0;
}
