/*
 * test_checks_pci.c: the PCI checks (checks/pci.c) and doctor's folding on hand-built input
 * (hostcheck.h), for what a scenario cannot state: which GPU's cause an echo is folded under
 * (the JSON names the cause's id, not its GPU), and a slot narrower than its card, which needs
 * a PCI port above the GPU that the recordings do not have. Every catalog row the PCI layer
 * detects (1, 5, 6's suspended GPUs, 8, 10, 24) and its negatives are scenarios
 * (tests/scenarios/faults/row01-*, row05-*, row06-runtime-suspended, row08-*, row10-*,
 * row24-*, pci-*.json, gpu-without-pci-info.json), run by tests/cli/scenarios.sh.
 */
#include "hostcheck.h"

/* Each GPU's echo goes under its own GPU's cause, not under the first failure on the bus. */
static void echoes_stay_with_their_gpu(void)
{
	const struct finding *lost;
	size_t i;

	healthy();
	in->facts.pci.devs[0].config_all_ff = true; /* GPU 0 */
	gpus[1].s.lost = true;
	findings_free(&fs);
	doctor_check(in, &fs);
	CHECK(count("gpu.fallen_off_bus") == 2);
	lost = find("nvml.gpu_lost");
	CHECK(lost != NULL && lost->gpu == 1);
	CHECK(lost && lost->cause && lost->cause->gpu == 1);
	for (i = 0; i < fs.n; i++)
		if (strcmp(fs.v[i].def->id, "gpu.fallen_off_bus") == 0)
			CHECK(fs.v[i].one_device);
}

/* Row 24: a slot narrower than the card is named in the fix. */
static void narrower_slot_named(void)
{
	healthy();
	in->facts.pci.devs[0].cur_width = in->facts.pci.devs[1].cur_width = 8;
	in->facts.pci.devs[0].up_max_width = 8;
	str_copy(in->facts.pci.devs[0].up_bdf, "0000:00:01.0", sizeof(in->facts.pci.devs[0].up_bdf));
	run_checks();
	CHECK_FINDING("pci.width_degraded", SEV_WARN);
	CHECK_CONTAINS(find("pci.width_degraded")->fix, "The slot (port 0000:00:01.0) supports only x8");
}

int main(void)
{
	in = calloc(1, sizeof(*in));
	RUN(echoes_stay_with_their_gpu);
	RUN(narrower_slot_named);
	findings_free(&fs);
	free(in);
	return TEST_DONE();
}
