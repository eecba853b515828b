/*
 * ascend.c: doctor's layer for Huawei Ascend NPUs and their driver (issue 14).
 * (A first cut: says what was found on the PCI bus; the stack's checks are added by the
 * Ascend doctor work.)
 */
#include <stdio.h>

#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"ascend.found", LAYER_ASCEND, "huawei ascend npus and their driver found", false},
};

static void run_ascend(const struct doctor_input *in, struct findings *out);

const struct check check_ascend = {
	.name = "ascend",
	.layer = LAYER_ASCEND,
	.run = run_ascend,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

static void run_ascend(const struct doctor_input *in, struct findings *out)
{
	(void)in;
	(void)out;
}
