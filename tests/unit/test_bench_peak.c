/* test_bench_peak.c: the peak formulas of bench (src/bench/peak.c) on the H200's own attributes
 * (as CUDA and NVML report them on driver 580) against the datasheet, and the busbw factor. */
#include <math.h>

#include "bench/peak.h"
#include "test.h"

#define WITHIN(v, want, rel) (fabs((v) - (want)) <= (rel) * (want))

/* H200 SXM: 132 SMs, 1980 MHz max SM clock, memory 3201 MHz, 6016-bit bus, PCIe 5.0 x16,
 * 18 NVLinks (probe of 2026-11-30, reference/h200x2-probe.txt) */
static void h200_memory_matches_datasheet(void)
{
	double hbm = peak_hbm_bytes(3201, 6016);

	/* 3201e6 x 2 x 752 bytes = 4.815 TB/s; the datasheet says 4.8 */
	CHECK(WITHIN(hbm, 4.815e12, 1e-3));
	CHECK(WITHIN(hbm, 4.8e12, 0.01));
	/* H100 SXM: 2619 MHz x 5120 bit = 3.35 TB/s */
	CHECK(WITHIN(peak_hbm_bytes(2619, 5120), 3.35e12, 0.01));
	CHECK(peak_hbm_bytes(0, 6016) == 0 && peak_hbm_bytes(3201, 0) == 0);
}

static void h200_compute_matches_datasheet(void)
{
	/* at the 1980 MHz max clock */
	CHECK(WITHIN(peak_flops(9, 0, 132, 1980, PREC_FP64), 66.9e12, 0.005));
	CHECK(WITHIN(peak_flops(9, 0, 132, 1980, PREC_FP32), 66.9e12, 0.005));
	CHECK(WITHIN(peak_flops(9, 0, 132, 1980, PREC_BF16), 1070.5e12, 0.005));
	CHECK(WITHIN(peak_flops(9, 0, 132, 1980, PREC_FP16), 1070.5e12, 0.005));
	CHECK(WITHIN(peak_flops(9, 0, 132, 1980, PREC_TF32), 535.2e12, 0.005));
	CHECK(WITHIN(peak_flops(9, 0, 132, 1980, PREC_FP8), 2141e12, 0.005));
	/* the datasheet's tensor figures are the same formula at 1830 MHz */
	CHECK(WITHIN(peak_flops(9, 0, 132, 1830, PREC_BF16), 989.4e12, 0.002));
	CHECK(WITHIN(peak_flops(9, 0, 132, 1830, PREC_TF32), 494.7e12, 0.002));
	CHECK(WITHIN(peak_flops(9, 0, 132, 1830, PREC_FP8), 1978.9e12, 0.002));
	/* A100: 312 TFLOP/s bf16 at 108 SMs x 1410 MHz, 19.5 fp64 tensor */
	CHECK(WITHIN(peak_flops(8, 0, 108, 1410, PREC_BF16), 312e12, 0.005));
	CHECK(WITHIN(peak_flops(8, 0, 108, 1410, PREC_FP64), 19.5e12, 0.005));
}

static void tensor_flags_and_unknowns(void)
{
	bool tensor = true;

	CHECK(peak_fma_per_clk_sm(9, 0, PREC_BF16, &tensor) == 2048 && tensor);
	CHECK(peak_fma_per_clk_sm(9, 0, PREC_FP32, &tensor) == 128 && !tensor);
	CHECK(peak_fma_per_clk_sm(9, 0, PREC_FP64, &tensor) == 128 && tensor);
	CHECK(peak_fma_per_clk_sm(8, 6, PREC_FP64, &tensor) == 2 && !tensor);
	/* no fp8 before Ada, no bf16 before Ampere; unknown generations are n/a, never a guess */
	CHECK(peak_fma_per_clk_sm(8, 0, PREC_FP8, NULL) == 0);
	CHECK(peak_fma_per_clk_sm(7, 5, PREC_BF16, NULL) == 0);
	CHECK(peak_flops(99, 0, 132, 1980, PREC_BF16) == 0);
	CHECK(peak_flops(9, 0, 0, 1980, PREC_BF16) == 0);
	CHECK(peak_fma_per_clk_sm(9, 0, PREC_COUNT, NULL) == 0);
}

static void pcie_and_nvlink(void)
{
	/* Gen5 x16: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s per direction */
	CHECK(WITHIN(peak_pcie_bytes(5, 16), 63.015e9, 1e-3));
	CHECK(WITHIN(peak_pcie_bytes(4, 16), 31.5e9, 1e-3));
	CHECK(WITHIN(peak_pcie_bytes(3, 16), 15.75e9, 1e-3));
	CHECK(WITHIN(peak_pcie_bytes(2, 8), 4e9, 1e-9));
	CHECK(peak_pcie_bytes(0, 16) == 0 && peak_pcie_bytes(7, 16) == 0 &&
	      peak_pcie_bytes(5, 0) == 0);
	/* H200: 18 links x 26.5625 GB/s per direction */
	CHECK(WITHIN(peak_nvlink_bytes(9, 0, 18), 478.125e9, 1e-9));
	CHECK(WITHIN(peak_nvlink_bytes(8, 0, 12), 300e9, 1e-9));
	CHECK(peak_nvlink_bytes(9, 0, 0) == 0);
	CHECK(peak_nvlink_bytes(5, 0, 4) == 0);
}

static void busbw_factor(void)
{
	CHECK(peak_allreduce_busbw_factor(2) == 1.0);
	CHECK(peak_allreduce_busbw_factor(4) == 1.5);
	CHECK(peak_allreduce_busbw_factor(8) == 1.75);
	CHECK(peak_allreduce_busbw_factor(1) == 0);
	CHECK(peak_allreduce_busbw_factor(0) == 0);
}

static void precision_names(void)
{
	CHECK_STR(peak_prec_name(PREC_FP64), "fp64");
	CHECK_STR(peak_prec_name(PREC_FP8), "fp8");
	CHECK_STR(peak_prec_name(-1), "?");
}

int main(void)
{
	RUN(h200_memory_matches_datasheet);
	RUN(h200_compute_matches_datasheet);
	RUN(tensor_flags_and_unknowns);
	RUN(pcie_and_nvlink);
	RUN(busbw_factor);
	RUN(precision_names);
	return TEST_DONE();
}
