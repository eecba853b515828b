/* procutil.c: see procutil.h. */
#include "procutil.h"

#include <string.h>

static bool pid_known(unsigned pid, const unsigned *pids, size_t npids)
{
	size_t i;

	for (i = 0; i < npids; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

size_t procutil_filter(const struct proc_util_sample *s, size_t n, const unsigned *pids,
		       size_t npids, const struct procutil_window *w, struct proc_util *out,
		       uint64_t *newest_us, unsigned *dropped)
{
	uint64_t sum[4];
	uint64_t oldest = w->last_seen_us;
	size_t nout = 0, i, k;

	*newest_us = w->last_seen_us;
	*dropped = 0;
	if (!oldest && w->now_us > w->window_us)
		oldest = w->now_us - w->window_us;
	for (k = 0; k < npids; k++) {
		unsigned cnt = 0;

		memset(sum, 0, sizeof(sum));
		for (i = 0; i < n; i++) {
			if (s[i].pid != pids[k])
				continue;
			if (s[i].ts_us <= oldest || s[i].ts_us > w->now_us + w->slack_us)
				continue;
			if (s[i].sm_pct > 100 || s[i].mem_pct > 100 || s[i].enc_pct > 100 ||
			    s[i].dec_pct > 100)
				continue;
			sum[0] += s[i].sm_pct;
			sum[1] += s[i].mem_pct;
			sum[2] += s[i].enc_pct;
			sum[3] += s[i].dec_pct;
			cnt++;
		}
		if (!cnt)
			continue;
		out[nout].pid = pids[k];
		out[nout].sm_pct = (unsigned)((sum[0] + cnt / 2) / cnt);
		out[nout].mem_pct = (unsigned)((sum[1] + cnt / 2) / cnt);
		out[nout].enc_pct = (unsigned)((sum[2] + cnt / 2) / cnt);
		out[nout].dec_pct = (unsigned)((sum[3] + cnt / 2) / cnt);
		out[nout].nsamples = cnt;
		nout++;
	}
	for (i = 0; i < n; i++) {
		bool fresh = s[i].ts_us > oldest && s[i].ts_us <= w->now_us + w->slack_us;

		if (!fresh || !pid_known(s[i].pid, pids, npids) || s[i].sm_pct > 100 ||
		    s[i].mem_pct > 100 || s[i].enc_pct > 100 || s[i].dec_pct > 100)
			(*dropped)++;
		/* every fresh sample moves the window on (also those of PIDs that are gone or not
		 * yet listed, so none is counted twice); future garbage never does */
		if (fresh && s[i].ts_us > *newest_us)
			*newest_us = s[i].ts_us;
	}
	return nout;
}

bool rate_per_s(const struct num *prev, int64_t prev_t_ns, const struct num *cur,
		int64_t cur_t_ns, double *out)
{
	if (!num_ok(prev) || !num_ok(cur) || cur_t_ns <= prev_t_ns || cur->v < prev->v)
		return false;
	*out = (double)(cur->v - prev->v) * 1e9 / (double)(cur_t_ns - prev_t_ns);
	return true;
}

bool rate_per_s_wrap32(const struct num *prev, int64_t prev_t_ns, const struct num *cur,
		       int64_t cur_t_ns, double *out)
{
	const int64_t wrap = (int64_t)1 << 32;
	struct num c = *cur;

	if (num_ok(prev) && num_ok(cur) && cur->v < prev->v && prev->v < wrap && cur->v >= 0)
		c.v += wrap;
	return rate_per_s(prev, prev_t_ns, &c, cur_t_ns, out);
}

bool rate_busy_pct(const struct num *prev, int64_t prev_t_ns, const struct num *cur,
		   int64_t cur_t_ns, double *out)
{
	double r;

	if (!rate_per_s(prev, prev_t_ns, cur, cur_t_ns, &r))
		return false;
	r = r / 1e9 * 100.0; /* ns per second -> percent */
	*out = r > 100.0 ? 100.0 : r;
	return true;
}

double rate_cpu_pct(uint64_t ticks_before, uint64_t ticks_after, int64_t dt_ns, long ticks_per_s)
{
	if (dt_ns <= 0 || ticks_per_s <= 0 || ticks_after < ticks_before)
		return 0.0;
	return (double)(ticks_after - ticks_before) * 100.0 * 1e9 / ((double)ticks_per_s * (double)dt_ns);
}
