/*
 * watchdog.c: see watchdog.h.
 *
 * Each thread doing vendor work owns a slot holding the call it is in and when it started.
 * The waiter sleeps until the oldest call in progress reaches the limit (or the work ends).
 */
#define _GNU_SOURCE
#include "watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../util/util.h"

#define WATCH_SLOTS 272 /* the worker, and one helper per GPU up to 256, and spares */

struct slot {
	const char *call;
	int gpu;
	int64_t start_ns;
	bool active;
};

struct watch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void (*fn)(void *);
	void *arg;
	bool done;
	int refs; /* the waiter, the worker and attached helpers; the last one out frees */
	struct slot slots[WATCH_SLOTS];
	int nslots;
};

static _Thread_local struct watch *current;
static _Thread_local int my_slot = -1;

/* GPUVET_TRACE=1: the time of every vendor call on stderr, to find slow ones on a new driver.
 * A debugging aid, the one place below cmd/ that writes to the terminal. */
static int trace = -1;
static _Thread_local const char *trace_call;
static _Thread_local int trace_gpu;
static _Thread_local int64_t trace_start;

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

/* This thread's calls are over: its slot no longer counts. */
static void end_slot(struct watch *w)
{
	if (my_slot >= 0) {
		pthread_mutex_lock(&w->lock);
		w->slots[my_slot].active = false;
		pthread_mutex_unlock(&w->lock);
	}
	my_slot = -1;
}

static void *worker(void *p)
{
	struct watch *w = p;

	current = w;
	my_slot = -1;
	w->fn(w->arg);
	if (trace > 0)
		trace_flush();
	end_slot(w);
	current = NULL;
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	unref(w);
	return NULL;
}

void watchdog_note(const char *call, int gpu)
{
	struct watch *w = current;

	if (trace < 0)
		trace = getenv("GPUVET_TRACE") && getenv("GPUVET_TRACE")[0] == '1';
	if (trace > 0) {
		trace_flush();
		trace_call = call;
		trace_gpu = gpu;
		trace_start = now_ns();
	}
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	if (my_slot < 0 && w->nslots < WATCH_SLOTS)
		my_slot = w->nslots++;
	if (my_slot >= 0) {
		w->slots[my_slot].call = call;
		w->slots[my_slot].gpu = gpu;
		w->slots[my_slot].start_ns = now_ns();
		w->slots[my_slot].active = true;
	}
	pthread_mutex_unlock(&w->lock);
}

struct watch *watchdog_self(void)
{
	return current;
}

void watchdog_attach(struct watch *w)
{
	current = w;
	my_slot = -1;
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->refs++;
	pthread_mutex_unlock(&w->lock);
}

void watchdog_detach(void)
{
	struct watch *w = current;

	if (trace > 0)
		trace_flush();
	if (!w)
		return;
	end_slot(w);
	current = NULL;
	unref(w);
}

int watchdog_run(void (*fn)(void *), void *arg, int call_timeout_ms, struct err *e)
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
		int64_t oldest = -1, deadline;
		const struct slot *stuck = NULL;
		int i;

		for (i = 0; i < w->nslots; i++) {
			if (w->slots[i].active && (oldest < 0 || w->slots[i].start_ns < oldest)) {
				oldest = w->slots[i].start_ns;
				stuck = &w->slots[i];
			}
		}
		deadline = (oldest < 0 ? now_ns() : oldest) + limit_ns;
		if (stuck && now_ns() >= deadline) {
			if (stuck->gpu >= 0)
				err_set(e, EXIT_FAIL, "%s on GPU %d did not return within %.1f s",
					stuck->call, stuck->gpu, call_timeout_ms / 1000.0);
			else
				err_set(e, EXIT_FAIL, "%s did not return within %.1f s", stuck->call,
					call_timeout_ms / 1000.0);
			rc = -1;
			break;
		}
		ts.tv_sec = deadline / 1000000000LL;
		ts.tv_nsec = deadline % 1000000000LL;
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
	}
	pthread_mutex_unlock(&w->lock);
	unref(w);
	return rc;
}
