/*
 * cublaslt.h: gpuvet's own declarations of the cuBLASLt subset `gpuvet bench gemm` uses.
 *
 * Written from cublasLt.h, cublas_api.h and library_types.h of CUDA 13.0 (cuBLAS 13.1); no
 * NVIDIA header is needed to build. The library is opened with dlopen, never linked: first
 * libcublasLt.so.13 then .so.12 by the usual search (LD_LIBRARY_PATH, ld.so.cache), then the
 * same names in the folders the caller passes (the nvidia/<pkg>/lib folders of the Python
 * environments doctor found, where pip's nvidia-cublas wheels put it).
 * GPUVET_CUBLASLT_LIBRARY names a file and replaces the search. The counterpart for NCCL is
 * nccl.h; the caller is bench/gemm.c.
 */
#ifndef GPUVET_CUBLASLT_H
#define GPUVET_CUBLASLT_H

#include <stddef.h>
#include <stdint.h>

#include "loader.h"

/* cublasStatus_t */
enum {
	CUBLAS_STATUS_SUCCESS = 0,
	CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3,
	CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_ARCH_MISMATCH = 8,
	CUBLAS_STATUS_MAPPING_ERROR = 11,
	CUBLAS_STATUS_EXECUTION_FAILED = 13,
	CUBLAS_STATUS_INTERNAL_ERROR = 14,
	CUBLAS_STATUS_NOT_SUPPORTED = 15,
	CUBLAS_STATUS_LICENSE_ERROR = 16,
};

/* cudaDataType_t (library_types.h) */
enum {
	LT_R_32F = 0,
	LT_R_64F = 1,
	LT_R_16F = 2,
	LT_R_16BF = 14,
	LT_R_8F_E4M3 = 28,
	LT_R_8F_E5M2 = 29,
};

/* cublasComputeType_t */
enum {
	LT_COMPUTE_16F = 64,
	LT_COMPUTE_32F = 68,
	LT_COMPUTE_32F_PEDANTIC = 69,
	LT_COMPUTE_32F_FAST_16F = 74,
	LT_COMPUTE_32F_FAST_16BF = 75,
	LT_COMPUTE_32F_FAST_TF32 = 77,
	LT_COMPUTE_64F = 70,
};

/* cublasOperation_t */
enum { LT_OP_N = 0, LT_OP_T = 1 };

/* cublasLtMatmulDescAttributes_t (values are int32 unless noted) */
enum {
	LT_DESC_COMPUTE_TYPE = 0,
	LT_DESC_SCALE_TYPE = 1,
	LT_DESC_TRANSA = 3,
	LT_DESC_TRANSB = 4,
	LT_DESC_FAST_ACCUM = 25, /* int8 */
};

/* cublasLtMatmulPreferenceAttributes_t */
enum { LT_PREF_MAX_WORKSPACE_BYTES = 1 /* uint64 */ };

typedef struct lt_handle_st *lt_handle; /* cublasLtHandle_t */
typedef struct lt_desc_st *lt_desc;     /* cublasLtMatmulDesc_t */
typedef struct lt_layout_st *lt_layout; /* cublasLtMatrixLayout_t */
typedef struct lt_pref_st *lt_pref;     /* cublasLtMatmulPreference_t */

struct lt_algo { /* cublasLtMatmulAlgo_t */
	uint64_t data[8];
};

struct lt_heuristic { /* cublasLtMatmulHeuristicResult_t */
	struct lt_algo algo;
	size_t workspace_size;
	int state; /* cublasStatus_t */
	float waves_count;
	int reserved[4];
};

struct cublaslt_api {
	int (*Create)(lt_handle *);
	int (*Destroy)(lt_handle);
	size_t (*GetVersion)(void);
	const char *(*GetStatusString)(int);
	int (*MatmulDescCreate)(lt_desc *, int compute_type, int scale_type);
	int (*MatmulDescDestroy)(lt_desc);
	int (*MatmulDescSetAttribute)(lt_desc, int attr, const void *buf, size_t size);
	int (*MatrixLayoutCreate)(lt_layout *, int type, uint64_t rows, uint64_t cols, int64_t ld);
	int (*MatrixLayoutDestroy)(lt_layout);
	int (*MatmulPreferenceCreate)(lt_pref *);
	int (*MatmulPreferenceDestroy)(lt_pref);
	int (*MatmulPreferenceSetAttribute)(lt_pref, int attr, const void *buf, size_t size);
	int (*MatmulAlgoGetHeuristic)(lt_handle, lt_desc, lt_layout a, lt_layout b, lt_layout c,
				      lt_layout d, lt_pref, int requested,
				      struct lt_heuristic *results, int *returned);
	int (*Matmul)(lt_handle, lt_desc, const void *alpha, const void *a, lt_layout,
		      const void *b, lt_layout, const void *beta, const void *c, lt_layout, void *d,
		      lt_layout, const struct lt_algo *algo, void *workspace,
		      size_t workspace_bytes, void *stream);
};

struct cublaslt_lib {
	struct vlib lib;
	struct cublaslt_api api;
	unsigned long version; /* cublasLtGetVersion: 130100 = 13.1.0 */
};

/* Load and bind; dirs are extra folders tried after the system search. */
int cublaslt_load(struct cublaslt_lib *l, const char *const *dirs, size_t ndirs, struct err *e);
void cublaslt_unload(struct cublaslt_lib *l);
/* "CUBLAS_STATUS_NOT_SUPPORTED" from our own table. */
const char *cublaslt_status_name(int status);

#endif
