/*
 * health.c: per-GPU health from one NVML sample: memory errors and repairs, InfoROM, the
 * driver's recovery action, heat, power limits, clock slowdowns, PCIe link and replays,
 * persistence, MIG and compute mode (catalog rows 22-28, 37).
 *
 * Graded advice follows DCGM and NVIDIA's memory-error policy (catalog lesson 10): pending
 * repairs need a reset, exhausted repairs need service, and a GPU that only needs a reset is
 * never sent back. Clock-event reasons count only when they matter: idle, application clocks
 * and sync boost are normal, and a power cap is only news when the GPU is busy (lesson 9).
 * The PCIe link is judged by the PCI layer from sysfs; here only when sysfs had no view of it.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "catalog.h"
#include "doctor.h"

static const struct finding_def defs[] = {
	{"health.ok", LAYER_HEALTH, "no health problem on this GPU", false},
	{"health.ecc_uncorrectable", LAYER_HEALTH, "uncorrectable ECC errors since the driver loaded",
	 false},
	{"health.ecc_history", LAYER_HEALTH, "uncorrectable ECC errors in the GPU's lifetime", false},
	{"health.ecc_off", LAYER_HEALTH, "ECC is off", false},
	{"health.ecc_pending", LAYER_HEALTH, "an ECC mode change waits for a reboot", false},
	{"health.remap_pending", LAYER_HEALTH, "memory row remapping waits for a GPU reset", false},
	{"health.remap_failure", LAYER_HEALTH, "memory row remapping failed: repair capacity used up",
	 false},
	{"health.remap_many", LAYER_HEALTH, "many rows remapped for uncorrectable errors", false},
	{"health.retired_pending", LAYER_HEALTH, "retired pages wait for a GPU reset", false},
	{"health.retired_limit", LAYER_HEALTH, "too many retired pages", false},
	{"health.inforom_corrupt", LAYER_HEALTH, "the InfoROM is corrupted", false},
	{"health.recovery_action", LAYER_HEALTH, "the driver asks for a recovery action", false},
	{"health.hot", LAYER_HEALTH, "the GPU is near or past its slowdown temperature", false},
	{"health.memory_hot", LAYER_HEALTH, "the GPU memory is near its maximum temperature", false},
	{"health.thermal_slowdown", LAYER_HEALTH, "clocks are slowed down by heat", false},
	{"health.power_brake", LAYER_HEALTH, "hardware power brake is asserted", false},
	{"health.hw_slowdown", LAYER_HEALTH, "hardware slowdown is active", false},
	{"health.power_limited", LAYER_HEALTH, "running at its power limit while busy", false},
	{"health.slowdown_history", LAYER_HEALTH, "the GPU has slowed down since the driver loaded",
	 false},
	{"health.power_capped", LAYER_HEALTH, "power limit below the default", false},
	{"health.pcie_width", LAYER_HEALTH, "PCIe link narrower than it can be", false},
	{"health.pcie_gen", LAYER_HEALTH, "PCIe link slower than it can be", false},
	{"health.pcie_replays", LAYER_HEALTH, "PCIe replays counted", false},
	{"health.persistence_off", LAYER_HEALTH, "persistence mode off and no nvidia-persistenced",
	 false},
	{"health.mig_no_instances", LAYER_HEALTH, "MIG is on with no instances", false},
	{"health.mig", LAYER_HEALTH, "MIG is on", false},
	{"health.mig_pending", LAYER_HEALTH, "a MIG mode change waits for a GPU reset", false},
	{"health.compute_prohibited", LAYER_HEALTH, "compute mode Prohibited", false},
	{"health.compute_exclusive", LAYER_HEALTH, "compute mode Exclusive_Process", false},
	{"health.busy", LAYER_HEALTH, "processes are using the GPU", false},
};

static void run_health(const struct doctor_input *in, struct findings *out);

const struct check check_health = {
	.name = "health",
	.layer = LAYER_HEALTH,
	.run = run_health,
	.defs = defs,
	.ndefs = ARRAY_SIZE(defs),
};

/* Did the PCI layer see this GPU's link in sysfs? */
static bool sysfs_has_link(const struct doctor_input *in, const struct gpu *g)
{
	int k;
	size_t bl;

	if (!text_ok(&g->st.bus_id))
		return false;
	bl = strlen(g->st.bus_id.s);
	for (k = 0; k < in->facts.pci.n; k++) {
		const struct pci_dev *d = &in->facts.pci.devs[k];
		size_t dl = strlen(d->bdf);

		if (dl && bl >= dl && strcasecmp(g->st.bus_id.s + bl - dl, d->bdf) == 0)
			return d->max_width > 0;
	}
	return false;
}

static bool gpu_busy(const struct gpu *g)
{
	return (num_ok(&g->s.util_gpu_pct) && g->s.util_gpu_pct.v > 0) ||
	       (num_ok(&g->s.nprocs) && g->s.nprocs.v > 0);
}

static void memory_errors(const struct gpu *g, int gi, struct findings *out)
{
	const struct gpu_sample *s = &g->s;
	struct finding *f;

	if (num_ok(&s->ecc_vol_uncorrected) && s->ecc_vol_uncorrected.v > 0) {
		f = finding_add(out, "health.ecc_uncorrectable", SEV_FAIL, gi,
				"%lld uncorrectable ECC error%s since the driver loaded",
				(long long)s->ecc_vol_uncorrected.v,
				s->ecc_vol_uncorrected.v == 1 ? "" : "s");
		finding_evidence(f, "nvmlDeviceGetTotalEccErrors(uncorrected, volatile): %lld",
				 (long long)s->ecc_vol_uncorrected.v);
		finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
			    "drain the GPU's jobs and reset it: sudo nvidia-smi -r -i %d (or reboot); if "
			    "the errors return, run 'gpuvet burn' and have it serviced",
			    gi);
	} else if (num_ok(&s->ecc_agg_uncorrected) && s->ecc_agg_uncorrected.v > 0) {
		f = finding_add(out, "health.ecc_history", SEV_INFO, gi,
				"%lld uncorrectable ECC error%s in the GPU's lifetime, none since the "
				"driver loaded",
				(long long)s->ecc_agg_uncorrected.v,
				s->ecc_agg_uncorrected.v == 1 ? "" : "s");
		finding_evidence(f, "nvmlDeviceGetTotalEccErrors(uncorrected, aggregate): %lld",
				 (long long)s->ecc_agg_uncorrected.v);
	}
	if (num_ok(&s->remap_failure) && s->remap_failure.v) {
		f = finding_add(out, "health.remap_failure", SEV_FAIL, gi,
				"a memory row could not be remapped: the repair capacity is used up");
		finding_evidence(f, "nvmlDeviceGetRemappedRows: failureOccurred=1, %lld uncorrectable "
				    "and %lld correctable rows remapped",
				 (long long)s->remap_uncorrected.v, (long long)s->remap_corrected.v);
		finding_fix(f, FIX_SERVICE,
			    "per NVIDIA's memory-error policy this GPU needs service (RMA); drain it "
			    "meanwhile");
	} else if (num_ok(&s->remap_pending) && s->remap_pending.v) {
		f = finding_add(out, "health.remap_pending", SEV_FAIL, gi,
				"memory row remapping is pending: it takes effect at the next GPU reset");
		finding_evidence(f, "nvmlDeviceGetRemappedRows: isPending=1 (%lld uncorrectable, "
				    "%lld correctable rows)",
				 (long long)s->remap_uncorrected.v, (long long)s->remap_corrected.v);
		finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
			    "drain the GPU and reset it: sudo nvidia-smi -r -i %d (or reboot)", gi);
	}
	if (num_ok(&s->remap_uncorrected) && s->remap_uncorrected.v >= 512) {
		f = finding_add(out, "health.remap_many", SEV_WARN, gi,
				"%lld rows remapped for uncorrectable errors (DCGM's limit is 512)",
				(long long)s->remap_uncorrected.v);
		finding_evidence(f, "nvmlDeviceGetRemappedRows: uncorrectable rows=%lld",
				 (long long)s->remap_uncorrected.v);
		finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
			    "run the vendor's field diagnostic (or 'gpuvet burn') and plan a replacement");
	}
	if (num_ok(&s->retired_pending) && s->retired_pending.v) {
		f = finding_add(out, "health.retired_pending", SEV_FAIL, gi,
				"memory pages are waiting to be retired at the next GPU reset");
		finding_evidence(f, "nvmlDeviceGetRetiredPagesPendingStatus: pending");
		finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
			    "drain the GPU and reset it: sudo nvidia-smi -r -i %d (or reboot)", gi);
	}
	if (num_ok(&s->retired_sbe) && num_ok(&s->retired_dbe) &&
	    s->retired_sbe.v + s->retired_dbe.v >= 63) {
		f = finding_add(out, "health.retired_limit", SEV_FAIL, gi,
				"%lld memory pages retired (DCGM's limit is 63)",
				(long long)(s->retired_sbe.v + s->retired_dbe.v));
		finding_evidence(f, "nvmlDeviceGetRetiredPages: %lld single-bit, %lld double-bit",
				 (long long)s->retired_sbe.v, (long long)s->retired_dbe.v);
		finding_fix(f, FIX_SERVICE, "this GPU needs service (RMA)");
	}
}

static void ecc_mode(const struct gpu *g, int gi, struct findings *out)
{
	const struct gpu_static *st = &g->st;
	struct finding *f;

	if (!num_ok(&st->ecc_current))
		return;
	if (!st->ecc_current.v) {
		f = finding_add(out, "health.ecc_off", SEV_WARN, gi,
				"ECC is off: memory errors go undetected and uncorrected");
		finding_evidence(f, "nvmlDeviceGetEccMode: current=disabled");
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "enable it unless you chose to trade it for memory: sudo nvidia-smi -i %d -e 1, "
			    "then reboot",
			    gi);
	}
	if (num_ok(&st->ecc_pending) && st->ecc_pending.v != st->ecc_current.v) {
		f = finding_add(out, "health.ecc_pending", SEV_INFO, gi,
				"ECC will be %s after the next reboot", st->ecc_pending.v ? "on" : "off");
		finding_evidence(f, "nvmlDeviceGetEccMode: current=%s pending=%s",
				 st->ecc_current.v ? "enabled" : "disabled",
				 st->ecc_pending.v ? "enabled" : "disabled");
	}
}

static const char *recovery_text(int64_t a)
{
	switch (a) {
	case RECOVERY_GPU_RESET: return "a GPU reset";
	case RECOVERY_NODE_REBOOT: return "a node reboot";
	case RECOVERY_DRAIN_P2P: return "draining peer-to-peer traffic";
	case RECOVERY_DRAIN_AND_RESET: return "draining the GPU and resetting it";
	case RECOVERY_BUS_RESET: return "a PCIe bus reset";
	default: return "an action this gpuvet does not know";
	}
}

static void recovery(const struct gpu *g, int gi, struct findings *out)
{
	const struct gpu_static *st = &g->st;
	const struct gpu_sample *s = &g->s;
	struct finding *f;

	if (num_ok(&st->inforom_valid) && st->inforom_valid.v == 0) {
		f = finding_add(out, "health.inforom_corrupt", SEV_FAIL, gi,
				"the InfoROM is corrupted");
		finding_evidence(f, "nvmlDeviceValidateInforom: Corrupted infoROM (14)");
		finding_fix(f, FIX_SERVICE, "contact the vendor to reflash or service the GPU");
	}
	if (num_ok(&s->recovery_action) && s->recovery_action.v != RECOVERY_NONE) {
		f = finding_add(out, "health.recovery_action",
				s->recovery_action.v == RECOVERY_DRAIN_P2P ? SEV_WARN : SEV_FAIL,
				gi, "the driver asks for %s", recovery_text(s->recovery_action.v));
		finding_evidence(f, "nvmlDeviceGetFieldValues(GPU_RECOVERY_ACTION): %lld",
				 (long long)s->recovery_action.v);
		if (s->recovery_action.v == RECOVERY_NODE_REBOOT)
			finding_fix(f, FIX_ROOT | FIX_REBOOT, "drain the node and reboot it");
		else
			finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
				    "drain the GPU's jobs, then reset it: sudo nvidia-smi -r -i %d", gi);
	}
}

static void heat_and_power(const struct doctor_input *in, const struct gpu *g, int gi,
			   struct findings *out)
{
	const struct gpu_static *st = &g->st;
	const struct gpu_sample *s = &g->s;
	struct finding *f;
	bool busy = gpu_busy(g);
	uint64_t ce = num_ok(&s->clock_events) ? (uint64_t)s->clock_events.v : 0;
	int64_t margin = -1000;

	(void)in;
	if (num_ok(&s->temp_margin_c))
		margin = s->temp_margin_c.v;
	else if (num_ok(&s->temp_c) && num_ok(&st->temp_slowdown_c))
		margin = st->temp_slowdown_c.v - s->temp_c.v;
	if (margin != -1000 && margin < 5) {
		f = finding_add(out, "health.hot", margin <= 0 ? SEV_FAIL : SEV_WARN, gi,
				"%s C from its slowdown temperature",
				margin <= 0 ? "past or at: 0" : "only a few degrees");
		if (num_ok(&s->temp_c))
			finding_evidence(f, "nvmlDeviceGetTemperature: %lld C", (long long)s->temp_c.v);
		finding_evidence(f, "margin to slowdown: %lld C (nvmlDeviceGetMarginTemperature or the "
				    "slowdown threshold)",
				 (long long)margin);
		finding_fix(f, 0,
			    "improve cooling: check airflow and fans, clean the heatsink, check the "
			    "server's cooling profile and inlet temperature");
	}
	if (num_ok(&s->mem_temp_c) && num_ok(&st->temp_mem_max_c) &&
	    s->mem_temp_c.v >= st->temp_mem_max_c.v - 5) {
		f = finding_add(out, "health.memory_hot", SEV_WARN, gi,
				"memory at %lld C, its maximum is %lld C", (long long)s->mem_temp_c.v,
				(long long)st->temp_mem_max_c.v);
		finding_evidence(f, "nvmlDeviceGetFieldValues(MEMORY_TEMP): %lld C; "
				    "nvmlDeviceGetTemperatureThreshold(MEM_MAX): %lld C",
				 (long long)s->mem_temp_c.v, (long long)st->temp_mem_max_c.v);
		finding_fix(f, 0, "improve cooling around the GPU");
	}
	if (ce & (CE_SW_THERMAL | CE_HW_THERMAL)) {
		f = finding_add(out, "health.thermal_slowdown", SEV_WARN, gi,
				"clocks are slowed down because the GPU is too hot (%s)",
				ce & CE_HW_THERMAL ? "hw thermal slowdown" : "sw thermal slowdown");
		finding_evidence(f, "nvmlDeviceGetCurrentClocksEventReasons: 0x%llx",
				 (unsigned long long)ce);
		if (num_ok(&s->clock_sm_mhz) && num_ok(&st->clock_max_sm_mhz))
			finding_evidence(f, "SM clock %lld of %lld MHz", (long long)s->clock_sm_mhz.v,
					 (long long)st->clock_max_sm_mhz.v);
		finding_fix(f, 0,
			    "improve cooling: airflow, fans, heatsink, server cooling profile");
	}
	if (ce & CE_HW_POWER_BRAKE) {
		f = finding_add(out, "health.power_brake", SEV_FAIL, gi,
				"the hardware power brake is asserted: the power supply or its cabling "
				"cannot deliver enough power");
		finding_evidence(f, "nvmlDeviceGetCurrentClocksEventReasons: 0x%llx (hw power brake)",
				 (unsigned long long)ce);
		finding_fix(f, FIX_SERVICE,
			    "check the PSU capacity and the GPU's power cables and connectors");
	} else if (ce & CE_HW_SLOWDOWN && !(ce & CE_HW_THERMAL)) {
		f = finding_add(out, "health.hw_slowdown", SEV_WARN, gi,
				"hardware slowdown is active (heat or power)");
		finding_evidence(f, "nvmlDeviceGetCurrentClocksEventReasons: 0x%llx (hw slowdown)",
				 (unsigned long long)ce);
		finding_fix(f, 0, "check cooling and the power supply");
	}
	if ((ce & CE_SW_POWER_CAP) && busy) {
		f = finding_add(out, "health.power_limited", SEV_INFO, gi,
				"running at its power limit: clocks are held back to stay under it");
		finding_evidence(f, "nvmlDeviceGetCurrentClocksEventReasons: 0x%llx (sw power cap)",
				 (unsigned long long)ce);
		if (num_ok(&s->power_mw) && num_ok(&st->power_enforced_mw))
			finding_evidence(f, "power %lld of %lld W", (long long)s->power_mw.v / 1000,
					 (long long)st->power_enforced_mw.v / 1000);
	}
	{
		int64_t thermal = (num_ok(&s->ce_hw_thermal_ns) ? s->ce_hw_thermal_ns.v : 0) +
				  (num_ok(&s->ce_sw_thermal_ns) ? s->ce_sw_thermal_ns.v : 0);
		int64_t brake = num_ok(&s->ce_hw_power_brake_ns) ? s->ce_hw_power_brake_ns.v : 0;

		if (thermal > 1000000000LL || brake > 1000000000LL) {
			f = finding_add(out, "health.slowdown_history", SEV_INFO, gi,
					"slowed down for %.0f s by heat and %.0f s by the power brake "
					"since the driver loaded",
					thermal / 1e9, brake / 1e9);
			finding_evidence(f, "clock-event counters: thermal %.1f s, power brake %.1f s",
					 thermal / 1e9, brake / 1e9);
		}
	}
	if (num_ok(&st->power_enforced_mw) && num_ok(&st->power_default_mw) &&
	    st->power_enforced_mw.v + 1000 < st->power_default_mw.v) {
		bool admin = num_ok(&st->power_limit_mw) &&
			     st->power_limit_mw.v + 1000 < st->power_default_mw.v;

		f = finding_add(out, "health.power_capped", SEV_WARN, gi,
				"power limit is %lld W, below the default %lld W%s",
				(long long)st->power_enforced_mw.v / 1000,
				(long long)st->power_default_mw.v / 1000,
				admin ? "" : " (imposed outside the driver: BMC or PSU)");
		finding_evidence(f, "nvmlDeviceGetEnforcedPowerLimit: %lld mW; "
				    "nvmlDeviceGetPowerManagementDefaultLimit: %lld mW",
				 (long long)st->power_enforced_mw.v, (long long)st->power_default_mw.v);
		if (admin)
			finding_fix(f, FIX_ROOT,
				    "restore it with sudo nvidia-smi -i %d -pl %lld (not kept across "
				    "reboots: look for a boot script or policy that lowers it)",
				    gi, (long long)st->power_default_mw.v / 1000);
		else
			finding_fix(f, FIX_ROOT,
				    "the cap comes from the BMC or the power supply: check the server's "
				    "power policy and PSU redundancy settings");
	}
}

static void link(const struct doctor_input *in, const struct gpu *g, int gi, struct findings *out)
{
	const struct gpu_static *st = &g->st;
	const struct gpu_sample *s = &g->s;
	struct finding *f;

	if (!sysfs_has_link(in, g) && num_ok(&s->pcie_width) && num_ok(&st->pcie_width_max) &&
	    s->pcie_width.v < st->pcie_width_max.v) {
		f = finding_add(out, "health.pcie_width", SEV_WARN, gi,
				"PCIe link runs at x%lld but can run at x%lld",
				(long long)s->pcie_width.v, (long long)st->pcie_width_max.v);
		finding_evidence(f, "nvmlDeviceGetCurrPcieLinkWidth: %lld; MaxPcieLinkWidth: %lld",
				 (long long)s->pcie_width.v, (long long)st->pcie_width_max.v);
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "reseat the card, use a full x16 slot, check lane sharing with M.2 or other "
			    "slots in the board manual, and check any riser");
	}
	if (!sysfs_has_link(in, g) && gpu_busy(g) && num_ok(&s->pcie_gen) &&
	    num_ok(&st->pcie_gen_max) && s->pcie_gen.v < st->pcie_gen_max.v) {
		f = finding_add(out, "health.pcie_gen", SEV_WARN, gi,
				"PCIe link runs at Gen%lld while busy; it can run at Gen%lld",
				(long long)s->pcie_gen.v, (long long)st->pcie_gen_max.v);
		finding_evidence(f, "nvmlDeviceGetCurrPcieLinkGeneration: %lld; "
				    "MaxPcieLinkGeneration: %lld",
				 (long long)s->pcie_gen.v, (long long)st->pcie_gen_max.v);
		finding_fix(f, FIX_ROOT | FIX_REBOOT,
			    "check the slot's generation in the BIOS settings and the riser");
	}
	if (num_ok(&s->pcie_replays) && s->pcie_replays.v > 0) {
		f = finding_add(out, "health.pcie_replays", s->pcie_replays.v > 1000 ? SEV_WARN : SEV_INFO,
				gi, "%lld PCIe replay%s since the driver loaded",
				(long long)s->pcie_replays.v, s->pcie_replays.v == 1 ? "" : "s");
		finding_evidence(f, "nvmlDeviceGetPcieReplayCounter: %lld", (long long)s->pcie_replays.v);
		if (s->pcie_replays.v > 1000)
			finding_fix(f, FIX_ROOT | FIX_REBOOT,
				    "a noisy link: reseat the card and check the riser; watch the rate "
				    "with 'gpuvet watch'");
	}
}

static void modes(const struct doctor_input *in, const struct gpu *g, int gi, struct findings *out)
{
	const struct gpu_static *st = &g->st;
	const struct gpu_sample *s = &g->s;
	struct finding *f;

	(void)in;
	if (num_ok(&st->mig_current) && st->mig_current.v) {
		if (num_ok(&st->mig_instances) && st->mig_instances.v == 0) {
			f = finding_add(out, "health.mig_no_instances", SEV_FAIL, gi,
					"MIG is on but no MIG instance exists, so CUDA sees nothing here");
			finding_evidence(f, "nvmlDeviceGetMigMode: current=enabled; MIG devices: 0");
			finding_fix(f, FIX_ROOT | FIX_INTERRUPTS,
				    "create instances: sudo nvidia-smi mig -i %d -cgi <profile> -C; or "
				    "turn MIG off: sudo nvidia-smi -i %d -mig 0, then reset the GPU",
				    gi, gi);
		} else {
			f = finding_add(out, "health.mig", SEV_INFO, gi,
					"MIG is on with %lld instance%s: select one with "
					"CUDA_VISIBLE_DEVICES=MIG-<uuid>",
					(long long)st->mig_instances.v, st->mig_instances.v == 1 ? "" : "s");
			finding_evidence(f, "nvmlDeviceGetMigMode: current=enabled");
		}
	}
	if (num_ok(&st->mig_pending) && num_ok(&st->mig_current) &&
	    st->mig_pending.v != st->mig_current.v) {
		f = finding_add(out, "health.mig_pending", SEV_INFO, gi,
				"MIG will be %s after the next GPU reset", st->mig_pending.v ? "on" : "off");
		finding_evidence(f, "nvmlDeviceGetMigMode: current=%lld pending=%lld",
				 (long long)st->mig_current.v, (long long)st->mig_pending.v);
	}
	if (num_ok(&st->compute_mode)) {
		if (st->compute_mode.v == COMPUTE_MODE_PROHIBITED) {
			f = finding_add(out, "health.compute_prohibited", SEV_FAIL, gi,
					"compute mode is Prohibited: no CUDA program can use this GPU");
			finding_evidence(f, "nvmlDeviceGetComputeMode: Prohibited (2)");
			finding_fix(f, FIX_ROOT, "if this is not deliberate: sudo nvidia-smi -i %d -c DEFAULT",
				    gi);
		} else if (st->compute_mode.v == COMPUTE_MODE_EXCLUSIVE_PROCESS) {
			bool held = num_ok(&s->nprocs) && s->nprocs.v > 0 && s->procs_len > 0;

			f = finding_add(out, "health.compute_exclusive", held ? SEV_WARN : SEV_INFO, gi,
					held ? "compute mode is Exclusive_Process and a process holds the "
					       "GPU: other programs get 'all CUDA-capable devices are busy'"
					     : "compute mode is Exclusive_Process: one CUDA process at a time");
			finding_evidence(f, "nvmlDeviceGetComputeMode: Exclusive_Process (3)");
			if (held) {
				finding_evidence(f, "running: pid %u", s->procs[0].pid);
				finding_fix(f, 0,
					    "use another GPU (CUDA_VISIBLE_DEVICES) or wait for pid %u; "
					    "owner: sudo nvidia-smi -i %d -c DEFAULT",
					    s->procs[0].pid, gi);
			}
		}
	}
	if (num_ok(&s->nprocs) && s->nprocs.v > 0) {
		int64_t mem = 0;
		size_t i;

		for (i = 0; i < s->procs_len; i++)
			if (s->procs[i].mem_bytes > 0)
				mem += s->procs[i].mem_bytes;
		f = finding_add(out, "health.busy", SEV_INFO, gi, "%lld process%s using %.1f GiB",
				(long long)s->nprocs.v, s->nprocs.v == 1 ? "" : "es",
				(double)mem / (1024.0 * 1024 * 1024));
		for (i = 0; i < s->procs_len && i < 4; i++)
			finding_evidence(f, "pid %u (%c): %.1f GiB", s->procs[i].pid, s->procs[i].type,
					 s->procs[i].mem_bytes < 0
						 ? 0.0
						 : (double)s->procs[i].mem_bytes / (1024.0 * 1024 * 1024));
	}
}

/* The readings behind a GPU's ok line, for doctor -v and --json: each call and its value,
 * n/a where it was not read. */
static void ok_facts(const struct gpu *g, struct finding *f)
{
	const struct gpu_sample *s = &g->s;
	const struct gpu_static *st = &g->st;
	char a[32], b[32], c[32], d[32], ev[160];

	finding_evidence(f, "nvmlDeviceGetEccMode: current %s, pending %s",
			 !num_ok(&st->ecc_current) ? "n/a" : st->ecc_current.v ? "on" : "off",
			 !num_ok(&st->ecc_pending) ? "n/a" : st->ecc_pending.v ? "on" : "off");
	finding_evidence(f,
			 "nvmlDeviceGetTotalEccErrors: volatile %s corrected, %s uncorrected; "
			 "aggregate %s corrected, %s uncorrected",
			 fact_num(&s->ecc_vol_corrected, a, sizeof(a)),
			 fact_num(&s->ecc_vol_uncorrected, b, sizeof(b)),
			 fact_num(&s->ecc_agg_corrected, c, sizeof(c)),
			 fact_num(&s->ecc_agg_uncorrected, d, sizeof(d)));
	if (num_ok(&s->remap_corrected) || s->remap_corrected.st == VAL_ERR)
		finding_evidence(f, "nvmlDeviceGetRemappedRows: %s corrected, %s uncorrected, "
				 "pending %s, failure %s",
				 fact_num(&s->remap_corrected, a, sizeof(a)),
				 fact_num(&s->remap_uncorrected, b, sizeof(b)),
				 fact_num(&s->remap_pending, c, sizeof(c)),
				 fact_num(&s->remap_failure, d, sizeof(d)));
	else
		finding_evidence(f, "nvmlDeviceGetRetiredPages: %s single-bit, %s double-bit, "
				 "pending %s",
				 fact_num(&s->retired_sbe, a, sizeof(a)),
				 fact_num(&s->retired_dbe, b, sizeof(b)),
				 fact_num(&s->retired_pending, c, sizeof(c)));
	if (num_ok(&s->clock_events)) {
		gpu_clock_events_str((uint64_t)s->clock_events.v, true, ev, sizeof(ev));
		finding_evidence(f, "nvmlDeviceGetCurrentClocksEventReasons: 0x%llx (%s)",
				 (unsigned long long)s->clock_events.v, ev[0] ? ev : "none");
	} else {
		finding_evidence(f, "nvmlDeviceGetCurrentClocksEventReasons: n/a");
	}
	finding_evidence(f, "nvmlDeviceGetPowerManagementLimit: %s mW (default %s mW, enforced %s mW)",
			 fact_num(&st->power_limit_mw, a, sizeof(a)),
			 fact_num(&st->power_default_mw, b, sizeof(b)),
			 fact_num(&st->power_enforced_mw, c, sizeof(c)));
	finding_evidence(f, "PCIe link: gen %s x%s (max gen %s x%s); nvmlDeviceGetPcieReplayCounter: %s",
			 fact_num(&s->pcie_gen, a, sizeof(a)), fact_num(&s->pcie_width, b, sizeof(b)),
			 fact_num(&st->pcie_gen_max, c, sizeof(c)),
			 fact_num(&st->pcie_width_max, d, sizeof(d)),
			 num_ok(&s->pcie_replays) ? (str_fmt(ev, sizeof(ev), "%lld",
							     (long long)s->pcie_replays.v),
						     ev)
						  : "n/a");
}

/* Persistence is judged for the machine: off everywhere and nothing keeping the driver up. */
static void persistence(const struct doctor_input *in, struct findings *out)
{
	const struct gpu_system *sys = &in->sys;
	const struct proc_facts *pr = &in->facts.procs;
	unsigned i, off = 0, known = 0;
	struct finding *f;

	for (i = 0; i < sys->ngpus; i++) {
		if (!num_ok(&sys->gpus[i].st.persistence))
			continue;
		known++;
		off += sys->gpus[i].st.persistence.v == 0;
	}
	if (!known || off != known || pr->persistenced_pid || pr->xorg_pid)
		return;
	f = finding_add(out, "health.persistence_off", SEV_WARN, -1,
			"persistence mode is off on every GPU and nvidia-persistenced is not running: "
			"each program that starts CUDA re-initialises the GPUs");
	finding_evidence(f, "nvmlDeviceGetPersistenceMode: disabled on %u of %u GPUs", off, known);
	finding_evidence(f, "/proc/*/comm: %s", pr->scanned ? "no nvidia-persistenced process"
							     : "processes not scanned");
	if (in->sys.cuda_init_ns)
		finding_evidence(f, "cuInit took %.2f s", in->sys.cuda_init_ns / 1e9);
	finding_fix(f, FIX_ROOT,
		    "sudo systemctl enable --now nvidia-persistenced (legacy and lost at reboot: sudo "
		    "nvidia-smi -pm 1)");
}

static void run_health(const struct doctor_input *in, struct findings *out)
{
	const struct gpu_system *sys = &in->sys;
	unsigned i;

	if (sys->hung)
		return;
	for (i = 0; i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];
		size_t before = out->n, j;
		bool bad = false;

		if (g->s.lost || g->st.name.st == VAL_ERR)
			continue;
		memory_errors(g, (int)i, out);
		ecc_mode(g, (int)i, out);
		recovery(g, (int)i, out);
		heat_and_power(in, g, (int)i, out);
		link(in, g, (int)i, out);
		modes(in, g, (int)i, out);
		for (j = before; j < out->n; j++)
			bad |= out->v[j].sev >= SEV_WARN;
		if (!bad) {
			struct finding *f = finding_add(
				out, "health.ok", SEV_OK, (int)i,
				"%s; no memory repairs pending; no slowdown%s; power limit at default",
				num_ok(&g->st.ecc_current) && g->st.ecc_current.v
					? "ECC on, no uncorrectable errors"
					: "ECC not available",
				num_ok(&g->s.clock_events) ? "" : " reported");

			if (num_ok(&g->s.temp_c))
			{
				char nb[32];

				finding_evidence(f, "temperature %lld C, %s C below slowdown",
						 (long long)g->s.temp_c.v,
						 fact_num(&g->s.temp_margin_c, nb, sizeof(nb)));
			}
			ok_facts(g, f);
		}
	}
	persistence(in, out);
}
