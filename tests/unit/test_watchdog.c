/* test_watchdog.c: the watchdog's bookkeeping (vendor/watchdog.c): of the calls its threads
 * noted, it names the one outstanding past the limit, never a call that came back nor the last
 * call a waiting thread made. Hung calls are threads blocked until the test lets them go. */
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "util/util.h"
#include "vendor/watchdog.h"

#define LIMIT_MS 100

/* The stand-in for a driver that never answers: blocks until release_hung(). */
static pthread_mutex_t hang_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hang_cond = PTHREAD_COND_INITIALIZER;
static bool hang_over;
static int workers_running;

static void hang_here(void)
{
	pthread_mutex_lock(&hang_lock);
	while (!hang_over)
		pthread_cond_wait(&hang_cond, &hang_lock);
	pthread_mutex_unlock(&hang_lock);
}

static void release_hung(void)
{
	pthread_mutex_lock(&hang_lock);
	hang_over = true;
	pthread_cond_broadcast(&hang_cond);
	pthread_mutex_unlock(&hang_lock);
}

/* Let the abandoned threads of the last test finish, so the next one starts clean. */
static void reap(void)
{
	int64_t until = now_ns() + 2000000000LL;

	release_hung();
	while (__atomic_load_n(&workers_running, __ATOMIC_SEQ_CST) && now_ns() < until)
		usleep(1000);
	hang_over = false;
}

static void sleep_ms(int ms)
{
	usleep((useconds_t)ms * 1000);
}

struct helper {
	struct watch *w;
	void (*fn)(void);
	pthread_t tid;
};

static void *helper_run(void *arg)
{
	struct helper *h = arg;

	watchdog_attach(h->w);
	h->fn();
	watchdog_detach();
	return NULL;
}

/* The worker: its own call first, then helpers, then waits for them (between calls). */
static void (*helper_fns[2])(void);

static void worker_with_helpers(void *arg)
{
	struct helper hs[2];
	int i;

	(void)arg;
	__atomic_add_fetch(&workers_running, 1, __ATOMIC_SEQ_CST);
	watchdog_note("nvmlDeviceGetCount", -1);
	watchdog_done();
	for (i = 0; i < 2; i++) {
		hs[i] = (struct helper){watchdog_self(), helper_fns[i], 0};
		pthread_create(&hs[i].tid, NULL, helper_run, &hs[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(hs[i].tid, NULL);
	__atomic_sub_fetch(&workers_running, 1, __ATOMIC_SEQ_CST);
}

/* A helper whose call comes back at once; it then idles (no call) past the limit. */
static void returns_then_idles(void)
{
	watchdog_note("nvmlDeviceGetName", 0);
	watchdog_done();
	hang_here();
}

/* A helper that starts later than the others' calls and never comes back. */
static void hangs_later(void)
{
	sleep_ms(20);
	watchdog_note_args("nvmlDeviceGetClockInfo", 1, 1, 2, 0);
	hang_here();
	watchdog_done();
}

static void hangs_at_once(void)
{
	watchdog_note("cuInit", -1);
	hang_here();
	watchdog_done();
}

static void names_the_call_that_hangs(void)
{
	struct watchdog_hang hang = {"", -2};
	struct err e;
	int rc;

	err_clear(&e);
	helper_fns[0] = returns_then_idles;
	helper_fns[1] = hangs_later;
	rc = watchdog_run_report(worker_with_helpers, NULL, LIMIT_MS, &hang, &e);
	reap();
	CHECK(rc == -1);
	CHECK_STR(hang.call, "nvmlDeviceGetClockInfo(2)");
	CHECK(hang.gpu == 1);
	CHECK_STR(e.msg, "nvmlDeviceGetClockInfo(2) on GPU 1 did not return within 0.1 s");
}

/* Two calls outstanding: the older one is the one reported. */
static void names_the_oldest_outstanding_call(void)
{
	struct watchdog_hang hang = {"", -2};
	struct err e;
	int rc;

	err_clear(&e);
	helper_fns[0] = hangs_later;
	helper_fns[1] = hangs_at_once;
	rc = watchdog_run_report(worker_with_helpers, NULL, LIMIT_MS, &hang, &e);
	reap();
	CHECK(rc == -1);
	CHECK_STR(hang.call, "cuInit");
	CHECK(hang.gpu == -1);
	CHECK_STR(e.msg, "cuInit did not return within 0.1 s");
}

static void *release_later(void *arg)
{
	(void)arg;
	sleep_ms(3 * LIMIT_MS);
	release_hung();
	return NULL;
}

/* Threads that made their calls and then wait (for each other, for more work) are not hung. */
static void idle_between_calls_is_not_a_hang(void)
{
	struct watchdog_hang hang = {"", -2};
	pthread_t releaser;
	struct err e;
	int rc;

	err_clear(&e);
	helper_fns[0] = returns_then_idles;
	helper_fns[1] = returns_then_idles;
	pthread_create(&releaser, NULL, release_later, NULL);
	rc = watchdog_run_report(worker_with_helpers, NULL, LIMIT_MS, &hang, &e);
	pthread_join(releaser, NULL);
	reap();
	CHECK(rc == 0);
	CHECK_STR(hang.call, "");
}

/* Notes outside a watchdog (a collector thread of its own) do nothing. */
static void notes_without_a_watchdog(void)
{
	CHECK(watchdog_self() == NULL);
	watchdog_note("nvmlDeviceGetCount", -1);
	CHECK(watchdog_returned(7) == 7);
}

int main(void)
{
	RUN(names_the_call_that_hangs);
	RUN(names_the_oldest_outstanding_call);
	RUN(idle_between_calls_is_not_a_hang);
	RUN(notes_without_a_watchdog);
	return TEST_DONE();
}
