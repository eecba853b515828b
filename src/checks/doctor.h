/*
 * doctor.h: the doctor's pipeline, used by `gpuvet doctor` and `gpuvet record`.
 *
 *   doctor_collect   host facts (files only), then the vendor probe under the watchdog
 *   doctor_check     every check, bottom up, then echoes folded under their cause
 *
 * The report, human text or JSON, is cmd/'s (cmd/doctor_report.h).
 *
 * To add a check you touch:
 *   1. src/checks/<name>.c: its finding definitions (ids "<name>.<what>", all of its layer), its
 *      function and `const struct check check_<name>` (catalog.h);
 *   2. src/checks/catalog.c: its extern and its place in doctor_checks[], bottom up
 *      (test_checks_host.c's check_table checks the order, the layers and the ids);
 *   3. docs/findings.md: a section per id (tests/cli/findings_doc.sh checks);
 *   4. a test: a scenario in tests/scenarios/faults/ with its "expect" (docs/scenarios.md), or a
 *      unit test when the check reads files a scenario cannot hold.
 * A new finding in an existing check touches only 1, 3 and 4. A check that needs a fact doctor
 * does not collect yet also touches host/ (a collector, facts.h) or gpu/ (the probe), and for a
 * new NVML or CUDA call vendor/ and the fake libraries of tests/nvml-replay/.
 */
#ifndef GPUVET_DOCTOR_H
#define GPUVET_DOCTOR_H

#include <stdint.h>

#include "../gpu/device.h"
#include "../gpu/opencl.h"
#include "../host/facts.h"
#include "../util/err.h"
#include "finding.h"

struct doctor_input {
	struct host_facts facts;
	struct gpu_system sys;
	struct cl_facts cl; /* OpenCL's ICDs and platforms (gpu/opencl.h), after the probe */
	int64_t facts_ns, probe_ns; /* time spent on each phase */
};

/* Fill every part of the host facts (host/facts.h), in its order; never fails as a whole. */
void facts_collect(struct host_facts *f);

/* Collect facts then probe with probe_flags (gpu/probe.h). A hung vendor call is not an
 * error here: in->sys.hung is set and doctor reports it. Returns -1 only when gpuvet itself
 * cannot go on (e filled). */
int doctor_collect(struct doctor_input *in, unsigned probe_flags, struct err *e);
void doctor_input_free(struct doctor_input *in);

/* Run every check (catalog.c's table, bottom up) and fold symptoms under the lowest failing
 * cause. */
void doctor_check(const struct doctor_input *in, struct findings *out);

/* True on a machine of other vendors' GPUs that never had NVIDIA's stack (doctor.c). */
bool doctor_other_vendor_only(const struct host_facts *h);

/* A number for an evidence line: its value in decimal, or "n/a" when it was not read. The
 * text lives in buf. */
const char *fact_num(const struct num *n, char *buf, size_t len);

#endif
