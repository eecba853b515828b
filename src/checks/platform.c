/* platform.c: stub, filled in by the checks work. */
#include "catalog.h"
#include "doctor.h"

DEFS(defs_platform) = {
	{"platform.ok", LAYER_PLATFORM, "platform layer checked", false},
};
DEFS_COUNT(defs_platform);

void check_platform(const struct doctor_input *in, struct findings *out)
{
	(void)in;
	(void)out;
}
