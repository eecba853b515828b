/* cublaslt.c: loading libcublasLt and binding struct cublaslt_api (see cublaslt.h). */
#include "cublaslt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

#define SYM(field, req, ...)                                                                       \
	{                                                                                          \
		{__VA_ARGS__}, offsetof(struct cublaslt_api, field), req                           \
	}

static const struct vsym lt_syms[] = {
	SYM(Create, true, "cublasLtCreate"),
	SYM(Destroy, true, "cublasLtDestroy"),
	SYM(GetVersion, true, "cublasLtGetVersion"),
	SYM(GetStatusString, false, "cublasLtGetStatusString"),
	SYM(MatmulDescCreate, true, "cublasLtMatmulDescCreate"),
	SYM(MatmulDescDestroy, true, "cublasLtMatmulDescDestroy"),
	SYM(MatmulDescSetAttribute, true, "cublasLtMatmulDescSetAttribute"),
	SYM(MatrixLayoutCreate, true, "cublasLtMatrixLayoutCreate"),
	SYM(MatrixLayoutDestroy, true, "cublasLtMatrixLayoutDestroy"),
	SYM(MatmulPreferenceCreate, true, "cublasLtMatmulPreferenceCreate"),
	SYM(MatmulPreferenceDestroy, true, "cublasLtMatmulPreferenceDestroy"),
	SYM(MatmulPreferenceSetAttribute, true, "cublasLtMatmulPreferenceSetAttribute"),
	SYM(MatmulAlgoGetHeuristic, true, "cublasLtMatmulAlgoGetHeuristic"),
	SYM(Matmul, true, "cublasLtMatmul"),
};

static const char *const lt_names[] = {"libcublasLt.so.13", "libcublasLt.so.12"};

int cublaslt_load(struct cublaslt_lib *l, const char *const *dirs, size_t ndirs, struct err *e)
{
	const char **cand;
	char **owned;
	size_t n = 0, i, j;
	int rc;

	memset(l, 0, sizeof(*l));
	cand = xcalloc(ARRAY_SIZE(lt_names) * (ndirs + 1), sizeof(*cand));
	owned = xcalloc(ARRAY_SIZE(lt_names) * (ndirs + 1), sizeof(*owned));
	for (j = 0; j < ARRAY_SIZE(lt_names); j++)
		cand[n++] = lt_names[j];
	for (i = 0; i < ndirs; i++)
		for (j = 0; j < ARRAY_SIZE(lt_names); j++) {
			owned[n] = xasprintf("%s/%s", dirs[i], lt_names[j]);
			cand[n] = owned[n];
			n++;
		}
	rc = vlib_open_any(&l->lib, "cuBLASLt", "cublaslt", cand, n, "GPUVET_CUBLASLT_LIBRARY", e);
	for (i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(cand);
	if (rc != 0) {
		err_hint(
		    e, "install cuBLAS (the CUDA toolkit's libcublas, or pip's nvidia-cublas), or "
		       "name the file with GPUVET_CUBLASLT_LIBRARY");
		return -1;
	}
	if (vlib_bind(&l->lib, lt_syms, ARRAY_SIZE(lt_syms), &l->api, e) != 0) {
		vlib_close(&l->lib);
		return -1;
	}
	l->version = (unsigned long)l->api.GetVersion();
	return 0;
}

void cublaslt_unload(struct cublaslt_lib *l)
{
	vlib_close(&l->lib);
}

const char *cublaslt_status_name(int status)
{
	switch (status) {
	case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
	case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
	case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
	case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
	case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
	case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
	case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
	case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
	case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
	case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
	default: return "CUBLAS_STATUS_UNRECOGNISED";
	}
}
