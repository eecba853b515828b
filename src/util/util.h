/*
 * util.h: small helpers used everywhere: allocation that never returns NULL, bounded string
 * copies and formatting, number parsing that reports failure, monotonic time.
 *
 * The banned calls of STYLE.md (strcpy, strcat, sprintf, atoi, ...) have their safe
 * counterparts here.
 */
#ifndef GPUVET_UTIL_H
#define GPUVET_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh heap string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copy src into dst of size n, always NUL-terminated; returns strlen(src) like strlcpy. */
size_t str_copy(char *dst, const char *src, size_t n);
/* Append src to the string in dst of size n, always NUL-terminated. */
size_t str_append(char *dst, const char *src, size_t n);
/* snprintf that never overflows and returns the would-be length. */
int str_fmt(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool str_starts(const char *s, const char *prefix);
bool str_ends(const char *s, const char *suffix);
/* Trim leading and trailing white space in place; returns s. */
char *str_trim(char *s);
bool str_eq(const char *a, const char *b);
/* A non-empty string of decimal digits only ("1234", a PID folder in /proc). */
bool str_all_digits(const char *s);

/* Parse a whole string as a number; return 0 on success, -1 on junk, overflow or empty input. */
int parse_i64(const char *s, int64_t *out);
int parse_u64(const char *s, uint64_t *out);
/* Parse a number prefix and set *end; base 0 accepts 0x. */
int parse_u64_prefix(const char *s, int base, uint64_t *out, const char **end);

/* A Linux CPU list ("0-3,8,10-11", as sysfs, cpusets and NVML's affinity write it; a trailing
 * newline and spaces around the commas allowed) into cpus[0..max-1]; cpus is not cleared
 * first. The number of CPUs named, or -1 when s is empty or malformed, a range runs backwards
 * or a CPU is max or more. */
int cpu_list_parse(const char *s, bool *cpus, size_t max);

/* Bytes from hex text ("4f4b" -> "OK"), in a NUL-terminated heap buffer of *len bytes (the
 * caller frees); NULL for an odd length or a character that is not a hex digit. */
char *hex_decode(const char *hex, size_t *len);

/* Compare dotted versions numerically ("580.65.06" < "580.159.04"); missing parts count as 0. */
int version_cmp(const char *a, const char *b);
/* A CUDA version as CUDA_VERSION encodes it: "12.4.1" -> 12040, "13" -> 13000; 0 when s does
 * not start with a number. */
int cuda_version_num(const char *s);
/* The version part of a library file name: "libcuda.so.580.159.04" -> "580.159.04"; "" when
 * the name carries none ("libcuda.so.1" is only the ABI number). Used by the loader
 * (vendor/loader.c) and by the search that loads nothing (host/libs.c). */
void version_from_soname(const char *path, char *out, size_t n);

/* Monotonic clock in nanoseconds. */
int64_t now_ns(void);
/* Wall clock in seconds since the epoch, with fractions. */
double wall_time(void);

#endif
