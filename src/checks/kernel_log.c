/*
 * kernel_log.c: what the Xid lines in the kernel log mean, per GPU, and what to do.
 *
 * The lines are collected by host/kmsg.c; the meaning and the action follow NVIDIA's Xid
 * catalog as mirrored in health-anchors.md section 5 (DCGM's and NVSentinel's buckets).
 * Application faults (13, 31, 43, 45, 68) say a program crashed, not that the GPU is sick,
 * the way the Kubernetes device plugin treats them. Whether the log could be read at all is
 * reported by the PCI/module layer (catalog row 29); a GPU that fell off the bus is named
 * there too, so Xid 79 is only shown here when that layer did not already.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"kernel_log.ok", LAYER_HEALTH, "no Xid errors in the kernel log", false},
	{"kernel_log.xid", LAYER_HEALTH, "Xid errors in the kernel log", false},
};

static void run_kernel_log(const struct doctor_input *in, struct findings *out);

const struct check check_kernel_log = {
	.name = "kernel_log",
	.layer = LAYER_HEALTH,
	.run = run_kernel_log,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

enum xid_action {
	XA_IGNORE,	/* informational */
	XA_APP,		/* a program faulted; restart it */
	XA_RESET,	/* drain and reset the GPU */
	XA_REBOOT,	/* reboot, reseat, check power */
	XA_POWER,	/* check power cables */
	XA_SERVICE,	/* report to the vendor / field diagnostic */
	XA_FOLLOW,	/* follow the linked Xid or the recovery action */
};

struct xid_info {
	int xid;
	const char *meaning;
	enum xid_action action;
};

/* NVIDIA's Xid catalog, the codes seen in practice. */
static const struct xid_info xids[] = {
	{8, "GPU stopped processing (FIFO idle timeout)", XA_APP},
	{13, "graphics engine exception (usually the program)", XA_APP},
	{31, "GPU memory page fault (an illegal address in the program)", XA_APP},
	{32, "invalid or corrupted push buffer", XA_APP},
	{38, "driver firmware error (FECS watchdog)", XA_RESET},
	{43, "GPU stopped processing a channel; the GPU recovered", XA_IGNORE},
	{45, "preemptive cleanup after previous errors", XA_FOLLOW},
	{46, "GPU timeout", XA_RESET},
	{48, "double-bit ECC error", XA_RESET},
	{54, "auxiliary power not connected or power-reduced clocking", XA_POWER},
	{56, "display engine error", XA_SERVICE},
	{57, "memory link training failure", XA_SERVICE},
	{58, "memory error", XA_SERVICE},
	{61, "internal micro-controller breakpoint", XA_SERVICE},
	{62, "internal micro-controller halt", XA_RESET},
	{63, "memory page retirement or row remapping recorded", XA_IGNORE},
	{64, "memory page retirement or row remapping failed", XA_RESET},
	{68, "video decoder exception", XA_APP},
	{69, "graphics class error", XA_APP},
	{74, "NVLink error", XA_RESET},
	{79, "GPU has fallen off the bus", XA_REBOOT},
	{92, "high single-bit ECC error rate", XA_IGNORE},
	{93, "InfoROM write limit reached", XA_IGNORE},
	{94, "contained ECC error: only the affected program must restart", XA_APP},
	{95, "uncontained ECC error", XA_RESET},
	{109, "context switch timeout", XA_RESET},
	{119, "GSP RPC timeout", XA_RESET},
	{120, "GSP error", XA_RESET},
	{121, "C2C link corrected error", XA_IGNORE},
	{136, "NVLink training failure", XA_RESET},
	{140, "unrecovered ECC error", XA_RESET},
	{143, "GPU initialisation failure", XA_RESET},
	{144, "NVLink error (SAW)", XA_RESET},
	{145, "NVLink error (RLW)", XA_RESET},
	{146, "NVLink error (TLW)", XA_RESET},
	{147, "NVLink error (TREX)", XA_RESET},
	{148, "NVLink error (NVLPW)", XA_RESET},
	{149, "NVLink error (NETIR)", XA_RESET},
	{150, "NVLink error (MSE)", XA_RESET},
	{154, "GPU recovery action changed", XA_FOLLOW},
	{155, "NVLink software-defined error", XA_RESET},
	{156, "resource retirement event", XA_RESET},
	{157, "resource retirement failure", XA_IGNORE},
	{158, "GPU fatal timeout", XA_RESET},
};

static const struct xid_info *xid_lookup(int xid)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(xids); i++)
		if (xids[i].xid == xid)
			return &xids[i];
	return NULL;
}

static enum severity action_severity(enum xid_action a, const char *text)
{
	switch (a) {
	case XA_IGNORE: return SEV_INFO;
	case XA_APP: return SEV_WARN;
	case XA_FOLLOW: return SEV_INFO;
	default:
		/* NVLink5 codes carry the word: a Nonfatal one is a warning (NVSentinel#1357) */
		if (text && strstr(text, "Nonfatal"))
			return SEV_WARN;
		return SEV_FAIL;
	}
}

static void action_fix(struct finding *f, enum xid_action a, int gi)
{
	switch (a) {
	case XA_APP:
		finding_fix(f, 0,
			    "a program faulted on the GPU; restart it and check it for illegal memory "
			    "accesses (compute-sanitizer); the GPU itself needs nothing");
		break;
	case XA_RESET:
		if (gi >= 0)
			finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
				    "drain the GPU's jobs and reset it: sudo nvidia-smi -r -i %d (or "
				    "reboot); if it repeats, run the field diagnostic and have it serviced",
				    gi);
		else
			finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
				    "drain the GPU's jobs and reset it (sudo nvidia-smi -r -i <index>) or "
				    "reboot");
		break;
	case XA_REBOOT:
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "reboot (often a cold power cycle); then check the power cables, cooling, "
			    "slot or riser, and the system BIOS; repeated on one GPU: service it");
		break;
	case XA_POWER:
		finding_fix(f, FIX_SERVICE, "connect the GPU's auxiliary power cables; check the PSU");
		break;
	case XA_SERVICE:
		finding_fix(f, FIX_SERVICE, "report it to the vendor and run the field diagnostic");
		break;
	case XA_FOLLOW:
	case XA_IGNORE:
		break;
	}
}

/* The NVML index of the GPU an Xid names ("0000:10:1c" or "0000:10:00"), or -1. */
static int gpu_for_bdf(const struct gpu_system *sys, const char *bdf)
{
	char want[16];
	const char *p;
	unsigned i;

	/* compare bus:device, the part every spelling has */
	p = strchr(bdf, ':');
	if (!p)
		return -1;
	if (strchr(p + 1, ':'))
		p = strchr(p + 1, ':') - 2;
	str_copy(want, p, sizeof(want));
	if (strlen(want) > 5)
		want[5] = '\0';
	for (i = 0; i < sys->ngpus; i++) {
		const char *b = sys->gpus[i].st.bus_id.s;
		size_t bl = strlen(b);

		if (!text_ok(&sys->gpus[i].st.bus_id) || bl < 7)
			continue;
		/* "00000000:10:1C.0": bus:device sits before ".f" */
		if (strncasecmp(b + bl - 7, want, 5) == 0)
			return (int)i;
	}
	return -1;
}

static void run_kernel_log(const struct doctor_input *in, struct findings *out)
{
	const struct kmsg_facts *k = &in->facts.kmsg;
	bool fallen_reported = findings_has(out, "gpu.fallen_off_bus");
	bool done[FACTS_MAX_XIDS];
	int i, j, shown = 0;

	if (k->read_rc != 0)
		return; /* the lower layers say the log is restricted */
	memset(done, 0, sizeof(done));
	for (i = 0; i < k->nxids; i++) {
		const struct xid_event *x = &k->xids[i];
		const struct xid_info *info;
		struct finding *f;
		int count = 0, last = i, gi;
		enum xid_action act;

		if (done[i])
			continue;
		for (j = i; j < k->nxids; j++) {
			if (k->xids[j].xid == x->xid && strcmp(k->xids[j].bdf, x->bdf) == 0) {
				done[j] = true;
				count++;
				last = j;
			}
		}
		if (x->xid == 79 && fallen_reported)
			continue;
		info = xid_lookup(x->xid);
		act = info ? info->action : XA_SERVICE;
		gi = gpu_for_bdf(&in->sys, x->bdf);
		f = finding_add(out, "kernel_log.xid",
				info ? action_severity(act, k->xids[last].text) : SEV_WARN, gi,
				"Xid %d, %s (%d time%s since boot)", x->xid,
				info ? info->meaning : "not in gpuvet's table: see NVIDIA's Xid catalog",
				count, count == 1 ? "" : "s");
		finding_evidence(f, "kernel log: NVRM: Xid (PCI:%s): %d, %s", x->bdf, x->xid,
				 k->xids[last].text);
		if (gi < 0 && x->bdf[0])
			finding_evidence(f, "PCI %s is not one of the GPUs NVML lists", x->bdf);
		action_fix(f, act, gi);
		shown++;
	}
	if (k->nxids_dropped)
		finding_add(out, "kernel_log.xid", SEV_INFO, -1,
			    "%d more Xid lines not shown (read them with: sudo dmesg | grep -i xid)",
			    k->nxids_dropped);
	/* an Xid left to gpu.fallen_off_bus still means the log is not clean: no ok line then */
	if (k->nxids == 0 && !k->nxids_dropped) {
		struct finding *f = finding_add(out, "kernel_log.ok", SEV_OK, -1,
						"no Xid errors in the kernel log since boot");

		/* the facts behind it, for doctor -v and --json */
		finding_evidence(f, "/dev/kmsg: read; no \"NVRM: Xid\" line");
		if (k->dmesg_restrict >= 0)
			finding_evidence(f, "/proc/sys/kernel/dmesg_restrict: %d", k->dmesg_restrict);
	}
}
