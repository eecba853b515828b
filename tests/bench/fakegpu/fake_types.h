/* fake_types.h: see fake_types.c. */
#ifndef GPUVET_FAKE_TYPES_H
#define GPUVET_FAKE_TYPES_H

#include <stdint.h>

uint16_t fake_f16(float f);
uint16_t fake_bf16(float f);
uint8_t fake_e4m3(float f);

#endif
