/*
 * doctor_slurm.h: `gpuvet doctor --slurm`, doctor as Slurm's HealthCheckProgram (and in a
 * prolog or epilog): drain the node on a failure, resume it when gpuvet drained it and it is
 * healthy again. doctor.c parses the options and calls doctor_slurm(); the rules are in
 * fleet/slurm.h, the Slurm side in docs/slurm.md and contrib/slurm/.
 */
#ifndef GPUVET_DOCTOR_SLURM_H
#define GPUVET_DOCTOR_SLURM_H

#include <stdbool.h>

#include "../checks/finding.h"

struct doctor_slurm_opts {
	bool json;
	bool dry_run;           /* print the scontrol update instead of running it */
	int timeout_s;          /* the whole doctor's limit (--timeout, default 50) */
	enum severity drain_at; /* SEV_FAIL, or SEV_WARN with --drain-on warning */
	const char *node;       /* --node; NULL: SLURMD_NODENAME, else `hostname -s` */
	unsigned probe_flags;   /* what doctor probes (gpu/probe.h) */
};

/* Run it all and print the outcome; returns the exit code (docs/slurm.md: doctor's 0, 1, 2,
 * or 3 when the node's state could not be read or changed and nothing failed). */
int doctor_slurm(const struct doctor_slurm_opts *o);

#endif
