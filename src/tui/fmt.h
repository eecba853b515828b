/*
 * fmt.h: short, fixed-width renderings of the collector's numbers, shared by `gpuvet top`
 * (tui/frame.c) and `gpuvet watch` (cmd/watch.c). No curses here.
 */
#ifndef GPUVET_FMT_H
#define GPUVET_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "../gpu/device.h"

/* 1536 -> "1.5K", 150109880320 -> "140G" (binary units, at most 4 characters + unit). */
const char *fmt_bytes(char *buf, size_t n, int64_t bytes);
/* A rate in bytes/s: "1.2G/s"; "-" when r is not a value. */
const char *fmt_rate(char *buf, size_t n, const struct num *r);
/* v / div with `decimals` decimals, or "-" (not supported, error, not yet read). */
const char *fmt_num(char *buf, size_t n, const struct num *v, int64_t div, int decimals);
/* A duration in seconds as "3s", "4m05s", "2h10m". */
const char *fmt_age(char *buf, size_t n, int64_t ns);
/* "2026-11-30 06:13:51" for a wall-clock time. */
const char *fmt_clock(char *buf, size_t n, double wall);
/* Copy at most width display columns of s (ASCII), cutting with "~" when it does not fit. */
void fmt_fit(char *dst, size_t n, const char *s, int width);

#endif
