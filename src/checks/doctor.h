/*
 * doctor.h: the doctor's pipeline, used by `gpuvet doctor` and `gpuvet record`.
 *
 *   doctor_collect   host facts (files only), then the vendor probe under the watchdog
 *   doctor_check     every check, bottom up, then echoes folded under their cause
 *
 * The report, human text or JSON, is cmd/'s (cmd/doctor_report.h).
 */
#ifndef GPUVET_DOCTOR_H
#define GPUVET_DOCTOR_H

#include <stdint.h>

#include "../gpu/device.h"
#include "../host/facts.h"
#include "../util/err.h"
#include "finding.h"

struct doctor_input {
	struct host_facts facts;
	struct gpu_system sys;
	int64_t facts_ns, probe_ns; /* time spent on each phase */
};

/* Fill every part of the host facts (host/facts.h), in its order; never fails as a whole. */
void facts_collect(struct host_facts *f);

/* Collect facts then probe with probe_flags (gpu/probe.h). A hung vendor call is not an
 * error here: in->sys.hung is set and doctor reports it. Returns -1 only when gpuvet itself
 * cannot go on (e filled). */
int doctor_collect(struct doctor_input *in, unsigned probe_flags, struct err *e);
void doctor_input_free(struct doctor_input *in);

/* Run every check and fold symptoms under the lowest failing cause. */
void doctor_check(const struct doctor_input *in, struct findings *out);

/* A check: reads the input, adds findings. */
typedef void (*check_fn)(const struct doctor_input *in, struct findings *out);

/* checks/<layer>.c */
void check_platform(const struct doctor_input *in, struct findings *out);
void check_pci(const struct doctor_input *in, struct findings *out);
void check_module(const struct doctor_input *in, struct findings *out);
void check_devices(const struct doctor_input *in, struct findings *out);
void check_libraries(const struct doctor_input *in, struct findings *out);
void check_nvml(const struct doctor_input *in, struct findings *out);
void check_cuda(const struct doctor_input *in, struct findings *out);
void check_health(const struct doctor_input *in, struct findings *out);
void check_kernel_log(const struct doctor_input *in, struct findings *out);
void check_fabric(const struct doctor_input *in, struct findings *out);
void check_toolkit(const struct doctor_input *in, struct findings *out);
void check_framework(const struct doctor_input *in, struct findings *out);
void check_env(const struct doctor_input *in, struct findings *out);

#endif
