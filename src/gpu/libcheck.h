/*
 * libcheck.h: one answer to "is NVML usable?" for every command that needs it (status, topo,
 * top, watch), so each says the same thing about the same machine.
 *
 * The probe (gpu/probe.c) fills struct gpu_system's nvml_lib from the loader (vendor/loader.h:
 * the file loaded or tried, and why it failed) and nvml_init from nvmlInit; this turns them into
 * one error line with its hint. doctor explains the causes at length (checks/libraries.c,
 * checks/nvml.c).
 */
#ifndef GPUVET_LIBCHECK_H
#define GPUVET_LIBCHECK_H

#include "../util/err.h"
#include "device.h"

/* 0 when NVML was loaded and nvmlInit succeeded. Else -1 with e (EXIT_UNAVAILABLE): "cannot
 * load NVML 'FILE': REASON" naming the file loaded or tried, or "nvmlInit_v2: ANSWER", and a
 * hint that points at doctor. */
int libcheck_nvml(const struct gpu_system *sys, struct err *e);

#endif
