/* cuda.c: stub, filled in by the checks work. */
#include "catalog.h"
#include "doctor.h"

DEFS(defs_cuda) = {
	{"cuda.ok", LAYER_CUDA, "cuda layer checked", false},
};
DEFS_COUNT(defs_cuda);

void check_cuda(const struct doctor_input *in, struct findings *out)
{
	(void)in;
	(void)out;
}
