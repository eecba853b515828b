/*
 * allreduce.c: `gpuvet bench allreduce`: all-reduce (float sum, out of place) across the
 * selected GPUs through NCCL, over message sizes up to 8 GiB, reported as nccl-tests does:
 *   algbw = bytes / time            busbw = algbw x 2(n-1)/n
 * busbw is comparable with the per-GPU link bandwidth whatever n is (for n = 2 they are equal).
 * One process drives every GPU (ncclCommInitAll, one group call per iteration), like
 * `all_reduce_perf -g N`. Timed like nccl-tests: host clock around a batch of iterations and the
 * synchronisation of every stream. Inputs are small whole numbers, so each rank's result can be
 * compared bit for bit with the expected sum (gv_verify_allreduce) after every size.
 * NVLink SHARP (NVLS) makes busbw exceed the wire rate on NVSwitch systems; the environment's
 * NCCL_* settings are recorded in the JSON (cmd/bench.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "../vendor/nccl.h"
#include "bench.h"

static int run_allreduce(struct bench_env *env, struct err *e);

const struct bench_family family_allreduce = {
    .name = "allreduce",
    .aliases = "nccl",
    .summary = "all-reduce across the GPUs through NCCL: algbw and busbw",
    .title = "all-reduce (NCCL)",
    .run = run_allreduce,
    .libs = BENCH_LIB_NCCL,
    .libs_required = BENCH_LIB_NCCL,
    .min_gpus = 2,
};

#define SEED_BASE 0xd1310ba698dfb5acull

struct ar {
	struct bench_env *env;
	nccl_comm *comms;
	cu_ptr *send, *recv;
	size_t count;
	int n;
};

static int nccl_err(struct bench_env *env, int rc, const char *call, struct err *e)
{
	if (rc == NCCL_SUCCESS)
		return 0;
	err_set(e, EXIT_ERROR, "%s: %s (%s)", call, nccl_result_name(rc),
		env->nccl->api.GetErrorString ? env->nccl->api.GetErrorString(rc) : "");
	err_hint(e, "NCCL_DEBUG=WARN shows NCCL's own account");
	return -1;
}

static int ar_run(void *arg, struct err *e)
{
	struct ar *a = arg;
	const struct nccl_api *nc = &a->env->nccl->api;
	int r, rc;

	if (nccl_err(a->env, nc->GroupStart(), "ncclGroupStart", e))
		return -1;
	for (r = 0; r < a->n; r++) {
		rc = nc->AllReduce((const void *)(uintptr_t)a->send[r],
				   (void *)(uintptr_t)a->recv[r], a->count, NCCL_FLOAT32, NCCL_SUM,
				   a->comms[r], a->env->gpus[r].s[0]);
		if (rc != NCCL_SUCCESS) {
			nc->GroupEnd();
			return nccl_err(a->env, rc, "ncclAllReduce", e);
		}
	}
	return nccl_err(a->env, nc->GroupEnd(), "ncclGroupEnd", e);
}

static int ar_sync(void *arg, struct err *e)
{
	struct ar *a = arg;
	int r;

	for (r = 0; r < a->n; r++) {
		struct bench_gpu *g = &a->env->gpus[r];

		if (bench_use(a->env, g, e) ||
		    bench_cu(a->env, a->env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize",
			     g, e))
			return -1;
	}
	return 0;
}

static double link_peak(const struct bench_gpu *g, char *what, size_t n)
{
	double v = peak_nvlink_bytes(g->cc_major, g->cc_minor, g->nvlink_links);

	if (v > 0) {
		str_fmt(what, n, "NVLink %d x %.2f GB/s per direction", g->nvlink_links,
			peak_nvlink_link_bytes(g->cc_major, g->cc_minor) / 1e9);
		return v / 1e9;
	}
	v = peak_pcie_bytes(g->pcie_gen, g->pcie_width);
	if (v > 0)
		str_fmt(what, n, "PCIe %d.0 x%d per direction", g->pcie_gen, g->pcie_width);
	return v / 1e9;
}

static int run_allreduce(struct bench_env *env, struct err *e)
{
	static const double full[] = {
	    1024,      4096,    16384,           65536,           262144,
	    1 << 20,   4 << 20, 16 << 20,        64 << 20,        256 << 20,
	    512 << 20, 1 << 30, 2.0 * (1 << 30), 4.0 * (1 << 30), 8.0 * (1 << 30)};
	static const double quick[] = {1 << 20, 64 << 20, 512 << 20};
	const double *sizes = env->opt.quick ? quick : full;
	size_t nsizes = env->opt.quick ? ARRAY_SIZE(quick) : ARRAY_SIZE(full), si;
	struct ar a;
	int *devs = NULL, n = env->ngpus, r, rc = -1;
	double max_bytes = sizes[nsizes - 1], factor = peak_allreduce_busbw_factor(n);
	bool inited = false;

	if (n < 2) {
		bench_note(env->run, &family_allreduce, NOTE_SKIP,
			   "all-reduce needs two GPUs; %d selected", n);
		return 0;
	}
	if (!env->nccl) {
		bench_note(env->run, &family_allreduce, NOTE_SKIP, "all-reduce needs NCCL: %s",
			   env->nccl_error);
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.env = env;
	a.n = n;
	a.comms = xcalloc((size_t)n, sizeof(*a.comms));
	a.send = xcalloc((size_t)n, sizeof(*a.send));
	a.recv = xcalloc((size_t)n, sizeof(*a.recv));
	devs = xcalloc((size_t)n, sizeof(*devs));
	/* the largest message that fits twice (send, receive) in every GPU, with room for NCCL */
	for (r = 0; r < n; r++) {
		size_t free_b = 0, total_b = 0;

		devs[r] = env->gpus[r].ordinal;
		if (bench_use(env, &env->gpus[r], e))
			goto out;
		if (env->cu->MemGetInfo(&free_b, &total_b) == CUDA_SUCCESS) {
			/* NCCL's own buffers need room too: up to 2 GiB */
			double room = fmin(2.0 * (1 << 30), (double)free_b / 8);

			while (max_bytes > 1024 && max_bytes * 2 > (double)free_b - room)
				max_bytes /= 2;
		}
	}
	if (env->opt.size_bytes) {
		/* --size caps the largest message too */
		while (max_bytes > 1024 && max_bytes > (double)env->opt.size_bytes)
			max_bytes /= 2;
	} else if (max_bytes < sizes[nsizes - 1])
		bench_note(
		    env->run, &family_allreduce, NOTE_INFO,
		    "all-reduce stops at %.0f MiB: larger messages do not fit twice in GPU memory",
		    max_bytes / (1 << 20));
	bench_progress(env, &family_allreduce, "NCCL init on %d GPUs", n);
	if (nccl_err(env, env->nccl->api.CommInitAll(a.comms, n, devs), "ncclCommInitAll", e))
		goto out;
	inited = true;
	for (r = 0; r < n; r++) {
		struct bench_gpu *g = &env->gpus[r];
		uint64_t seed = SEED_BASE + (uint64_t)r;
		size_t count = (size_t)(max_bytes / 4);
		void *args[] = {&a.send[r], &count, &seed};

		if (bench_use(env, g, e) ||
		    bench_dalloc(env, g, &a.send[r], (size_t)max_bytes, "the all-reduce buffers",
				 e) ||
		    bench_dalloc(env, g, &a.recv[r], (size_t)max_bytes, "the all-reduce buffers",
				 e) ||
		    bench_launch(env, g, K_FILL_SMALL_INT, bench_grid(g, count, 256), 256, g->s[0],
				 args, e) ||
		    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e))
			goto out;
	}
	bench_plot(env->run, &family_allreduce, "allreduce-size",
		   "All-reduce bandwidth by message size", "message size", "GB/s", false);
	for (si = 0; si < nsizes && sizes[si] <= max_bytes; si++) {
		struct bench_op op;
		struct bench_timing tm;
		struct bench_result *alg, *bus;
		double bytes = sizes[si];
		uint64_t bad_total = 0;
		char sz[32], label[64];
		int i;
		bool headline = bytes == 512.0 * (1 << 20) || bytes == 8.0 * (1 << 30) ||
				si + 1 == nsizes || (si + 1 < nsizes && sizes[si + 1] > max_bytes);

		a.count = (size_t)(bytes / 4);
		bench_size_str(bytes, sz, sizeof(sz));
		bench_progress(env, &family_allreduce, "%d GPUs, %s", n, sz);
		for (r = 0; r < n; r++) {
			struct bench_gpu *g = &env->gpus[r];

			if (bench_use(env, g, e) ||
			    bench_cu(env, env->cu->MemsetD32Async(a.recv[r], 0, a.count, g->s[0]),
				     "cuMemsetD32Async", g, e) ||
			    bench_cu(env, env->cu->StreamSynchronize(g->s[0]),
				     "cuStreamSynchronize", g, e))
				goto out;
		}
		memset(&op, 0, sizeof(op));
		op.run = ar_run;
		op.sync = ar_sync;
		op.arg = &a;
		op.host_timed = true;
		if (bench_time(env, &op, &tm, e))
			goto out;
		str_fmt(label, sizeof(label), "algbw, %d GPUs, %s", n, sz);
		alg = bench_add_timed(env, &family_allreduce, "algbw", label, &tm, bytes, 1e9,
				      "GB/s", false, &env->gpus[0]);
		str_fmt(label, sizeof(label), "busbw, %d GPUs, %s", n, sz);
		bus = bench_add_timed(env, &family_allreduce, "busbw", label, &tm, bytes * factor,
				      1e9, "GB/s", false, &env->gpus[0]);
		bench_timing_free(&tm);
		for (i = 0; i < 2; i++) {
			struct bench_result *x = i ? bus : alg;

			x->gpu = -1;
			x->size = bytes;
			str_copy(x->size_unit, "B", sizeof(x->size_unit));
			str_copy(x->plot, "allreduce-size", sizeof(x->plot));
			str_fmt(x->series, sizeof(x->series), "%s, %d GPUs", i ? "busbw" : "algbw",
				n);
			str_fmt(x->config, sizeof(x->config),
				"ncclAllReduce float sum, out of place, NCCL %d",
				env->nccl->version);
		}
		bus->headline = headline;
		bus->peak = link_peak(&env->gpus[0], bus->peak_what, sizeof(bus->peak_what));
		str_fmt(bus->note, sizeof(bus->note),
			"%.1f us per all-reduce; busbw = algbw x %.2f", alg->op_seconds * 1e6,
			factor);
		for (r = 0; r < n; r++) {
			struct bench_gpu *g = &env->gpus[r];
			uint64_t seed = SEED_BASE, bad = 0, first = 0;
			int nranks = n;
			void *args[] = {&a.recv[r], &a.count, &seed, &nranks};

			if (bench_use(env, g, e) || bench_run_verifier(env, g, K_VERIFY_ALLREDUCE,
								       bench_grid(g, a.count, 256),
								       args, 4, &bad, &first, e))
				goto out;
			bad_total += bad;
		}
		for (i = 0; i < 2; i++) {
			struct bench_result *x = i ? bus : alg;

			x->verified = bad_total ? VERIFY_FAILED : VERIFY_OK;
			if (bad_total)
				str_fmt(x->verify, sizeof(x->verify),
					"MISMATCH: %llu elements differ from the exact sum",
					(unsigned long long)bad_total);
			else
				str_fmt(x->verify, sizeof(x->verify),
					"ok: every element on all %d GPUs equals the exact sum", n);
		}
	}
	rc = 0;
out:
	for (r = 0; r < n; r++) {
		if (bench_use(env, &env->gpus[r], NULL) == 0)
			env->cu->CtxSynchronize();
		bench_dfree(env, &a.send[r]);
		bench_dfree(env, &a.recv[r]);
	}
	if (inited)
		for (r = 0; r < n; r++)
			if (a.comms[r])
				env->nccl->api.CommDestroy(a.comms[r]);
	free(a.comms);
	free(a.send);
	free(a.recv);
	free(devs);
	return rc;
}
