/*
 * test_slurm.c: the pure rules of `gpuvet doctor --slurm` (fleet/slurm.c): the drain reason
 * (which finding it names, its length), the parse of `scontrol show node -o` lines as Slurm
 * 22.05 prints them, the decision (drain, resume, leave alone) and the pipe protocol between
 * doctor's child and its parent. The command itself runs in tests/cli/slurm.sh and against a
 * real Slurm in tests/cli/slurm_real.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "fleet/slurm.h"
#include "fleet/slurm_gres.h"
#include "test.h"
#include "util/util.h"

static struct slurm_problem prob(const char *id, enum severity sev, enum layer layer, int gpu,
				 bool echo, const char *summary)
{
	struct slurm_problem p;

	memset(&p, 0, sizeof(p));
	str_copy(p.id, id, sizeof(p.id));
	p.sev = sev;
	p.layer = layer;
	p.gpu = gpu;
	p.echo = echo;
	if (gpu >= 0)
		str_fmt(p.bus_id, sizeof(p.bus_id), "00000000:%02x:00.0", 0x18 + gpu);
	str_copy(p.summary, summary, sizeof(p.summary));
	return p;
}

static void reason_names_the_cause(void)
{
	struct slurm_health h;
	struct slurm_problem p;
	char r[SLURM_REASON_MAX + 1];

	memset(&h, 0, sizeof(h));
	p = prob("nvml.gpu_lost", SEV_FAIL, LAYER_NVML, 1, true, "the GPU stopped answering");
	slurm_health_add(&h, &p);
	p = prob("fabric.nvlink_down", SEV_WARN, LAYER_FABRIC, 0, false, "16 of 18 NVLinks are up");
	slurm_health_add(&h, &p);
	p = prob("gpu.fallen_off_bus", SEV_FAIL, LAYER_PCI, 1, false, "the GPU fell off the bus");
	slurm_health_add(&h, &p);
	CHECK(slurm_health_worst(&h) == SEV_FAIL);
	CHECK(slurm_reason(&h, SEV_FAIL, r, sizeof(r)));
	/* the cause, not its echo; the echo is not counted as one more */
	CHECK_STR(r,
		  "gpuvet: GPU 1 (00000000:19:00.0) gpu.fallen_off_bus: the GPU fell off the bus");
	/* with warnings draining too, the warning counts as one more */
	CHECK(slurm_reason(&h, SEV_WARN, r, sizeof(r)));
	CHECK(str_ends(r, "the GPU fell off the bus (+1 more)"));
	slurm_health_free(&h);
}

static void reason_warnings_and_node(void)
{
	struct slurm_health h;
	struct slurm_problem p;
	char r[SLURM_REASON_MAX + 1];

	memset(&h, 0, sizeof(h));
	p = prob("fabric.nvlink_down", SEV_WARN, LAYER_FABRIC, 1, false, "16 of 18 NVLinks are up");
	slurm_health_add(&h, &p);
	CHECK(!slurm_reason(&h, SEV_FAIL, r, sizeof(r)));
	CHECK_STR(r, "");
	CHECK(slurm_reason(&h, SEV_WARN, r, sizeof(r)));
	CHECK_STR(r,
		  "gpuvet: GPU 1 (00000000:19:00.0) fabric.nvlink_down: 16 of 18 NVLinks are up");
	/* a node-wide failure of a lower layer comes first */
	p = prob("module.not_loaded", SEV_FAIL, LAYER_MODULE, -1, false,
		 "the module is not loaded");
	slurm_health_add(&h, &p);
	CHECK(slurm_reason(&h, SEV_WARN, r, sizeof(r)));
	CHECK_STR(r, "gpuvet: node module.not_loaded: the module is not loaded (+1 more)");
	slurm_health_free(&h);
	/* a doctor that timed out: a failure without findings */
	memset(&h, 0, sizeof(h));
	h.timed_out = true;
	h.timeout_s = 50;
	CHECK(slurm_health_worst(&h) == SEV_FAIL);
	CHECK(slurm_reason(&h, SEV_FAIL, r, sizeof(r)));
	CHECK(
	    str_starts(r, "gpuvet: node slurm.doctor_timeout: doctor did not finish within 50 s"));
}

static void reason_is_cut_to_255(void)
{
	struct slurm_health h;
	struct slurm_problem p;
	char r[1024], summary[400];
	size_t i;

	memset(&h, 0, sizeof(h));
	/* 190 bytes of two-byte characters: the cut must not split one */
	for (i = 0; i + 2 < 191; i += 2)
		memcpy(summary + i, "\xc3\xa9", 2);
	summary[i] = '\0';
	p = prob("health.ecc_uncorrectable", SEV_FAIL, LAYER_HEALTH, 0, false, summary);
	slurm_health_add(&h, &p);
	for (i = 0; i < 12; i++) {
		p = prob("health.hot", SEV_FAIL, LAYER_HEALTH, (int)i + 1, false, "hot");
		slurm_health_add(&h, &p);
	}
	CHECK(slurm_reason(&h, SEV_FAIL, r, sizeof(r)));
	CHECK(strlen(r) <= SLURM_REASON_MAX);
	CHECK(str_starts(r, "gpuvet: GPU 0 (00000000:18:00.0) health.ecc_uncorrectable: \xc3\xa9"));
	CHECK(str_ends(r, "\xc3\xa9 (+12 more)"));
	/* a small buffer is never overrun */
	CHECK(slurm_reason(&h, SEV_FAIL, r, 40));
	CHECK(strlen(r) <= 39 && str_starts(r, "gpuvet: GPU 0"));
	slurm_health_free(&h);
}

/* lines as Slurm 22.05's `scontrol show node -o` prints them (OS= holds spaces) */
#define LINE_HEAD                                                                                  \
	"NodeName=n1 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.31 "    \
	"AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:h200:2 NodeAddr=127.0.0.1 "       \
	"NodeHostName=n1 Version=22.05.8 OS=Linux 6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian "   \
	"6.1.76-1 (2024-02-01) RealMemory=1000 AllocMem=0 FreeMem=12000 Sockets=2 Boards=1 "

static void node_lines(void)
{
	struct slurm_node n;
	struct err e;

	CHECK(slurm_node_parse(LINE_HEAD "State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 "
					 "Owner=N/A MCS_label=N/A Partitions=debug\n",
			       &n, &e) == 0);
	CHECK_STR(n.name, "n1");
	CHECK_STR(n.state, "IDLE");
	CHECK_STR(n.reason, "");
	CHECK(slurm_node_parse(LINE_HEAD "State=IDLE+DRAIN ThreadsPerCore=1 Partitions=debug "
					 "Reason=gpuvet: GPU 1 (00000000:19:00.0) x.y: a [b] c=d "
					 "[root@2026-12-02T05:33:16]\n",
			       &n, &e) == 0);
	CHECK_STR(n.state, "IDLE+DRAIN");
	CHECK_STR(n.reason, "gpuvet: GPU 1 (00000000:19:00.0) x.y: a [b] c=d");
	/* a field after the reason (later versions) and a warning line before */
	CHECK(slurm_node_parse("scontrol: warning: something\n" LINE_HEAD
			       "State=MIXED+DRAIN+REBOOT_REQUESTED Reason=Reboot ASAP "
			       "[slurm@2026-12-02T05:33:16] Comment=x\n",
			       &n, &e) == 0);
	CHECK_STR(n.state, "MIXED+DRAIN+REBOOT_REQUESTED");
	CHECK_STR(n.reason, "Reboot ASAP");
	CHECK(slurm_node_parse("Node n9 not found\n", &n, &e) == -1);
	CHECK(strstr(e.msg, "no NodeName=") != NULL);
	CHECK(slurm_state_has("IDLE+DRAIN", "DRAIN"));
	CHECK(slurm_state_has("DOWN*+DRAIN", "DOWN"));
	CHECK(slurm_state_has("IDLE~", "IDLE"));
	CHECK(!slurm_state_has("IDLE+DRAIN", "DRAINED"));
	CHECK(!slurm_state_has("IDLE", "IDL"));
}

static enum slurm_action decide(const char *state, const char *had, const char *reason)
{
	struct slurm_node n;
	const char *why = NULL;
	enum slurm_action a;

	memset(&n, 0, sizeof(n));
	str_copy(n.name, "n1", sizeof(n.name));
	str_copy(n.state, state, sizeof(n.state));
	str_copy(n.reason, had, sizeof(n.reason));
	a = slurm_decide(&n, reason, &why);
	return why ? a : (enum slurm_action) - 1;
}

static void decisions(void)
{
	const char *ours = "gpuvet: GPU 1 (00000000:19:00.0) gpu.fallen_off_bus: gone";

	/* unhealthy */
	CHECK(decide("IDLE", "", ours) == SLURM_DRAIN);
	CHECK(decide("ALLOCATED", "", ours) == SLURM_DRAIN);
	CHECK(decide("IDLE+DRAIN", ours, ours) == SLURM_NONE);
	CHECK(decide("IDLE+DRAIN", "gpuvet: GPU 0 other", ours) == SLURM_DRAIN);
	CHECK(decide("IDLE+DRAIN", "bad DIMM", ours) == SLURM_LEAVE);
	CHECK(decide("DOWN", "Not responding", ours) == SLURM_LEAVE);
	CHECK(decide("IDLE+DRAIN+REBOOT_REQUESTED", "Reboot ASAP", ours) == SLURM_LEAVE);
	/* healthy */
	CHECK(decide("IDLE", "", NULL) == SLURM_NONE);
	CHECK(decide("IDLE+DRAIN", ours, NULL) == SLURM_RESUME);
	CHECK(decide("MIXED+DRAIN", ours, NULL) == SLURM_RESUME);
	CHECK(decide("IDLE+DRAIN", "bad DIMM", NULL) == SLURM_LEAVE);
	CHECK(decide("IDLE+DRAIN", "", NULL) == SLURM_LEAVE);
	CHECK(decide("IDLE+DRAIN+REBOOT_REQUESTED", ours, NULL) == SLURM_LEAVE);
	CHECK(decide("IDLE+DRAIN+MAINTENANCE", ours, NULL) == SLURM_LEAVE);
	CHECK(decide("DOWN+DRAIN", ours, NULL) == SLURM_LEAVE);
	CHECK(decide("IDLE+POWERED_DOWN+DRAIN", ours, NULL) == SLURM_LEAVE);
	CHECK(decide("IDLE+DRAIN", "GPUVET: upper case is not ours", NULL) == SLURM_LEAVE);
}

static void pipe_protocol(void)
{
	struct slurm_health h, back;
	struct slurm_problem p;
	struct err e;
	char *text;

	memset(&h, 0, sizeof(h));
	memset(&back, 0, sizeof(back));
	p = prob("gpu.fallen_off_bus", SEV_FAIL, LAYER_PCI, 1, false, "gone");
	slurm_health_add(&h, &p);
	p = prob("nvml.gpu_lost", SEV_FAIL, LAYER_NVML, -1, true, "lost");
	slurm_health_add(&h, &p);
	h.ignored = 3;
	text = slurm_health_encode(&h);
	CHECK(slurm_health_decode(text, &back, &e) == 0);
	CHECK(back.n == 2 && back.ignored == 3);
	CHECK_STR(back.v[0].id, "gpu.fallen_off_bus");
	CHECK_STR(back.v[0].bus_id, "00000000:19:00.0");
	CHECK(back.v[0].sev == SEV_FAIL && back.v[0].layer == LAYER_PCI && back.v[0].gpu == 1 &&
	      !back.v[0].echo);
	CHECK(back.v[1].gpu == -1 && back.v[1].echo && back.v[1].bus_id[0] == '\0');
	CHECK_STR(back.v[1].summary, "lost");
	slurm_health_free(&back);
	/* a child that died part-way: no "end" */
	text[strlen(text) - 4] = '\0';
	CHECK(slurm_health_decode(text, &back, &e) == -1);
	CHECK(strstr(e.msg, "before its verdict was complete") != NULL);
	slurm_health_free(&back);
	CHECK(slurm_health_decode("p\t9\t0\t0\t0\tx\t-\ty\nend\n", &back, &e) == -1);
	slurm_health_free(&back);
	free(text);
	slurm_health_free(&h);
}

static void gres_words(void)
{
	char t[64];
	bool cpus[128];
	struct strbuf sb;

	slurm_gres_type("NVIDIA H200", t, sizeof(t));
	CHECK_STR(t, "h200");
	slurm_gres_type("NVIDIA H100 80GB HBM3", t, sizeof(t));
	CHECK_STR(t, "h100");
	slurm_gres_type("NVIDIA A100-SXM4-80GB", t, sizeof(t));
	CHECK_STR(t, "a100");
	slurm_gres_type("Tesla V100-SXM2-16GB", t, sizeof(t));
	CHECK_STR(t, "v100");
	slurm_gres_type("NVIDIA GeForce RTX 4090", t, sizeof(t));
	CHECK_STR(t, "rtx_4090");
	slurm_gres_type("NVIDIA RTX A6000", t, sizeof(t));
	CHECK_STR(t, "rtx_a6000");
	slurm_gres_type(NULL, t, sizeof(t));
	CHECK_STR(t, "gpu");
	memset(cpus, 0, sizeof(cpus));
	CHECK(cpu_list_parse("0-3,8,10-11", cpus, 128) == 7);
	CHECK(cpus[0] && cpus[3] && !cpus[4] && cpus[8] && !cpus[9] && cpus[11] && !cpus[12]);
	sb_init(&sb);
	slurm_cpu_list_format(cpus, 128, &sb);
	CHECK_STR(sb.buf, "0-3,8,10-11");
	sb_release(&sb);
	CHECK(cpu_list_parse("3-1", cpus, 128) == -1);
	CHECK(cpu_list_parse("0-200", cpus, 128) == -1);
	CHECK(cpu_list_parse("1,x", cpus, 128) == -1);
	CHECK(cpu_list_parse("", cpus, 128) == -1);
}

int main(void)
{
	RUN(reason_names_the_cause);
	RUN(reason_warnings_and_node);
	RUN(reason_is_cut_to_255);
	RUN(node_lines);
	RUN(decisions);
	RUN(pipe_protocol);
	RUN(gres_words);
	return TEST_DONE();
}
