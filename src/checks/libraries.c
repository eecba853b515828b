/* libraries.c: stub, filled in by the checks work. */
#include "catalog.h"
#include "doctor.h"

DEFS(defs_libraries) = {
	{"libraries.ok", LAYER_LIBRARIES, "libraries layer checked", false},
};
DEFS_COUNT(defs_libraries);

void check_libraries(const struct doctor_input *in, struct findings *out)
{
	(void)in;
	(void)out;
}
