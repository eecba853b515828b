/*
 * fields.h: the named fields of the device model, for `status --query`, JSON output and any
 * later front end (watch, serve).
 *
 * Each field has gpuvet's own JSON key (with its unit: power_mw, mem_used_bytes) and, where
 * nvidia-smi has the same reading, nvidia-smi's --query-gpu name and unit, so scripts can swap
 * `nvidia-smi --query-gpu=... --format=csv` for `gpuvet status --query ... --format csv`.
 */
#ifndef GPUVET_FIELDS_H
#define GPUVET_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

enum field_kind {
	FK_NUM,	   /* a struct num, shown as v / div with `decimals` decimals */
	FK_TEXT,   /* a struct text */
	FK_ENABLED, /* struct num 0/1: Disabled/Enabled */
	FK_YESNO,  /* struct num 0/1: No/Yes */
	FK_PSTATE, /* struct num: P0..P15 */
	FK_HEX,	   /* struct num: 0x%016llx */
	FK_ACTIVE, /* one bit of a struct num: Active/Not Active */
	FK_COMPUTE_MODE,
	FK_RECOVERY,
	FK_CC,	   /* compute capability major.minor */
	FK_INDEX,
	FK_SYS_TEXT,  /* a struct text of struct gpu_system */
	FK_SYS_NUM,   /* a struct num of struct gpu_system */
	FK_TIMESTAMP,
	FK_FABRIC_STATE,
	FK_VENDOR, /* struct gpu's vendor byte: NVIDIA, AMD, Intel */
};

struct field {
	const char *smi;  /* nvidia-smi's --query-gpu name, or NULL when it has none */
	const char *key;  /* gpuvet's JSON key, or NULL when only the nvidia-smi name exists */
	const char *unit; /* unit shown after values and in csv headers ("MiB"), or NULL */
	enum field_kind kind;
	size_t off;	  /* offset in struct gpu (or struct gpu_system for FK_SYS_*) */
	int64_t div;	  /* display divisor (1 when none) */
	int decimals;
	uint64_t bit;	  /* FK_ACTIVE */
};

struct field_out {
	enum val_state st;
	bool is_text;	 /* JSON string rather than number */
	double num;	 /* scaled for display */
	int64_t raw;	 /* the stored integer */
	char text[128];	 /* the value as nvidia-smi would print it, without unit */
	const char *call;
	int rc;
	unsigned char lib;
};

/* Look a field up by nvidia-smi name (or alias) or by gpuvet key; NULL when unknown. */
const struct field *field_find(const char *name);
/* A parsed field list ("index,name, power.draw"): what `status --query` prints. */
struct field_list {
	const struct field **v;
	const char **names; /* each field as the list spells it, trimmed: the column headers */
	size_t n;
	const char *unknown; /* the first name that is no field, or NULL */
	char *buf;           /* the copy of the list that names and unknown point into */
};
/* Split list at commas, trim blanks, skip empty names and look each one up. Returns 0 (n may
 * be 0), or -1 with l->unknown set; either way l holds heap memory: field_list_free(l). */
int field_list_parse(const char *list, struct field_list *l);
void field_list_free(struct field_list *l);
/* All fields, for docs and --help-query. */
const struct field *field_all(size_t *n);
/* Evaluate a field for one GPU. */
void field_get(const struct field *f, const struct gpu_system *sys, const struct gpu *g,
	       struct field_out *out);
/* The probe flags (gpu/probe.h) f needs beyond PROBE_NVML | PROBE_STATIC | PROBE_SAMPLE: the
 * readings too slow to take unless asked (sm_count needs CUDA, processes their list, energy and
 * PCIe throughput the slow tier, cpu_affinity the slow static facts); 0 for the others. */
unsigned field_probe_flags(const struct field *f);
/* "Not Supported (3)" for an NVML or CUDA code, as stored in struct num. */
const char *field_error_text(unsigned char lib, int rc, char *buf, size_t n);

/* ---- `status --query-compute-apps`: one row per compute process of each GPU -------------- */
enum app_field_kind {
	AF_TIMESTAMP,
	AF_GPU_NAME,
	AF_GPU_BUS_ID,
	AF_GPU_SERIAL,
	AF_GPU_UUID,
	AF_PID,
	AF_PROCESS_NAME,
	AF_USED_MEMORY,
};

struct app_field {
	const char *smi;   /* nvidia-smi's --query-compute-apps name: also the CSV header */
	const char *alias; /* its other spelling ("used_memory"), or NULL */
	const char *unit;
	enum app_field_kind kind;
};

struct app_field_list {
	const struct app_field **v;
	size_t n;
	const char *unknown; /* the first name that is no field, or NULL */
	char *buf;
};

/* Look a compute-app field up by name or alias; NULL when unknown. */
const struct app_field *app_field_find(const char *name);
/* All of them, for --help-query. */
const struct app_field *app_field_all(size_t *n);
/* As field_list_parse; free with app_field_list_free. */
int app_field_list_parse(const char *list, struct app_field_list *l);
void app_field_list_free(struct app_field_list *l);
/* Evaluate f for process p of GPU g. process_name is the caller's (read from the host's
 * /proc), or NULL when it could not be read: then the value is "not supported". */
void app_field_get(const struct app_field *f, const struct gpu *g, const struct gpu_proc *p,
		   const char *process_name, struct field_out *o);

#endif
