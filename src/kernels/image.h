/*
 * image.h: the GPU kernels built into the binary (the .cu files of src/kernels, one fatbin with machine code
 * for every architecture the toolkit listed plus PTX of the newest).
 *
 * The Makefile links one of two definitions: a generated file holding the fatbin (when nvcc was
 * found) or image_stub.c (size 0, and gpuvet_kernels_missing says why). The switch is made at
 * link time, so changing NVCC needs no clean rebuild. Only cmd/bench.c reads these.
 */
#ifndef GPUVET_KERNELS_IMAGE_H
#define GPUVET_KERNELS_IMAGE_H

#include <stddef.h>

extern const unsigned char gpuvet_kernels[];
extern const size_t gpuvet_kernels_size;	/* 0: built without nvcc */
extern const char gpuvet_kernels_targets[];	/* "75 80 86 ... 121" (sm_ numbers) */
extern const char gpuvet_kernels_nvcc[];	/* nvcc's version line */
extern const char gpuvet_kernels_missing[];	/* why there are none, "" when present */

#endif
