/* test_bench_stats.c: the statistics of bench results (src/bench/stats.c) and the crossover
 * rule of `bench fit` (src/bench/fit.c). */
#include <math.h>

#include "bench/bench.h"
#include "bench/stats.h"
#include "test.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static void median_odd_even(void)
{
	double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};

	CHECK(stats_median(odd, 3) == 3);
	CHECK(stats_median(even, 4) == 2.5);
	/* the input is left in its order */
	CHECK(odd[0] == 5 && odd[1] == 1 && odd[2] == 3);
	CHECK(stats_median(odd, 0) == 0);
}

static void spread_and_cv(void)
{
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	struct stats s;

	stats_compute(v, 8, &s);
	CHECK(s.n == 8);
	CHECK(s.min == 2 && s.max == 9);
	CHECK(s.mean == 5);
	CHECK(s.median == 4.5);
	/* sample standard deviation: sqrt(32 / 7) */
	CHECK(NEAR(s.stddev, sqrt(32.0 / 7), 1e-12));
	CHECK(NEAR(s.cv, sqrt(32.0 / 7) / 5, 1e-12));
}

static void one_and_none(void)
{
	double v[] = {3.5};
	struct stats s;

	stats_compute(v, 1, &s);
	CHECK(s.median == 3.5 && s.min == 3.5 && s.max == 3.5);
	CHECK(s.stddev == 0 && s.cv == 0);
	stats_compute(v, 0, &s);
	CHECK(s.n == 0 && s.median == 0 && s.cv == 0);
}

static void identical_samples_have_no_spread(void)
{
	double v[] = {7, 7, 7, 7, 7};
	struct stats s;

	stats_compute(v, 5, &s);
	CHECK(s.cv == 0 && s.stddev == 0 && s.median == 7);
}

static void crossover_rules(void)
{
	/* GPU wins from index 2 on */
	double cpu1[] = {1, 2, 4, 8, 16}, gpu1[] = {5, 5, 3, 4, 5};
	/* GPU wins at 1 but loses at 2: only the tail that stays won counts */
	double cpu2[] = {1, 2, 4, 8}, gpu2[] = {5, 1, 5, 4};
	/* never */
	double cpu3[] = {1, 2, 3}, gpu3[] = {2, 3, 4};
	/* a point not measured (0) neither breaks nor extends the tail */
	double cpu4[] = {1, 2, 0, 8}, gpu4[] = {5, 1, 3, 4};
	/* ties go to the CPU */
	double cpu5[] = {1, 2}, gpu5[] = {1, 2};

	CHECK(bench_crossover(cpu1, gpu1, 5) == 2);
	CHECK(bench_crossover(cpu2, gpu2, 4) == 3);
	CHECK(bench_crossover(cpu3, gpu3, 3) == -1);
	CHECK(bench_crossover(cpu4, gpu4, 4) == 1);
	CHECK(bench_crossover(cpu5, gpu5, 2) == -1);
	CHECK(bench_crossover(cpu1, gpu1, 0) == -1);
}

/* fit's matmul at 10^9 elements once wrote past its arrays: sqrt rounded up gave 31623^2 */
static void fit_side_stays_within_the_arrays(void)
{
	static const double sizes[] = {1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 3, 1};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = bench_fit_side(sizes[i]);

		CHECK((double)n * (double)n <= sizes[i]);
		CHECK((double)(n + 1) * (double)(n + 1) > sizes[i]);
	}
	CHECK(bench_fit_side(1e9) == 31622);
	CHECK(bench_fit_side(1e8) == 10000);
	CHECK(bench_fit_side(0) == 0);
}

int main(void)
{
	RUN(median_odd_even);
	RUN(spread_and_cv);
	RUN(one_and_none);
	RUN(identical_samples_have_no_spread);
	RUN(crossover_rules);
	RUN(fit_side_stays_within_the_arrays);
	return TEST_DONE();
}
