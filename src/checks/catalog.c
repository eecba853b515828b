/*
 * catalog.c: the one table of doctor's checks (struct check, catalog.h), bottom up, and every
 * finding id they define, joined in that order.
 */
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "catalog.h"

/* defined in checks/<name>.c */
extern const struct check check_platform, check_pci, check_module, check_devices, check_libraries,
    check_nvml, check_cuda, check_health, check_kernel_log, check_fabric, check_toolkit,
    check_framework, check_env;

const struct check *const doctor_checks[] = {
    &check_platform, &check_pci,       &check_module, &check_devices,    &check_libraries,
    &check_nvml,     &check_cuda,      &check_health, &check_kernel_log, &check_fabric,
    &check_toolkit,  &check_framework, &check_env,
};
const size_t doctor_nchecks = ARRAY_SIZE(doctor_checks);

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
		all = xcalloc(total, sizeof(*all));
		for (i = 0; i < doctor_nchecks; i++) {
			memcpy(all + count, doctor_checks[i]->defs,
			       doctor_checks[i]->ndefs * sizeof(*all));
			count += doctor_checks[i]->ndefs;
		}
	}
	*n = count;
	return all;
}
