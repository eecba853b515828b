/* fmt.c: see fmt.h. */
#define _GNU_SOURCE
#include "fmt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"

const char *fmt_bytes(char *buf, size_t n, int64_t bytes)
{
	static const char units[] = "BKMGTP";
	double v = (double)bytes;
	int u = 0;

	if (bytes < 0) {
		str_copy(buf, "-", n);
		return buf;
	}
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		str_fmt(buf, n, "%lldB", (long long)bytes);
	else if (v < 10.0)
		str_fmt(buf, n, "%.1f%c", v, units[u]);
	else
		str_fmt(buf, n, "%.0f%c", v, units[u]);
	return buf;
}

const char *fmt_rate(char *buf, size_t n, const struct num *r)
{
	char b[16];

	if (!num_ok(r)) {
		str_copy(buf, "-", n);
		return buf;
	}
	str_fmt(buf, n, "%s/s", fmt_bytes(b, sizeof(b), r->v));
	return buf;
}

const char *fmt_num(char *buf, size_t n, const struct num *v, int64_t div, int decimals)
{
	if (!num_ok(v)) {
		str_copy(buf, "-", n);
		return buf;
	}
	if (decimals)
		str_fmt(buf, n, "%.*f", decimals, (double)v->v / (double)div);
	else
		str_fmt(buf, n, "%lld", (long long)((v->v + (v->v >= 0 ? div / 2 : -div / 2)) / div));
	return buf;
}

const char *fmt_age(char *buf, size_t n, int64_t ns)
{
	int64_t s = ns / 1000000000LL;

	if (s < 60)
		str_fmt(buf, n, "%llds", (long long)s);
	else if (s < 3600)
		str_fmt(buf, n, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
	else
		str_fmt(buf, n, "%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
	return buf;
}

const char *fmt_clock(char *buf, size_t n, double wall)
{
	time_t t = (time_t)wall;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}

void fmt_fit(char *dst, size_t n, const char *s, int width)
{
	size_t len = strlen(s);

	if (width <= 0 || n == 0) {
		if (n)
			dst[0] = '\0';
		return;
	}
	if ((int)len <= width) {
		str_copy(dst, s, n);
		return;
	}
	if ((size_t)width >= n)
		width = (int)n - 1;
	memcpy(dst, s, (size_t)width);
	dst[width] = '\0';
	if (width >= 2)
		dst[width - 1] = '~';
}
