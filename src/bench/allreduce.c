/*
 * allreduce.c: `gpuvet bench allreduce`: all-reduce (float sum, out of place) across the
 * selected GPUs through NCCL, over message sizes up to 8 GiB, reported as nccl-tests does:
 *   algbw = bytes / time            busbw = algbw x 2(n-1)/n
 * busbw is comparable with the per-GPU link bandwidth whatever n is (for n = 2 they are equal).
 * One process drives every GPU (ncclCommInitAll, one group call per iteration), like
 * `all_reduce_perf -g N`; or, under srun or mpirun (env->ranks, bench/ranks.h), each process
 * drives its one GPU and joins one communicator (rank 0's ncclGetUniqueId, handed over through
 * a shared file or TCP, then ncclCommInitRank), like nccl-tests under MPI: every rank verifies
 * its own result and the counts of wrong elements are summed by one more all-reduce, so rank 0,
 * which alone prints, reports every rank's verdict. Timed like nccl-tests: host clock around a
 * batch of iterations and the synchronisation of every stream. Inputs are small whole numbers, so
 * each rank's result can be compared bit for bit with the expected sum (gv_verify_allreduce) after
 * every size. NVLink SHARP (NVLS) makes busbw exceed the wire rate on NVSwitch systems; the
 * environment's NCCL_* settings are recorded in the JSON (cmd/bench.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "../vendor/nccl.h"
#include "bench.h"
#include "ranks.h"

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
	int n; /* the GPUs this process drives */
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

/* Join the communicator of every rank: rank 0 makes the id, the others get it (ranks.h). */
static int init_ranks(struct bench_env *env, struct ar *a, struct err *e)
{
	const struct nccl_api *nc = &env->nccl->api;
	struct bench_ranks *rk = env->ranks;
	struct nccl_unique_id id;
	int rc;

	if (!nc->GetUniqueId || !nc->CommInitRank)
		return err_set(e, EXIT_UNAVAILABLE,
			       "this NCCL (%s) lacks ncclGetUniqueId or ncclCommInitRank: no "
			       "all-reduce across processes",
			       env->nccl->lib.path);
	memset(&id, 0, sizeof(id));
	if (rk->rank == 0 && nccl_err(env, nc->GetUniqueId(&id), "ncclGetUniqueId", e))
		return -1;
	if (bench_ranks_share_id(rk, &id, sizeof(id), 120000, e) != 0)
		return -1;
	if (bench_use(env, &env->gpus[0], e))
		return -1;
	rc = nc->CommInitRank(&a->comms[0], rk->size, id, rk->rank);
	/* every rank has read the id once the communicator exists */
	bench_ranks_done(rk);
	return nccl_err(env, rc, "ncclCommInitRank", e);
}

/* Sum *count over every rank with one more all-reduce (uint64, in place). */
static int sum_ranks(struct bench_env *env, struct ar *a, uint64_t *count, struct err *e)
{
	struct bench_gpu *g = &env->gpus[0];
	cu_ptr buf = 0;
	int rc = -1;

	if (bench_use(env, g, e) ||
	    bench_dalloc(env, g, &buf, sizeof(*count), "the verification count", e) ||
	    bench_cu(env, env->cu->MemcpyHtoD(buf, count, sizeof(*count)), "cuMemcpyHtoD", g, e) ||
	    nccl_err(env,
		     env->nccl->api.AllReduce((const void *)(uintptr_t)buf, (void *)(uintptr_t)buf,
					      1, NCCL_UINT64, NCCL_SUM, a->comms[0], g->s[0]),
		     "ncclAllReduce", e) ||
	    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e) ||
	    bench_cu(env, env->cu->MemcpyDtoH(count, buf, sizeof(*count)), "cuMemcpyDtoH", g, e))
		goto out;
	rc = 0;
out:
	bench_dfree(env, &buf);
	return rc;
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

/*
 * bench_time calibrates each process on its own: the ranks would run different numbers of
 * all-reduces and wait for each other for ever. Across processes the batch is agreed instead:
 * three warm-up calls, each rank's batch for the budget, and their mean (one all-reduce) for
 * all; then a fixed number of samples, as nccl-tests runs fixed iterations.
 */
static int time_ranks(struct bench_env *env, struct ar *a, struct bench_timing *tm, struct err *e)
{
	int nsamples = env->opt.quick ? 3 : 5, i, s;
	double t0 = 0, per_op;
	uint64_t batch;

	memset(tm, 0, sizeof(*tm));
	for (i = 0; i < 3; i++) {
		if (i == 1)
			t0 = bench_now(env);
		if (ar_run(a, e) || ar_sync(a, e))
			return -1;
	}
	per_op = (bench_now(env) - t0) / 2;
	if (per_op <= 0)
		per_op = 1e-6;
	batch = (uint64_t)ceil(bench_budget(env) / nsamples / per_op);
	batch = batch < 1 ? 1 : batch > 1000 ? 1000 : batch;
	if (sum_ranks(env, a, &batch, e))
		return -1;
	batch /= (uint64_t)env->ranks->size;
	if (batch < 1)
		batch = 1;
	tm->t = xcalloc((size_t)nsamples, sizeof(*tm->t));
	tm->batch = (int)batch;
	tm->t_start_s = bench_now(env);
	for (s = 0; s < nsamples; s++) {
		t0 = bench_now(env);
		for (i = 0; i < (int)batch; i++)
			if (ar_run(a, e)) {
				bench_timing_free(tm);
				return -1;
			}
		if (ar_sync(a, e)) {
			bench_timing_free(tm);
			return -1;
		}
		tm->t[tm->n++] = (bench_now(env) - t0) / (double)batch;
	}
	tm->t_end_s = bench_now(env);
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
	/* n: the GPUs of the communicator; env->ngpus of them in this process */
	int *devs = NULL, n = env->ranks ? env->ranks->size : env->ngpus, r, rc = -1;
	int first_rank = env->ranks ? env->ranks->rank : 0;
	double max_bytes = sizes[nsizes - 1], factor = peak_allreduce_busbw_factor(n);
	bool inited = false;
	char who[48];

	if (env->ranks)
		str_fmt(who, sizeof(who), "%d ranks", n);
	else
		str_fmt(who, sizeof(who), "%d GPUs", n);
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
	a.n = env->ngpus;
	a.comms = xcalloc((size_t)a.n, sizeof(*a.comms));
	a.send = xcalloc((size_t)a.n, sizeof(*a.send));
	a.recv = xcalloc((size_t)a.n, sizeof(*a.recv));
	devs = xcalloc((size_t)a.n, sizeof(*devs));
	/* the largest message that fits twice (send, receive) in every GPU, with room for NCCL;
	 * across processes each rank finds the same on the same GPUs (a mixed job would need
	 * --size) */
	for (r = 0; r < a.n; r++) {
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
	bench_progress(env, &family_allreduce, "NCCL init on %s", who);
	if (env->ranks) {
		if (init_ranks(env, &a, e))
			goto out;
	} else if (nccl_err(env, env->nccl->api.CommInitAll(a.comms, n, devs), "ncclCommInitAll",
			    e))
		goto out;
	inited = true;
	for (r = 0; r < a.n; r++) {
		struct bench_gpu *g = &env->gpus[r];
		/* each rank's input differs: the sum checks that every one arrived */
		uint64_t seed = SEED_BASE + (uint64_t)(first_rank + r);
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
		bench_progress(env, &family_allreduce, "%s, %s", who, sz);
		for (r = 0; r < a.n; r++) {
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
		if (env->ranks ? time_ranks(env, &a, &tm, e) : bench_time(env, &op, &tm, e))
			goto out;
		str_fmt(label, sizeof(label), "algbw, %s, %s", who, sz);
		alg = bench_add_timed(env, &family_allreduce, "algbw", label, &tm, bytes, 1e9,
				      "GB/s", false, &env->gpus[0]);
		str_fmt(label, sizeof(label), "busbw, %s, %s", who, sz);
		bus = bench_add_timed(env, &family_allreduce, "busbw", label, &tm, bytes * factor,
				      1e9, "GB/s", false, &env->gpus[0]);
		bench_timing_free(&tm);
		for (i = 0; i < 2; i++) {
			struct bench_result *x = i ? bus : alg;

			x->gpu = -1;
			x->size = bytes;
			str_copy(x->size_unit, "B", sizeof(x->size_unit));
			str_copy(x->plot, "allreduce-size", sizeof(x->plot));
			str_fmt(x->series, sizeof(x->series), "%s, %s", i ? "busbw" : "algbw", who);
			if (env->ranks)
				str_fmt(
				    x->config, sizeof(x->config),
				    "ncclAllReduce float sum, out of place, NCCL %d, %d processes "
				    "(%s), one GPU each",
				    env->nccl->version, n, env->ranks->launcher);
			else
				str_fmt(x->config, sizeof(x->config),
					"ncclAllReduce float sum, out of place, NCCL %d",
					env->nccl->version);
		}
		bus->headline = headline;
		bus->peak = link_peak(&env->gpus[0], bus->peak_what, sizeof(bus->peak_what));
		str_fmt(bus->note, sizeof(bus->note),
			"%.1f us per all-reduce; busbw = algbw x %.2f", alg->op_seconds * 1e6,
			factor);
		for (r = 0; r < a.n; r++) {
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
		/* every rank's count, so rank 0's verdict covers them all */
		if (env->ranks && sum_ranks(env, &a, &bad_total, e))
			goto out;
		for (i = 0; i < 2; i++) {
			struct bench_result *x = i ? bus : alg;

			x->verified = bad_total ? VERIFY_FAILED : VERIFY_OK;
			if (bad_total)
				str_fmt(x->verify, sizeof(x->verify),
					"MISMATCH: %llu elements differ from the exact sum",
					(unsigned long long)bad_total);
			else
				str_fmt(x->verify, sizeof(x->verify),
					"ok: every element on all %d %s equals the exact sum", n,
					env->ranks ? "ranks' GPUs" : "GPUs");
		}
	}
	rc = 0;
out:
	for (r = 0; r < a.n; r++) {
		if (bench_use(env, &env->gpus[r], NULL) == 0)
			env->cu->CtxSynchronize();
		bench_dfree(env, &a.send[r]);
		bench_dfree(env, &a.recv[r]);
	}
	if (inited)
		for (r = 0; r < a.n; r++)
			if (a.comms[r])
				env->nccl->api.CommDestroy(a.comms[r]);
	free(a.comms);
	free(a.send);
	free(a.recv);
	free(devs);
	return rc;
}
