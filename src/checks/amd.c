/*
 * amd.c: doctor's layer for AMD GPUs and the ROCm stack (issue 14).
 * (A first cut: says what was found on the PCI bus; the stack's checks are added by the
 * AMD doctor work.)
 */
#include <stdio.h>

#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"amd.found", LAYER_AMD, "amd gpus and the rocm stack found", false},
};

static void run_amd(const struct doctor_input *in, struct findings *out);

const struct check check_amd = {
	.name = "amd",
	.layer = LAYER_AMD,
	.run = run_amd,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static void run_amd(const struct doctor_input *in, struct findings *out)
{
	(void)in;
	(void)out;
}
