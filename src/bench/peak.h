/*
 * peak.h: what the hardware should deliver, from the device's own attributes. Every benchmark
 * figure is also shown as a share of one of these. The formulas, the tables behind them and
 * how they compare with the datasheets are in docs/bench.md; tests/unit/test_bench_peak.c
 * checks them against the H200's attributes.
 *
 *   HBM      memory clock (MHz) x 2 (double data rate) x bus width (bits) / 8
 *   PCIe     transfer rate of the generation (GT/s) x lanes x line-code efficiency / 8,
 *            per direction
 *   NVLink   active links x per-link rate of the NVLink generation, per direction
 *   compute  SMs x SM clock x dense multiply-adds per clock per SM for the precision x 2
 */
#ifndef GPUVET_BENCH_PEAK_H
#define GPUVET_BENCH_PEAK_H

#include <stdbool.h>

enum bench_prec { PREC_FP64 = 0, PREC_FP32, PREC_TF32, PREC_FP16, PREC_BF16, PREC_FP8, PREC_COUNT };

/* "fp64", "fp32", "tf32", "fp16", "bf16", "fp8" */
const char *peak_prec_name(int prec);

/*
 * Dense multiply-adds per clock per SM on compute capability major.minor for what cuBLASLt runs
 * at that precision (fp64 on tensor cores where they do fp64, fp32 on the CUDA cores, the rest
 * on tensor cores); 0 when the GPU has no such path or the generation is not in our table.
 * *tensor (may be NULL) says whether the figure is a tensor-core one.
 */
int peak_fma_per_clk_sm(int cc_major, int cc_minor, int prec, bool *tensor);
/* FLOP/s: sms x clock_mhz x 1e6 x fma x 2; 0 when unknown. */
double peak_flops(int cc_major, int cc_minor, int sms, double clock_mhz, int prec);

/* Bytes/s of the memory bus; 0 when an input is missing. */
double peak_hbm_bytes(double mem_clock_mhz, int bus_width_bits);
/* Bytes/s per direction of a PCIe link; 0 for an unknown generation. */
double peak_pcie_bytes(int gen, int width);
/* Bytes/s per direction of one NVLink of this GPU generation; 0 unknown. */
double peak_nvlink_link_bytes(int cc_major, int cc_minor);
double peak_nvlink_bytes(int cc_major, int cc_minor, int links);

/* nccl-tests' all-reduce bus-bandwidth factor: busbw = algbw x 2(n-1)/n; 0 for n < 1. */
double peak_allreduce_busbw_factor(int nranks);

#endif
