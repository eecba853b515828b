/*
 * launch.c: `gpuvet bench launch`: what a kernel launch and a synchronisation cost, in us, on
 * the host clock (CUDA has no shared host/GPU clock, so no one-way latency is claimed):
 *  - back-to-back launches of a near-empty kernel (one thread counts), then one synchronise:
 *    the launch rate a tight training loop can reach;
 *  - launch + cuStreamSynchronize, repeated: the round trip a host-side decision costs;
 *  - a 4-byte cuMemcpyDtoH into ordinary memory: the guide's hidden sync point (`.item()`,
 *    printing a loss, a Python `if` on a tensor).
 * Verified: the kernel's counter must equal the number of launches made, and every 4-byte read
 * must return that counter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "bench.h"

static int run_launch(struct bench_env *env, struct err *e);

const struct bench_family family_launch = {
    .name = "launch",
    .aliases = "sync",
    .summary = "kernel launch rate, launch+sync round trip, 4-byte device->host read",
    .title = "launch and synchronisation costs",
    .run = run_launch,
    .min_gpus = 1,
};

enum { MODE_LAUNCH, MODE_ROUNDTRIP, MODE_READ4 };

struct launch_op {
	struct bench_env *env;
	struct bench_gpu *g;
	int mode;
	cu_ptr counter;
	uint64_t launched;
	uint64_t reads, bad_reads;
	uint32_t expect;
};

static int launch_run(void *arg, struct err *e)
{
	struct launch_op *o = arg;
	struct bench_env *env = o->env;
	void *args[] = {&o->counter};
	uint32_t v = 0;

	switch (o->mode) {
	case MODE_LAUNCH:
		if (bench_launch(env, o->g, K_TICK, 1, 32, o->g->s[0], args, e))
			return -1;
		o->launched++;
		return 0;
	case MODE_ROUNDTRIP:
		if (bench_launch(env, o->g, K_TICK, 1, 32, o->g->s[0], args, e))
			return -1;
		o->launched++;
		return bench_cu(env, env->cu->StreamSynchronize(o->g->s[0]), "cuStreamSynchronize",
				o->g, e);
	default:
		if (bench_cu(env, env->cu->MemcpyDtoH(&v, o->counter, sizeof(v)), "cuMemcpyDtoH",
			     o->g, e))
			return -1;
		o->reads++;
		if (v != o->expect)
			o->bad_reads++;
		return 0;
	}
}

static int launch_gpu(struct bench_env *env, struct bench_gpu *g, struct err *e)
{
	static const struct {
		int mode;
		const char *test, *label;
	} tests[] = {
	    {MODE_LAUNCH, "launch", "kernel launch, back to back"},
	    {MODE_ROUNDTRIP, "launch_sync", "launch + synchronize round trip"},
	    {MODE_READ4, "dtoh_4b", "4-byte device->host read (a sync point)"},
	};
	struct launch_op o;
	uint64_t count = 0;
	size_t i;
	int rc = -1;

	memset(&o, 0, sizeof(o));
	o.env = env;
	o.g = g;
	if (bench_use(env, g, e) || bench_dalloc(env, g, &o.counter, 64, "the launch counter", e))
		return -1;
	if (bench_cu(env, env->cu->MemsetD32Async(o.counter, 0, 16, g->s[0]), "cuMemsetD32Async", g,
		     e) ||
	    bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e))
		goto out;
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		struct bench_op op;
		struct bench_timing tm;
		struct bench_result *r;

		bench_progress(env, &family_launch, "GPU %d: %s", g->index, tests[i].label);
		memset(&op, 0, sizeof(op));
		op.run = launch_run;
		op.arg = &o;
		op.g = g;
		op.host_timed = true;
		o.mode = tests[i].mode;
		if (o.mode == MODE_READ4) {
			/* the counter no longer changes: every read must return it */
			if (bench_cu(env, env->cu->MemcpyDtoH(&count, o.counter, sizeof(count)),
				     "cuMemcpyDtoH", g, e))
				goto out;
			o.expect = (uint32_t)count;
		}
		if (bench_time(env, &op, &tm, e))
			goto out;
		r = bench_add_timed(env, &family_launch, tests[i].test, tests[i].label, &tm, 0,
				    1e-6, "us", true, g);
		r->headline = true;
		if (o.mode == MODE_LAUNCH)
			str_fmt(r->config, sizeof(r->config), "%.0f launches/s, %d per sample",
				r->median > 0 ? 1e6 / r->median : 0, tm.batch);
		else if (o.mode == MODE_ROUNDTRIP)
			str_copy(r->config, "cuLaunchKernel + cuStreamSynchronize",
				 sizeof(r->config));
		else
			str_copy(r->config, "cuMemcpyDtoH to pageable memory", sizeof(r->config));
		bench_timing_free(&tm);
		if (o.mode == MODE_READ4) {
			r->verified = o.bad_reads == 0 ? VERIFY_OK : VERIFY_FAILED;
			str_fmt(r->verify, sizeof(r->verify),
				"%llu of %llu reads returned the counter",
				(unsigned long long)(o.reads - o.bad_reads),
				(unsigned long long)o.reads);
			continue;
		}
		if (bench_cu(env, env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g,
			     e) ||
		    bench_cu(env, env->cu->MemcpyDtoH(&count, o.counter, sizeof(count)),
			     "cuMemcpyDtoH", g, e))
			goto out;
		r->verified = count == o.launched ? VERIFY_OK : VERIFY_FAILED;
		str_fmt(r->verify, sizeof(r->verify), "kernel counted %llu of %llu launches",
			(unsigned long long)count, (unsigned long long)o.launched);
	}
	rc = 0;
out:
	bench_dfree(env, &o.counter);
	return rc;
}

static int run_launch(struct bench_env *env, struct err *e)
{
	int i;

	for (i = 0; i < env->ngpus; i++)
		if (launch_gpu(env, &env->gpus[i], e))
			return -1;
	return 0;
}
