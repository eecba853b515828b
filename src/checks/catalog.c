/*
 * catalog.c: the one table of doctor's checks (struct check, catalog.h), bottom up, and every
 * finding id they define, joined in that order; then the ids of verdicts other commands give
 * (burn's, burn/judge.c; advise's, advise/diagnose.c; doctor --slurm's, fleet/slurm.c), which
 * doctor lists and documents but never runs.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "catalog.h"

/* defined in checks/<name>.c */
extern const struct check check_platform, check_pci, check_module, check_devices, check_libraries,
    check_nvml, check_cuda, check_health, check_kernel_log, check_fabric, check_toolkit,
    check_opencl, check_framework, check_env, check_amd, check_oneapi, check_ascend;

const struct check *const doctor_checks[] = {
    &check_platform, &check_pci,       &check_module, &check_devices,    &check_libraries,
    &check_nvml,     &check_cuda,      &check_health, &check_kernel_log, &check_fabric,
    &check_toolkit,  &check_opencl,    &check_framework, &check_env, &check_amd, &check_oneapi,
    &check_ascend,
};
const size_t doctor_nchecks = ARRAY_SIZE(doctor_checks);

/* defined in burn/judge.c, advise/diagnose.c and fleet/slurm.c: struct checks whose run is
 * NULL */
extern const struct check check_burn, check_advise, check_slurm;

const struct check *const verdict_checks[] = {
    &check_burn,
    &check_advise,
    &check_slurm,
};
const size_t verdict_nchecks = ARRAY_SIZE(verdict_checks);

const struct check *check_find(const char *name)
{
	size_t i;

	for (i = 0; i < doctor_nchecks; i++)
		if (strcmp(doctor_checks[i]->name, name) == 0)
			return doctor_checks[i];
	return NULL;
}

const struct finding_def *finding_defs(size_t *n)
{
	static struct finding_def *all;
	static size_t count;

	if (!all) {
		size_t i, total = 0;

		for (i = 0; i < doctor_nchecks; i++)
			total += doctor_checks[i]->ndefs;
		for (i = 0; i < verdict_nchecks; i++)
			total += verdict_checks[i]->ndefs;
		all = xcalloc(total, sizeof(*all));
		for (i = 0; i < doctor_nchecks + verdict_nchecks; i++) {
			const struct check *c = i < doctor_nchecks
						    ? doctor_checks[i]
						    : verdict_checks[i - doctor_nchecks];

			memcpy(all + count, c->defs, c->ndefs * sizeof(*all));
			count += c->ndefs;
		}
	}
	*n = count;
	return all;
}
