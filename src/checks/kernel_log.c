/* kernel_log.c: stub, filled in by the checks work. */
#include "catalog.h"
#include "doctor.h"

DEFS(defs_kernel_log) = {
	{"kernel_log.ok", LAYER_HEALTH, "kernel_log layer checked", false},
};
DEFS_COUNT(defs_kernel_log);

void check_kernel_log(const struct doctor_input *in, struct findings *out)
{
	(void)in;
	(void)out;
}
