/*
 * nvml_floor.c: the floor for the collector's cost. The six fields of a status line
 * (utilisation, memory, temperature, power, SM clock, clock-event reasons) read by the smallest
 * loop of raw NVML calls there can be: dlopen, one handle per GPU, no checks beyond the return
 * codes, no threads, no copies. tests/gpu/monitor-h200.sh compares gpuvet's collector with it
 * (the goal: within 2x) and with nvidia-smi --query-gpu (at least 100x cheaper).
 *
 * Build: gcc -O2 -o nvml_floor tests/gpu/nvml_floor.c -ldl
 * Usage: nvml_floor [SAMPLES [INTERVAL_US]]: SAMPLES rounds (default 2000), back to back or
 * sleeping INTERVAL_US between rounds like a collector does (a sleeping loop finds its caches
 * cold, which costs too); prints one line of text and one of JSON.
 * The calls are the same ones gpuvet's fast tier makes for these fields (src/gpu/probe.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void *dev_t_;
struct util { unsigned gpu, memory; };
struct mem_v2 { unsigned version; unsigned long long total, reserved, free, used; };
struct mem_v1 { unsigned long long total, free, used; };

static double clock_us(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void *sym(void *h, const char *a, const char *b)
{
	void *p = dlsym(h, a);

	return p || !b ? p : dlsym(h, b);
}

int main(int argc, char **argv)
{
	int (*init)(void), (*shutdown)(void), (*count)(unsigned *), (*handle)(unsigned, dev_t_ *);
	int (*util)(dev_t_, struct util *), (*mem2)(dev_t_, struct mem_v2 *), (*mem1)(dev_t_, struct mem_v1 *);
	int (*temp)(dev_t_, int, unsigned *), (*power)(dev_t_, unsigned *), (*clock)(dev_t_, int, unsigned *);
	int (*events)(dev_t_, unsigned long long *);
	long samples = argc > 1 ? strtol(argv[1], NULL, 10) : 2000, s;
	long interval_us = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	unsigned n = 0, i, errors = 0;
	dev_t_ devs[64];
	double cpu0 = 0, wall0 = 0, cpu, wall;
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "nvml_floor: cannot load libnvidia-ml.so.1: %s\n", dlerror());
		return 2;
	}
	init = (int (*)(void))sym(h, "nvmlInit_v2", "nvmlInit");
	shutdown = (int (*)(void))sym(h, "nvmlShutdown", NULL);
	count = (int (*)(unsigned *))sym(h, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
	handle = (int (*)(unsigned, dev_t_ *))sym(h, "nvmlDeviceGetHandleByIndex_v2",
						  "nvmlDeviceGetHandleByIndex");
	util = (int (*)(dev_t_, struct util *))sym(h, "nvmlDeviceGetUtilizationRates", NULL);
	mem2 = (int (*)(dev_t_, struct mem_v2 *))sym(h, "nvmlDeviceGetMemoryInfo_v2", NULL);
	mem1 = (int (*)(dev_t_, struct mem_v1 *))sym(h, "nvmlDeviceGetMemoryInfo", NULL);
	temp = (int (*)(dev_t_, int, unsigned *))sym(h, "nvmlDeviceGetTemperature", NULL);
	power = (int (*)(dev_t_, unsigned *))sym(h, "nvmlDeviceGetPowerUsage", NULL);
	clock = (int (*)(dev_t_, int, unsigned *))sym(h, "nvmlDeviceGetClockInfo", NULL);
	events = (int (*)(dev_t_, unsigned long long *))sym(h, "nvmlDeviceGetCurrentClocksEventReasons",
							    "nvmlDeviceGetCurrentClocksThrottleReasons");
	if (!init || !count || !handle || !util || !(mem2 || mem1) || !temp || !power || !clock ||
	    !events) {
		fprintf(stderr, "nvml_floor: a symbol is missing from libnvidia-ml.so.1\n");
		return 2;
	}
	if (init() != 0 || count(&n) != 0 || n == 0) {
		fprintf(stderr, "nvml_floor: nvmlInit or nvmlDeviceGetCount failed, or no GPU\n");
		return 2;
	}
	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++)
		if (handle(i, &devs[i]) != 0) {
			fprintf(stderr, "nvml_floor: no handle for GPU %u\n", i);
			return 2;
		}
	if (samples < 1)
		samples = 1;
	/* warm up (first calls fill driver caches), then measure */
	for (s = -50; s < samples; s++) {
		if (interval_us > 0) {
			struct timespec ts = {interval_us / 1000000, (interval_us % 1000000) * 1000};

			nanosleep(&ts, NULL);
		}
		if (s == 0) {
			cpu0 = clock_us(CLOCK_PROCESS_CPUTIME_ID);
			wall0 = clock_us(CLOCK_MONOTONIC);
		}
		for (i = 0; i < n; i++) {
			struct util u;
			struct mem_v2 m2 = {(unsigned)(sizeof(struct mem_v2) | (2u << 24)), 0, 0, 0, 0};
			struct mem_v1 m1;
			unsigned t, p, c;
			unsigned long long r;

			errors += util(devs[i], &u) != 0;
			if (mem2)
				errors += mem2(devs[i], &m2) != 0;
			else
				errors += mem1(devs[i], &m1) != 0;
			errors += temp(devs[i], 0, &t) != 0;
			errors += power(devs[i], &p) != 0;
			errors += clock(devs[i], 1, &c) != 0;
			errors += events(devs[i], &r) != 0;
		}
	}
	cpu = clock_us(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	wall = clock_us(CLOCK_MONOTONIC) - wall0;
	printf("nvml_floor: %ld samples x %u GPUs, six fields, %s: %.2f us CPU per GPU per "
	       "sample, %u failed calls\n",
	       samples, n, interval_us > 0 ? "sleeping between samples" : "back to back",
	       cpu / (double)samples / n, errors);
	printf("{\"kind\":\"floor\",\"samples\":%ld,\"gpus\":%u,\"interval_us\":%ld,"
	       "\"us_per_gpu\":%.3f,\"wall_us_per_gpu\":%.3f,\"failed_calls\":%u}\n",
	       samples, n, interval_us, cpu / (double)samples / n, wall / (double)samples / n, errors);
	if (shutdown)
		shutdown();
	return 0;
}
