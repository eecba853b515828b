/*
 * nvml_oneshot.c: the floor for a one-shot command such as `gpuvet status`: what a process
 * that only loads NVML, initialises it, takes one handle per GPU and shuts it down spends in
 * each step. bench/status-vs-nvidia-smi.sh prints it next to gpuvet status and nvidia-smi.
 *
 * Build: gcc -O2 -o nvml_oneshot bench/nvml_oneshot.c -ldl
 * Usage: nvml_oneshot [RUNS]: RUNS rounds in one process (default 5); prints the median of
 * each step in ms, one line of text. RUNS 0: one init and the handles, no output, no shutdown
 * (time that process from outside: the floor of a whole one-shot command); RUNS -1: the same,
 * leaving by _exit (what NVML's own teardown at exit costs is the difference). RUNS -2 and -3:
 * one init with nvmlInitWithFlags(0) or (NVML_INIT_FLAG_NO_ATTACH), then the handles, timed
 * once (the first init of a process is the one a one-shot command pays).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 5, r;
	double t_load = 0, *t_init, *t_handles, *t_shut;
	int (*init)(void), (*shut)(void), (*count)(unsigned *), (*handle)(unsigned, void **);
	void *lib;
	double t0 = now_ms();

	lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	t_load = now_ms() - t0;
	if (!lib) {
		fprintf(stderr, "nvml_oneshot: %s\n", dlerror());
		return 1;
	}
	init = (int (*)(void))dlsym(lib, "nvmlInit_v2");
	shut = (int (*)(void))dlsym(lib, "nvmlShutdown");
	count = (int (*)(unsigned *))dlsym(lib, "nvmlDeviceGetCount_v2");
	handle = (int (*)(unsigned, void **))dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	if (runs <= -2) {
		int (*initf)(unsigned) = (int (*)(unsigned))dlsym(lib, "nvmlInitWithFlags");
		unsigned n = 0, i;
		double t1, t2, t3;
		void *h;

		if (!initf || !count || !handle)
			return 1;
		t1 = now_ms();
		if (initf(runs == -2 ? 0 : 2) != 0)
			return 1;
		t2 = now_ms();
		count(&n);
		for (i = 0; i < n; i++)
			handle(i, &h);
		t3 = now_ms();
		printf("nvmlInitWithFlags(%d) %.2f ms, count+%u handles %.2f ms\n", runs == -2 ? 0 : 2,
		       t2 - t1, n, t3 - t2);
		return 0;
	}
	if (runs < -1 || !init || !shut || !count || !handle)
		return 1;
	if (runs <= 0) {
		unsigned n = 0, i;
		void *h;

		if (init() != 0)
			return 1;
		count(&n);
		for (i = 0; i < n; i++)
			handle(i, &h);
		if (runs < 0)
			_exit(0);
		return 0;
	}
	t_init = calloc((size_t)runs, sizeof(double));
	t_handles = calloc((size_t)runs, sizeof(double));
	t_shut = calloc((size_t)runs, sizeof(double));
	for (r = 0; r < runs; r++) {
		unsigned n = 0, i;
		void *h;

		t0 = now_ms();
		if (init() != 0)
			return 1;
		t_init[r] = now_ms() - t0;
		t0 = now_ms();
		count(&n);
		for (i = 0; i < n; i++)
			handle(i, &h);
		t_handles[r] = now_ms() - t0;
		t0 = now_ms();
		shut();
		t_shut[r] = now_ms() - t0;
	}
	printf("nvml one-shot floor: dlopen %.2f ms, nvmlInit_v2 %.2f ms, count+handles %.2f ms, "
	       "nvmlShutdown %.2f ms (medians of %d)\n",
	       t_load, median(t_init, runs), median(t_handles, runs), median(t_shut, runs), runs);
	return 0;
}
