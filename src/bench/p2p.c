/*
 * p2p.c: `gpuvet bench p2p`: GPU<->GPU bandwidth and latency for every ordered pair of the
 * selected GPUs, with peer-to-peer access off and on.
 *
 *   P2P off   cuMemcpyPeerAsync before any peer access is enabled: the driver stages the copy
 *             through host memory (cuda-samples' p2pBandwidthLatencyTest "P2P=Disabled")
 *   P2P on    after cuCtxEnablePeerAccess both ways: copy-engine writes (the source GPU's
 *             stream, nvbandwidth's device_to_device_memcpy_write_ce), reads (the destination's
 *             stream, _read_ce), both directions at once, and our copy kernel writing into the
 *             peer's memory (an SM copy)
 *   latency   4-byte copies back to back on a gated stream: the time per copy, in us
 * The peak is NVLink's (links x per-link rate) when both GPUs have active links, else PCIe's.
 * Every destination is cleared before and compared word by word after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "bench.h"
#include "stats.h"

static int run_p2p(struct bench_env *env, struct err *e);

/* the headline figures, shown as source x destination matrices */
static const struct bench_matrix matrices[] = {
    {"write_ce", "write, copy engine, P2P on (GB/s)"},
    {"read_ce", "read, copy engine, P2P on (GB/s)"},
    {"copy_p2p_off", "copy, P2P off (GB/s)"},
    {"latency_p2p_on", "4-byte copy latency, P2P on (us)"},
    {"latency_p2p_off", "4-byte copy latency, P2P off (us)"},
    {NULL, NULL},
};

const struct bench_family family_p2p = {
    .name = "p2p",
    .aliases = "nvlink gpu2gpu",
    .summary = "GPU<->GPU bandwidth and latency, P2P on and off",
    .title = "GPU <-> GPU",
    .run = run_p2p,
    .min_gpus = 2,
    .size_buffers = 2,
    .matrices = matrices,
};

enum { P_PEER, P_READ, P_BIDIR, P_SM };

#define SEED_BASE 0x1f83d9abfb41bd6bull

struct p2p {
	struct bench_env *env;
	struct bench_gpu *a, *b;
	cu_ptr *src, *dst; /* per selected GPU */
	int ia, ib;        /* indexes into env->gpus */
	int kind;
	size_t bytes;
	unsigned grid;
};

static uint64_t seed_of(int i)
{
	return SEED_BASE + (uint64_t)i * 0x9E3779B97F4A7C15ull;
}

static int p2p_run(void *arg, struct err *e)
{
	struct p2p *p = arg;
	struct bench_env *env = p->env;
	const struct cuda_api *cu = env->cu;
	cu_ptr src = p->src[p->ia], dst = p->dst[p->ib];

	switch (p->kind) {
	case P_PEER: /* on a's stream: a pushes into b */
		return bench_cu(
		    env, cu->MemcpyPeerAsync(dst, p->b->ctx, src, p->a->ctx, p->bytes, p->a->s[0]),
		    "cuMemcpyPeerAsync", p->a, e);
	case P_READ: /* on b's stream: b pulls from a */
		return bench_cu(
		    env, cu->MemcpyPeerAsync(dst, p->b->ctx, src, p->a->ctx, p->bytes, p->b->s[0]),
		    "cuMemcpyPeerAsync", p->b, e);
	case P_BIDIR: {
		int rc;

		if (bench_cu(
			env,
			cu->MemcpyPeerAsync(dst, p->b->ctx, src, p->a->ctx, p->bytes, p->a->s[0]),
			"cuMemcpyPeerAsync", p->a, e))
			return -1;
		/* the other direction on b's stream, with b's context current */
		if (bench_use(env, p->b, e))
			return -1;
		rc = bench_cu(env,
			      cu->MemcpyPeerAsync(p->dst[p->ia], p->a->ctx, p->src[p->ib],
						  p->b->ctx, p->bytes, p->b->s[0]),
			      "cuMemcpyPeerAsync", p->b, e);
		if (bench_use(env, p->a, rc ? NULL : e))
			return -1;
		return rc;
	}
	default: {
		size_t n16 = p->bytes / 16;
		void *args[] = {&dst, &src, &n16};

		return bench_launch(env, p->a, K_COPY_GS8, p->grid, 256, p->a->s[0], args, e);
	}
	}
}

static double pair_peak(const struct bench_gpu *a, const struct bench_gpu *b, bool p2p, char *what,
			size_t n)
{
	if (p2p && a->nvlink_links > 0 && b->nvlink_links > 0) {
		int links = a->nvlink_links < b->nvlink_links ? a->nvlink_links : b->nvlink_links;
		double v = peak_nvlink_bytes(a->cc_major, a->cc_minor, links);

		if (v > 0) {
			str_fmt(what, n, "NVLink %d links x %.2f GB/s", links,
				peak_nvlink_link_bytes(a->cc_major, a->cc_minor) / 1e9);
			return v / 1e9;
		}
	}
	{
		int gen = a->pcie_gen < b->pcie_gen ? a->pcie_gen : b->pcie_gen;
		int width = a->pcie_width < b->pcie_width ? a->pcie_width : b->pcie_width;
		double v = peak_pcie_bytes(gen, width);

		if (v <= 0)
			return 0;
		str_fmt(what, n, "PCIe %d.0 x%d", gen, width);
		return v / 1e9;
	}
}

static int clear_and_check(struct p2p *p, bool check, uint64_t *bad, struct err *e)
{
	struct bench_env *env = p->env;
	int k, idx[2] = {p->ib, p->ia};
	struct bench_gpu *gs[2] = {p->b, p->a};

	*bad = 0;
	for (k = 0; k < (p->kind == P_BIDIR ? 2 : 1); k++) {
		struct bench_gpu *g = gs[k];
		uint64_t b = 0, first = 0;

		if (bench_use(env, g, e))
			return -1;
		if (!check) {
			if (bench_cu(
				env,
				env->cu->MemsetD32Async(p->dst[idx[k]], 0, p->bytes / 4, g->s[0]),
				"cuMemsetD32Async", g, e) ||
			    bench_cu(env, env->cu->StreamSynchronize(g->s[0]),
				     "cuStreamSynchronize", g, e))
				return -1;
			continue;
		}
		/* the destination on GPU idx must hold the source GPU's pattern */
		if (bench_verify_u32(env, g, p->dst[idx[k]], p->bytes / 4, seed_of(idx[k ^ 1]), &b,
				     &first, e))
			return -1;
		*bad += b;
	}
	return 0;
}

static int one(struct p2p *p, int kind, bool p2p_on, size_t bytes, bool latency, const char *test,
	       const char *label, bool headline, bool sweep, struct err *e)
{
	struct bench_env *env = p->env;
	struct bench_gpu *timed = kind == P_READ ? p->b : p->a;
	struct bench_op op;
	struct bench_timing tm;
	struct bench_result *r;
	uint64_t bad = 0;
	char sz[32];

	p->kind = kind;
	p->bytes = bytes;
	bench_size_str((double)bytes, sz, sizeof(sz));
	bench_progress(env, &family_p2p, "GPU %d -> GPU %d: %s, %s", p->a->index, p->b->index,
		       label, sz);
	if (clear_and_check(p, false, &bad, e))
		return -1;
	if (kind == P_SM)
		p->grid =
		    (unsigned)(p->a->sm_count * bench_blocks_per_sm(env, p->a, K_COPY_GS8, 256));
	if (bench_use(env, timed, e))
		return -1;
	memset(&op, 0, sizeof(op));
	op.run = p2p_run;
	op.arg = p;
	op.g = timed;
	/* the staged copies of P2P off may block the host: never park them behind the gate */
	op.no_gate = !p2p_on;
	if (kind == P_BIDIR) {
		op.join[0] = p->b->s[0];
		op.join_gpu[0] = p->b;
		op.njoin = 1;
	}
	if (bench_time(env, &op, &tm, e))
		return -1;
	if (latency)
		r = bench_add_timed(env, &family_p2p, test, label, &tm, 0, 1e-6, "us", true, timed);
	else
		r = bench_add_timed(env, &family_p2p, test, label, &tm,
				    (double)bytes * (kind == P_BIDIR ? 2 : 1), 1e9, "GB/s", false,
				    timed);
	bench_timing_free(&tm);
	r->gpu = p->a->index;
	r->peer = p->b->index;
	r->size = (double)bytes;
	str_copy(r->size_unit, "B", sizeof(r->size_unit));
	r->headline = headline;
	if (!latency) {
		r->peak = pair_peak(p->a, p->b, p2p_on, r->peak_what, sizeof(r->peak_what)) *
			  (kind == P_BIDIR ? 2 : 1);
		if (r->peak <= 0)
			r->peak_what[0] = '\0';
	}
	str_fmt(r->config, sizeof(r->config), "%s, %s",
		kind == P_SM ? "copy kernel gs8 writing peer memory" : "cuMemcpyPeerAsync",
		p2p_on ? "peer access on" : "peer access off (staged through the host)");
	if (sweep) {
		str_copy(r->plot, "p2p-size", sizeof(r->plot));
		str_fmt(r->series, sizeof(r->series), "GPU %d->%d P2P %s", p->a->index, p->b->index,
			p2p_on ? "on" : "off");
	}
	if (clear_and_check(p, true, &bad, e))
		return -1;
	r->verified = bad ? VERIFY_FAILED : VERIFY_OK;
	if (bad)
		str_fmt(r->verify, sizeof(r->verify), "MISMATCH: %llu words differ",
			(unsigned long long)bad);
	else
		str_copy(r->verify, "ok: every destination word compared", sizeof(r->verify));
	return 0;
}

static int set_peer(struct bench_env *env, struct bench_gpu *from, struct bench_gpu *to, bool on,
		    struct err *e)
{
	int rc;

	if (bench_use(env, from, e))
		return -1;
	if (on) {
		rc = env->cu->CtxEnablePeerAccess(to->ctx, 0);
		if (rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
			rc = CUDA_SUCCESS;
		return bench_cu(env, rc, "cuCtxEnablePeerAccess", from, e);
	}
	if (env->cu->CtxDisablePeerAccess)
		env->cu->CtxDisablePeerAccess(to->ctx);
	return 0;
}

int bench_p2p_access(struct bench_env *env, struct bench_gpu *from, struct bench_gpu *to, bool on,
		     struct err *e)
{
	return set_peer(env, from, to, on, e);
}

/* burn's one copy: cuMemcpyPeerAsync from a's src to b's dst on a's stream (a pushes: bench's
 * write_ce), timed like the others, the destination compared word by word after. */
struct peer_copy {
	struct bench_env *env;
	struct bench_gpu *a, *b;
	cu_ptr dst, src;
	size_t bytes;
};

static int peer_copy_run(void *arg, struct err *e)
{
	struct peer_copy *c = arg;

	return bench_cu(
	    c->env,
	    c->env->cu->MemcpyPeerAsync(c->dst, c->b->ctx, c->src, c->a->ctx, c->bytes, c->a->s[0]),
	    "cuMemcpyPeerAsync", c->a, e);
}

int bench_p2p_copy(struct bench_env *env, struct bench_gpu *a, struct bench_gpu *b, cu_ptr dst,
		   cu_ptr src, size_t bytes, double budget_s, double *gbs, uint64_t *bad,
		   struct err *e)
{
	struct peer_copy c = {env, a, b, dst, src, bytes};
	uint64_t first = 0;
	double t;

	*gbs = -1;
	*bad = 0;
	if (bench_fill_u32(env, a, src, bytes / 4, seed_of(a->index), e) || bench_use(env, b, e) ||
	    bench_cu(env, env->cu->MemsetD32Async(dst, 0, bytes / 4, b->s[0]), "cuMemsetD32Async",
		     b, e) ||
	    bench_cu(env, env->cu->StreamSynchronize(b->s[0]), "cuStreamSynchronize", b, e) ||
	    bench_use(env, a, e))
		return -1;
	if (bench_time_median(env, a, peer_copy_run, &c, budget_s, &t, e))
		return -1;
	if (t > 0)
		*gbs = (double)bytes / t / 1e9;
	return bench_verify_u32(env, b, dst, bytes / 4, seed_of(a->index), bad, &first, e);
}

static int run_p2p(struct bench_env *env, struct err *e)
{
	struct p2p p;
	uint64_t size = env->opt.size_bytes ? env->opt.size_bytes : BENCH_DEFAULT_SIZE;
	size_t off_size, i;
	int ia, ib, rc = -1, n = env->ngpus;
	bool *can = NULL, any_on = false;

	if (n < 2) {
		bench_note(env->run, &family_p2p, NOTE_SKIP,
			   "GPU<->GPU needs two GPUs; %d selected", n);
		return 0;
	}
	size &= ~(uint64_t)255;
	if (size < 4096)
		size = 4096;
	/* the staged path is ~10x slower: a smaller buffer keeps it inside the budget */
	off_size = size > (256u << 20) ? (256u << 20) : size;
	memset(&p, 0, sizeof(p));
	p.env = env;
	p.src = xcalloc((size_t)n, sizeof(*p.src));
	p.dst = xcalloc((size_t)n, sizeof(*p.dst));
	can = xcalloc((size_t)n * n, sizeof(*can));
	for (ia = 0; ia < n; ia++) {
		struct bench_gpu *g = &env->gpus[ia];

		if (bench_use(env, g, e) ||
		    bench_dalloc(env, g, &p.src[ia], size, "the P2P buffers", e) ||
		    bench_dalloc(env, g, &p.dst[ia], size, "the P2P buffers", e) ||
		    bench_fill_u32(env, g, p.src[ia], size / 4, seed_of(ia), e))
			goto out;
		for (ib = 0; ib < n; ib++) {
			int v = 0;

			if (ib != ia && env->cu->DeviceCanAccessPeer(
					    &v, g->dev, env->gpus[ib].dev) == CUDA_SUCCESS)
				can[ia * n + ib] = v != 0;
		}
	}
	bench_plot(env->run, &family_p2p, "p2p-size", "GPU -> GPU bandwidth by transfer size",
		   "transfer size", "GB/s", false);
	/* P2P off first: once enabled, peer access stays on for the context */
	for (ia = 0; ia < n; ia++)
		for (ib = 0; ib < n; ib++) {
			if (ia == ib)
				continue;
			p.a = &env->gpus[ia];
			p.b = &env->gpus[ib];
			p.ia = ia;
			p.ib = ib;
			if (one(&p, P_PEER, false, off_size, false, "copy_p2p_off",
				"copy, P2P off (via host)", true, false, e) ||
			    one(&p, P_PEER, false, 4, true, "latency_p2p_off",
				"4-byte copy latency, P2P off", true, false, e))
				goto out;
		}
	for (ia = 0; ia < n; ia++)
		for (ib = 0; ib < n; ib++) {
			if (ia == ib)
				continue;
			if (!can[ia * n + ib]) {
				bench_note(
				    env->run, &family_p2p, NOTE_INFO,
				    "GPU %d cannot access GPU %d's memory directly: no P2P path",
				    env->gpus[ia].index, env->gpus[ib].index);
				continue;
			}
			if (set_peer(env, &env->gpus[ia], &env->gpus[ib], true, e))
				goto out;
			any_on = true;
		}
	for (ia = 0; ia < n && any_on; ia++)
		for (ib = 0; ib < n; ib++) {
			bool bidir = ia < ib && can[ib * n + ia];

			if (ia == ib || !can[ia * n + ib])
				continue;
			p.a = &env->gpus[ia];
			p.b = &env->gpus[ib];
			p.ia = ia;
			p.ib = ib;
			if (one(&p, P_PEER, true, size, false, "write_ce",
				"write, copy engine, P2P on", true, true, e) ||
			    (can[ib * n + ia] &&
			     one(&p, P_READ, true, size, false, "read_ce",
				 "read, copy engine, P2P on", true, false, e)) ||
			    (bidir &&
			     one(&p, P_BIDIR, true, size, false, "bidir_ce",
				 "both ways at once, copy engines, P2P on", true, false, e)) ||
			    one(&p, P_SM, true, size, false, "write_sm",
				"write, SM copy kernel, P2P on", true, false, e) ||
			    one(&p, P_PEER, true, 4, true, "latency_p2p_on",
				"4-byte copy latency, P2P on", true, false, e))
				goto out;
			/* the size sweep, for the first pair only unless there are just two GPUs */
			if (n == 2 || (ia == 0 && ib == 1)) {
				static const double full[] = {65536, 1 << 20, 16 << 20, 256 << 20};
				static const double quick[] = {1 << 20};
				const double *sizes = env->opt.quick ? quick : full;
				size_t ns = env->opt.quick ? ARRAY_SIZE(quick) : ARRAY_SIZE(full);

				for (i = 0; i < ns && sizes[i] < (double)size; i++)
					if (one(&p, P_PEER, true, (size_t)sizes[i], false,
						"write_ce", "write, copy engine, P2P on", false,
						true, e))
						goto out;
			}
		}
	rc = 0;
out:
	for (ia = 0; ia < n; ia++)
		for (ib = 0; ib < n; ib++)
			if (ia != ib && can[ia * n + ib])
				set_peer(env, &env->gpus[ia], &env->gpus[ib], false, NULL);
	for (ia = 0; ia < n; ia++) {
		if (bench_use(env, &env->gpus[ia], NULL) == 0)
			env->cu->CtxSynchronize();
		bench_dfree(env, &p.src[ia]);
		bench_dfree(env, &p.dst[ia]);
	}
	free(p.src);
	free(p.dst);
	free(can);
	return rc;
}
