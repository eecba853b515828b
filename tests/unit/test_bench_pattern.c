/* test_bench_pattern.c: the GEMM operands of `gpuvet bench gemm` (src/kernels/pattern.h, the
 * same code the fill kernel runs): normal(0, 1) by default, signed, deterministic, finite; the
 * older uniform fills keep their ranges. */
#include <math.h>

#include "kernels/pattern.h"
#include "test.h"

#define SAMPLES 200000

static void normal_moments(void)
{
	double sum = 0, sq = 0, four = 0, most = 0;
	int neg = 0, small = 0, i;

	for (i = 0; i < SAMPLES; i++) {
		double z = gv_gemm_value(0x243f6a8885a308d3ull, (uint64_t)i, GV_DIST_NORMAL);

		CHECK(isfinite(z));
		sum += z;
		sq += z * z;
		four += z * z * z * z;
		neg += z < 0;
		small += fabs(z) < 0.0625;
		if (fabs(z) > most)
			most = fabs(z);
	}
	/* mean 0, variance 1, kurtosis 3 (a uniform fill has 1.8 and fails here), within a few
	 * standard errors of SAMPLES draws */
	CHECK(fabs(sum / SAMPLES) < 0.01);
	CHECK(fabs(sq / SAMPLES - 1) < 0.02);
	CHECK(fabs(four / SAMPLES - 3) < 0.1);
	CHECK(neg > SAMPLES * 0.49 && neg < SAMPLES * 0.51);
	/* |z| < 1/16 about 5% of the time: the small values a [1/16, 1) fill never has */
	CHECK(small > SAMPLES * 0.045 && small < SAMPLES * 0.055);
	CHECK(most < 6.7);
}

static void deterministic_and_seeded(void)
{
	CHECK(gv_normal(1, 7) == gv_normal(1, 7));
	CHECK(gv_normal(1, 7) != gv_normal(2, 7));
	CHECK(gv_normal(1, 7) != gv_normal(1, 8));
}

static void uniform_ranges(void)
{
	int i, neg = 0;

	for (i = 0; i < 10000; i++) {
		double u = gv_gemm_value(5, (uint64_t)i, GV_DIST_UNIFORM);
		double p = gv_gemm_value(5, (uint64_t)i, GV_DIST_POSITIVE);

		CHECK(fabs(u) >= 0.0625 && fabs(u) < 1);
		CHECK(p >= 0.0625 && p < 1);
		neg += u < 0;
	}
	CHECK(neg > 4500 && neg < 5500);
}

int main(void)
{
	RUN(normal_moments);
	RUN(deterministic_and_seeded);
	RUN(uniform_ranges);
	return TEST_DONE();
}
