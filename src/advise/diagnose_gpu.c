/*
 * diagnose_gpu.c: advise's rules about the GPUs themselves rather than the job's host side:
 * several GPUs (idle ones the job holds, NCCL waiting, GPUs left unused), throttled clocks,
 * memory near full and memory that grows step after step. Written as diagnose_rules.c's are:
 * each adds at most one candidate with its share of lost GPU time, evidence and fix.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/device.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "diagnose_int.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

/* The mean utilisation of GPU position pos over the run, NAN when unread. */
static double gpu_util_mean(const struct adv_ctx *c, int pos)
{
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < c->tl->nticks; i++) {
		double u = adv_num(&c->tl->ticks[i].g[pos].util_pct);

		if (!isnan(u)) {
			sum += u;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

/* ---- several GPUs ------------------------------------------------------------------------------
 */

void adv_rule_gpus_idle(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double util[ADV_MAX_GPUS], top = -1, lost = 0;
	int i, busiest = -1, nidle = 0;
	struct strbuf sb;
	struct adv_cand *k;

	if (!c->holds || c->nheld < 2)
		return;
	for (i = 0; i < c->nheld; i++) {
		util[i] = gpu_util_mean(c, c->held[i]);
		if (!isnan(util[i]) && util[i] > top) {
			top = util[i];
			busiest = i;
		}
	}
	if (busiest < 0 || top < ADV_TICK_BUSY_PCT)
		return;
	for (i = 0; i < c->nheld; i++)
		if (!isnan(util[i]) && util[i] < ADV_GPU_IDLE_PCT) {
			nidle++;
			lost += 1 - util[i] / 100;
		}
	if (nidle == 0)
		return;
	k = adv_cand_add(c, "advise.gpus_idle", SEV_WARN, lost / c->nheld,
			 "GPU %d works (%.0f %%) while %d other GPU%s the job holds sit idle",
			 tl->gpus[c->held[busiest]].index, top, nidle, nidle == 1 ? "" : "s");
	k->explains_idle = true;
	sb_init(&sb);
	for (i = 0; i < c->nheld; i++)
		sb_addf(&sb, "%sGPU %d %.0f %%", i ? ", " : "", tl->gpus[c->held[i]].index,
			isnan(util[i]) ? 0 : util[i]);
	adv_cand_ev(k, "mean utilisation of the job's GPUs: %s", sb.buf);
	sb_release(&sb);
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (the idle GPUs' time over the %d "
		    "the job holds)",
		    k->share * 100, c->nheld);
	if (c->pytorch)
		adv_cand_fix(
		    k,
		    "give every GPU its share: DistributedDataParallel started by torchrun "
		    "--nproc_per_node=%d train.py (one process per GPU: model = "
		    "DDP(model.to(rank), device_ids=[rank]) and a DistributedSampler); "
		    "nn.DataParallel leaves the others waiting on GPU 0; or hold one GPU only "
		    "(CUDA_VISIBLE_DEVICES=0) and free the rest",
		    c->nheld);
	else
		adv_cand_fix(k,
			     "spread the work: TensorFlow: tf.distribute.MirroredStrategy; JAX: "
			     "shard the batch over jax.devices() (jax.sharding); or hold one GPU "
			     "only (CUDA_VISIBLE_DEVICES=0) and free the rest");
}

void adv_rule_nccl_wait(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double wait[ADV_MAX_GPUS], smm[ADV_MAX_GPUS], nvl[ADV_MAX_GPUS];
	double top = 0, low = 2, lost = 0;
	int i, lowest = -1;
	struct strbuf sb;
	struct adv_cand *k;

	if (!c->holds || c->nheld < 2)
		return;
	for (i = 0; i < c->nheld; i++) {
		double *sm = xcalloc(tl->nticks, sizeof(*sm)),
		       *nv = xcalloc(tl->nticks, sizeof(*nv));
		double waste = 0;
		size_t t, nread = 0, nwait = 0;

		for (t = 0; t < tl->nticks; t++) {
			const struct adv_gpu_tick *g = &tl->ticks[t].g[c->held[i]];
			double u = adv_num(&g->util_pct), s = adv_num(&g->sm_active_pct);
			double l = adv_num(&g->nvlink_rx_bytes_s) + adv_num(&g->nvlink_tx_bytes_s);

			if (isnan(u) || isnan(s) || isnan(l))
				continue;
			sm[nread] = s;
			nv[nread++] = l;
			if (u >= ADV_TICK_BUSY_PCT && s < ADV_NCCL_SM_PCT &&
			    l >= ADV_NVLINK_ACTIVE_BYTES_S) {
				nwait++;
				waste += (u - s) / 100;
			}
		}
		wait[i] = nread ? (double)nwait / (double)nread : 0;
		smm[i] = adv_median(sm, nread);
		nvl[i] = adv_median(nv, nread);
		free(sm);
		free(nv);
		if (nread)
			lost += waste / (double)nread;
		if (wait[i] > top)
			top = wait[i];
		if (nread && wait[i] < low) {
			low = wait[i];
			lowest = i;
		}
	}
	if (top < ADV_NCCL_WAIT_SHARE)
		return;
	/* the straggler is the one the others wait for: it waits least */
	if (lowest >= 0 && low > top / 2)
		lowest = -1;
	if (lowest >= 0)
		k = adv_cand_add(
		    c, "advise.nccl_wait", SEV_WARN, lost / c->nheld,
		    "the GPUs wait in collectives (NVLink busy, SMs idle) up to %.0f %% "
		    "of the time: GPU %d is the straggler",
		    top * 100, tl->gpus[c->held[lowest]].index);
	else
		k = adv_cand_add(
		    c, "advise.nccl_wait", SEV_WARN, lost / c->nheld,
		    "the GPUs wait in collectives (NVLink busy, SMs idle) up to %.0f %% "
		    "of the time",
		    top * 100);
	sb_init(&sb);
	for (i = 0; i < c->nheld; i++)
		sb_addf(&sb,
			"%sGPU %d: waiting %.0f %% of ticks, SM active %.0f %%, NVLink %.1f GB/s",
			i ? "; " : "", tl->gpus[c->held[i]].index, wait[i] * 100,
			isnan(smm[i]) ? 0 : smm[i], isnan(nvl[i]) ? 0 : nvl[i] / 1e9);
	adv_cand_ev(k, "%s", sb.buf);
	sb_release(&sb);
	adv_cand_ev(k,
		    "waiting: utilisation %d %% or more with SM active under %d %% and NVLink "
		    "over %.0f GB/s (NCCL's kernels spin while they wait)",
		    ADV_TICK_BUSY_PCT, ADV_NCCL_SM_PCT, ADV_NVLINK_ACTIVE_BYTES_S / 1e9);
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (the waiting ticks' utilisation "
		    "beyond SM activity, over the job's GPUs)",
		    k->share * 100);
	adv_cand_fix(
	    k, "%s",
	    c->pytorch
		? "find why one rank is slower: uneven batches or sequence lengths across "
		  "ranks (bucket by length, drop_last=True), work on one rank only (logging, "
		  "evaluation, checkpoints on rank 0: move them out of the step), a slower "
		  "GPU (gpuvet burn compares them); NCCL_DEBUG=INFO shows the collectives, "
		  "and DDP's no_sync() with gradient accumulation cuts their number"
		: "find why one process is slower: uneven batches across processes, work done "
		  "on one rank only (logging, evaluation, checkpoints), a slower GPU (gpuvet "
		  "burn compares them); NCCL_DEBUG=INFO shows the collectives");
}

void adv_rule_gpus_unused(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	int i, nfree = 0;
	struct adv_cand *k;

	if (!c->holds || c->nheld != 1 || tl->ngpus < 2 || c->idle_share >= ADV_IDLE_SHARE)
		return;
	for (i = 0; i < tl->ngpus && i < ADV_MAX_GPUS; i++) {
		double u, *m = xcalloc(tl->nticks, sizeof(*m)), mem;
		size_t t, n = 0;

		if (tl->gpus[i].job_holds || !num_ok(&tl->gpus[i].mem_total_bytes)) {
			free(m);
			continue;
		}
		u = gpu_util_mean(c, i);
		for (t = 0; t < tl->nticks; t++) {
			double x = adv_num(&tl->ticks[t].g[i].mem_used_bytes);

			if (!isnan(x))
				m[n++] = x;
		}
		mem = adv_median(m, n);
		free(m);
		if (!isnan(u) && u < ADV_FREE_UTIL_PCT && !isnan(mem) &&
		    mem < ADV_FREE_MEM_SHARE * (double)tl->gpus[i].mem_total_bytes.v)
			nfree++;
	}
	if (nfree == 0)
		return;
	k = adv_cand_add(c, "advise.gpus_unused", SEV_INFO, 0,
			 "the job uses 1 GPU while %d other%s on this machine %s free", nfree,
			 nfree == 1 ? "" : "s", nfree == 1 ? "is" : "are");
	adv_cand_ev(k,
		    "its GPU is busy (%.0f %% utilised); free: under %d %% utilisation and %.0f "
		    "%% of memory",
		    (1 - c->idle_share) * 100, ADV_FREE_UTIL_PCT, ADV_FREE_MEM_SHARE * 100);
	adv_cand_ev(k, "costs no GPU time of this job: more GPUs would shorten it");
	if (c->pytorch)
		adv_cand_fix(k,
			     "if the job can use them: torchrun --nproc_per_node=%d train.py with "
			     "DistributedDataParallel (one process per GPU, a DistributedSampler); "
			     "scale the learning rate with the global batch",
			     nfree + 1);
	else
		adv_cand_fix(k,
			     "if the job can use them: TensorFlow tf.distribute.MirroredStrategy, "
			     "JAX sharding over jax.devices(), Horovod or DeepSpeed launchers");
}

static const struct {
	unsigned bit;
	const char *name;
} ce_names[] = {
    {CE_SW_POWER_CAP, "SW_POWER_CAP"},     {CE_HW_SLOWDOWN, "HW_SLOWDOWN"},
    {CE_SW_THERMAL, "SW_THERMAL"},         {CE_HW_THERMAL, "HW_THERMAL"},
    {CE_HW_POWER_BRAKE, "HW_POWER_BRAKE"},
};

void adv_rule_throttled(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	const unsigned heat = CE_SW_THERMAL | CE_HW_THERMAL;
	const unsigned hw = CE_HW_SLOWDOWN | CE_HW_POWER_BRAKE;
	size_t cap = tl->nticks * (size_t)c->nheld + 1, nbusy = 0, nthr = 0, t;
	double *clk = xcalloc(cap, sizeof(*clk)), waste = 0, clkm, tmax = NAN, maxm = 0;
	unsigned seen = 0;
	int i;
	struct strbuf sb;
	struct adv_cand *k;

	for (i = 0; i < c->nheld; i++) {
		const struct adv_gpu_facts *f = &tl->gpus[c->held[i]];
		double max = adv_num(&f->sm_max_mhz);

		if (isnan(max) || max <= 0)
			continue;
		for (t = 0; t < tl->nticks; t++) {
			const struct adv_gpu_tick *g = &tl->ticks[t].g[c->held[i]];
			double u = adv_num(&g->util_pct), mhz = adv_num(&g->sm_mhz);
			double temp = adv_num(&g->temp_c);
			unsigned ce;
			bool slow;

			if (isnan(u) || isnan(mhz) || !num_ok(&g->clock_events) || u < ADV_GAP_PCT)
				continue;
			nbusy++;
			ce = (unsigned)g->clock_events.v;
			slow = ((ce & (heat | hw)) && mhz < ADV_CLOCK_SLOW_SHARE * max) ||
			       ((ce & CE_SW_POWER_CAP) && mhz < ADV_CLOCK_CAPPED_SHARE * max);
			if (!slow)
				continue;
			seen |= ce & (heat | hw | CE_SW_POWER_CAP);
			clk[nthr++] = mhz;
			waste += u / 100 * (1 - mhz / max);
			if (!isnan(temp) && (isnan(tmax) || temp > tmax))
				tmax = temp;
			maxm = max;
		}
	}
	clkm = adv_median(clk, nthr);
	free(clk);
	if (nbusy == 0 || (double)nthr < ADV_THROTTLE_SHARE * (double)nbusy)
		return;
	k = adv_cand_add(c, "advise.throttled", SEV_WARN, waste / (double)nbusy,
			 "the SM clock is held at %.0f of %.0f MHz in %.0f %% of the busy time",
			 clkm, maxm, (double)nthr * 100 / (double)nbusy);
	sb_init(&sb);
	for (i = 0; i < (int)ARRAY_SIZE(ce_names); i++)
		if (seen & ce_names[i].bit)
			sb_addf(&sb, "%s%s", sb.len ? ", " : "", ce_names[i].name);
	adv_cand_ev(k, "clock-event reasons while slowed: %s; %zu of %zu busy ticks", sb.buf, nthr,
		    nbusy);
	sb_release(&sb);
	if (!isnan(tmax))
		adv_cand_ev(k, "hottest while slowed: %.0f C", tmax);
	adv_cand_ev(k,
		    "estimated share of lost GPU time: %.0f %% (busy time times the clock "
		    "lost)",
		    k->share * 100);
	if (seen & heat)
		adv_cand_fix(
		    k, "the GPU is too hot: check airflow, fans and the inlet temperature "
		       "(nvidia-smi -q -d TEMPERATURE,PERFORMANCE); tell the machine's "
		       "administrator; gpuvet burn tells a card's cooling fault from the slot's");
	else if (seen & hw)
		adv_cand_fix(
		    k, "an external signal slows the GPU (power supply, BMC): check the "
		       "power supplies and the BMC's event log; gpuvet doctor and gpuvet burn");
	else
		adv_cand_fix(k,
			     "the power limit holds the clock down: nvidia-smi -q -d POWER shows "
			     "the current and default limits; restore it (sudo nvidia-smi -pl "
			     "<default W>) or ask the administrator");
}

/* ---- memory
 * -------------------------------------------------------------------------------------- */

void adv_rule_memory_full(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	double best = 0, used_best = 0, total_best = 0;
	int i, gpu = -1;
	struct adv_cand *k;

	for (i = 0; i < c->nheld; i++) {
		const struct adv_gpu_facts *f = &tl->gpus[c->held[i]];
		double *v, used, total;
		size_t t, n = 0;

		if (!num_ok(&f->mem_total_bytes) || f->mem_total_bytes.v <= 0)
			continue;
		total = (double)f->mem_total_bytes.v;
		v = xcalloc(tl->nticks + 1, sizeof(*v));
		/* the last quarter: where a job that grows has got to */
		for (t = tl->nticks - tl->nticks / 4; t < tl->nticks; t++) {
			double x = adv_num(&tl->ticks[t].g[c->held[i]].mem_used_bytes);

			if (!isnan(x))
				v[n++] = x;
		}
		used = adv_median(v, n);
		free(v);
		if (!isnan(used) && used / total > best) {
			best = used / total;
			used_best = used;
			total_best = total;
			gpu = f->index;
		}
	}
	if (best < ADV_MEM_FULL_SHARE)
		return;
	k = adv_cand_add(
	    c, "advise.memory_full", SEV_WARN, 0,
	    "GPU memory is %.0f %% full (%.1f of %.1f GiB): a larger batch or a longer "
	    "input runs out",
	    best * 100, used_best / GIB, total_best / GIB);
	k->gpu = gpu;
	adv_cand_ev(k, "memory used on GPU %d: median %.1f GiB over the last quarter of the run",
		    gpu, used_best / GIB);
	adv_cand_ev(k, "costs no GPU time now: the risk is an out-of-memory error%s",
		    c->pytorch ? " (PyTorch's caching allocator keeps freed blocks: "
				 "torch.cuda.memory_allocated() says what tensors use)"
			       : "");
	adv_cand_fix(k, "%s",
		     c->pytorch
			 ? "make room: mixed precision (with torch.autocast(device_type=\"cuda\", "
			   "dtype=torch.bfloat16):), gradient accumulation (a smaller batch, "
			   "optimizer.step() every N steps), activation checkpointing "
			   "(torch.utils.checkpoint.checkpoint); "
			   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True cuts fragmentation"
			 : "make room: mixed precision, gradient accumulation (a smaller batch, an "
			   "update every N steps), activation checkpointing (rematerialisation)");
}

/* A least-squares line through (x, y): slope, intercept and R^2. */
struct fit {
	double slope, icept, r2;
};

static struct fit fit_line(const double *x, const double *y, size_t n)
{
	struct fit f = {0, 0, 0};
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
	size_t i;

	if (n < 2)
		return f;
	for (i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
		syy += (y[i] - my) * (y[i] - my);
	}
	if (sxx <= 0)
		return f;
	f.slope = sxy / sxx;
	f.icept = my - f.slope * mx;
	f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 0;
	return f;
}

void adv_rule_memory_growth(struct adv_ctx *c)
{
	const struct adv_timeline *tl = c->tl;
	int i;

	for (i = 0; i < c->nheld; i++) {
		const struct adv_gpu_facts *f = &tl->gpus[c->held[i]];
		double *x = xcalloc(tl->nticks + 1, sizeof(*x)),
		       *y = xcalloc(tl->nticks + 1, sizeof(*y));
		double total = num_ok(&f->mem_total_bytes) ? (double)f->mem_total_bytes.v : NAN;
		double span, growth, now, oom_s = NAN, share;
		bool job = true;
		size_t t, n = 0;
		struct fit all, late;
		struct adv_cand *k;

		for (t = 0; t < tl->nticks; t++)
			if (num_ok(&tl->ticks[t].g[c->held[i]].job_mem_bytes))
				break;
		job = t < tl->nticks; /* else the whole GPU's figure */
		for (t = 0; t < tl->nticks; t++) {
			const struct adv_gpu_tick *g = &tl->ticks[t].g[c->held[i]];
			double m = adv_num(job ? &g->job_mem_bytes : &g->mem_used_bytes);

			if (!isnan(m)) {
				x[n] = (double)tl->ticks[t].t_ns / 1e9;
				y[n++] = m;
			}
		}
		if (n < ADV_MIN_TICKS) {
			free(x);
			free(y);
			continue;
		}
		all = fit_line(x, y, n);
		late = fit_line(x + n / 2, y + n / 2, n - n / 2);
		span = x[n - 1] - x[0];
		growth = all.slope * span;
		now = all.icept + all.slope * x[n - 1];
		free(x);
		free(y);
		if (all.slope <= 0 || all.r2 < ADV_LEAK_R2 || growth < (double)ADV_LEAK_MIN_BYTES ||
		    (!isnan(total) && growth < ADV_LEAK_MIN_SHARE * total) ||
		    late.slope < ADV_LEAK_LATE_SHARE * all.slope)
			continue;
		if (!isnan(total) && total > now)
			oom_s = (total - now) / all.slope;
		/* an OOM soon loses the whole run: rank it first */
		share = !isnan(oom_s) && oom_s <= ADV_OOM_SOON_S ? 1 : 0;
		if (isnan(oom_s))
			k = adv_cand_add(c, "advise.memory_growth", SEV_WARN, share,
					 "the job's GPU memory grows %.1f MiB/s, step after step",
					 all.slope / MIB);
		else
			k = adv_cand_add(c, "advise.memory_growth", SEV_WARN, share,
					 "the job's GPU memory grows %.1f MiB/s: out of memory in "
					 "about %.0f min",
					 all.slope / MIB, oom_s / 60);
		k->gpu = f->index;
		adv_cand_ev(
		    k,
		    "%s on GPU %d: %.2f GiB now, +%.2f GiB over %.1f s (least-squares slope "
		    "%.1f MiB/s, R^2 %.2f; second half %.1f MiB/s)",
		    job ? "the job's memory" : "memory used", f->index, now / GIB, growth / GIB,
		    span, all.slope / MIB, all.r2, late.slope / MIB);
		if (!isnan(oom_s))
			adv_cand_ev(k, "of %.1f GiB: full in about %.0f s at this rate%s",
				    total / GIB, oom_s,
				    share > 0 ? " (ranked first: an OOM loses the run)" : "");
		adv_cand_fix(
		    k, "%s",
		    c->pytorch
			? "find what keeps tensors alive from step to step: losses.append(loss) "
			  "keeps each step's graph (append loss.item() or loss.detach()), "
			  "outputs kept in lists or dicts, a cache that never drops; "
			  "torch.cuda.memory_summary() shows what grows; if the batch itself "
			  "needs the room: mixed precision (torch.autocast), gradient "
			  "accumulation, activation checkpointing"
			: "find what keeps device arrays alive from step to step (results kept "
			  "in lists, a growing cache); if the batch needs the room: mixed "
			  "precision, gradient accumulation, activation checkpointing");
		return; /* one finding: the first GPU that grows says it */
	}
}
