/* watchdog.c: see watchdog.h. */
#define _GNU_SOURCE
#include "watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "../util/util.h"

struct watch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void (*fn)(void *);
	void *arg;
	bool done;
	int refs; /* the waiter and the worker; the last one out frees */
	const char *call;
	int gpu;
	int64_t call_start_ns;
};

static _Thread_local struct watch *current;

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

static void *worker(void *p)
{
	struct watch *w = p;

	current = w;
	w->fn(w->arg);
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

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->call = call;
	w->gpu = gpu;
	w->call_start_ns = now_ns();
	pthread_mutex_unlock(&w->lock);
}

int watchdog_run(void (*fn)(void *), void *arg, int call_timeout_ms, struct err *e)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	pthread_attr_t attr;
	pthread_t tid;
	int64_t limit_ns;
	int rc = 0;

	if (call_timeout_ms <= 0)
		call_timeout_ms = watchdog_default_ms();
	limit_ns = (int64_t)call_timeout_ms * 1000000LL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	w->fn = fn;
	w->arg = arg;
	w->refs = 2;
	w->gpu = -1;
	w->call = "(starting)";
	w->call_start_ns = now_ns();
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
		int64_t deadline = w->call_start_ns + limit_ns;

		if (now_ns() >= deadline) {
			if (w->gpu >= 0)
				err_set(e, EXIT_FAIL, "%s on GPU %d did not return within %.1f s",
					w->call, w->gpu, call_timeout_ms / 1000.0);
			else
				err_set(e, EXIT_FAIL, "%s did not return within %.1f s", w->call,
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
