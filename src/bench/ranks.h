/*
 * ranks.h: `gpuvet bench allreduce` across processes: one process per GPU, started by srun or
 * mpirun (or by hand with the rank variables set), joined in one NCCL communicator.
 *
 *   bench_ranks_detect    rank, size and local rank from the launcher's environment
 *   bench_ranks_share_id  rank 0's ncclUniqueId to every rank: a file in a shared folder
 *                         (--rendezvous DIR, else the Slurm job's submit folder, else the
 *                         current one) or TCP from rank 0 (MASTER_ADDR, MASTER_PORT)
 *
 * Used by bench/allreduce.c (the run) and cmd/bench.c (which GPU this process drives, and only
 * rank 0 prints). docs/bench.md, "All-reduce across processes and nodes".
 */
#ifndef GPUVET_BENCH_RANKS_H
#define GPUVET_BENCH_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

struct bench_ranks {
	int rank, size, local_rank;
	const char *launcher;   /* "srun", "mpirun", "pmi", "torchrun-style" */
	const char *rendezvous; /* --rendezvous DIR; NULL: the default */
	char id_file[512];      /* the file used ("" TCP), for rank 0 to remove */
};

/* Fill r from SLURM_PROCID / SLURM_STEP_NUM_TASKS / SLURM_LOCALID (srun),
 * OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK (Open MPI), PMI_RANK / PMI_SIZE with
 * MPI_LOCALRANKID (MPICH, Intel MPI) or RANK / WORLD_SIZE / LOCAL_RANK (torchrun's names), the
 * first complete set. Returns true when there are two processes or more; -1 in *bad (e filled,
 * EXIT_USAGE) when a set is malformed (a rank past the size). */
bool bench_ranks_detect(struct bench_ranks *r, int *bad, struct err *e);

/*
 * Hand len bytes of id from rank 0 to every rank within timeout_ms: rank 0 writes them (its
 * argument), the others read them into id. Through TCP when MASTER_ADDR and MASTER_PORT are set
 * and no --rendezvous was given (rank 0 listens on MASTER_PORT and answers size - 1 ranks), else
 * through a file named after the Slurm job and step (or the MPI job) in the rendezvous folder,
 * written under a temporary name and renamed, so a reader never sees half of it.
 */
int bench_ranks_share_id(struct bench_ranks *r, void *id, size_t len, int timeout_ms,
			 struct err *e);
/* Rank 0, once every rank has joined: remove the id's file. */
void bench_ranks_done(struct bench_ranks *r);

#endif
