/* fake_types.c: fp16, bf16 and fp8 e4m3 encodings (truncating) shared by the fake libraries;
 * bench_decode (src/bench/gemm.c) reads them back. */
#include <string.h>

#include "fake_types.h"

uint16_t fake_bf16(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}
uint16_t fake_f16(float f)
{
	uint32_t u, s, m;
	int e;

	memcpy(&u, &f, 4);
	s = (u >> 16) & 0x8000;
	e = (int)((u >> 23) & 0xff) - 127 + 15;
	m = (u >> 13) & 0x3ff;
	if (f == 0 || e <= 0)
		return (uint16_t)s;
	if (e >= 31)
		return (uint16_t)(s | 0x7bff);
	return (uint16_t)(s | (uint32_t)e << 10 | m);
}
uint8_t fake_e4m3(float f)
{
	uint32_t u, s, m;
	int e;

	memcpy(&u, &f, 4);
	s = (u >> 24) & 0x80;
	e = (int)((u >> 23) & 0xff) - 127 + 7;
	m = (u >> 20) & 7;
	if (f == 0 || e <= 0)
		return (uint8_t)s;
	if (e >= 15)
		return (uint8_t)(s | 0x7e);
	return (uint8_t)(s | (uint32_t)e << 3 | m);
}
