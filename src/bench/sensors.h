/*
 * sensors.h: SM clock, memory clock, power and temperature read from NVML by a thread while the
 * benchmarks run (gpu/probe.h, PROBE_FAST tier, every interval), so each result carries the
 * clock and power it ran at. NVML is thread-safe; this thread is the only one using its session.
 */
#ifndef GPUVET_BENCH_SENSORS_H
#define GPUVET_BENCH_SENSORS_H

#include <jansson.h>
#include <stdint.h>

#include "../util/err.h"

struct probe;
struct gpu;
struct bench_sensors;

struct sensor_reading {
	double t_s;                                          /* seconds since t0 */
	int gpu;                                             /* NVML index */
	double clock_sm_mhz, clock_mem_mhz, power_w, temp_c; /* < 0: not read */
	int64_t clock_events;                                /* CE_* bits, -1 not read */
};

struct sensor_window {
	int n; /* readings inside the window (0: the nearest one was used) */
	double clock_sm_avg, clock_sm_min, power_avg, power_max, temp_max; /* < 0: none */
};

/* Start sampling the given GPUs every interval_ms; p is an open probe session (the thread uses
 * it alone from now on). t0_ns is the run's time origin (now_ns()). NULL p: no sensors. */
struct bench_sensors *bench_sensors_start(struct probe *p, const struct gpu *gpus,
					  const int *nvml_indexes, int n, int interval_ms,
					  int64_t t0_ns);
void bench_sensors_window(struct bench_sensors *s, int nvml_index, double t0_s, double t1_s,
			  struct sensor_window *w);
/* Stop the thread; readings stay available until bench_sensors_free. */
void bench_sensors_stop(struct bench_sensors *s);
/* {"interval_ms": n, "gpus": {"0": [[t_s, sm_mhz, mem_mhz, power_w, temp_c], ...]}} */
json_t *bench_sensors_json(struct bench_sensors *s);
void bench_sensors_free(struct bench_sensors *s);

#endif
