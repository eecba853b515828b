/* stats.c: median, spread and CV of benchmark samples (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y ? 1 : 0;
}

double stats_median(const double *v, size_t n)
{
	double *s, m;

	if (n == 0)
		return 0;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = (n % 2) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

void stats_compute(const double *v, size_t n, struct stats *out)
{
	double sum = 0, ss = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0)
		return;
	out->min = out->max = v[0];
	for (i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < out->min)
			out->min = v[i];
		if (v[i] > out->max)
			out->max = v[i];
	}
	out->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	out->cv = out->mean != 0 ? out->stddev / fabs(out->mean) : 0;
	out->median = stats_median(v, n);
}
