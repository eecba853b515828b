#!/bin/sh
# epilog.sh: after each job, check the GPUs before the next job lands on them: the Xid, ECC or
# lost GPU a job just hit drains the node with gpuvet's reason (docs/slurm.md).
# Always exits 0: a failing epilog makes slurmctld drain the node itself ("Epilog error"),
# a reason gpuvet never resumes.
PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin
export PATH
gpuvet doctor --slurm --timeout 30 >/dev/null 2>&1 || true
exit 0
