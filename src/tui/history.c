/* history.c: see history.h. */
#include "history.h"

#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

void history_init(struct history *h, unsigned ngpus, int cap)
{
	size_t i, n;

	memset(h, 0, sizeof(*h));
	h->ngpus = ngpus;
	h->cap = cap > 0 ? cap : 1;
	h->t_ns = xcalloc((size_t)h->cap, sizeof(*h->t_ns));
	n = (size_t)(ngpus ? ngpus : 1) * HIST_N * (size_t)h->cap;
	h->v = xcalloc(n, sizeof(*h->v));
	for (i = 0; i < n; i++)
		h->v[i] = -1;
}

void history_free(struct history *h)
{
	free(h->t_ns);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

static float *slot(const struct history *h, unsigned g, int k, int i)
{
	return &h->v[((size_t)g * HIST_N + (size_t)k) * (size_t)h->cap + (size_t)i];
}

static float pct(const struct num *v, double of)
{
	if (!num_ok(v) || of <= 0)
		return -1;
	return (float)((double)v->v * 100.0 / of);
}

void history_add(struct history *h, const struct mon_snapshot *s)
{
	unsigned g;

	if (!s->seq || s->seq == h->last_seq)
		return;
	h->last_seq = s->seq;
	h->t_ns[h->head] = s->t_ns;
	for (g = 0; g < h->ngpus && g < s->ngpus; g++) {
		const struct mon_gpu *mg = &s->gpus[g];
		const struct gpu *gp = &mg->g;
		bool dead = mg->lost || mg->hung;

		*slot(h, g, HIST_UTIL, h->head) = dead ? -1 : pct(&gp->s.util_gpu_pct, 100);
		*slot(h, g, HIST_MEM, h->head) =
			dead || !num_ok(&gp->st.mem_total_bytes)
				? -1
				: pct(&gp->s.mem_used_bytes, (double)gp->st.mem_total_bytes.v);
		*slot(h, g, HIST_POWER, h->head) =
			dead || !num_ok(&gp->st.power_enforced_mw)
				? -1
				: pct(&gp->s.power_mw, (double)gp->st.power_enforced_mw.v);
		*slot(h, g, HIST_SMACT, h->head) = dead ? -1 : pct(&mg->gpm[GPM_SM_ACTIVE], 100000);
	}
	h->head = (h->head + 1) % h->cap;
	if (h->len < h->cap)
		h->len++;
}

void history_buckets(const struct history *h, unsigned g, int k, int64_t span_ns, int64_t now_ns,
		     float *out, int n)
{
	double *sum = xcalloc((size_t)n, sizeof(*sum));
	int *cnt = xcalloc((size_t)n, sizeof(*cnt));
	int i;

	for (i = 0; i < h->len && g < h->ngpus; i++) {
		int idx = (h->head - 1 - i + h->cap) % h->cap;
		int64_t age = now_ns - h->t_ns[idx];
		float v = *slot(h, g, k, idx);
		int b;

		if (age < 0 || age >= span_ns)
			continue;
		b = n - 1 - (int)(age * n / span_ns);
		if (b < 0 || b >= n || v < 0)
			continue;
		sum[b] += v;
		cnt[b]++;
	}
	for (i = 0; i < n; i++)
		out[i] = cnt[i] ? (float)(sum[i] / cnt[i]) : -1;
	free(sum);
	free(cnt);
}
