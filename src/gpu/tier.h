/*
 * tier.h: which tier of the probe fills each reading of struct gpu, kept once (tier.c).
 *
 * The probe reads in tiers (probe.h): static facts, the fast tier in groups (enum probe_fast),
 * the health counters. The collector copies a tier's readings from its working copy into the
 * shared snapshot, the TUI asks which groups and tiers a column needs, and `status` asks
 * whether a --query needs more than its table's probe: all read this table, so a reading is
 * moved between tiers in one place.
 */
#ifndef GPUVET_TIER_H
#define GPUVET_TIER_H

#include <stdbool.h>
#include <stddef.h>

#include "device.h"

enum member_tier {
	MT_STATIC, /* a static fact (struct gpu_static), read once */
	MT_FAST,   /* the fast tier, every tick (PROBE_FAST, the collector's fast tier) */
	MT_HEALTH, /* the health counters, PCIe throughput and energy (the slow tier) */
};

struct tier_member {
	size_t off;	     /* of a struct num or struct text in struct gpu */
	enum member_tier tier;
	unsigned fast_group; /* enum probe_fast: the group whose call fills it (MT_FAST), or 0 */
	bool table;	     /* read by `status`'s table probe (PROBE_BRIEF | PROBE_TABLE | PROBE_ECC) */
};

/* The member at offset off of struct gpu, or NULL when no tier table row names it. */
const struct tier_member *tier_find(size_t off);
/* Copy the readings of tier t (MT_FAST or MT_HEALTH) from s into d. */
void tier_copy(struct gpu_sample *d, const struct gpu_sample *s, enum member_tier t);
/* Copy the readings of the fast tier filled by the groups in mask (enum probe_fast) from s
 * into d: what a probe that read only those groups would hold. */
void tier_copy_groups(struct gpu_sample *d, const struct gpu_sample *s, unsigned mask);
/* The fast groups `status`'s table reads (enum probe_fast). */
unsigned tier_table_groups(void);

#endif
