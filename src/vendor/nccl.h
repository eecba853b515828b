/*
 * nccl.h: gpuvet's own declarations of the NCCL subset `gpuvet bench allreduce` uses.
 *
 * Written from nccl.h of NCCL 2.28; no NVIDIA header is needed to build. Opened with dlopen:
 * libnccl.so.2 by the usual search, then in the folders the caller passes (pip's
 * nvidia-nccl wheels: site-packages/nvidia/nccl/lib). GPUVET_NCCL_LIBRARY names a file and
 * replaces the search. One process drives every GPU (ncclCommInitAll), so no MPI is needed;
 * or, under srun or mpirun, one process per GPU joins one communicator (ncclGetUniqueId on rank
 * 0, ncclCommInitRank everywhere; the id travels through bench/allreduce_ranks.c).
 * Counterpart: cublaslt.h; caller: bench/allreduce.c.
 */
#ifndef GPUVET_NCCL_H
#define GPUVET_NCCL_H

#include <stddef.h>

#include "loader.h"

/* ncclResult_t */
enum {
	NCCL_SUCCESS = 0,
	NCCL_UNHANDLED_CUDA_ERROR = 1,
	NCCL_SYSTEM_ERROR = 2,
	NCCL_INTERNAL_ERROR = 3,
	NCCL_INVALID_ARGUMENT = 4,
	NCCL_INVALID_USAGE = 5,
	NCCL_REMOTE_ERROR = 6,
	NCCL_IN_PROGRESS = 7,
};

enum { NCCL_SUM = 0 };     /* ncclRedOp_t */
enum { NCCL_UINT64 = 5, NCCL_FLOAT32 = 7 }; /* ncclDataType_t */

/* ncclUniqueId: NCCL_UNIQUE_ID_BYTES of opaque bytes, passed by value to ncclCommInitRank */
#define NCCL_UNIQUE_ID_BYTES 128
struct nccl_unique_id {
	char internal[NCCL_UNIQUE_ID_BYTES];
};

typedef struct nccl_comm_st *nccl_comm; /* ncclComm_t */

struct nccl_api {
	int (*GetVersion)(int *);
	int (*CommInitAll)(nccl_comm *, int ndev, const int *devlist);
	int (*CommDestroy)(nccl_comm);
	int (*AllReduce)(const void *send, void *recv, size_t count, int type, int op, nccl_comm,
			 void *stream);
	int (*GroupStart)(void);
	int (*GroupEnd)(void);
	const char *(*GetErrorString)(int);
	/* optional: without them, no all-reduce across processes */
	int (*GetUniqueId)(struct nccl_unique_id *);
	int (*CommInitRank)(nccl_comm *, int nranks, struct nccl_unique_id, int rank);
};

struct nccl_lib {
	struct vlib lib;
	struct nccl_api api;
	int version; /* ncclGetVersion: 22809 = 2.28.9 */
};

int nccl_load(struct nccl_lib *l, const char *const *dirs, size_t ndirs, struct err *e);
void nccl_unload(struct nccl_lib *l);
/* "2.28.9" from ncclGetVersion's code (old codes are X*1000+Y*100+Z, new X*10000+Y*100+Z). */
void nccl_version_str(int code, char *out, size_t n);
const char *nccl_result_name(int rc);

#endif
