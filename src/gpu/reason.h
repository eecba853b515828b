/*
 * reason.h: a vendor return code decoded once, for every layer above gpu/.
 *
 * NVML answers nvmlReturn_t codes and CUDA CUresult codes; the backend (gpu/probe.c,
 * gpu/collector.c) stores each with the reading it belongs to (value.h) together with its
 * neutral reason from reason_of(). checks/ and cmd/ decide on the reason, and print the raw
 * code with its name (reason_code_name) as evidence; only gpu/ and vendor/ know the codes.
 */
#ifndef GPUVET_REASON_H
#define GPUVET_REASON_H

#include "value.h"

/* The reason for code rc of lib (LIB_NVML or LIB_CUDA); REASON_NONE for success. */
enum val_reason reason_of(unsigned char lib, int rc);
/* The code's name as its library spells it: NVML's words ("Driver Not Loaded"), CUDA's enum
 * name ("CUDA_ERROR_NO_DEVICE"). A static string. */
const char *reason_code_name(unsigned char lib, int rc);
/* What a CUDA code means in words ("no CUDA-capable device is detected"); for NVML, whose
 * names are words already, the name. A static string. */
const char *reason_code_meaning(unsigned char lib, int rc);
/* Store the outcome of a call whose answer is its return code (nvmlInit, cuInit): it counts as
 * answered (VAL_OK), with v and rc the code and reason its reason. */
void reason_set_call(struct num *n, unsigned char lib, const char *call, int rc);

#endif
