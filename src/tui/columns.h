/*
 * columns.h: the per-GPU columns `gpuvet watch` can print: nvidia-smi dmon's short names
 * (pwr gtemp mtemp sm mem fb mclk pclk rxpci txpci ...), the collector's own values (GPM
 * activity, NVLink traffic, throttle shares) and every field of gpu/fields.c under its
 * nvidia-smi --query-gpu name or gpuvet key. No curses here.
 */
#ifndef GPUVET_COLUMNS_H
#define GPUVET_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>

#include "../gpu/collector.h"
#include "../gpu/fields.h"

enum col_kind { COL_INDEX, COL_NUM, COL_MON, COL_FIELD, COL_REASONS, COL_STATE };

/* Values the collector derives (struct mon_gpu), for COL_MON. */
enum mon_value {
	MV_PCIE_RX, MV_PCIE_TX, MV_NVLINK_RX, MV_NVLINK_TX, MV_ENERGY_POWER,
	MV_SM_ACTIVE, MV_SM_OCCUPANCY, MV_TENSOR_ACTIVE, MV_DRAM_ACTIVE,
	MV_POWER_CAPPED, MV_THERMAL_CAPPED, MV_NPROCS,
};

struct column {
	const char *name; /* header */
	const char *unit; /* second header line / csv unit, "" none */
	const char *key;  /* JSON key */
	int width;
	enum col_kind kind;
	size_t off;	  /* COL_NUM: offset of a struct num in struct gpu */
	int mv;		  /* COL_MON: enum mon_value */
	const struct field *f; /* COL_FIELD */
	int64_t div;	  /* text = v / div */
	int decimals;
	double json_div;  /* JSON number = v / json_div (1: the raw base-unit integer) */
	unsigned need_fast; /* enum probe_fast groups */
	bool need_slow, need_gpm, need_procs;
};

/* The column named name (a dmon name, a collector value, or a fields.c name); false when
 * unknown. */
bool column_find(const char *name, struct column *out);
/* dmon's default metric groups: power and temperatures, utilisation, clocks */
#define COLUMN_DEFAULT_GROUPS "puc"
/* The columns of dmon's metric groups (-s: p u c v m e t, any order, each once or more),
 * after the GPU index, in dmon's column order, into out (at most max; *n of them). Returns 0,
 * or the first letter that names no group. */
int column_groups(const char *letters, struct column *out, size_t max, size_t *n);
/* The default columns, dmon's (COLUMN_DEFAULT_GROUPS), and the GPM columns when gpm is
 * true. Returns how many were written (at most max). */
size_t column_defaults(struct column *out, size_t max, bool gpm);
/* The value of c for one GPU: text (fixed for people), and for JSON either a number
 * (*is_num) or a string; false when there is no value (n/a). */
bool column_value(const struct column *c, const struct mon_snapshot *s, const struct mon_gpu *mg,
		  char *text, size_t n, double *num, bool *is_num);
/* The names accepted by column_find, for --help-fields. */
void column_list(void (*print)(const char *name, const char *unit, const char *what));

const struct num *mon_value_of(const struct mon_gpu *mg, int mv);

#endif
