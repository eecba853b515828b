/*
 * judge.h: burn's verdict: telemetry sampled through a stress run, and the run's own counters,
 * turned into findings per GPU (checks/finding.h: id, severity, evidence, fix).
 *
 * Telemetry is judged, not shown: heat and its margin, power against the limit, the SM clock
 * against its maximum, clock-event reasons, ECC, remapped-row, PCIe-replay and Xid deltas
 * between the first and the last sample, and each GPU against its siblings of the same model
 * in the same run (clock, power, throughput), so a model nobody profiled is still judged.
 * Pure logic: no vendor calls, no printing; the samples come from the collector (live) or a
 * replayed timeline, which is how CI tests every rule.
 */
#ifndef GPUVET_BURN_JUDGE_H
#define GPUVET_BURN_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../checks/finding.h"
#include "../gpu/value.h"
#include "bandwidth.h"
#include "memtest.h"

/* One telemetry sample of one GPU during the run. Unread values are not VAL_OK (never 0). */
struct burn_sample {
	int64_t t_ns;		  /* monotonic, from the run's start */
	unsigned phase;		  /* the BURN_MODE_* (burn/stress.h) running then, 0 between */
	struct num temp_c, temp_slowdown_c;
	struct num power_mw, power_limit_mw;
	struct num sm_mhz, sm_max_mhz;
	struct num clock_events;  /* CE_* bits active now, as struct gpu has them (gpu/device.h) */
	struct num ecc_corrected, ecc_uncorrected; /* volatile totals */
	struct num remap_pending, remap_failure;   /* 1 when set */
	struct num remapped_uncorrectable;
	struct num pcie_replays;
	struct num pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
	double tflops;		  /* the stress's rate over the last interval; < 0 when none */
};

/* What the run itself counted for one GPU. */
struct burn_counts {
	uint64_t products;	   /* matrix products done */
	uint64_t compare_errors;   /* result elements that differ between result buffers */
	uint64_t reference_errors; /* elements off the independent reference */
	uint64_t nan_inf;	   /* NaN or Inf elements in results */
	uint64_t mem_errors;	   /* memory test words read back wrong */
	unsigned xid_new;	   /* Xid lines for this GPU that appeared during the run */
	int xid_last;		   /* the last such Xid code, or -1 */
	bool hung, lost;	   /* the watchdog gave up on it / it fell off the bus */
	const char *hung_phase;	   /* hung: the phase it was in ("compute"), NULL unknown */
	double hung_s;		   /* hung: seconds without progress when the watchdog gave up */
	double hung_limit_s;	   /* hung: the watchdog's limit then */
	char lost_how[200];	   /* lost: what said so (the CUDA error, NVML), "" unknown */
	bool stopped;		   /* Ctrl-C or SIGTERM: the verdict is partial */
};

struct burn_gpu_run {
	int index;		   /* NVML index */
	char name[96];		   /* "NVIDIA H200" */
	char serial[64];	   /* the board's serial, "" when unread */
	char bus_id[32];	   /* PCI slot */
	const struct burn_sample *s;
	size_t n;
	struct burn_counts c;
	unsigned modes;		       /* the phases that ran (BURN_MODE_* bits) */
	const struct burn_memtest *mem; /* the memory phase's result, NULL when it did not run */
	const struct burn_bw *bw;	/* the bandwidth phase's, NULL when it did not run */
	/* the run's GPU-to-GPU pairs (bandwidth.h), the same array in every GPU's run: each GPU
	 * is judged on the pairs that name it; NULL when none were measured */
	const struct burn_p2p *p2p;
	size_t np2p;
};

/*
 * Judge every GPU of a run: appends findings (ids burn.*, defined in judge.c and
 * docs/findings.md) to out, one or more per GPU: burn.pass when nothing is wrong, else a
 * finding per reason with its evidence (the values and when they were seen) and the next
 * step (reseat, swap slots, RMA, check cooling). Returns the worst severity found.
 */
enum severity burn_judge(const struct burn_gpu_run *gpus, size_t n, struct findings *out);

#endif
