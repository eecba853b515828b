/*
 * metrics_compat.c: the families of the exposition beyond gpuvet's own per-GPU ones (see
 * metrics.h): dcgm-exporter's DCGM_FI_* names and labels (--dcgm-names), so that dashboards
 * made for it work unchanged; the per-process families (--procs); and the per-scrape part.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "metrics.h"
#include "metrics_int.h"

#define MG(member) offsetof(struct mon_gpu, member)
#define MIB (1024 * 1024)

/* dcgm-exporter's default fields that NVML answers, in its units: MHz, C, W, mJ, %, MiB. */
static const struct {
	const char *name;
	enum fam_type type;
	size_t off;
	double scale; /* 0: the integer as it is; < 0: divided by -scale, rounded down */
	const char *help;
} dcgm[] = {
	{"DCGM_FI_DEV_SM_CLOCK", FAM_GAUGE, MG(g.s.clock_sm_mhz), 0, "SM clock frequency (in MHz)."},
	{"DCGM_FI_DEV_MEM_CLOCK", FAM_GAUGE, MG(g.s.clock_mem_mhz), 0,
	 "Memory clock frequency (in MHz)."},
	{"DCGM_FI_DEV_MEMORY_TEMP", FAM_GAUGE, MG(g.s.mem_temp_c), 0, "Memory temperature (in C)."},
	{"DCGM_FI_DEV_GPU_TEMP", FAM_GAUGE, MG(g.s.temp_c), 0, "GPU temperature (in C)."},
	{"DCGM_FI_DEV_POWER_USAGE", FAM_GAUGE, MG(g.s.power_mw), 0.001, "Power draw (in W)."},
	{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", FAM_COUNTER_COMPAT, MG(g.s.energy_mj), 0,
	 "Total energy consumption since boot (in mJ)."},
	{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", FAM_COUNTER_COMPAT, MG(g.s.pcie_replays), 0,
	 "Total number of PCIe retries."},
	{"DCGM_FI_DEV_GPU_UTIL", FAM_GAUGE, MG(g.s.util_gpu_pct), 0, "GPU utilization (in %)."},
	{"DCGM_FI_DEV_MEM_COPY_UTIL", FAM_GAUGE, MG(g.s.util_mem_pct), 0,
	 "Memory utilization (in %)."},
	{"DCGM_FI_DEV_ENC_UTIL", FAM_GAUGE, MG(g.s.enc_pct), 0, "Encoder utilization (in %)."},
	{"DCGM_FI_DEV_DEC_UTIL", FAM_GAUGE, MG(g.s.dec_pct), 0, "Decoder utilization (in %)."},
	{"DCGM_FI_DEV_FB_FREE", FAM_GAUGE, MG(g.s.mem_free_bytes), -MIB,
	 "Frame buffer memory free (in MiB)."},
	{"DCGM_FI_DEV_FB_USED", FAM_GAUGE, MG(g.s.mem_used_bytes), -MIB,
	 "Frame buffer memory used (in MiB)."},
	{"DCGM_FI_DEV_FB_RESERVED", FAM_GAUGE, MG(g.s.mem_reserved_bytes), -MIB,
	 "Frame buffer memory reserved (in MiB)."},
	{"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", FAM_COUNTER_COMPAT, MG(g.s.remap_uncorrected),
	 0, "Number of remapped rows for uncorrectable errors"},
	{"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", FAM_COUNTER_COMPAT, MG(g.s.remap_corrected), 0,
	 "Number of remapped rows for correctable errors"},
	{"DCGM_FI_DEV_ROW_REMAP_FAILURE", FAM_GAUGE, MG(g.s.remap_failure), 0,
	 "Whether remapping of rows has failed"},
	{"DCGM_FI_PROF_SM_ACTIVE", FAM_GAUGE, MG(gpm[GPM_SM_ACTIVE]), 1e-5,
	 "The ratio of cycles an SM has at least 1 warp assigned (in %)."},
	{"DCGM_FI_PROF_SM_OCCUPANCY", FAM_GAUGE, MG(gpm[GPM_SM_OCCUPANCY]), 1e-5,
	 "The ratio of number of warps resident on an SM (in %)."},
	{"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", FAM_GAUGE, MG(gpm[GPM_TENSOR_ACTIVE]), 1e-5,
	 "Ratio of cycles the tensor (HMMA) pipe is active (in %)."},
	{"DCGM_FI_PROF_DRAM_ACTIVE", FAM_GAUGE, MG(gpm[GPM_DRAM_ACTIVE]), 1e-5,
	 "Ratio of cycles the device memory interface is active sending or receiving data (in %)."},
};

void metrics_render_dcgm(const struct metrics_input *in, enum metrics_format f, struct strbuf *out)
{
	const struct mon_snapshot *s = in->snap;
	char **labels = xcalloc(s->ngpus ? s->ngpus : 1, sizeof(*labels));
	struct fam m;
	unsigned gi;
	size_t k;

	for (gi = 0; gi < s->ngpus; gi++)
		labels[gi] = metrics_dcgm_labels(s, &s->gpus[gi], in->hostname);
	for (k = 0; k < ARRAY_SIZE(dcgm); k++) {
		fam_begin(&m, out, f, dcgm[k].name, dcgm[k].type, dcgm[k].help);
		for (gi = 0; gi < s->ngpus; gi++) {
			const struct mon_gpu *mg = &s->gpus[gi];
			const struct num *n = (const struct num *)((const char *)mg + dcgm[k].off);

			if (!metrics_gpu_readable(s, mg) || !num_ok(n))
				continue;
			if (dcgm[k].scale == 0)
				fam_int(&m, labels[gi], NULL, n->v);
			else if (dcgm[k].scale < 0)
				fam_int(&m, labels[gi], NULL, n->v / (int64_t)-dcgm[k].scale);
			else
				fam_dbl(&m, labels[gi], NULL, (double)n->v * dcgm[k].scale);
		}
	}
	/* DCGM's Xid field is the last Xid, 0 when there was none: a reading (the log was read),
	 * so 0 here is a value, not a stand-in for "unknown" */
	if (in->xids) {
		fam_begin(&m, out, f, "DCGM_FI_DEV_XID_ERRORS", FAM_GAUGE,
			  "Value of the last XID error encountered.");
		for (gi = 0; gi < s->ngpus && gi < in->xids->ngpus; gi++)
			fam_int(&m, labels[gi], NULL,
				in->xids->gpus[gi].last >= 0 ? in->xids->gpus[gi].last : 0);
	}
	for (gi = 0; gi < s->ngpus; gi++)
		free(labels[gi]);
	free(labels);
}

/* The executable's base name from a command line, at most 32 characters. */
static void command_name(const char *cmd, char *out, size_t n)
{
	const char *end = cmd, *base = cmd;
	size_t len;

	while (*end && *end != ' ')
		end++;
	for (const char *p = cmd; p < end; p++)
		if (*p == '/')
			base = p + 1;
	len = (size_t)(end - base);
	if (len > 32)
		len = 32;
	if (len >= n)
		len = n - 1;
	memcpy(out, base, len);
	out[len] = '\0';
}

static char *proc_labels(const struct mon_snapshot *s, const struct mon_proc *p)
{
	const struct mon_gpu *mg = &s->gpus[p->gpu];
	struct strbuf sb;
	char cmd[40] = "";

	if (p->mapped)
		command_name(p->host.cmd, cmd, sizeof(cmd));
	sb_init(&sb);
	sb_addf(&sb, "gpu=\"%u\",uuid=\"", p->gpu);
	metrics_escape(&sb, text_ok(&mg->g.st.uuid) ? mg->g.st.uuid.s : "");
	sb_addf(&sb, "\",pid=\"%u\",user=\"", p->nvml_pid);
	metrics_escape(&sb, p->mapped ? p->host.user : "");
	sb_adds(&sb, "\",command=\"");
	metrics_escape(&sb, cmd);
	sb_addc(&sb, '"');
	return sb_detach(&sb);
}

/* Is p the first of the snapshot's rows for its GPU and PID, and among the first
 * METRICS_PROCS_PER_GPU of its GPU? */
static bool proc_shown(const struct mon_snapshot *s, size_t i)
{
	unsigned before = 0;
	size_t j;

	for (j = 0; j < i; j++) {
		if (s->procs[j].gpu != s->procs[i].gpu)
			continue;
		if (s->procs[j].nvml_pid == s->procs[i].nvml_pid)
			return false;
		before++;
	}
	return before < METRICS_PROCS_PER_GPU;
}

void metrics_render_procs(const struct metrics_input *in, enum metrics_format f,
			  struct strbuf *out)
{
	const struct mon_snapshot *s = in->snap;
	struct fam m;
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		if (pass == 0)
			fam_begin(&m, out, f, "gpuvet_process_memory_bytes", FAM_GAUGE,
				  "GPU memory a process holds");
		else
			fam_begin(&m, out, f, "gpuvet_process_sm_utilization_ratio", FAM_GAUGE,
				  "Share of the GPU's SM time a process used over the last sample");
		for (i = 0; i < s->nprocs; i++) {
			const struct mon_proc *p = &s->procs[i];
			char *l;

			if (p->gpu >= s->ngpus || !metrics_gpu_readable(s, &s->gpus[p->gpu]) ||
			    !proc_shown(s, i))
				continue;
			if (pass == 0 ? p->gpu_mem_bytes < 0 : p->sm_pct < 0)
				continue;
			l = proc_labels(s, p);
			if (pass == 0)
				fam_int(&m, l, NULL, p->gpu_mem_bytes);
			else
				fam_dbl(&m, l, NULL, p->sm_pct / 100.0);
			free(l);
		}
	}
}

const char *metrics_path_name(enum metrics_path p)
{
	static const char *const names[] = {"/metrics", "/healthz", "/", "other"};

	return p < METRICS_NPATHS ? names[p] : "other";
}

void metrics_render_live(const struct mon_snapshot *s, const struct metrics_live *l,
			 enum metrics_format f, struct strbuf *out)
{
	struct fam m;
	unsigned gi;
	int p;

	fam_begin(&m, out, f, "gpuvet_sample_age_seconds", FAM_GAUGE,
		  "Age of the values this scrape shows, per tier (fast: every tick; slow: rates, "
		  "energy, ECC, remapped rows, slowdown counters)");
	for (gi = 0; gi < s->ngpus; gi++) {
		const struct mon_gpu *mg = &s->gpus[gi];
		char *labels;

		if (!metrics_gpu_readable(s, mg))
			continue;
		labels = metrics_gpu_labels(mg);
		fam_dbl(&m, labels, "tier=\"fast\"", (double)(l->now_ns - mg->fast_t_ns) / 1e9);
		if (mg->slow_t_ns > 0)
			fam_dbl(&m, labels, "tier=\"slow\"", (double)(l->now_ns - mg->slow_t_ns) / 1e9);
		free(labels);
	}
	if (l->cpu_seconds >= 0) {
		fam_begin(&m, out, f, "process_cpu_seconds_total", FAM_COUNTER,
			  "Total user and system CPU time spent in seconds.");
		fam_dbl(&m, NULL, NULL, l->cpu_seconds);
	}
	if (l->rss_bytes >= 0) {
		fam_begin(&m, out, f, "process_resident_memory_bytes", FAM_GAUGE,
			  "Resident memory size in bytes.");
		fam_int(&m, NULL, NULL, l->rss_bytes);
	}
	if (l->start_time > 0) {
		fam_begin(&m, out, f, "process_start_time_seconds", FAM_GAUGE,
			  "Start time of the process since unix epoch in seconds.");
		fam_dbl(&m, NULL, NULL, l->start_time);
	}
	fam_begin(&m, out, f, "gpuvet_scrapes_total", FAM_COUNTER, "HTTP requests served, per path");
	for (p = 0; p < METRICS_NPATHS; p++) {
		char extra[48];

		str_fmt(extra, sizeof(extra), "path=\"%s\"", metrics_path_name((enum metrics_path)p));
		fam_int(&m, NULL, extra, (int64_t)l->scrapes[p]);
	}
	if (l->render_seconds >= 0) {
		fam_begin(&m, out, f, "gpuvet_scrape_render_seconds", FAM_GAUGE,
			  "Time the latest rebuild of the cached exposition took");
		fam_dbl(&m, NULL, NULL, l->render_seconds);
	}
	if (f == METRICS_OPENMETRICS)
		sb_adds(out, "# EOF\n");
}
