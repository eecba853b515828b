/* image_stub.c: linked instead of the generated kernel image when nvcc was not found (see
 * image.h and the Makefile's kernel block). */
#include <stddef.h>

#include "image.h"

const unsigned char gpuvet_kernels[1] = {0};
const size_t gpuvet_kernels_size = 0;
const char gpuvet_kernels_targets[] = "";
const char gpuvet_kernels_nvcc[] = "";
const char gpuvet_kernels_missing[] = "gpuvet was built without nvcc";
