/*
 * cl.c: the OpenCL benchmarks (issue 14), cl-memory and cl-compute, on every OpenCL device the
 * ICD loader offers (PoCL on the CPU, NVIDIA's ICD on its GPUs, ...) or on those -i cl:N names.
 * They need neither the CUDA driver nor gpuvet's CUDA kernels: their kernels are OpenCL C source
 * strings below, compiled at run time by each platform. Timed with bench_time on the host clock
 * (a batch of kernels, then clFinish), verified after the timed region like the CUDA families:
 *
 *   cl-memory   a copy kernel (four uint4 per work-item) between two device buffers; the
 *               rate is the bytes copied per second (the memory moves twice that: a read and
 *               a write); verified by reading the destination back and checking gpuvet's
 *               pattern in every word. Then a read kernel (each work-item's XOR of what it
 *               read, checked against the host's) and a write kernel (a pattern of the word's
 *               index, read back and checked), on the same buffers: bytes read or written.
 *   cl-compute  32 independent chains of fma per work-item (two float16); rate in GFLOP/s
 *               (2 per fma); verified against the same fmaf chains on the CPU for 4096
 *               work-items spread over the buffer (fma is correctly rounded on both sides, so
 *               they agree exactly; a relative 1e-5 is allowed for devices that flush
 *               denormals).
 *
 * The ICD loader is opened once and stays loaded (some ICDs do not survive being unloaded).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "../vendor/opencl.h"
#include "bench.h"

static int run_cl_memory(struct bench_env *env, struct err *e);
static int run_cl_compute(struct bench_env *env, struct err *e);

const struct bench_family family_cl_memory = {
    .name = "cl-memory",
    .aliases = "clmem",
    .summary = "OpenCL: device memory bandwidth, copy, read and write kernels on every OpenCL "
	       "device",
    .title = "OpenCL device memory (copy, read and write kernels)",
    .run = run_cl_memory,
    .opencl = true,
    .table_note = "OpenCL devices, numbered cl:N: GPU N in the rows below is cl:N",
};

const struct bench_family family_cl_compute = {
    .name = "cl-compute",
    .aliases = "clfma",
    .summary = "OpenCL: FP32 FMA throughput on every OpenCL device, checked against the CPU",
    .title = "OpenCL FP32 compute (fma chains)",
    .run = run_cl_compute,
    .opencl = true,
    .table_note = "OpenCL devices, numbered cl:N: GPU N in the rows below is cl:N",
};

/* The copy and write kernels move four uint4 per work-item, the read eight, each a whole grid
 * apart, so that every load of a wavefront is contiguous and the loads are in flight together
 * (the read writes one word per work-item, 1/32 of what it reads, so that nothing is optimised
 * away). The fma kernel runs 32 independent chains per work-item as two float16, which a
 * CPU device vectorises (AVX-512: a register each) and a GPU issues back to back, its loop
 * unrolled sixteen times (on the H200, four chains and no unrolling reached 90 % of clpeak's
 * figure, two float8 unrolled four times 95 %, sixteen times 98.5 %). */
static const char cl_source[] =
    "__kernel void gv_cl_copy(__global const uint4 *src, __global uint4 *dst)\n"
    "{\n"
    "\tsize_t i = get_global_id(0), g = get_global_size(0);\n"
    "\tuint4 a = src[i], b = src[i + g], c = src[i + 2 * g], d = src[i + 3 * g];\n"
    "\tdst[i] = a;\n"
    "\tdst[i + g] = b;\n"
    "\tdst[i + 2 * g] = c;\n"
    "\tdst[i + 3 * g] = d;\n"
    "}\n"
    "__kernel void gv_cl_read(__global const uint4 *src, __global uint *out)\n"
    "{\n"
    "\tsize_t i = get_global_id(0), g = get_global_size(0);\n"
    "\tuint4 v = src[i] ^ src[i + g] ^ src[i + 2 * g] ^ src[i + 3 * g] ^ src[i + 4 * g] ^\n"
    "\t\t  src[i + 5 * g] ^ src[i + 6 * g] ^ src[i + 7 * g];\n"
    "\tout[i] = v.x ^ v.y ^ v.z ^ v.w;\n"
    "}\n"
    "__kernel void gv_cl_write(__global uint4 *dst, uint seed)\n"
    "{\n"
    "\tsize_t i = get_global_id(0), g = get_global_size(0);\n"
    "\tfor (int k = 0; k < 4; k++) {\n"
    "\t\tuint w = (uint)(i + k * g) * 4u;\n"
    "\t\tdst[i + k * g] = ((uint4)(w, w + 1u, w + 2u, w + 3u) * 0x9e3779b1u) ^ seed;\n"
    "\t}\n"
    "}\n"
    "#define GV_STEP2 v = fma(v, va, vb); w = fma(w, va, vb);\n"
    "#define GV_STEP8 GV_STEP2 GV_STEP2 GV_STEP2 GV_STEP2 GV_STEP2 GV_STEP2 GV_STEP2 GV_STEP2\n"
    "__kernel void gv_cl_fma(__global float *x, float a, float b, int iters)\n"
    "{\n"
    "\tsize_t i = get_global_id(0);\n"
    "\tfloat x0 = x[i];\n"
    "\tfloat16 v = x0 + (float16)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f, "
    "9.0f, 10.0f, 11.0f, 12.0f, 13.0f, 14.0f, 15.0f);\n"
    "\tfloat16 w = x0 + (float16)(16.0f, 17.0f, 18.0f, 19.0f, 20.0f, 21.0f, 22.0f, 23.0f, "
    "24.0f, 25.0f, 26.0f, 27.0f, 28.0f, 29.0f, 30.0f, 31.0f);\n"
    "\tfloat16 va = (float16)(a), vb = (float16)(b);\n"
    "\tfor (int k = 0; k < iters; k += 16) {\n"
    "\t\tGV_STEP8 GV_STEP8\n"
    "\t}\n"
    "\tfloat s = v.s0;\n"
    "\ts += v.s1; s += v.s2; s += v.s3; s += v.s4; s += v.s5; s += v.s6; s += v.s7; s += v.s8;\n"
    "\ts += v.s9; s += v.sa; s += v.sb; s += v.sc; s += v.sd; s += v.se; s += v.sf; s += w.s0;\n"
    "\ts += w.s1; s += w.s2; s += w.s3; s += w.s4; s += w.s5; s += w.s6; s += w.s7; s += w.s8;\n"
    "\ts += w.s9; s += w.sa; s += w.sb; s += w.sc; s += w.sd; s += w.se; s += w.sf;\n"
    "\tx[i] = s;\n"
    "}\n";

static struct opencl_lib cl_lib;
static bool cl_loaded;

struct cl_dev {
	int number; /* N of cl:N: devices of every platform, in the loader's order */
	cl_device id;
	char name[128], platform[128];
	bool is_cpu;
	uint64_t mem_bytes, max_alloc_bytes;
	cl_context ctx;
	cl_queue q;
	cl_program prog;
};

static int cl_fail(int32_t rc, const char *call, const struct cl_dev *d, struct err *e)
{
	return err_set(e, EXIT_ERROR, "%s on cl:%d (%s): %s (%d)", call, d->number, d->name,
		       opencl_error_name(rc), (int)rc);
}

/* The loader, once per process; -1 with e (EXIT_UNAVAILABLE) when there is none. */
static int cl_load(struct err *e)
{
	if (cl_loaded)
		return 0;
	if (opencl_load(&cl_lib, e) != 0)
		return -1;
	cl_loaded = true;
	return 0;
}

static void cl_close(struct cl_dev *d)
{
	const struct opencl_api *cl = &cl_lib.api;

	if (d->prog)
		cl->ReleaseProgram(d->prog);
	if (d->q)
		cl->ReleaseCommandQueue(d->q);
	if (d->ctx)
		cl->ReleaseContext(d->ctx);
	d->prog = NULL;
	d->q = NULL;
	d->ctx = NULL;
}

/* A context, a queue and the program built for d. */
static int cl_open(struct cl_dev *d, struct err *e)
{
	const struct opencl_api *cl = &cl_lib.api;
	const char *src = cl_source;
	int32_t rc = 0;

	d->ctx = cl->CreateContext(NULL, 1, &d->id, NULL, NULL, &rc);
	if (!d->ctx)
		return cl_fail(rc, "clCreateContext", d, e);
	d->q = cl->CreateCommandQueue(d->ctx, d->id, 0, &rc);
	if (!d->q)
		return cl_fail(rc, "clCreateCommandQueue", d, e);
	d->prog = cl->CreateProgramWithSource(d->ctx, 1, &src, NULL, &rc);
	if (!d->prog)
		return cl_fail(rc, "clCreateProgramWithSource", d, e);
	rc = cl->BuildProgram(d->prog, 1, &d->id, "", NULL, NULL);
	if (rc != CL_SUCCESS) {
		char log[240] = "";

		cl->GetProgramBuildInfo(d->prog, d->id, CL_PROGRAM_BUILD_LOG, sizeof(log), log,
					NULL);
		log[sizeof(log) - 1] = '\0';
		for (char *c = log; *c; c++)
			if (*c == '\n')
				*c = ' ';
		return err_set(e, EXIT_ERROR, "clBuildProgram on cl:%d (%s): %s (%d): %s",
			       d->number, d->name, opencl_error_name(rc), (int)rc, log);
	}
	return 0;
}

/* Is cl:n selected (env->opt.cl_devices: none set means every device)? */
static bool selected(const struct bench_env *env, int n)
{
	return env->opt.cl_devices == 0 || (n < 64 && (env->opt.cl_devices >> n) & 1);
}

/* Run measure on every selected OpenCL device, each opened and closed around it. */
static int each_device(struct bench_env *env, const struct bench_family *fam,
		       int (*measure)(struct bench_env *, const struct bench_family *,
				      struct cl_dev *, struct err *),
		       struct err *e)
{
	const struct opencl_api *cl;
	cl_platform ps[8];
	uint32_t np = 0, p;
	int number = 0, ran = 0, rc = 0;
	int32_t prc;

	if (cl_load(e) != 0)
		return -1;
	cl = &cl_lib.api;
	prc = cl->GetPlatformIDs(8, ps, &np);
	if (prc != CL_SUCCESS || np == 0) {
		err_set(e, EXIT_UNAVAILABLE, "no OpenCL platform: clGetPlatformIDs: %s (%d)",
			opencl_error_name(prc), (int)prc);
		err_hint(e, "'gpuvet doctor' lists the ICDs of /etc/OpenCL/vendors and names a "
			    "broken one");
		return -1;
	}
	for (p = 0; p < np && p < 8 && rc == 0; p++) {
		cl_device ds[16];
		uint32_t nd = 0, i;
		char pname[128];

		opencl_platform_str(&cl_lib, ps[p], CL_PLATFORM_NAME, pname, sizeof(pname));
		if (cl->GetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 16, ds, &nd) != CL_SUCCESS)
			nd = 0;
		for (i = 0; i < nd && i < 16 && rc == 0; i++, number++) {
			struct cl_dev d;

			if (!selected(env, number))
				continue;
			if (bench_stopped(env))
				return bench_interrupted(e);
			memset(&d, 0, sizeof(d));
			d.number = number;
			d.id = ds[i];
			str_copy(d.platform, pname, sizeof(d.platform));
			opencl_device_str(&cl_lib, ds[i], CL_DEVICE_NAME, d.name, sizeof(d.name));
			d.is_cpu = opencl_device_num(&cl_lib, ds[i], CL_DEVICE_TYPE, 8) &
				   CL_DEVICE_TYPE_CPU;
			d.mem_bytes =
			    opencl_device_num(&cl_lib, ds[i], CL_DEVICE_GLOBAL_MEM_SIZE, 8);
			d.max_alloc_bytes =
			    opencl_device_num(&cl_lib, ds[i], CL_DEVICE_MAX_MEM_ALLOC_SIZE, 8);
			bench_progress(env, fam, "cl:%d %s", d.number, d.name);
			rc = cl_open(&d, e);
			if (rc == 0)
				rc = measure(env, fam, &d, e);
			cl_close(&d);
			ran++;
		}
	}
	if (rc != 0)
		return -1;
	if (ran == 0) {
		if (env->opt.cl_devices)
			return err_set(e, EXIT_USAGE,
				       "no OpenCL device cl:N that -i names: there are "
				       "%d (cl:0 to cl:%d)",
				       number, number - 1);
		bench_note(env->run, fam, NOTE_SKIP, "no OpenCL device on %u platform%s", np,
			   np == 1 ? "" : "s");
	}
	return 0;
}

static void describe(struct bench_result *r, const struct cl_dev *d)
{
	r->gpu = d->number;
	r->headline = true;
	str_fmt(r->config, sizeof(r->config), "cl:%d %s (%s)", d->number, d->name, d->platform);
}

/* ---- cl-memory ------------------------------------------------------------------------------ */

struct copy_op {
	struct cl_dev *d;
	cl_kernel k;
	size_t items;
};

static int copy_run(void *arg, struct err *e)
{
	struct copy_op *o = arg;
	int32_t rc =
	    cl_lib.api.EnqueueNDRangeKernel(o->d->q, o->k, 1, NULL, &o->items, NULL, 0, NULL, NULL);

	return rc == CL_SUCCESS ? 0 : cl_fail(rc, "clEnqueueNDRangeKernel gv_cl_copy", o->d, e);
}

static int queue_finish(void *arg, struct err *e)
{
	struct copy_op *o = arg;
	int32_t rc = cl_lib.api.Finish(o->d->q);

	return rc == CL_SUCCESS ? 0 : cl_fail(rc, "clFinish", o->d, e);
}

/* Bytes per buffer: --size, else 1 GiB as bench memory (64 MiB for a CPU device, 16 with
 * --quick; at 256 MiB the H200 read 11 % slower than at 1 GiB), within
 * the device's largest allocation and a quarter of its memory; a multiple of 4 KiB. */
static size_t copy_bytes(const struct bench_env *env, const struct cl_dev *d)
{
	uint64_t b = env->opt.size_bytes;

	if (!b)
		b = env->opt.quick ? 16ull << 20 : d->is_cpu ? 64ull << 20 : 1ull << 30;
	if (d->max_alloc_bytes && b > d->max_alloc_bytes)
		b = d->max_alloc_bytes;
	if (d->mem_bytes && b > d->mem_bytes / 4)
		b = d->mem_bytes / 4;
	b &= ~4095ull;
	return b < 4096 ? 4096 : (size_t)b;
}

/* Time kernel k over items work-items, bytes moved per run, as test; r's size is the buffer's. */
static struct bench_result *time_kernel(struct bench_env *env, const struct bench_family *fam,
					struct cl_dev *d, cl_kernel k, size_t items,
					const char *test, const char *label, size_t bytes,
					size_t buf_bytes, struct err *e)
{
	struct copy_op o = {d, k, items};
	struct bench_op op;
	struct bench_timing tm;
	struct bench_result *r;

	memset(&op, 0, sizeof(op));
	memset(&tm, 0, sizeof(tm));
	op.run = copy_run;
	op.arg = &o;
	op.sync = queue_finish;
	op.host_timed = true;
	if (bench_time(env, &op, &tm, e) != 0)
		return NULL;
	r = bench_add_timed(env, fam, test, label, &tm, (double)bytes, 1e9, "GB/s", false, NULL);
	describe(r, d);
	r->size = (double)buf_bytes;
	str_copy(r->size_unit, "B", sizeof(r->size_unit));
	bench_timing_free(&tm);
	return r;
}

static uint32_t write_word(size_t w, uint32_t seed)
{
	return ((uint32_t)w * 0x9e3779b1u) ^ seed;
}

/* Read: src (bytes, holding host's words) into one word per work-item, checked against the
 * same XOR of host's words. Write: dst filled with write_word, read back and checked. */
static int measure_read_write(struct bench_env *env, const struct bench_family *fam,
			      struct cl_dev *d, cl_mem src, cl_mem dst, uint32_t *host,
			      size_t bytes, struct err *e)
{
	const struct opencl_api *cl = &cl_lib.api;
	/* the read takes eight uint4 per work-item (its one word out is 1/32 of what it reads),
	 * the write four */
	size_t words = bytes / 4, items = bytes / 128, witems = bytes / 64, i, g = items;
	uint32_t *out = xcalloc(items, 4), seed = 0x5eed0003;
	cl_mem obuf = NULL;
	cl_kernel kr = NULL, kw = NULL;
	struct bench_result *r;
	uint64_t bad = 0, first = 0;
	int32_t rc = 0;
	int ret = -1;

	obuf = cl->CreateBuffer(d->ctx, CL_MEM_READ_WRITE, items * 4, NULL, &rc);
	if (obuf)
		kr = cl->CreateKernel(d->prog, "gv_cl_read", &rc);
	if (kr)
		kw = cl->CreateKernel(d->prog, "gv_cl_write", &rc);
	if (!kw) {
		cl_fail(rc, obuf ? "clCreateKernel gv_cl_read/gv_cl_write" : "clCreateBuffer", d,
			e);
		goto out;
	}
	if ((rc = cl->SetKernelArg(kr, 0, sizeof(src), &src)) != CL_SUCCESS ||
	    (rc = cl->SetKernelArg(kr, 1, sizeof(obuf), &obuf)) != CL_SUCCESS ||
	    (rc = cl->SetKernelArg(kw, 0, sizeof(dst), &dst)) != CL_SUCCESS ||
	    (rc = cl->SetKernelArg(kw, 1, sizeof(seed), &seed)) != CL_SUCCESS) {
		cl_fail(rc, "clSetKernelArg", d, e);
		goto out;
	}
	r = time_kernel(env, fam, d, kr, items, "cl_read", "read (OpenCL kernel)", bytes, bytes, e);
	if (!r)
		goto out;
	rc = cl->EnqueueReadBuffer(d->q, obuf, CL_TRUE, 0, items * 4, out, 0, NULL, NULL);
	if (rc != CL_SUCCESS) {
		cl_fail(rc, "clEnqueueReadBuffer", d, e);
		goto out;
	}
	for (i = 0; i < items; i++) {
		uint32_t want = 0;
		int k, c;

		for (k = 0; k < 8; k++)
			for (c = 0; c < 4; c++)
				want ^= host[(i + (size_t)k * g) * 4 + (size_t)c];
		if (out[i] != want && bad++ == 0)
			first = i;
	}
	r->verified = bad == 0 ? VERIFY_OK : VERIFY_FAILED;
	if (bad == 0)
		str_fmt(r->verify, sizeof(r->verify),
			"all %zu work-items' XOR of the 32 words they read equals the host's",
			items);
	else
		str_fmt(r->verify, sizeof(r->verify),
			"%llu of %zu work-items' XOR of what they read differ from the host's, the "
			"first at %llu",
			(unsigned long long)bad, items, (unsigned long long)first);
	r = time_kernel(env, fam, d, kw, witems, "cl_write", "write (OpenCL kernel)", bytes, bytes,
			e);
	if (!r)
		goto out;
	rc = cl->EnqueueReadBuffer(d->q, dst, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
	if (rc != CL_SUCCESS) {
		cl_fail(rc, "clEnqueueReadBuffer", d, e);
		goto out;
	}
	for (bad = 0, i = 0; i < words; i++)
		if (host[i] != write_word(i, seed) && bad++ == 0)
			first = i;
	r->verified = bad == 0 ? VERIFY_OK : VERIFY_FAILED;
	if (bad == 0)
		str_fmt(r->verify, sizeof(r->verify), "all %zu words read back as written", words);
	else
		str_fmt(r->verify, sizeof(r->verify),
			"%llu of %zu words read back differ from what was written, the first at "
			"word %llu",
			(unsigned long long)bad, words, (unsigned long long)first);
	ret = 0;
out:
	if (kr)
		cl->ReleaseKernel(kr);
	if (kw)
		cl->ReleaseKernel(kw);
	if (obuf)
		cl->ReleaseMemObject(obuf);
	free(out);
	return ret;
}

static int measure_copy(struct bench_env *env, const struct bench_family *fam, struct cl_dev *d,
			struct err *e)
{
	const struct opencl_api *cl = &cl_lib.api;
	size_t bytes = copy_bytes(env, d), words = bytes / 4;
	uint32_t *host = xcalloc(words, 4);
	cl_mem src = NULL, dst = NULL;
	struct copy_op o = {d, NULL, bytes / 64}; /* four uint4 per work-item */
	struct bench_op op;
	struct bench_timing tm;
	struct bench_result *r;
	uint64_t bad, first = 0;
	int32_t rc = 0;
	int ret = -1;

	memset(&op, 0, sizeof(op));
	memset(&tm, 0, sizeof(tm));
	src = cl->CreateBuffer(d->ctx, CL_MEM_READ_ONLY, bytes, NULL, &rc);
	if (!src) {
		cl_fail(rc, "clCreateBuffer", d, e);
		goto out;
	}
	dst = cl->CreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
	if (!dst) {
		cl_fail(rc, "clCreateBuffer", d, e);
		goto out;
	}
	/* the destination starts with other data than the source: a copy that did nothing fails */
	bench_host_fill_u32(env, host, words, 0x5eed0002);
	rc = cl->EnqueueWriteBuffer(d->q, dst, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
	bench_host_fill_u32(env, host, words, 0x5eed0001);
	if (rc == CL_SUCCESS)
		rc = cl->EnqueueWriteBuffer(d->q, src, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
	if (rc != CL_SUCCESS) {
		cl_fail(rc, "clEnqueueWriteBuffer", d, e);
		goto out;
	}
	o.k = cl->CreateKernel(d->prog, "gv_cl_copy", &rc);
	if (!o.k) {
		cl_fail(rc, "clCreateKernel gv_cl_copy", d, e);
		goto out;
	}
	if ((rc = cl->SetKernelArg(o.k, 0, sizeof(src), &src)) != CL_SUCCESS ||
	    (rc = cl->SetKernelArg(o.k, 1, sizeof(dst), &dst)) != CL_SUCCESS) {
		cl_fail(rc, "clSetKernelArg gv_cl_copy", d, e);
		goto out;
	}
	op.run = copy_run;
	op.arg = &o;
	op.sync = queue_finish;
	op.host_timed = true;
	if (bench_time(env, &op, &tm, e) != 0)
		goto out;
	r = bench_add_timed(env, fam, "cl_copy", "copy (OpenCL kernel)", &tm, (double)bytes, 1e9,
			    "GB/s", false, NULL);
	describe(r, d);
	r->size = (double)bytes;
	str_copy(r->size_unit, "B", sizeof(r->size_unit));
	bench_timing_free(&tm);
	memset(host, 0, bytes);
	rc = cl->EnqueueReadBuffer(d->q, dst, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
	if (rc != CL_SUCCESS) {
		cl_fail(rc, "clEnqueueReadBuffer", d, e);
		goto out;
	}
	bad = bench_host_verify_u32(env, host, words, 0x5eed0001, &first);
	r->verified = bad == 0 ? VERIFY_OK : VERIFY_FAILED;
	if (bad == 0)
		str_fmt(r->verify, sizeof(r->verify),
			"all %zu words of the destination read back hold the source's pattern",
			words);
	else
		str_fmt(r->verify, sizeof(r->verify),
			"%llu of %zu words read back differ from the source, the first at word "
			"%llu",
			(unsigned long long)bad, words, (unsigned long long)first);
	/* then reading and writing alone, on the same buffers: src still holds the pattern */
	bench_host_fill_u32(env, host, words, 0x5eed0001);
	ret = measure_read_write(env, fam, d, src, dst, host, bytes, e);
out:
	if (o.k)
		cl->ReleaseKernel(o.k);
	if (src)
		cl->ReleaseMemObject(src);
	if (dst)
		cl->ReleaseMemObject(dst);
	free(host);
	return ret;
}

static int run_cl_memory(struct bench_env *env, struct err *e)
{
	return each_device(env, &family_cl_memory, measure_copy, e);
}

/* ---- cl-compute ----------------------------------------------------------------------------- */

#define FMA_A     0.9999f
#define FMA_B     0.0001f
#define FMA_ITERS 512  /* a multiple of 16: the kernel's loop is unrolled sixteen times */
#define FMA_CHECK 4096 /* work-items verified on the CPU */

#define FMA_CHAINS 32 /* per work-item: two float16 */

/* The kernel's arithmetic for one work-item, on the CPU: chain j starts at x + j, and the
 * chains are summed in the kernel's order. */
static float fma_chain(float x)
{
	float v[FMA_CHAINS], s;
	int j, k;

	for (j = 0; j < FMA_CHAINS; j++)
		v[j] = x + (float)j;
	for (k = 0; k < FMA_ITERS; k++)
		for (j = 0; j < FMA_CHAINS; j++)
			v[j] = fmaf(v[j], FMA_A, FMA_B);
	s = v[0];
	for (j = 1; j < FMA_CHAINS; j++)
		s += v[j];
	return s;
}

static float fma_input(size_t i)
{
	return (float)((i * 2654435761u) % 1000003u) / 1000003.0f;
}

static int measure_fma(struct bench_env *env, const struct bench_family *fam, struct cl_dev *d,
		       struct err *e)
{
	const struct opencl_api *cl = &cl_lib.api;
	/* enough work-items to fill a GPU; a CPU device gets fewer so a launch stays short */
	size_t n = d->is_cpu || env->opt.quick ? 1u << 16 : 1u << 22, i, step, checked = 0;
	float a = FMA_A, b = FMA_B, *x = xcalloc(n, sizeof(float));
	int iters = FMA_ITERS;
	cl_mem buf = NULL;
	struct copy_op o = {d, NULL, n};
	struct bench_op op;
	struct bench_timing tm;
	struct bench_result *r;
	uint64_t bad = 0, first = 0;
	double worst = 0;
	int32_t rc = 0;
	int ret = -1;

	memset(&op, 0, sizeof(op));
	memset(&tm, 0, sizeof(tm));
	for (i = 0; i < n; i++)
		x[i] = fma_input(i);
	buf = cl->CreateBuffer(d->ctx, CL_MEM_READ_WRITE, n * sizeof(float), NULL, &rc);
	if (!buf) {
		cl_fail(rc, "clCreateBuffer", d, e);
		goto out;
	}
	o.k = cl->CreateKernel(d->prog, "gv_cl_fma", &rc);
	if (!o.k) {
		cl_fail(rc, "clCreateKernel gv_cl_fma", d, e);
		goto out;
	}
	if ((rc = cl->SetKernelArg(o.k, 0, sizeof(buf), &buf)) != CL_SUCCESS ||
	    (rc = cl->SetKernelArg(o.k, 1, sizeof(a), &a)) != CL_SUCCESS ||
	    (rc = cl->SetKernelArg(o.k, 2, sizeof(b), &b)) != CL_SUCCESS ||
	    (rc = cl->SetKernelArg(o.k, 3, sizeof(iters), &iters)) != CL_SUCCESS) {
		cl_fail(rc, "clSetKernelArg gv_cl_fma", d, e);
		goto out;
	}
	rc = cl->EnqueueWriteBuffer(d->q, buf, CL_TRUE, 0, n * sizeof(float), x, 0, NULL, NULL);
	if (rc != CL_SUCCESS) {
		cl_fail(rc, "clEnqueueWriteBuffer", d, e);
		goto out;
	}
	op.run = copy_run; /* the same enqueue: o.k is the fma kernel here */
	op.arg = &o;
	op.sync = queue_finish;
	op.host_timed = true;
	if (bench_time(env, &op, &tm, e) != 0)
		goto out;
	r = bench_add_timed(env, fam, "cl_fma_fp32", "FP32 fma chains (OpenCL kernel)", &tm,
			    (double)n * FMA_ITERS * FMA_CHAINS * 2, 1e9, "GFLOP/s", false, NULL);
	describe(r, d);
	bench_timing_free(&tm);
	/* the timed runs changed the buffer in place: one more run from the known input */
	rc = cl->EnqueueWriteBuffer(d->q, buf, CL_TRUE, 0, n * sizeof(float), x, 0, NULL, NULL);
	if (rc == CL_SUCCESS && copy_run(&o, e) != 0)
		goto out;
	if (rc == CL_SUCCESS)
		rc = cl->EnqueueReadBuffer(d->q, buf, CL_TRUE, 0, n * sizeof(float), x, 0, NULL,
					   NULL);
	if (rc != CL_SUCCESS) {
		cl_fail(rc, "clEnqueueReadBuffer", d, e);
		goto out;
	}
	step = n / FMA_CHECK ? n / FMA_CHECK : 1;
	for (i = 0; i < n; i += step, checked++) {
		double want = fma_chain(fma_input(i)), got = x[i];
		double rel = fabs(got - want) / (fabs(want) > 1e-30 ? fabs(want) : 1);

		if (rel > worst)
			worst = rel;
		if (!(rel <= 1e-5) && bad++ == 0)
			first = i;
	}
	r->verified = bad == 0 ? VERIFY_OK : VERIFY_FAILED;
	if (bad == 0)
		str_fmt(r->verify, sizeof(r->verify),
			"%zu work-items agree with the CPU's fmaf (largest relative difference "
			"%.1e)",
			checked, worst);
	else
		str_fmt(r->verify, sizeof(r->verify),
			"%llu of %zu work-items differ from the CPU's fmaf by more than 1e-5, the "
			"first at %llu",
			(unsigned long long)bad, checked, (unsigned long long)first);
	ret = 0;
out:
	if (o.k)
		cl->ReleaseKernel(o.k);
	if (buf)
		cl->ReleaseMemObject(buf);
	free(x);
	return ret;
}

static int run_cl_compute(struct bench_env *env, struct err *e)
{
	return each_device(env, &family_cl_compute, measure_fma, e);
}

const char *bench_cl_library(void)
{
	return cl_loaded ? cl_lib.lib.path : NULL;
}
