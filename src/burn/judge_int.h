/*
 * judge_int.h: what burn's judge shares between its files: judge.c (the run's counters, the
 * telemetry, siblings, the verdict) and judge_phases.c (the bandwidth, GPU-to-GPU and power
 * phases' rules). Thresholds are named here when both files use them.
 */
#ifndef GPUVET_BURN_JUDGE_INT_H
#define GPUVET_BURN_JUDGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../checks/finding.h"
#include "judge.h"

/* A reason explains a low clock when active in at least half the loaded samples: the median
 * is low, so most samples are. */
#define BURN_REASON_EXPLAINS_SHARE 0.50
/* "At full clock": the median SM clock at 90 % of its maximum or more. */
#define BURN_CLOCK_FULL_SHARE 0.90
/* Bandwidth (burn/bandwidth.h): on the H200 a copy moves ~89 % of the HBM peak (4.3 of 4.8
 * TB/s) and a pinned copy 55 GB/s, 87 % of Gen5 x16's line rate (docs/bench.md), which the
 * expected figure takes at 80 %; under 70 % of the HBM peak or 60 % of the link's expected rate (a
 * Gen5 x16 card that trained at Gen4 or x8 lands at ~50 %) is a fault, and so is 15 % below
 * siblings of the same model, which judges a model whose figures nobody knows. */
#define BURN_BW_DEVICE_SHARE  0.70
#define BURN_BW_LINK_SHARE    0.60
#define BURN_BW_SIBLING_SHARE 0.85
/* The power phase: a GPU under the products that draw most sits at its limit (an H200 at
 * 700 W, SW_POWER_CAP set, the SM clock below max); its mean over the phase's last half (the
 * clocks and fans have settled) under 90 % of the limit, with the clock below 90 % of max and
 * neither the power cap nor heat active in half the samples, is held back by something else. */
#define BURN_POWER_REACHED_SHARE 0.90


/* Seconds from the run's start, for evidence. */
double burn_j_secs(int64_t t_ns);
/* The median of v[0..n-1] (sorted in place); n > 0. */
double burn_j_median(double *v, size_t n);
/* Clock-event bits as words: "SW_POWER_CAP, HW_SLOWDOWN". */
void burn_j_ce_names(unsigned ce, char *buf, size_t n);
/* The board's line of evidence: model, serial, PCI slot. */
void burn_j_evidence_board(struct finding *f, const struct burn_gpu_run *g);

/* judge_phases.c */
void burn_judge_bandwidth(const struct burn_gpu_run *gpus, size_t n, size_t me,
			  struct findings *out);
void burn_bw_evidence(struct finding *f, const struct burn_bw *bw);
void burn_judge_p2p(const struct burn_gpu_run *g, struct findings *out);
void burn_p2p_evidence(struct finding *f, const struct burn_gpu_run *g);
/* The power phase's verdict; start is where this GPU's findings begin in out. */
void burn_judge_power(const struct burn_gpu_run *g, struct findings *out, size_t start);

#endif
