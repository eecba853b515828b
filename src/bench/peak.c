/* peak.c: theoretical peaks from device attributes (see peak.h and docs/bench.md). */
#include "peak.h"

#include <stddef.h>

static const char *const prec_names[PREC_COUNT] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8"};

const char *peak_prec_name(int prec)
{
	return prec >= 0 && prec < PREC_COUNT ? prec_names[prec] : "?";
}

/*
 * Dense multiply-adds per clock per SM. Sources: the NVIDIA architecture whitepapers and
 * datasheets (V100, T4, A100, A10/L40S, H100/H200, B200), each checked by dividing the quoted
 * dense peak by SMs x boost clock x 2. tensor marks the columns from fp64 (8.0 and later) on.
 * Columns: fp64, fp32, tf32, fp16, bf16, fp8; fp64_tensor says whether fp64 is a tensor rate.
 */
static const struct {
	int major, minor;
	int fma[PREC_COUNT];
	bool fp64_tensor;
} fma_table[] = {
	{7, 0, {32, 64, 0, 512, 0, 0}, false},            /* V100 */
	{7, 5, {2, 64, 0, 512, 0, 0}, false},             /* T4, Turing */
	{8, 0, {64, 64, 512, 1024, 1024, 0}, true},       /* A100 */
	{8, 6, {2, 128, 256, 512, 512, 0}, false},        /* A10, A40, Ampere GA10x */
	{8, 7, {2, 128, 256, 512, 512, 0}, false},        /* Orin */
	{8, 9, {2, 128, 256, 512, 512, 1024}, false},     /* L4, L40S, Ada */
	{9, 0, {128, 128, 1024, 2048, 2048, 4096}, true}, /* H100, H200 */
	{10, 0, {64, 128, 2048, 4096, 4096, 8192}, true}, /* B200 (lead: from the datasheet) */
};

int peak_fma_per_clk_sm(int cc_major, int cc_minor, int prec, bool *tensor)
{
	size_t i;

	if (tensor)
		*tensor = false;
	if (prec < 0 || prec >= PREC_COUNT)
		return 0;
	for (i = 0; i < sizeof(fma_table) / sizeof(fma_table[0]); i++) {
		if (fma_table[i].major != cc_major || fma_table[i].minor != cc_minor)
			continue;
		if (tensor)
			*tensor = prec == PREC_FP64 ? fma_table[i].fp64_tensor : prec >= PREC_TF32;
		return fma_table[i].fma[prec];
	}
	return 0;
}

double peak_flops(int cc_major, int cc_minor, int sms, double clock_mhz, int prec)
{
	int fma = peak_fma_per_clk_sm(cc_major, cc_minor, prec, NULL);

	if (fma <= 0 || sms <= 0 || clock_mhz <= 0)
		return 0;
	return (double)sms * clock_mhz * 1e6 * fma * 2.0;
}

double peak_hbm_bytes(double mem_clock_mhz, int bus_width_bits)
{
	if (mem_clock_mhz <= 0 || bus_width_bits <= 0)
		return 0;
	return mem_clock_mhz * 1e6 * 2.0 * bus_width_bits / 8.0;
}

double peak_pcie_bytes(int gen, int width)
{
	/* GT/s per lane and line-code efficiency: 8b/10b up to gen 2, 128b/130b for 3-5,
	 * FLIT mode (242 of 256 bytes carry data) for 6 */
	static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
	static const double enc[] = {0,           0.8,         0.8,        128.0 / 130,
				     128.0 / 130, 128.0 / 130, 242.0 / 256};

	if (gen < 1 || gen > 6 || width <= 0)
		return 0;
	return gts[gen] * 1e9 * width * enc[gen] / 8.0;
}

double peak_nvlink_link_bytes(int cc_major, int cc_minor)
{
	(void)cc_minor;
	switch (cc_major) {
	case 6: return 20e9;      /* NVLink 1 */
	case 7: return 25e9;      /* NVLink 2 */
	case 8: return 25e9;      /* NVLink 3 */
	case 9: return 26.5625e9; /* NVLink 4: 2 lanes x 106.25 Gb/s; NVIDIA quotes 25 GB/s */
	case 10: return 53.125e9; /* NVLink 5 */
	default: return 0;
	}
}

double peak_nvlink_bytes(int cc_major, int cc_minor, int links)
{
	if (links <= 0)
		return 0;
	return links * peak_nvlink_link_bytes(cc_major, cc_minor);
}

double peak_allreduce_busbw_factor(int nranks)
{
	if (nranks < 1)
		return 0;
	return 2.0 * (nranks - 1) / nranks;
}
