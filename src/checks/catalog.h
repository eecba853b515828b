/*
 * catalog.h: the finding ids. Each checks/<layer>.c defines its own table of struct
 * finding_def (so checks can be written side by side); catalog.c joins them. docs/findings.md
 * documents every id, and tests/cli/findings-doc.sh fails when an id is missing there.
 */
#ifndef GPUVET_CATALOG_H
#define GPUVET_CATALOG_H

#include <stddef.h>

#include "finding.h"

#define DEFS(name) const struct finding_def name[]
#define DEFS_COUNT(name) const size_t name##_n = sizeof(name) / sizeof(name[0])

extern const struct finding_def defs_platform[], defs_pci[], defs_module[], defs_devices[],
	defs_libraries[], defs_nvml[], defs_cuda[], defs_health[], defs_kernel_log[],
	defs_fabric[], defs_toolkit[], defs_framework[], defs_env[];
extern const size_t defs_platform_n, defs_pci_n, defs_module_n, defs_devices_n, defs_libraries_n,
	defs_nvml_n, defs_cuda_n, defs_health_n, defs_kernel_log_n, defs_fabric_n, defs_toolkit_n,
	defs_framework_n, defs_env_n;

#endif
