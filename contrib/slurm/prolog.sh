#!/bin/sh
# prolog.sh: before each job, a quick look at the GPUs. On a failure gpuvet has already drained
# the node with its own reason; the prolog then exits 1 so that Slurm requeues the job instead
# of starting it on a bad GPU (slurmctld also drains the node, "Prolog error": see
# docs/slurm.md). Warnings, a slow slurmctld (exit 3) or gpuvet's own trouble never block jobs.
PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
export PATH
gpuvet doctor --slurm --timeout 20 >/dev/null 2>&1
[ $? -eq 2 ] && exit 1
exit 0
