/*
 * stats.h: the statistics every benchmark figure is reported with: the median of the samples
 * (the headline), min and max, and the coefficient of variation (sample standard deviation over
 * the mean) as the spread. Pure functions, unit-tested in tests/unit/test_bench_stats.c.
 */
#ifndef GPUVET_BENCH_STATS_H
#define GPUVET_BENCH_STATS_H

#include <stddef.h>

struct stats {
	size_t n;
	double median, min, max, mean;
	double stddev; /* sample standard deviation (n - 1); 0 for one sample */
	double cv;     /* stddev / mean; 0 when the mean is 0 */
};

/* Summarise v[0..n); v is not changed. n == 0 gives all zeros. */
void stats_compute(const double *v, size_t n, struct stats *out);
double stats_median(const double *v, size_t n);

#endif
