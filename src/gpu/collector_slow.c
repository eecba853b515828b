/*
 * collector_slow.c: the collector's slow tier: PCIe and NVLink traffic, average power and
 * slowdown time as rates between counter readings, and the health fields (collector_int.h
 * lists the parts).
 */
#define _GNU_SOURCE
#include "collector_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/util.h"
#include "../vendor/nvml.h"
#include "../vendor/watchdog.h"

/* ---- the slow tier ----------------------------------------------------------------------- */

static void set_rate(struct num *out, bool ok, double v, const char *call)
{
	memset(out, 0, sizeof(*out));
	out->call = call;
	out->lib = LIB_NVML;
	if (ok) {
		out->st = VAL_OK;
		out->v = (int64_t)(v + 0.5);
	}
}

/* out = the counter's rate between two readings (unset when there is no earlier reading, the
 * counter went backwards or no time passed). */
static void counter_rate(struct num *out, const struct num *prev, int64_t prev_t,
			 const struct num *cur, int64_t now, const char *call)
{
	double r = 0;
	bool ok = prev_t && rate_per_s(prev, prev_t, cur, now, &r);

	set_rate(out, ok, r, call);
}

/* The same for the PCIe byte counters, 32 bits on Hopper (gpu/procutil.h): a wrap between two
 * readings is counted. Read at most PCIE_NARROW_MAX_NS apart (advise: every 200 ms) they are
 * right up to 17 GB/s on average; a slower tier (top, watch, serve: 5 s, where a wrap would go
 * unseen above 0.86 GB/s) uses nvmlDeviceGetPcieThroughput instead. */
#define PCIE_NARROW_MAX_NS 250000000LL
static void counter_rate32(struct num *out, const struct num *prev, int64_t prev_t,
			   const struct num *cur, int64_t now, const char *call)
{
	double r = 0;
	bool ok = prev_t && rate_per_s_wrap32(prev, prev_t, cur, now, &r);

	set_rate(out, ok, r, call);
}

static void slow_gpu(struct tier_job *j, unsigned gi, int64_t now)
{
	struct collector *c = j->c;
	struct gpu *g = &j->work[gi];
	struct mon_gpu *o = &j->slow_out[gi];
	int64_t prev_t = j->prev_t_ns[gi];

	/* PCIe: byte counters where the driver has them (driver 550+), else the 20 ms query */
	if (!(j->sunsup[gi] & SLOW_PCIE_COUNTERS)) {
		struct num v[2];
		bool narrow;

		probe_pcie_counters(c->p, g, v, &narrow);
		if (v[0].st == VAL_NA && v[1].st == VAL_NA) {
			j->sunsup[gi] |= SLOW_PCIE_COUNTERS;
		} else if (narrow && c->o.slow_ns > PCIE_NARROW_MAX_NS) {
			/* 32-bit counters read this seldom would wrap unseen: the 20 ms query instead
			 * (a sample, not an average, but never off by 4 GiB) */
			j->sunsup[gi] |= SLOW_PCIE_COUNTERS;
		} else {
			o->pcie_source = 'c';
			counter_rate32(&o->pcie_tx_bytes_s, &j->prev_pcie_tx[gi], prev_t,
				     &v[0], now, "nvmlDeviceGetFieldValues");
			counter_rate32(&o->pcie_rx_bytes_s, &j->prev_pcie_rx[gi], prev_t,
				     &v[1], now, "nvmlDeviceGetFieldValues");
			j->prev_pcie_tx[gi] = v[0];
			j->prev_pcie_rx[gi] = v[1];
		}
	}
	if ((j->sunsup[gi] & SLOW_PCIE_COUNTERS) && !(j->sunsup[gi] & SLOW_PCIE_THROUGHPUT)) {
		probe_pcie_throughput(c->p, g, &g->s);
		if (g->s.pcie_tx_kbps.st == VAL_NA && g->s.pcie_rx_kbps.st == VAL_NA) {
			j->sunsup[gi] |= SLOW_PCIE_THROUGHPUT;
		} else {
			o->pcie_source = 't';
			set_rate(&o->pcie_tx_bytes_s, num_ok(&g->s.pcie_tx_kbps),
				 (double)g->s.pcie_tx_kbps.v * 1024.0, "nvmlDeviceGetPcieThroughput");
			set_rate(&o->pcie_rx_bytes_s, num_ok(&g->s.pcie_rx_kbps),
				 (double)g->s.pcie_rx_kbps.v * 1024.0, "nvmlDeviceGetPcieThroughput");
		}
	}
	if ((j->sunsup[gi] & SLOW_PCIE_COUNTERS) && (j->sunsup[gi] & SLOW_PCIE_THROUGHPUT)) {
		o->pcie_tx_bytes_s.st = o->pcie_rx_bytes_s.st = VAL_NA;
		o->pcie_source = 0;
	}
	/* average power from the energy counter */
	if (!(j->sunsup[gi] & SLOW_ENERGY)) {
		struct num e;

		memset(&e, 0, sizeof(e));
		probe_energy(c->p, g, &e);
		if (e.st == VAL_NA) {
			j->sunsup[gi] |= SLOW_ENERGY;
			o->energy_avg_mw.st = VAL_NA;
		} else {
			/* mJ per second is mW */
			counter_rate(&o->energy_avg_mw, &j->prev_energy[gi], prev_t,
				     &e, now, "nvmlDeviceGetTotalEnergyConsumption");
			j->prev_energy[gi] = e;
			g->s.energy_mj = e;
		}
	} else {
		o->energy_avg_mw.st = VAL_NA;
	}
	/* NVLink traffic: per-link byte counters, summed */
	if (!(j->sunsup[gi] & SLOW_NVLINK) && o->nvlink_up) {
		unsigned ids[GPU_MAX_LINKS * 2], scopes[GPU_MAX_LINKS * 2], l, n = 0;
		struct num v[GPU_MAX_LINKS * 2], tx, rx;
		bool kib = j->sunsup[gi] & SLOW_NVLINK_KIB;
		bool any_ok = false;

		for (l = 0; l < GPU_MAX_LINKS; l++) {
			if (!num_ok(&g->s.nvlink_active[l]) || !g->s.nvlink_active[l].v)
				continue;
			ids[n] = kib ? NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX
				     : NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES;
			ids[n + 1] = kib ? NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX
					 : NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES;
			scopes[n] = scopes[n + 1] = l;
			n += 2;
		}
		probe_field_values(c->p, g, ids, scopes, n, v);
		memset(&tx, 0, sizeof(tx));
		memset(&rx, 0, sizeof(rx));
		tx.st = rx.st = VAL_OK;
		for (l = 0; l < n; l += 2) {
			if (!num_ok(&v[l]) || !num_ok(&v[l + 1])) {
				tx.st = rx.st = v[l].st == VAL_NA ? VAL_NA : VAL_ERR;
				break;
			}
			any_ok = true;
			tx.v += v[l].v * (kib ? 1024 : 1);
			rx.v += v[l + 1].v * (kib ? 1024 : 1);
		}
		if (!any_ok && tx.st == VAL_NA) {
			/* no byte counters (before driver 550): the older KiB counters */
			if (!kib)
				j->sunsup[gi] |= SLOW_NVLINK_KIB;
			else
				j->sunsup[gi] |= SLOW_NVLINK;
			o->nvlink_tx_bytes_s.st = o->nvlink_rx_bytes_s.st = VAL_NA;
		} else {
			counter_rate(&o->nvlink_tx_bytes_s, &j->prev_nv_tx[gi], prev_t,
				     &tx, now, "nvmlDeviceGetFieldValues");
			counter_rate(&o->nvlink_rx_bytes_s, &j->prev_nv_rx[gi], prev_t,
				     &rx, now, "nvmlDeviceGetFieldValues");
			j->prev_nv_tx[gi] = tx;
			j->prev_nv_rx[gi] = rx;
		}
	} else if (!o->nvlink_up) {
		o->nvlink_tx_bytes_s.st = o->nvlink_rx_bytes_s.st = VAL_NA;
	}
	/* ECC, remapped rows, replays, fabric and the slowdown counters */
	probe_sample_gpu(c->p, g, PROBE_HEALTH, &g->s);
	{
		const struct num *ce[CE_BUSY_N] = {&g->s.ce_sw_power_ns, &g->s.ce_sync_boost_ns,
						   &g->s.ce_sw_thermal_ns, &g->s.ce_hw_thermal_ns,
						   &g->s.ce_hw_power_brake_ns};
		unsigned k;

		for (k = 0; k < CE_BUSY_N; k++) {
			double pct = 0;
			bool ok = prev_t && rate_busy_pct(&j->prev_ce[gi][k], prev_t, ce[k], now, &pct);

			set_rate(&o->ce_busy_mpct[k], ok, pct * 1000.0, "nvmlDeviceGetFieldValues");
			if (!ok && ce[k]->st == VAL_NA)
				o->ce_busy_mpct[k].st = VAL_NA;
			j->prev_ce[gi][k] = *ce[k];
		}
	}
	j->prev_t_ns[gi] = now;
}

void slow_loop(void *arg)
{
	struct tier_job *j = arg;
	struct collector *c = j->c;
	int64_t next = now_ns();

	for (;;) {
		int64_t t0 = now_ns(), cpu0 = thread_cpu_ns();
		unsigned gi;

		/* a GPU lost or hung for good is not asked again; one whose fast worker is stuck in
		 * a call now is left alone this round, so that the slow tier goes on for the others */
		pthread_mutex_lock(&c->lock);
		for (gi = 0; gi < c->sys.ngpus; gi++) {
			if (c->shared.gpus[gi].lost || c->dead[gi])
				j->skip[gi] = true;
			j->late_ns[gi] = c->shared.gpus[gi].hung;
		}
		pthread_mutex_unlock(&c->lock);
		for (gi = 0; gi < c->sys.ngpus; gi++) {
			if (atomic_load(&j->abandoned))
				return;
			if (j->skip[gi] || j->late_ns[gi])
				continue;
			atomic_store(&j->cur_gpu, (int)gi);
			slow_gpu(j, gi, now_ns());
		}
		atomic_store(&j->cur_gpu, -1);
		pthread_mutex_lock(&c->lock);
		if (atomic_load(&j->abandoned) || c->stop) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		for (gi = 0; gi < c->sys.ngpus; gi++) {
			struct mon_gpu *mg = &c->shared.gpus[gi];
			const struct mon_gpu *o = &j->slow_out[gi];

			if (j->skip[gi] || j->late_ns[gi])
				continue;
			copy_health(&mg->g.s, &j->work[gi].s);
			mg->pcie_tx_bytes_s = o->pcie_tx_bytes_s;
			mg->pcie_rx_bytes_s = o->pcie_rx_bytes_s;
			mg->pcie_source = o->pcie_source;
			mg->nvlink_tx_bytes_s = o->nvlink_tx_bytes_s;
			mg->nvlink_rx_bytes_s = o->nvlink_rx_bytes_s;
			mg->energy_avg_mw = o->energy_avg_mw;
			memcpy(mg->ce_busy_mpct, o->ce_busy_mpct, sizeof(mg->ce_busy_mpct));
			mg->slow_t_ns = t0;
			if (j->work[gi].s.lost && !mg->lost) {
				mg->lost = true;
				problem(mg, "GPU is lost", "a health query", NVML_ERROR_GPU_IS_LOST);
			}
		}
		c->shared.cost.slow_ticks++;
		c->shared.cost.last_slow_cpu_ns = thread_cpu_ns() - cpu0;
		c->shared.cost.slow_cpu_ns += c->shared.cost.last_slow_cpu_ns;
		c->shared.cost.last_slow_wall_ns = now_ns() - t0;
		pthread_mutex_unlock(&c->lock);
		next += c->o.slow_ns;
		if (next < now_ns())
			next = now_ns();
		if (!job_sleep(j, next))
			return;
	}
}

