/*
 * test_advise_ended.c: `gpuvet advise` on a job that exits mid-watch (docs/cmd/advise.md,
 * "Edges"). A real process here (a main process with one data-loader worker) is the GPU
 * process of the replay's fake NVML, which keeps listing it after it ended, as a driver does
 * for a moment; the host side is this machine's /proc, where it turns into a zombie (not
 * reaped: advise's own view of a command it started) and then goes. The sampler must stop,
 * mark the timeline ended and keep only the ticks the job was alive in (the tick that found
 * it gone reads an idle GPU and no process: not the job's); the diagnosis says the job ended
 * too soon to judge. Counterpart of test_advise_cost.c (the same harness, a job that stays).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "advise/diagnose.h"
#include "advise/sample.h"
#include "host/host.h"
#include "replay/replay.h"
#include "test.h"
#include "livejob.h"
#include "util/err.h"
#include "util/util.h"

#define JOB_LIVES_MS 800

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The job: one worker (which dies with it), ready on fd, then it lives JOB_LIVES_MS. */
static void job_main(int fd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (fork() == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			nap_ms(50);
	}
	if (write(fd, "r", 1) != 1)
		_exit(1);
	nap_ms(JOB_LIVES_MS);
	_exit(0);
}

/* One H200 whose GPU process is pid, busy (90 %) throughout. */
static int write_scenario(const char *path, const char *top, unsigned pid)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f,
		"{\"gpuvet_recording\": 1, \"derive\": \"%s/tests/scenarios/monitor/x1.json\",\n"
		" \"description\": \"a job that exits mid-watch, PID %u\",\n"
		" \"nvml\": {\"devices\": {\"0\": {\n"
		"  \"nvmlDeviceGetComputeRunningProcesses\": [0, [%u, 24696061952, 4294967295, "
		"4294967295]],\n"
		"  \"nvmlDeviceGetProcessUtilization\": [0, [%u, -50000, 90, 20, 0, 0]],\n"
		"  \"nvmlDeviceGetUtilizationRates\": [0, 90, 20]}}}}\n",
		top, pid, pid, pid);
	return fclose(f) == 0 ? 0 : -1;
}

static pid_t job_pid;
static struct adv_timeline tl;
static int sample_rc = -1;
static int64_t sample_ns;

static void sample_job(void)
{
	char dir[] = "/tmp/gpuvet-ended-XXXXXX";
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
	o.duration_ns = 5000000000LL;
	sample_ns = now_ns();
	sample_rc = adv_sample(&o, &tl, &e);
	sample_ns = now_ns() - sample_ns;
	if (sample_rc != 0)
		printf("# adv_sample: %s\n", e.msg);
	replay_finish();
	live_job_cleanup(dir);
}

/* It stopped when the job ended, said so, and kept the ticks the job was alive in. */
static void test_stops_and_marks_ended(void)
{
	const struct adv_tick *last;

	CHECK(sample_rc == 0);
	CHECK(tl.ended);
	CHECK(sample_ns < 4000000000LL); /* not the whole --duration */
	CHECK(tl.nticks >= 2);
	if (tl.nticks < 1)
		return;
	last = &tl.ticks[tl.nticks - 1];
	/* the last tick kept is one the job was alive in: its process and worker read */
	CHECK(num_ok(&last->h.workers) && last->h.workers.v == 1);
	CHECK(num_ok(&last->g[0].job_mem_bytes) && last->g[0].job_mem_bytes.v > 0);
	CHECK(last->t_ns <= (int64_t)(JOB_LIVES_MS + 300) * 1000000LL);
}

/* The diagnosis of what was sampled: the job ended too soon to judge, said as such. */
static void test_diagnosis_says_ended(void)
{
	struct findings fs = {0};
	enum severity worst = (enum severity)advise_diagnose(&tl, &fs);

	CHECK(worst == SEV_WARN);
	CHECK(fs.n == 1);
	CHECK(fs.n >= 1 && strcmp(fs.v[0].def->id, "advise.no_samples") == 0);
	CHECK(fs.n >= 1 && strstr(fs.v[0].summary, "the job ended ") != NULL);
	if (fs.n >= 1)
		printf("# %s\n", fs.v[0].summary);
	findings_free(&fs);
}

int main(void)
{
	sample_job();
	RUN(test_stops_and_marks_ended);
	RUN(test_diagnosis_says_ended);
	if (job_pid > 0) {
		kill(job_pid, SIGKILL);
		waitpid(job_pid, NULL, 0);
	}
	adv_timeline_free(&tl);
	return TEST_DONE();
}
