/* test_serve_metrics.c: the exposition of `gpuvet serve` (serve/metrics.c, metrics_compat.c) and
 * the Xid tally (serve/xid.c) on constructed snapshots: names, units, labels and their escaping,
 * absent-not-zero, a lost GPU, both formats' rules (HELP and TYPE per family, families in one
 * block, no duplicate series, OpenMetrics' counter names and # EOF), the Accept negotiation,
 * findings, processes and dcgm-exporter's names. */
#include <stdlib.h>
#include <string.h>

#include "checks/finding.h"
#include "serve/metrics.h"
#include "serve/xid.h"
#include "test.h"
#include "util/strbuf.h"
#include "util/util.h"
#include "version.h"

static void text_set(struct text *t, const char *s)
{
	str_copy(t->s, s, sizeof(t->s));
	t->st = VAL_OK;
}

static void na(struct num *n)
{
	n->st = VAL_NA;
}

/* Two H200s: GPU 0 healthy with everything read but its fan, GPU 1 lost. */
static struct mon_snapshot snap(void)
{
	struct mon_snapshot s;
	unsigned i;

	memset(&s, 0, sizeof(s));
	s.seq = 7;
	s.t_ns = 10000000000LL;
	str_copy(s.driver_version, "580.159.04", sizeof(s.driver_version));
	str_copy(s.nvml_version, "13.580.159.04", sizeof(s.nvml_version));
	s.cuda_driver_version = 13000;
	s.ngpus = 2;
	s.gpus = xcalloc(2, sizeof(*s.gpus));
	s.procs = xcalloc(1, sizeof(*s.procs));
	for (i = 0; i < 2; i++) {
		struct mon_gpu *mg = &s.gpus[i];
		struct gpu *g = &mg->g;

		g->index = i;
		mg->selected = true;
		mg->fast_t_ns = s.t_ns - 250000000LL;
		mg->slow_t_ns = s.t_ns - 2000000000LL;
		text_set(&g->st.name, i == 0 ? "NVIDIA \"H200\" \\ NVL" : "NVIDIA H200");
		text_set(&g->st.uuid, i == 0 ? "GPU-aaaa" : "GPU-bbbb");
		text_set(&g->st.serial, i == 0 ? "1650\n924" : "1650925");
		text_set(&g->st.bus_id, i == 0 ? "00000000:18:00.0" : "00000000:2A:00.0");
		text_set(&g->st.vbios, "96.00.AF.00.01");
		num_set(&g->st.minor_number, i + 4);
		num_set(&g->st.mem_total_bytes, 150754820096LL);
		num_set(&g->st.clock_max_sm_mhz, 1980);
		num_set(&g->st.power_limit_mw, 700000);
		num_set(&g->st.temp_slowdown_c, 87);
		num_set(&g->st.pcie_gen_max, 5);
		num_set(&g->st.pcie_width_max, 16);
		num_set(&g->st.ce_supported, CE_GPU_IDLE | CE_SW_POWER_CAP | CE_HW_SLOWDOWN);
		na(&g->st.nvlink_count);
		num_set(&g->s.util_gpu_pct, 87);
		num_set(&g->s.util_mem_pct, 41);
		num_set(&g->s.mem_used_bytes, 24696061952LL);
		num_set(&g->s.mem_free_bytes, 126058758144LL);
		num_set(&g->s.mem_reserved_bytes, 1048576LL * 500);
		num_set(&g->s.temp_c, 40);
		na(&g->s.fan_pct);
		num_set(&g->s.power_mw, 81278);
		num_set(&g->s.energy_mj, 123456789);
		num_set(&g->s.clock_sm_mhz, 1980);
		num_set(&g->s.clock_mem_mhz, 3201);
		num_set(&g->s.pstate, 0);
		num_set(&g->s.clock_events, CE_SW_POWER_CAP);
		num_set(&g->s.ce_sw_power_ns, 2500000000LL);
		na(&g->s.ce_hw_thermal_ns);
		num_set(&g->s.pcie_gen, 5);
		num_set(&g->s.pcie_width, 16);
		num_set(&g->s.pcie_replays, 0);
		num_set(&g->s.ecc_vol_uncorrected, 0);
		num_set(&g->s.ecc_agg_corrected, 3);
		num_set(&g->s.remap_corrected, 1);
		num_set(&g->s.remap_uncorrected, 0);
		num_set(&g->s.remap_pending, 0);
		num_set(&mg->gpm[GPM_SM_ACTIVE], 45500);
	}
	s.gpus[1].lost = true;
	return s;
}

static char *render(const struct metrics_input *in, enum metrics_format f)
{
	struct strbuf sb;
	struct metrics_live l;

	memset(&l, 0, sizeof(l));
	l.now_ns = in->snap->t_ns;
	l.cpu_seconds = 1.5;
	l.rss_bytes = 12345678;
	l.start_time = 1700000000;
	l.scrapes[METRICS_PATH_METRICS] = 3;
	l.render_seconds = 0.001;
	sb_init(&sb);
	metrics_render(in, f, &sb);
	metrics_render_live(in->snap, &l, f, &sb);
	return sb_detach(&sb);
}

/* The format's rules, checked line by line. Returns NULL, or what is wrong. */
static const char *check_format(const char *body, enum metrics_format f)
{
	static char why[300];
	char *copy = xstrdup(body), *line, *save = NULL;
	char fams[200][96], series[2000][400];
	char cur[96] = "", cur_type[16] = "";
	int nfams = 0, nseries = 0, i;
	bool eof = false, help = false;

	why[0] = '\0';
	for (line = strtok_r(copy, "\n", &save); line && !why[0]; line = strtok_r(NULL, "\n", &save)) {
		char name[96], type[16];

		if (eof) {
			str_fmt(why, sizeof(why), "a line after # EOF: %s", line);
		} else if (strcmp(line, "# EOF") == 0) {
			eof = true;
		} else if (sscanf(line, "# HELP %95s", name) == 1) {
			for (i = 0; i < nfams; i++)
				if (strcmp(fams[i], name) == 0)
					str_fmt(why, sizeof(why), "family %s comes twice", name);
			str_copy(fams[nfams++], name, sizeof(fams[0]));
			str_copy(cur, name, sizeof(cur));
			help = true;
		} else if (sscanf(line, "# TYPE %95s %15s", name, type) == 2) {
			if (!help || strcmp(name, cur) != 0)
				str_fmt(why, sizeof(why), "TYPE without its HELP: %s", line);
			str_copy(cur_type, type, sizeof(cur_type));
			help = false;
		} else if (line[0] == '#') {
			str_fmt(why, sizeof(why), "unexpected comment: %s", line);
		} else {
			const char *sp = strrchr(line, ' ');
			size_t n = strcspn(line, "{ ");
			char want[110];

			str_copy(want, cur, sizeof(want));
			if (f == METRICS_OPENMETRICS && strcmp(cur_type, "counter") == 0)
				str_append(want, "_total", sizeof(want));
			if (strlen(want) != n || strncmp(line, want, n) != 0)
				str_fmt(why, sizeof(why), "sample outside its family %s (%s): %s", cur,
					cur_type, line);
			if (f == METRICS_TEXT && strcmp(cur_type, "counter") == 0 &&
			    !str_ends(cur, "_total") && strncmp(cur, "DCGM_", 5) != 0)
				str_fmt(why, sizeof(why), "counter without _total: %s", cur);
			if (!sp || sp == line)
				str_fmt(why, sizeof(why), "no value: %s", line);
			else {
				str_copy(series[nseries], line, (size_t)(sp - line) + 1);
				for (i = 0; i < nseries; i++)
					if (strcmp(series[i], series[nseries]) == 0)
						str_fmt(why, sizeof(why), "duplicate series %s", series[i]);
				nseries++;
			}
		}
	}
	if (!why[0] && f == METRICS_OPENMETRICS && !eof)
		str_copy(why, "no # EOF", sizeof(why));
	if (!why[0] && f == METRICS_TEXT && eof)
		str_copy(why, "# EOF in the text format", sizeof(why));
	free(copy);
	return why[0] ? why : NULL;
}

static bool has(const char *body, const char *line)
{
	const char *p = body;
	size_t n = strlen(line);

	while ((p = strstr(p, line)) != NULL) {
		if ((p == body || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

#define G0 "gpu=\"0\",uuid=\"GPU-aaaa\",pci_bus_id=\"0000:18:00.0\",model=\"NVIDIA \\\"H200\\\" \\\\ NVL\",serial=\"1650\\n924\""
#define G1 "gpu=\"1\",uuid=\"GPU-bbbb\",pci_bus_id=\"0000:2a:00.0\",model=\"NVIDIA H200\",serial=\"1650925\""

static void text_format(void)
{
	struct mon_snapshot s = snap();
	struct metrics_input in = {&s, NULL, NULL, "node1", false, false};
	char *b = render(&in, METRICS_TEXT);
	const char *why = check_format(b, METRICS_TEXT);

	if (why)
		printf("# %s\n", why);
	CHECK(why == NULL);
	CHECK(has(b, "# TYPE gpuvet_power_watts gauge"));
	CHECK(has(b, "gpuvet_power_watts{" G0 "} 81.278"));
	CHECK(has(b, "gpuvet_sm_clock_hertz{" G0 "} 1980000000"));
	CHECK(has(b, "gpuvet_gpu_utilization_ratio{" G0 "} 0.87"));
	CHECK(has(b, "gpuvet_memory_total_bytes{" G0 "} 150754820096"));
	CHECK(has(b, "# TYPE gpuvet_energy_joules_total counter"));
	CHECK(has(b, "gpuvet_energy_joules_total{" G0 "} 123456.789"));
	CHECK(has(b, "gpuvet_gpm_sm_active_ratio{" G0 "} 0.455"));
	CHECK(has(b, "gpuvet_pstate{" G0 "} 0"));
	CHECK(has(b, "gpuvet_gpu_info{" G0 ",vendor=\"NVIDIA\",driver_version=\"580.159.04\",driver=\"nvidia\",vbios=\"96.00.AF.00.01\"} 1"));
	CHECK(has(b, "gpuvet_build_info{version=\"" GPUVET_VERSION "\",driver_version=\"580.159.04\",nvml_version=\"13.580.159.04\",cuda_driver_version=\"13.0\"} 1"));
	CHECK(has(b, "gpuvet_clock_event_active{" G0 ",reason=\"sw_power_cap\"} 1"));
	CHECK(has(b, "gpuvet_clock_event_active{" G0 ",reason=\"gpu_idle\"} 0"));
	/* not among the reasons this GPU reports */
	CHECK(!strstr(b, "reason=\"hw_thermal\"} 0"));
	CHECK(has(b, "gpuvet_clock_event_seconds_total{" G0 ",reason=\"sw_power_cap\"} 2.5"));
	CHECK(has(b, "gpuvet_ecc_errors_total{" G0 ",type=\"corrected\",scope=\"aggregate\"} 3"));
	CHECK(has(b, "gpuvet_ecc_errors_total{" G0 ",type=\"uncorrected\",scope=\"volatile\"} 0"));
	CHECK(has(b, "gpuvet_remapped_rows_total{" G0 ",type=\"correctable\"} 1"));
	CHECK(has(b, "gpuvet_sample_age_seconds{" G0 ",tier=\"fast\"} 0.25"));
	CHECK(has(b, "gpuvet_sample_age_seconds{" G0 ",tier=\"slow\"} 2"));
	CHECK(has(b, "process_resident_memory_bytes 12345678"));
	CHECK(has(b, "gpuvet_scrapes_total{path=\"/metrics\"} 3"));
	CHECK(has(b, "gpuvet_collector_ticks_total{tier=\"fast\"} 0"));
	/* absent, never 0: the fan is not supported, NVLink neither, ECC volatile corrected was
	 * never read; doctor is off and the kernel log unknown */
	CHECK(!strstr(b, "gpuvet_fan_speed_ratio"));
	CHECK(!strstr(b, "gpuvet_nvlink_links_up"));
	CHECK(!strstr(b, "type=\"corrected\",scope=\"volatile\""));
	CHECK(!strstr(b, "gpuvet_memory_temperature_celsius"));
	CHECK(!strstr(b, "gpuvet_health_status"));
	CHECK(!strstr(b, "gpuvet_xid"));
	CHECK(!strstr(b, "DCGM_FI_"));
	CHECK(!strstr(b, "gpuvet_process_memory_bytes"));
	free(b);
	mon_snapshot_free(&s);
}

static void lost_gpu(void)
{
	struct mon_snapshot s = snap();
	struct metrics_input in = {&s, NULL, NULL, "node1", false, false};
	char *b = render(&in, METRICS_TEXT);

	CHECK(has(b, "gpuvet_gpu_up{" G0 "} 1"));
	CHECK(has(b, "gpuvet_gpu_up{" G1 "} 0"));
	CHECK(strstr(b, "gpuvet_gpu_info{" G1) != NULL);
	/* the last values of a lost GPU are not shown as if it still answered */
	CHECK(!strstr(b, "gpuvet_power_watts{" G1));
	CHECK(!strstr(b, "gpuvet_memory_total_bytes{" G1));
	CHECK(!strstr(b, "gpuvet_sample_age_seconds{" G1));
	free(b);
	/* a stalled collector: no GPU answers */
	s.stalled = true;
	b = render(&in, METRICS_TEXT);
	CHECK(has(b, "gpuvet_gpu_up{" G0 "} 0"));
	CHECK(!strstr(b, "gpuvet_power_watts{"));
	free(b);
	mon_snapshot_free(&s);
}

static void openmetrics(void)
{
	struct mon_snapshot s = snap();
	struct metrics_input in = {&s, NULL, NULL, "node1", true, false};
	char *b = render(&in, METRICS_OPENMETRICS);
	const char *why = check_format(b, METRICS_OPENMETRICS);

	if (why)
		printf("# %s\n", why);
	CHECK(why == NULL);
	CHECK(has(b, "# TYPE gpuvet_energy_joules counter"));
	CHECK(has(b, "# HELP gpuvet_energy_joules Energy used since the driver loaded"));
	CHECK(has(b, "gpuvet_energy_joules_total{" G0 "} 123456.789"));
	CHECK(has(b, "# TYPE process_cpu_seconds counter"));
	CHECK(has(b, "process_cpu_seconds_total 1.5"));
	/* dcgm-exporter's counters keep their names: of unknown type here */
	CHECK(has(b, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown"));
	CHECK(str_ends(b, "\n# EOF\n"));
	free(b);
	mon_snapshot_free(&s);
}

static void negotiation(void)
{
	CHECK(metrics_negotiate(NULL) == METRICS_TEXT);
	CHECK(metrics_negotiate("") == METRICS_TEXT);
	CHECK(metrics_negotiate("*/*") == METRICS_TEXT);
	CHECK(metrics_negotiate("text/plain;version=0.0.4") == METRICS_TEXT);
	CHECK(metrics_negotiate("application/openmetrics-text") == METRICS_OPENMETRICS);
	/* what Prometheus 2.x sends */
	CHECK(metrics_negotiate("application/openmetrics-text;version=1.0.0,application/"
				"openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
				"q=0.5,*/*;q=0.1") == METRICS_OPENMETRICS);
	CHECK(metrics_negotiate("text/plain;q=1, application/openmetrics-text;q=0.5") == METRICS_TEXT);
	CHECK(metrics_negotiate("application/openmetrics-text; q=0") == METRICS_TEXT);
	CHECK(metrics_negotiate("Application/OpenMetrics-Text ; version=1.0.0") == METRICS_OPENMETRICS);
	CHECK(metrics_negotiate("application/openmetrics-textual") == METRICS_TEXT);
	CHECK(strstr(metrics_content_type(METRICS_OPENMETRICS), "application/openmetrics-text; version=1.0.0") != NULL);
	CHECK(strstr(metrics_content_type(METRICS_TEXT), "text/plain; version=0.0.4") != NULL);
}

static void escaping(void)
{
	struct strbuf sb;

	sb_init(&sb);
	metrics_escape(&sb, "a\\b\"c\nd");
	CHECK_STR(sb.buf, "a\\\\b\\\"c\\nd");
	sb_release(&sb);
}

static void findings(void)
{
	struct mon_snapshot s = snap();
	struct metrics_finding v[60];
	struct metrics_health h;
	struct metrics_input in = {&s, &h, NULL, "node1", false, false};
	size_t n = 0, i;
	char *b;
	const char *why;
	int count = 0;
	const char *p;

	memset(v, 0, sizeof(v));
	str_copy(v[n].id, "health.ecc_uncorrected", sizeof(v[0].id));
	v[n].sev = SEV_FAIL;
	v[n++].gpu = 1;
	str_copy(v[n].id, "kernel_log.xid", sizeof(v[0].id));
	v[n].sev = SEV_WARN;
	v[n++].gpu = 0;
	v[n] = v[n - 1]; /* the same id twice on one GPU (two Xid codes): one series */
	n++;
	str_copy(v[n].id, "nvml.ok", sizeof(v[0].id));
	v[n].sev = SEV_OK;
	v[n++].gpu = -1;
	str_copy(v[n].id, "env.cuda_visible", sizeof(v[0].id));
	v[n].sev = SEV_INFO;
	v[n++].gpu = -1;
	/* more than the bound on GPU 0 */
	for (i = 0; i < 40; i++) {
		str_fmt(v[n].id, sizeof(v[0].id), "health.many_%zu", i);
		v[n].sev = SEV_INFO;
		v[n++].gpu = 0;
	}
	memset(&h, 0, sizeof(h));
	h.ran = true;
	h.last_run_wall = 1700000000.5;
	h.duration_s = 0.25;
	h.v = v;
	h.n = n;
	b = render(&in, METRICS_TEXT);
	why = check_format(b, METRICS_TEXT);
	if (why)
		printf("# %s\n", why);
	CHECK(why == NULL);
	CHECK(has(b, "gpuvet_health_status{" G0 "} 1"));
	CHECK(has(b, "gpuvet_health_status{" G1 "} 2"));
	CHECK(has(b, "gpuvet_health_status{scope=\"host\"} 2"));
	CHECK(has(b, "gpuvet_finding{" G1 ",id=\"health.ecc_uncorrected\",severity=\"fail\"} 1"));
	CHECK(has(b, "gpuvet_finding{" G0 ",id=\"kernel_log.xid\",severity=\"warn\"} 1"));
	CHECK(has(b, "gpuvet_finding{id=\"env.cuda_visible\",severity=\"info\",gpu=\"\"} 1"));
	CHECK(!strstr(b, "nvml.ok"));
	CHECK(has(b, "gpuvet_doctor_last_run_timestamp_seconds 1700000000.5"));
	CHECK(has(b, "gpuvet_doctor_duration_seconds 0.25"));
	for (p = b; (p = strstr(p, "gpuvet_finding{gpu=\"0\"")) != NULL; p++)
		count++;
	CHECK(count == METRICS_FINDINGS_PER_GPU);
	free(b);
	/* doctor has not run yet: no verdict rather than a made-up "ok" */
	h.ran = false;
	b = render(&in, METRICS_TEXT);
	CHECK(!strstr(b, "gpuvet_health_status"));
	free(b);
	mon_snapshot_free(&s);
}

static void procs(void)
{
	struct mon_snapshot s = snap();
	struct metrics_input in = {&s, NULL, NULL, "node1", false, true};
	char *b;
	const char *why, *p;
	size_t i;
	int count = 0;

	free(s.procs);
	s.nprocs = 80;
	s.procs = xcalloc(s.nprocs, sizeof(*s.procs));
	for (i = 0; i < s.nprocs; i++) {
		struct mon_proc *mp = &s.procs[i];

		mp->gpu = 0;
		mp->nvml_pid = 1000 + (unsigned)i;
		mp->gpu_mem_bytes = 1048576;
		mp->sm_pct = -1;
		mp->mapped = 'd';
		str_copy(mp->host.user, "alice", sizeof(mp->host.user));
		str_copy(mp->host.cmd, "/opt/conda/bin/python3-with-a-very-long-name-indeed train.py --x",
			 sizeof(mp->host.cmd));
	}
	s.procs[0].sm_pct = 87;
	s.procs[1] = s.procs[0]; /* the same PID twice (compute and graphics) */
	s.procs[2].gpu = 1;	 /* a lost GPU's: not shown */
	s.procs[3].mapped = 0;	 /* not visible from here */
	s.procs[4].gpu_mem_bytes = -1;
	b = render(&in, METRICS_TEXT);
	why = check_format(b, METRICS_TEXT);
	if (why)
		printf("# %s\n", why);
	CHECK(why == NULL);
	CHECK(has(b, "gpuvet_process_memory_bytes{gpu=\"0\",uuid=\"GPU-aaaa\",pid=\"1000\",user=\"alice\",command=\"python3-with-a-very-long-name-in\"} 1048576"));
	CHECK(has(b, "gpuvet_process_sm_utilization_ratio{gpu=\"0\",uuid=\"GPU-aaaa\",pid=\"1000\",user=\"alice\",command=\"python3-with-a-very-long-name-in\"} 0.87"));
	CHECK(has(b, "gpuvet_process_memory_bytes{gpu=\"0\",uuid=\"GPU-aaaa\",pid=\"1003\",user=\"\",command=\"\"} 1048576"));
	CHECK(!strstr(b, "pid=\"1002\""));
	CHECK(!strstr(b, "pid=\"1004\""));
	for (p = b; (p = strstr(p, "gpuvet_process_memory_bytes{")) != NULL; p++)
		count++;
	/* 64 rows considered on GPU 0 (one a duplicate, one without memory) */
	CHECK(count == METRICS_PROCS_PER_GPU - 2);
	free(b);
	mon_snapshot_free(&s);
}

static void dcgm_names(void)
{
	struct mon_snapshot s = snap();
	struct xid_tally t;
	struct metrics_input in = {&s, NULL, &t, "node1", true, false};
	char *b;
	const char *why;

	xid_tally_init(&t, 2);
	b = render(&in, METRICS_TEXT);
	why = check_format(b, METRICS_TEXT);
	if (why)
		printf("# %s\n", why);
	CHECK(why == NULL);
#define D0 "gpu=\"0\",UUID=\"GPU-aaaa\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia4\",modelName=\"NVIDIA \\\"H200\\\" \\\\ NVL\",Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"580.159.04\""
	CHECK(has(b, "DCGM_FI_DEV_SM_CLOCK{" D0 "} 1980"));
	CHECK(has(b, "DCGM_FI_DEV_POWER_USAGE{" D0 "} 81.278"));
	CHECK(has(b, "DCGM_FI_DEV_FB_USED{" D0 "} 23552"));
	CHECK(has(b, "DCGM_FI_DEV_FB_RESERVED{" D0 "} 500"));
	CHECK(has(b, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" D0 "} 123456789"));
	CHECK(has(b, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter"));
	CHECK(has(b, "DCGM_FI_DEV_GPU_UTIL{" D0 "} 87"));
	CHECK(has(b, "DCGM_FI_PROF_SM_ACTIVE{" D0 "} 0.455"));
	CHECK(has(b, "DCGM_FI_DEV_XID_ERRORS{" D0 "} 0"));
	CHECK(!strstr(b, "DCGM_FI_DEV_ENC_UTIL"));
	/* gpuvet's own names are still there */
	CHECK(has(b, "gpuvet_power_watts{" G0 "} 81.278"));
	free(b);
	xid_tally_free(&t);
	mon_snapshot_free(&s);
}

static void add_xid(struct kmsg_facts *k, const char *bdf, int xid, int64_t seq)
{
	struct xid_event *x = &k->xids[k->nxids++];

	memset(x, 0, sizeof(*x));
	str_copy(x->bdf, bdf, sizeof(x->bdf));
	x->xid = xid;
	x->seq = seq;
	if (seq > k->last_seq)
		k->last_seq = seq;
}

static void xid_counts(void)
{
	static struct kmsg_facts k;
	const char *bus[2] = {"00000000:18:00.0", "00000000:2A:00.0"};
	struct mon_snapshot s = snap();
	struct xid_tally t;
	struct metrics_input in = {&s, NULL, &t, "node1", false, false};
	char *b;

	memset(&k, 0, sizeof(k));
	k.last_seq = -1;
	xid_tally_init(&t, 2);
	add_xid(&k, "0000:18:00", 63, 10); /* an old driver's address, without the function */
	add_xid(&k, "0000:2a:00.0", 79, 11);
	add_xid(&k, "0000:99:00.0", 48, 12); /* no GPU of ours */
	add_xid(&k, "0000:18:00.0", 63, 13);
	CHECK(xid_tally_update(&t, &k, bus) == 4);
	CHECK(t.unmatched == 1);
	/* the same log read again: nothing new */
	CHECK(xid_tally_update(&t, &k, bus) == 0);
	/* one more line */
	add_xid(&k, "0000:18:00.0", 94, 14);
	CHECK(xid_tally_update(&t, &k, bus) == 1);
	b = render(&in, METRICS_TEXT);
	CHECK(check_format(b, METRICS_TEXT) == NULL);
	CHECK(has(b, "gpuvet_xid_errors_total{" G0 ",xid=\"63\"} 2"));
	CHECK(has(b, "gpuvet_xid_errors_total{" G0 ",xid=\"94\"} 1"));
	/* a lost GPU's Xids still show: they come from the log */
	CHECK(has(b, "gpuvet_xid_errors_total{" G1 ",xid=\"79\"} 1"));
	CHECK(has(b, "gpuvet_xid_last{" G0 "} 94"));
	CHECK(has(b, "gpuvet_xid_last{" G1 "} 79"));
	free(b);
	xid_tally_free(&t);
	mon_snapshot_free(&s);
}

int main(void)
{
	RUN(text_format);
	RUN(lost_gpu);
	RUN(openmetrics);
	RUN(negotiation);
	RUN(escaping);
	RUN(findings);
	RUN(procs);
	RUN(dcgm_names);
	RUN(xid_counts);
	return TEST_DONE();
}
