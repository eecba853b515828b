/* toolkit.c: stub, filled in by the checks work. */
#include "catalog.h"
#include "doctor.h"

DEFS(defs_toolkit) = {
	{"toolkit.ok", LAYER_TOOLKIT, "toolkit layer checked", false},
};
DEFS_COUNT(defs_toolkit);

void check_toolkit(const struct doctor_input *in, struct findings *out)
{
	(void)in;
	(void)out;
}
