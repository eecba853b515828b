/* util.c: see util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void oom(void)
{
	fputs("gpuvet: error: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s ? s : "", n);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return p;
}

size_t str_copy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	if (n) {
		size_t k = len < n - 1 ? len : n - 1;
		memcpy(dst, src, k);
		dst[k] = '\0';
	}
	return len;
}

size_t str_append(char *dst, const char *src, size_t n)
{
	size_t have = strnlen(dst, n);

	if (have >= n)
		return have + strlen(src);
	return have + str_copy(dst + have, src, n - have);
}

int str_fmt(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(dst, n, fmt, ap);
	va_end(ap);
	return r;
}

bool str_starts(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends(const char *s, const char *suffix)
{
	size_t a, b;

	if (!s)
		return false;
	a = strlen(s);
	b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

char *str_trim(char *s)
{
	char *end;

	while (*s && isspace((unsigned char)*s))
		memmove(s, s + 1, strlen(s));
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

bool str_all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_u64_prefix(const char *s, int base, uint64_t *out, const char **end)
{
	char *e;
	unsigned long long v;

	if (!s || !isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &e, base);
	if (errno || e == s)
		return -1;
	*out = v;
	if (end)
		*end = e;
	return 0;
}

int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = 0, y = 0;

		while (*a && !isdigit((unsigned char)*a))
			a++;
		while (*b && !isdigit((unsigned char)*b))
			b++;
		while (isdigit((unsigned char)*a))
			x = x * 10 + (unsigned long)(*a++ - '0');
		while (isdigit((unsigned char)*b))
			y = y * 10 + (unsigned long)(*b++ - '0');
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

int cuda_version_num(const char *s)
{
	int major = 0, minor = 0;

	if (!isdigit((unsigned char)*s))
		return 0;
	while (isdigit((unsigned char)*s))
		major = major * 10 + (*s++ - '0');
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			minor = minor * 10 + (*s - '0');
	return major * 1000 + minor * 10;
}

void version_from_soname(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');
	const char *so;

	base = base ? base + 1 : path;
	out[0] = '\0';
	so = strstr(base, ".so.");
	if (!so)
		return;
	so += 4;
	/* "libcuda.so.1" carries only the ABI number, not a driver version */
	if (!strchr(so, '.'))
		return;
	str_copy(out, so, n);
}

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

double wall_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *hex_decode(const char *hex, size_t *len)
{
	size_t n = strlen(hex), i;
	char *bytes;

	if (n % 2)
		return NULL;
	bytes = xmalloc(n / 2 + 1);
	for (i = 0; i < n / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(bytes);
			return NULL;
		}
		bytes[i] = (char)(hi << 4 | lo);
	}
	bytes[n / 2] = '\0';
	*len = n / 2;
	return bytes;
}

int cpu_list_parse(const char *s, bool *cpus, size_t max)
{
	const char *p = s;
	int count = 0;

	if (!s)
		return -1;
	for (;;) {
		uint64_t a, b;
		const char *end;

		while (*p == ' ')
			p++;
		if (parse_u64_prefix(p, 10, &a, &end) != 0 || end == p)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (parse_u64_prefix(p, 10, &b, &end) != 0 || end == p || b < a)
				return -1;
			p = end;
		}
		if (b >= max)
			return -1;
		for (; a <= b; a++, count++)
			cpus[a] = true;
		while (*p == ' ')
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		return *p ? -1 : count;
	}
}
