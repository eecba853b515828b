/*
 * memtest.c: burn's memory phase (interface in memtest.h). The share of the GPU's free memory
 * that --memory-fraction names is taken in chunks of 1 GiB (smaller ones when an allocation
 * fails, until 2 MiB fails too: then the test runs on what it holds), and passes of five
 * patterns (kernels/memtest_pattern.h) run over all of it until the phase's time is up, at
 * least one complete pass:
 *
 *   walking ones, walking zeros   one bit set (clear) per word, its position rotating with the
 *                                 word's index and the pass: every bit of every word both ways
 *                                 in 64 passes, neighbouring words different in every pass;
 *   moving inversions             write p; read, check p and write ~p ascending; read, check ~p
 *                                 and write p descending; read and check p (p new each pass);
 *   random                        a seeded pseudo-random word per index, a new seed each pass;
 *   address                       each word its own address, complemented every other pass.
 *
 * The GPU checks what it reads (kernels/memtest.cu): a 64-bit count of failing reads and the
 * offsets of the first 256 per pattern, read back after each pattern and kept here as ranges.
 * GPUVET_BURN_INJECT=stuck sticks a bit through a kernel (gv_mt_stick), so the real kernels
 * must find it on a real GPU too.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../kernels/memtest_pattern.h"
#include "../util/util.h"
#include "stress.h"

#define CHUNK_BYTES     (1ull << 30)
#define CHUNK_MIN_BYTES (2ull << 20) /* a failed allocation of this size ends the taking */
#define ALIGN_BYTES     (2ull << 20) /* the share is rounded up to the driver's granularity */
#define PAGE_SHIFT      12           /* failing words in one 4 KiB page, or adjacent ones, merge */
#define STUCK_BIT       5
#define SEED            0x6a09e667f3bcc909ull
#define BLOCK           256

_Static_assert(GV_MT_NPATTERNS == BURN_MEM_PATTERNS, "memtest.h and memtest_pattern.h agree");

static const char *const pattern_names[BURN_MEM_PATTERNS] = {
    "walking-ones", "walking-zeros", "moving-inversions", "random", "address",
};

const char *burn_memtest_pattern_name(int i)
{
	return i >= 0 && i < BURN_MEM_PATTERNS ? pattern_names[i] : NULL;
}

static void add(uint64_t *counter, uint64_t v)
{
	__atomic_fetch_add(counter, v, __ATOMIC_RELAXED);
}

/* ---- failing words as ranges ------------------------------------------------------------- */

static uint64_t page_of(uint64_t off)
{
	return off >> PAGE_SHIFT;
}

/* Does off fall in r's pages, or the page just before or after them? */
static bool near_range(const struct burn_mem_range *r, uint64_t off)
{
	return page_of(off) + 1 >= page_of(r->first) && page_of(off) <= page_of(r->last) + 1;
}

static uint64_t distance(const struct burn_mem_range *r, uint64_t off)
{
	return off < r->first ? r->first - off : off > r->last ? off - r->last : 0;
}

/* Ranges that grew into their neighbour's pages become one. */
static void merge_neighbours(struct burn_memtest *m)
{
	int i = 0;

	while (i + 1 < m->nbad) {
		struct burn_mem_range *a = &m->bad[i], *b = &m->bad[i + 1];

		if (page_of(b->first) > page_of(a->last) + 1) {
			i++;
			continue;
		}
		if (b->last > a->last)
			a->last = b->last;
		a->words += b->words;
		memmove(b, b + 1, (size_t)(m->nbad - i - 2) * sizeof(*b));
		m->nbad--;
	}
}

void burn_memtest_note(struct burn_memtest *m, uint64_t off)
{
	struct burn_mem_range *r;
	int at, best = -1, k;

	/* the ranges are sorted: off goes before the first that starts after it */
	for (at = 0; at < m->nbad && m->bad[at].first <= off; at++)
		;
	for (k = at - 1; k <= at; k++)
		if (k >= 0 && k < m->nbad &&
		    (best < 0 || distance(&m->bad[k], off) < distance(&m->bad[best], off)))
			best = k;
	if (best < 0 || (!near_range(&m->bad[best], off) && m->nbad < BURN_MEM_RANGES)) {
		memmove(&m->bad[at + 1], &m->bad[at], (size_t)(m->nbad - at) * sizeof(m->bad[0]));
		m->nbad++;
		m->bad[at].first = m->bad[at].last = off;
		m->bad[at].words = 1;
		return;
	}
	/* close to a range, or every range in use: the nearest grows to take it */
	r = &m->bad[best];
	if (off < r->first)
		r->first = off;
	if (off > r->last)
		r->last = off;
	r->words++;
	merge_neighbours(m);
}

/* ---- the run ------------------------------------------------------------------------------ */

struct chunk {
	cu_ptr p;
	size_t words;
	uint64_t base; /* its first word's index in the tested memory */
};

struct mt {
	struct burn_worker *w;
	struct bench_env *env;
	struct bench_gpu *g;
	struct burn_memtest *m;
	struct chunk *c;
	size_t n, cap;
	cu_ptr res; /* memtest_pattern.h's result block */
	uint64_t host_res[GV_MT_RES_WORDS];
	unsigned failed; /* bits of the patterns that saw errors */
	bool stuck;
	size_t stuck_chunk, stuck_word;
};

/* Take the share of the free memory in chunks; -1 with e only when none could be taken. */
static int take(struct mt *t, struct err *e)
{
	struct burn_memtest *m = t->m;
	size_t free_b = 0, total_b = 0;
	uint64_t want, chunk = CHUNK_BYTES;

	if (bench_use(t->env, t->g, e) ||
	    bench_dalloc(t->env, t->g, &t->res, sizeof(t->host_res),
			 "the memory test's error counters", e) ||
	    bench_cu(t->env, t->env->cu->MemGetInfo(&free_b, &total_b), "cuMemGetInfo", t->g, e))
		return -1;
	want = (uint64_t)((double)free_b * t->w->owner->o.mem_fraction);
	want = (want + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES;
	if (want > free_b)
		want = free_b & ~7ull;
	m->free_bytes = free_b;
	m->want_bytes = want;
	while (m->bytes < want && !t->w->owner->done) {
		uint64_t left = want - m->bytes, size = chunk < left ? chunk : left;
		struct err ignored;
		cu_ptr p;

		err_clear(&ignored);
		if (bench_dalloc(t->env, t->g, &p, size, "the memory test", &ignored)) {
			/* memory other processes took meanwhile, or fragmentation: smaller chunks
			 */
			if (size <= CHUNK_MIN_BYTES)
				break;
			chunk = (size / 2) & ~7ull;
			continue;
		}
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 64;
			t->c = xrealloc(t->c, t->cap * sizeof(*t->c));
		}
		t->c[t->n].p = p;
		t->c[t->n].words = (size_t)(size / 8);
		t->c[t->n].base = m->bytes / 8;
		t->n++;
		m->bytes += size;
		m->chunks++;
	}
	add(&t->w->beat, 1);
	if (!m->bytes && !t->w->owner->done)
		return err_set(e, EXIT_UNAVAILABLE,
			       "GPU %d: cannot allocate any of its %llu MiB of free memory for the "
			       "memory test",
			       t->g->index, (unsigned long long)(free_b >> 20));
	return 0;
}

enum { OP_WRITE, OP_VERIFY, OP_INVERT_UP, OP_INVERT_DOWN };

/* One operation over every chunk (the last chunk first when descending), then the stuck bit
 * after a pass that wrote, then a synchronisation. Stops queueing once the run is stopped. */
static int sweep(struct mt *t, int op, int pattern, uint64_t arg, struct err *e)
{
	struct burn_stress *s = t->w->owner;
	struct bench_gpu *g = t->g;
	int desc = op == OP_INVERT_DOWN;
	int kernel = op == OP_WRITE ? K_MT_WRITE : op == OP_VERIFY ? K_MT_VERIFY : K_MT_INVERT;
	size_t k;

	for (k = 0; k < t->n && !s->done; k++) {
		struct chunk *c = &t->c[desc ? t->n - 1 - k : k];
		void *write[] = {&c->p, &c->words, &pattern, &arg, &c->base};
		void *verify[] = {&c->p, &c->words, &pattern, &arg, &c->base, &t->res};
		void *invert[] = {&c->p, &c->words, &pattern, &arg, &c->base, &desc, &t->res};
		uint64_t bytes = (uint64_t)c->words * 8;

		if (bench_launch(t->env, g, kernel, bench_grid(g, c->words, BLOCK), BLOCK, g->s[0],
				 op == OP_WRITE    ? write
				 : op == OP_VERIFY ? verify
						   : invert,
				 e))
			return -1;
		add(&t->w->beat, 1);
		t->m->traffic_bytes += op == OP_WRITE || op == OP_VERIFY ? bytes : 2 * bytes;
		if (op != OP_WRITE)
			t->m->words_checked += c->words;
	}
	if (t->stuck && op != OP_VERIFY && !s->done) {
		struct chunk *c = &t->c[t->stuck_chunk];
		int bit = STUCK_BIT;
		void *args[] = {&c->p, &t->stuck_word, &bit};

		if (bench_launch(t->env, g, K_MT_STICK, 1, 1, g->s[0], args, e))
			return -1;
	}
	if (bench_cu(t->env, t->env->cu->StreamSynchronize(g->s[0]), "cuStreamSynchronize", g, e))
		return -1;
	add(&t->w->beat, 1);
	return 0;
}

/* failed_patterns from the bits of the patterns that saw errors, in the order they run */
static void name_patterns(struct burn_memtest *m, unsigned failed)
{
	int p;

	m->failed_patterns[0] = 0;
	for (p = 0; p < BURN_MEM_PATTERNS; p++) {
		if (!(failed & 1u << p))
			continue;
		if (m->failed_patterns[0])
			str_append(m->failed_patterns, ",", sizeof(m->failed_patterns));
		str_append(m->failed_patterns, pattern_names[p], sizeof(m->failed_patterns));
	}
}

/* One pattern over the whole tested memory, its failing reads counted and placed. */
static int pattern(struct mt *t, int pat, uint64_t pass, struct err *e)
{
	struct bench_env *env = t->env;
	struct burn_memtest *m = t->m;
	uint64_t arg, n, i;
	int rc;

	memset(t->host_res, 0, sizeof(t->host_res));
	if (bench_cu(env, env->cu->MemcpyHtoD(t->res, t->host_res, 2 * sizeof(uint64_t)),
		     "cuMemcpyHtoD", t->g, e))
		return -1;
	switch (pat) {
	case GV_MT_MOVINV:
		arg = gv_mt_mix(SEED ^ pass);
		rc = sweep(t, OP_WRITE, pat, arg, e) || sweep(t, OP_INVERT_UP, pat, arg, e) ||
		     sweep(t, OP_INVERT_DOWN, pat, ~arg, e) || sweep(t, OP_VERIFY, pat, arg, e);
		break;
	default:
		arg = pat == GV_MT_RANDOM    ? gv_mt_mix(SEED + pass)
		      : pat == GV_MT_ADDRESS ? (pass & 1 ? ~0ull : 0)
					     : pass;
		rc = sweep(t, OP_WRITE, pat, arg, e) || sweep(t, OP_VERIFY, pat, arg, e);
		break;
	}
	if (rc || bench_cu(env, env->cu->MemcpyDtoH(t->host_res, t->res, sizeof(t->host_res)),
			   "cuMemcpyDtoH", t->g, e))
		return -1;
	if (!t->host_res[0])
		return 0;
	add(&m->errors, t->host_res[0]);
	n = t->host_res[1] < GV_MT_SLOTS ? t->host_res[1] : GV_MT_SLOTS;
	for (i = 0; i < n; i++)
		burn_memtest_note(m, t->host_res[2 + i] * 8);
	t->failed |= 1u << pat;
	name_patterns(m, t->failed);
	return 0;
}

/* Passes until end_ns, at least one complete; a stop ends the current pattern early. */
static int passes(struct mt *t, int64_t end_ns, struct err *e)
{
	struct burn_stress *s = t->w->owner;
	struct burn_memtest *m = t->m;
	uint64_t pass;
	int p;

	if (s->o.inject == BURN_INJECT_STUCK &&
	    (s->o.inject_gpu < 0 || s->o.inject_gpu == t->g->index)) {
		uint64_t word = m->bytes / 3 / 8; /* the word at a third of the tested memory */

		t->stuck = true;
		for (t->stuck_chunk = 0; t->stuck_chunk + 1 < t->n; t->stuck_chunk++)
			if (word < t->c[t->stuck_chunk].base + t->c[t->stuck_chunk].words)
				break;
		t->stuck_word = (size_t)(word - t->c[t->stuck_chunk].base);
	}
	for (pass = 0; !s->done; pass++) {
		int64_t t0 = now_ns();
		double took;

		for (p = 0; p < GV_MT_NPATTERNS && !s->done; p++)
			if (pattern(t, p, pass, e))
				return -1;
		if (s->done)
			break;
		m->passes++;
		took = (double)(now_ns() - t0) / 1e9;
		if (m->pass_s == 0 || took < m->pass_s)
			m->pass_s = took;
		if (now_ns() >= end_ns)
			break;
	}
	return 0;
}

int burn_memtest_run(struct burn_worker *w, double secs, struct err *e)
{
	struct burn_stress *s = w->owner;
	struct err ignored;
	struct mt t;
	int64_t t0;
	size_t k;
	int rc;

	memset(&t, 0, sizeof(t));
	t.w = w;
	t.env = s->env;
	t.g = w->g;
	t.m = &w->mem;
	/* one GPU takes its memory at a time, as the products' setup does */
	pthread_mutex_lock(&s->setup_lock);
	rc = s->done ? 0 : take(&t, e);
	pthread_mutex_unlock(&s->setup_lock);
	t0 = now_ns();
	if (rc == 0 && !s->done)
		rc = passes(&t, t0 + (int64_t)(secs * 1e9), e);
	t.m->test_s = (double)(now_ns() - t0) / 1e9;
	/* whatever happened, the phase's memory goes back before the next */
	err_clear(&ignored);
	bench_use(s->env, w->g, &ignored);
	for (k = 0; k < t.n; k++)
		bench_dfree(s->env, &t.c[k].p);
	bench_dfree(s->env, &t.res);
	free(t.c);
	return rc;
}
