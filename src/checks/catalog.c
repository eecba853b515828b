/* catalog.c: all finding ids, joined from the per-layer tables (see catalog.h). */
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "catalog.h"

const struct finding_def *finding_defs(size_t *n)
{
	static struct finding_def *all;
	static size_t count;

	if (!all) {
		const struct {
			const struct finding_def *v;
			const size_t *n;
		} parts[] = {
			{defs_platform, &defs_platform_n},   {defs_pci, &defs_pci_n},
			{defs_module, &defs_module_n},	     {defs_devices, &defs_devices_n},
			{defs_libraries, &defs_libraries_n}, {defs_nvml, &defs_nvml_n},
			{defs_cuda, &defs_cuda_n},	     {defs_health, &defs_health_n},
			{defs_kernel_log, &defs_kernel_log_n}, {defs_fabric, &defs_fabric_n},
			{defs_toolkit, &defs_toolkit_n},     {defs_framework, &defs_framework_n},
			{defs_env, &defs_env_n},
		};
		size_t i, total = 0;

		for (i = 0; i < ARRAY_SIZE(parts); i++)
			total += *parts[i].n;
		all = xcalloc(total, sizeof(*all));
		for (i = 0; i < ARRAY_SIZE(parts); i++) {
			memcpy(all + count, parts[i].v, *parts[i].n * sizeof(*all));
			count += *parts[i].n;
		}
	}
	*n = count;
	return all;
}
