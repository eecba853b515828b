/*
 * watchdog.c: see watchdog.h.
 *
 * Each thread doing vendor work owns a slot holding the call it is in and when it started (0:
 * none). Notes come before every NVML call, and the collector makes thousands a second, so the
 * owner writes its slot without a lock: a sequence number, odd while it rewrites the note, lets
 * the waiter take a consistent copy (a seqlock). Slots are claimed and given back under the lock,
 * once per thread. The waiter sleeps until the oldest outstanding call reaches the limit (or the
 * work ends), then looks again: a call that came back in the meantime no longer counts.
 */
#define _GNU_SOURCE
#include "watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../util/util.h"

#define WATCH_SLOTS 272 /* the worker, the CUDA thread, one helper per GPU up to 256, spares */

struct slot {
	atomic_uint seq; /* odd while the owner rewrites the fields below */
	_Atomic(const char *) call;
	atomic_int gpu, nargs;
	atomic_long arg[2];
	atomic_llong start_ns; /* when the noted call started; 0: no outstanding call */
	bool owned;            /* under the watch's lock */
};

struct watch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void (*fn)(void *);
	void *arg;
	bool done;
	int refs;          /* the waiter, the worker and attached helpers; the last one out frees */
	atomic_int nslots; /* slots ever claimed: the waiter looks at these */
	struct slot slots[WATCH_SLOTS];
};

/* A consistent copy of a slot, taken by the waiter. */
struct note {
	const char *call;
	int gpu, nargs;
	long arg[2];
	int64_t start_ns;
};

static _Thread_local struct watch *current;
static _Thread_local struct slot *my_slot;

/* GPUVET_TRACE=1: the time of every vendor call on stderr, to find slow ones on a new driver.
 * A debugging aid, the one place below cmd/ that writes to the terminal. */
static atomic_int trace = -1;
static _Thread_local const char *trace_call;
static _Thread_local int trace_gpu;
static _Thread_local int64_t trace_start;

static bool tracing(void)
{
	int t = atomic_load_explicit(&trace, memory_order_relaxed);

	if (t < 0) {
		const char *s = getenv("GPUVET_TRACE");

		t = s && s[0] == '1';
		atomic_store_explicit(&trace, t, memory_order_relaxed);
	}
	return t > 0;
}

static void trace_flush(void)
{
	if (trace_call)
		fprintf(stderr, "gpuvet: trace: %-48s gpu %2d %10.1f us\n", trace_call, trace_gpu,
			(now_ns() - trace_start) / 1e3);
	trace_call = NULL;
}

int watchdog_default_ms(void)
{
	const char *s = getenv("GPUVET_CALL_TIMEOUT_MS");
	int64_t v;

	if (s && parse_i64(s, &v) == 0 && v > 0 && v < 3600 * 1000)
		return (int)v;
	return 20000;
}

static void unref(struct watch *w)
{
	bool last;

	pthread_mutex_lock(&w->lock);
	last = --w->refs == 0;
	pthread_mutex_unlock(&w->lock);
	if (last) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		free(w);
	}
}

/* A free slot for this thread; none when all are taken (the thread then goes unwatched). */
static struct slot *claim_slot(struct watch *w)
{
	struct slot *s = NULL;
	int i;

	pthread_mutex_lock(&w->lock);
	for (i = 0; i < WATCH_SLOTS; i++) {
		if (!w->slots[i].owned) {
			s = &w->slots[i];
			s->owned = true;
			atomic_store_explicit(&s->start_ns, 0, memory_order_relaxed);
			if (i >= atomic_load_explicit(&w->nslots, memory_order_relaxed))
				atomic_store_explicit(&w->nslots, i + 1, memory_order_release);
			break;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return s;
}

/* This thread's calls are over: its slot no longer counts and may serve another thread. */
static void release_slot(struct watch *w)
{
	if (my_slot) {
		atomic_store_explicit(&my_slot->start_ns, 0, memory_order_relaxed);
		pthread_mutex_lock(&w->lock);
		my_slot->owned = false;
		pthread_mutex_unlock(&w->lock);
	}
	my_slot = NULL;
}

static void *worker(void *p)
{
	struct watch *w = p;

	current = w;
	my_slot = claim_slot(w);
	w->fn(w->arg);
	if (tracing())
		trace_flush();
	release_slot(w);
	current = NULL;
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	unref(w);
	return NULL;
}

void watchdog_note_args(const char *call, int gpu, int nargs, long a0, long a1)
{
	struct slot *s = my_slot;
	unsigned seq;

	if (tracing()) {
		trace_flush();
		trace_call = call;
		trace_gpu = gpu;
		trace_start = now_ns();
	}
	if (!s)
		return;
	/* only this thread writes the slot: the sequence number needs no read-modify-write */
	seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&s->call, call, memory_order_relaxed);
	atomic_store_explicit(&s->gpu, gpu, memory_order_relaxed);
	atomic_store_explicit(&s->nargs, nargs, memory_order_relaxed);
	atomic_store_explicit(&s->arg[0], a0, memory_order_relaxed);
	atomic_store_explicit(&s->arg[1], a1, memory_order_relaxed);
	atomic_store_explicit(&s->start_ns, now_ns(), memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

void watchdog_note(const char *call, int gpu)
{
	watchdog_note_args(call, gpu, 0, 0, 0);
}

void watchdog_done(void)
{
	if (tracing())
		trace_flush();
	/* one store: whether the waiter sees the call just before or just after it came back,
	 * the copy it takes is consistent */
	if (my_slot)
		atomic_store_explicit(&my_slot->start_ns, 0, memory_order_relaxed);
}

int watchdog_returned(int rc)
{
	watchdog_done();
	return rc;
}

struct watch *watchdog_self(void)
{
	return current;
}

void watchdog_attach(struct watch *w)
{
	current = w;
	my_slot = NULL;
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->refs++;
	pthread_mutex_unlock(&w->lock);
	my_slot = claim_slot(w);
}

void watchdog_detach(void)
{
	struct watch *w = current;

	if (tracing())
		trace_flush();
	if (!w)
		return;
	release_slot(w);
	current = NULL;
	unref(w);
}

/* A consistent copy of slot s; false when it holds no outstanding call (or its owner is busy
 * rewriting it, which means it is not stuck). */
static bool read_slot(struct slot *s, struct note *n)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		unsigned s1 = atomic_load_explicit(&s->seq, memory_order_acquire), s2;

		if (s1 & 1)
			continue;
		n->call = atomic_load_explicit(&s->call, memory_order_relaxed);
		n->gpu = atomic_load_explicit(&s->gpu, memory_order_relaxed);
		n->nargs = atomic_load_explicit(&s->nargs, memory_order_relaxed);
		n->arg[0] = atomic_load_explicit(&s->arg[0], memory_order_relaxed);
		n->arg[1] = atomic_load_explicit(&s->arg[1], memory_order_relaxed);
		n->start_ns = atomic_load_explicit(&s->start_ns, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		s2 = atomic_load_explicit(&s->seq, memory_order_relaxed);
		if (s1 == s2)
			return n->start_ns != 0 && n->call;
	}
	return false;
}

/* The oldest outstanding call of all threads; false when no thread is in a call. */
static bool oldest_call(struct watch *w, struct note *oldest)
{
	int i, n = atomic_load_explicit(&w->nslots, memory_order_acquire);
	bool any = false;

	for (i = 0; i < n; i++) {
		struct note cur;

		if (read_slot(&w->slots[i], &cur) && (!any || cur.start_ns < oldest->start_ns)) {
			*oldest = cur;
			any = true;
		}
	}
	return any;
}

static void report(const struct note *n, int call_timeout_ms, struct watchdog_hang *hang,
		   struct err *e)
{
	char call[sizeof(hang->call)];

	if (n->nargs >= 2)
		str_fmt(call, sizeof(call), "%s(%ld,%ld)", n->call, n->arg[0], n->arg[1]);
	else if (n->nargs == 1)
		str_fmt(call, sizeof(call), "%s(%ld)", n->call, n->arg[0]);
	else
		str_copy(call, n->call, sizeof(call));
	if (hang) {
		str_copy(hang->call, call, sizeof(hang->call));
		hang->gpu = n->gpu;
	}
	if (n->gpu >= 0)
		err_set(e, EXIT_FAIL, "%s on GPU %d did not return within %.1f s", call, n->gpu,
			call_timeout_ms / 1000.0);
	else
		err_set(e, EXIT_FAIL, "%s did not return within %.1f s", call,
			call_timeout_ms / 1000.0);
}

int watchdog_run_report(void (*fn)(void *), void *arg, int call_timeout_ms,
			struct watchdog_hang *hang, struct err *e)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	pthread_condattr_t ca;
	pthread_attr_t attr;
	pthread_t tid;
	int64_t limit_ns;
	int rc = 0;

	if (call_timeout_ms <= 0)
		call_timeout_ms = watchdog_default_ms();
	limit_ns = (int64_t)call_timeout_ms * 1000000LL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	w->fn = fn;
	w->arg = arg;
	w->refs = 2;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&tid, &attr, worker, w) != 0) {
		/* No thread: run inline rather than not at all. */
		pthread_attr_destroy(&attr);
		fn(arg);
		free(w);
		return 0;
	}
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&w->lock);
	while (!w->done) {
		struct timespec ts;
		struct note oldest = {0};
		int64_t deadline, now = now_ns();
		bool any = oldest_call(w, &oldest);

		if (any && now - oldest.start_ns >= limit_ns) {
			report(&oldest, call_timeout_ms, hang, e);
			rc = -1;
			break;
		}
		/* a call noted after this look starts its own limit later than this deadline */
		deadline = (any ? oldest.start_ns : now) + limit_ns;
		ts.tv_sec = deadline / 1000000000LL;
		ts.tv_nsec = deadline % 1000000000LL;
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
	}
	pthread_mutex_unlock(&w->lock);
	unref(w);
	return rc;
}

int watchdog_run(void (*fn)(void *), void *arg, int call_timeout_ms, struct err *e)
{
	return watchdog_run_report(fn, arg, call_timeout_ms, NULL, e);
}
