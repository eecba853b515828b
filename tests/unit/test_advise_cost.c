/*
 * test_advise_cost.c: what `gpuvet advise`'s sampler (src/advise/sample.c) costs on a live job,
 * and that it still reads what the rules need. It starts a real process tree here (a main
 * process with 60 threads, one of them busy, and 4 worker processes), serves NVML from the
 * replay's fake library with a scenario whose GPU process is that main process (with NVML's
 * utilisation samples, which advise reads per tick too), and leaves the host reads live (/proc
 * of this machine), so the host side runs as it does on a real job.
 *
 * The checks count host.h operations per tick (deterministic, unlike times on a shared CI
 * machine). Run alone with GPUVET_COST_SECONDS=N it samples for N seconds and prints where the
 * time went, per part and per tick: the figures quoted in docs/cmd/advise.md.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "advise/sample.h"
#include "host/host.h"
#include "replay/replay.h"
#include "test.h"
#include "livejob.h"
#include "util/err.h"
#include "util/util.h"

#define JOB_THREADS 60
#define JOB_WORKERS 4

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The busy thread: about 30 % of a core (spins 3 ms in 10), like a training loop's main
 * thread in a lighter form, so the busiest thread is one of many. */
static void *busy_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int64_t until = now_ns() + 3000000;

		while (now_ns() < until)
			;
		nap_ms(7);
	}
	return NULL;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		nap_ms(50);
	return NULL;
}

/* The job: forks its workers, starts its threads, says it is ready on fd, then waits to be
 * killed (every process dies with the test: PR_SET_PDEATHSIG). */
static void job_main(int fd)
{
	pthread_t t;
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < JOB_WORKERS; i++) {
		pid_t w = fork();

		if (w == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			for (;;)
				nap_ms(50);
		}
	}
	pthread_create(&t, NULL, busy_thread, NULL);
	for (i = 2; i < JOB_THREADS; i++)
		pthread_create(&t, NULL, idle_thread, NULL);
	if (write(fd, "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* A one-GPU H200 whose only GPU process is pid (with its utilisation samples). */
static int write_scenario(const char *path, const char *top, unsigned pid)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f,
		"{\"gpuvet_recording\": 1, \"derive\": \"%s/tests/scenarios/monitor/x1.json\",\n"
		" \"description\": \"the cost harness's live job, PID %u\",\n"
		" \"nvml\": {\"devices\": {\"0\": {\n"
		"  \"nvmlDeviceGetComputeRunningProcesses\": [0, [%u, 24696061952, 4294967295, "
		"4294967295]],\n"
		"  \"nvmlDeviceGetProcessUtilization\": [0, [%u, -50000, 61, 20, 0, 0]],\n"
		"  \"nvmlDeviceGetSamples(1)\": [0, [-60000, 1, 100], [-20000, 1, 0]],\n"
		"  \"nvmlDeviceGetUtilizationRates\": [0, 61, 20]}}}}\n",
		top, pid, pid, pid);
	return fclose(f) == 0 ? 0 : -1;
}

static pid_t job_pid;
static struct adv_timeline tl;
static struct adv_sample_cost cost;
static int sample_rc = -1;

static bool job_alive(void *arg, const struct adv_timeline *t, int64_t left_ns)
{
	(void)arg;
	(void)t;
	(void)left_ns;
	return kill(job_pid, 0) == 0;
}

/* Sample the live job for seconds; the result stays in tl and cost for the checks. */
static void sample_job(double seconds)
{
	char dir[] = "/tmp/gpuvet-cost-XXXXXX";
	struct adv_sample_opts o;
	struct err e;
	unsigned pid;

	job_pid = live_job_start(job_main, write_scenario, dir);
	if (job_pid <= 0) {
		job_pid = 0;
		return;
	}
	pid = (unsigned)job_pid;
	err_clear(&e);
	memset(&o, 0, sizeof(o));
	o.pids = &pid;
	o.npids = 1;
	o.tick_ns = ADV_TICK_DEFAULT_NS;
	o.duration_ns = (int64_t)(seconds * 1e9);
	o.progress = job_alive;
	o.cost = &cost;
	sample_rc = adv_sample(&o, &tl, &e);
	if (sample_rc != 0)
		printf("# adv_sample: %s\n", e.msg);
	replay_finish();
	live_job_cleanup(dir);
}

static void print_cost(void)
{
	double n = cost.ticks ? (double)cost.ticks : 1, total = 0;
	int p;

	printf("# %llu ticks of %lld ms, the job: %d threads, %d workers\n",
	       (unsigned long long)cost.ticks, (long long)(tl.tick_ns / 1000000), JOB_THREADS,
	       JOB_WORKERS);
	printf("# %-10s %10s %10s\n", "part", "us/tick", "ops/tick");
	for (p = 0; p < ADV_PART_N; p++) {
		printf("# %-10s %10.1f %10.1f\n", adv_part_name(p), cost.part_ns[p] / 1e3 / n,
		       cost.part_ops[p] / n);
		total += cost.part_ns[p] / 1e3 / n;
	}
	printf("# %-10s %10.1f\n", "sampler", total);
	printf("# collector fast tier: %.1f host ops/tick\n",
	       (double)cost.collector_host_ops / (cost.collector_ticks ? cost.collector_ticks : 1));
	printf("# collector fast tier: %.1f us CPU/tick (host %.1f, NVML %.1f)\n",
	       cost.collector_cpu_ns / 1e3 / (cost.collector_ticks ? cost.collector_ticks : 1),
	       cost.collector_host_cpu_ns / 1e3 / (cost.collector_ticks ? cost.collector_ticks : 1),
	       cost.collector_nvml_cpu_ns / 1e3 /
		   (cost.collector_ticks ? cost.collector_ticks : 1));
	printf("# advise, whole process: %.1f us CPU/tick, %.2f %% of one core\n",
	       tl.self_cpu_ns / 1e3 / n,
	       tl.self_wall_ns ? tl.self_cpu_ns * 100.0 / (double)tl.self_wall_ns : 0);
}

/* It found the live job and read what the rules need, tick by tick. */
static void test_reads_the_job(void)
{
	size_t i, workers = 0, thread = 0, main_cpu = 0;
	int64_t thread_max = 0;

	CHECK(sample_rc == 0);
	CHECK(tl.pid == (unsigned)job_pid);
	CHECK(tl.nticks >= 10);
	for (i = 1; i < tl.nticks; i++) {
		const struct adv_host_tick *h = &tl.ticks[i].h;

		workers += num_ok(&h->workers) && h->workers.v == JOB_WORKERS;
		main_cpu += num_ok(&h->main_cpu_pct);
		if (num_ok(&h->main_thread_max_pct)) {
			thread++;
			if (h->main_thread_max_pct.v > thread_max)
				thread_max = h->main_thread_max_pct.v;
		}
	}
	/* every tick but the first (CPU shares are differences) */
	CHECK(workers == tl.nticks - 1);
	CHECK(main_cpu >= tl.nticks - 2);
	CHECK(thread >= tl.nticks - 2);
	/* the busy thread (about 30 %) is the one followed */
	CHECK(thread_max >= 10);
	CHECK(num_ok(&tl.ticks[tl.nticks - 1].g[0].job_mem_bytes));
	CHECK(tl.gpus[0].job_holds);
	/* NVML's own utilisation samples of the job's GPU, two per tick in the scenario */
	CHECK(tl.nutil >= 2 * (tl.nticks - 1));
	CHECK(tl.util[tl.nutil - 1].gpu == 0 && tl.util[tl.nutil - 1].t_ns > 0);
}

/* What does not change every tick is not read every tick: the tree's membership and the
 * busiest thread are looked for once a second; per tick, one thread's stat and each
 * member's stat and io. Before, each tick listed every thread's children and read every
 * thread's stat: about 150 operations per tick for this job. */
static void test_cheap_per_tick(void)
{
	double n = cost.ticks ? (double)cost.ticks : 1;
	uint64_t all = 0;
	int p;

	CHECK(cost.ticks >= 10);
	for (p = 0; p < ADV_PART_N; p++)
		all += cost.part_ops[p];
	/* 60 threads looked at once a second: 6 per tick at 100 ms, plus the one followed */
	CHECK(cost.part_ops[ADV_PART_THREADS] / n <= 12);
	/* the children of 60 threads listed once a second, not every tick */
	CHECK(cost.part_ops[ADV_PART_TREE] / n <= 12);
	CHECK(all / n <= 40);
	/* the collector's process table: who the GPU process is, mapped once a second (its
	 * tree walked then), not every tick */
	CHECK(cost.collector_ticks >= 10);
	CHECK(cost.collector_host_ops > 0);
	CHECK((double)cost.collector_host_ops / (double)cost.collector_ticks <= 12);
}

int main(void)
{
	const char *s = getenv("GPUVET_COST_SECONDS");
	double seconds = s ? strtod(s, NULL) : 0;

	sample_job(seconds >= 1 ? seconds : 2.5);
	if (s)
		print_cost();
	RUN(test_reads_the_job);
	RUN(test_cheap_per_tick);
	if (job_pid > 0) {
		kill(job_pid, SIGKILL);
		waitpid(job_pid, NULL, 0);
	}
	adv_timeline_free(&tl);
	return TEST_DONE();
}
