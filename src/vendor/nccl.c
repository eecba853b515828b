/* nccl.c: loading libnccl.so.2 and binding struct nccl_api (see nccl.h). */
#include "nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

#define SYM(field, req, ...)                                                                       \
	{                                                                                          \
		{__VA_ARGS__}, offsetof(struct nccl_api, field), req                               \
	}

static const struct vsym nccl_syms[] = {
	SYM(GetVersion, true, "ncclGetVersion"),
	SYM(CommInitAll, true, "ncclCommInitAll"),
	SYM(CommDestroy, true, "ncclCommDestroy"),
	SYM(AllReduce, true, "ncclAllReduce"),
	SYM(GroupStart, true, "ncclGroupStart"),
	SYM(GroupEnd, true, "ncclGroupEnd"),
	SYM(GetErrorString, false, "ncclGetErrorString"),
	SYM(GetUniqueId, false, "ncclGetUniqueId"),
	SYM(CommInitRank, false, "ncclCommInitRank"),
};

int nccl_load(struct nccl_lib *l, const char *const *dirs, size_t ndirs, struct err *e)
{
	const char **cand = xcalloc(ndirs + 1, sizeof(*cand));
	char **owned = xcalloc(ndirs + 1, sizeof(*owned));
	size_t n = 0, i;
	int rc;

	memset(l, 0, sizeof(*l));
	cand[n++] = "libnccl.so.2";
	for (i = 0; i < ndirs; i++) {
		owned[n] = xasprintf("%s/libnccl.so.2", dirs[i]);
		cand[n] = owned[n];
		n++;
	}
	rc = vlib_open_any(&l->lib, "NCCL", "nccl", cand, n, "GPUVET_NCCL_LIBRARY", e);
	for (i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(cand);
	if (rc != 0) {
		err_hint(e, "install NCCL (libnccl2, or pip's nvidia-nccl), or name the file with "
			    "GPUVET_NCCL_LIBRARY");
		return -1;
	}
	if (vlib_bind(&l->lib, nccl_syms, ARRAY_SIZE(nccl_syms), &l->api, e) != 0) {
		vlib_close(&l->lib);
		return -1;
	}
	if (l->api.GetVersion(&l->version) != NCCL_SUCCESS)
		l->version = 0;
	return 0;
}

void nccl_unload(struct nccl_lib *l)
{
	vlib_close(&l->lib);
}

void nccl_version_str(int code, char *out, size_t n)
{
	if (code <= 0)
		str_copy(out, "", n);
	else if (code < 10000) /* 2.8.4 = 2804 */
		str_fmt(out, n, "%d.%d.%d", code / 1000, (code % 1000) / 100, code % 100);
	else /* 2.28.9 = 22809 */
		str_fmt(out, n, "%d.%d.%d", code / 10000, (code % 10000) / 100, code % 100);
}

const char *nccl_result_name(int rc)
{
	switch (rc) {
	case NCCL_SUCCESS: return "ncclSuccess";
	case NCCL_UNHANDLED_CUDA_ERROR: return "ncclUnhandledCudaError";
	case NCCL_SYSTEM_ERROR: return "ncclSystemError";
	case NCCL_INTERNAL_ERROR: return "ncclInternalError";
	case NCCL_INVALID_ARGUMENT: return "ncclInvalidArgument";
	case NCCL_INVALID_USAGE: return "ncclInvalidUsage";
	case NCCL_REMOTE_ERROR: return "ncclRemoteError";
	case NCCL_IN_PROGRESS: return "ncclInProgress";
	default: return "ncclUnrecognisedResult";
	}
}
