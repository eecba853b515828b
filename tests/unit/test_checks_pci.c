/*
 * test_checks_pci.c: the PCI checks (checks/pci.c) on hand-built inputs (hostcheck.h): one test
 * per catalog row detected (1, 5, 6's suspended GPUs, 8, 10, 24's width), and negatives.
 */
#include "hostcheck.h"

/* ---- row 1: no GPU ---- */

static void row1_no_gpu(void)
{
	const struct finding *f;

	healthy();
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	unloaded();
	run_checks();
	CHECK_FINDING("pci.no_gpu", SEV_FAIL);
	f = find("pci.no_gpu");
	CHECK(f->gpu == -1);
	CHECK(f->fix_flags & FIX_SERVICE);
	CHECK_CONTAINS(f->fix, "seated");
	CHECK(find("pci.ok") == NULL);
	/* the module's absence is an echo of it */
	CHECK_FINDING("module.not_loaded", SEV_FAIL);
	CHECK(find("module.not_loaded")->def->symptom);
	CHECK_CONTAINS(find("module.not_loaded")->summary, "no NVIDIA GPU");
	CHECK(find("module.missing_for_kernel") == NULL);

	/* in a VM: attach one */
	in->facts.platform.vm = true;
	run_checks();
	CHECK_CONTAINS(find("pci.no_gpu")->fix, "passthrough");
	CHECK(!(find("pci.no_gpu")->fix_flags & FIX_SERVICE));
}

/* doctor.c folds the echoes of a lower layer under the cause. */
static void row1_echoes_fold_under_no_gpu(void)
{
	const struct finding *cause;
	size_t i;

	healthy();
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	unloaded();
	findings_free(&fs);
	doctor_check(in, &fs);
	cause = find("pci.no_gpu");
	CHECK(cause != NULL);
	for (i = 0; i < fs.n; i++)
		if (strcmp(fs.v[i].def->id, "module.not_loaded") == 0 ||
		    strcmp(fs.v[i].def->id, "devices.missing") == 0)
			CHECK(fs.v[i].cause == cause);
	CHECK(find("devices.missing") != NULL);
}

static void pci_unreadable(void)
{
	healthy();
	in->facts.pci.sysfs_read = false;
	in->facts.pci.n = in->facts.pci.ngpus = 0;
	run_checks();
	CHECK_FINDING("pci.unreadable", SEV_WARN);
	CHECK(find("pci.ok") == NULL);
	CHECK(find("pci.no_gpu") == NULL);
}

/* ---- row 5: nouveau or vfio-pci owns the GPU ---- */

static void row5_nouveau_bound(void)
{
	const struct finding *f;

	healthy();
	unloaded();
	str_copy(in->facts.pci.devs[0].driver, "nouveau", sizeof(in->facts.pci.devs[0].driver));
	str_copy(in->facts.pci.devs[1].driver, "nouveau", sizeof(in->facts.pci.devs[1].driver));
	in->facts.module.loaded_nouveau = true;
	str_copy(in->facts.kmsg.probe_not_called_line,
		 "NVRM: The NVIDIA probe routine was not called for 2 device(s).",
		 sizeof(in->facts.kmsg.probe_not_called_line));
	run_checks();
	CHECK_FINDING("pci.nouveau_bound", SEV_FAIL);
	CHECK(count("pci.nouveau_bound") == 2);
	f = find("pci.nouveau_bound");
	/* NVML does not see them: named by address */
	CHECK(f->gpu == -1);
	CHECK_STR(f->summary, "GPU 0000:00:06.0: the open-source nouveau driver owns this GPU, so the "
			      "NVIDIA driver cannot");
	CHECK(evidence_has(f, "/sys/bus/pci/devices/0000:00:06.0/driver: nouveau"));
	CHECK(evidence_has(f, "probe routine was not called"));
	CHECK_CONTAINS(f->fix, "blacklist-nouveau.conf");
	CHECK_CONTAINS(f->fix, "sudo update-initramfs -u");
	CHECK((f->fix_flags & (FIX_ROOT | FIX_REBOOT)) == (FIX_ROOT | FIX_REBOOT));
	CHECK(find("pci.ok") == NULL);
	CHECK_FINDING("module.not_loaded", SEV_FAIL);
	CHECK_CONTAINS(find("module.not_loaded")->evidence[1], "nouveau is loaded");

	/* blacklisted already on Fedora: the initramfs was not rebuilt */
	in->facts.module.nouveau_blacklisted = true;
	str_copy(in->facts.module.nouveau_blacklist_src, "/etc/modprobe.d/blacklist-nouveau.conf",
		 sizeof(in->facts.module.nouveau_blacklist_src));
	in->facts.platform.pkg = PKG_DNF;
	run_checks();
	CHECK_CONTAINS(find("pci.nouveau_bound")->fix, "sudo dracut -f");
	CHECK(strstr(find("pci.nouveau_bound")->fix, "tee") == NULL);
}

static void row5_vfio_and_others(void)
{
	healthy();
	str_copy(in->facts.pci.devs[1].driver, "vfio-pci", sizeof(in->facts.pci.devs[1].driver));
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("pci.vfio_bound", SEV_WARN);
	CHECK_CONTAINS(find("pci.vfio_bound")->fix, "vfio-pci.ids");
	CHECK_CONTAINS(find("pci.vfio_bound")->summary, "GPU 0000:00:07.0");
	CHECK(find("pci.nouveau_bound") == NULL);
	CHECK(find("pci.no_driver") == NULL);

	str_copy(in->facts.pci.devs[1].driver, "pci-stub", sizeof(in->facts.pci.devs[1].driver));
	run_checks();
	CHECK_FINDING("pci.other_driver", SEV_WARN);
}

/* The module is loaded but one GPU has no driver (its probe failed). */
static void pci_no_driver(void)
{
	healthy();
	in->facts.pci.devs[1].driver[0] = '\0';
	in->facts.pci.devs[1].nv_info = false;
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("pci.no_driver", SEV_FAIL);
	CHECK_CONTAINS(find("pci.no_driver")->summary, "0000:00:07.0");

	/* excluded on purpose: not a fault */
	in->facts.pci.devs[1].nv_excluded = true;
	in->facts.pci.devs[1].nv_info = true;
	run_checks();
	CHECK(find("pci.no_driver") == NULL);
	CHECK_FINDING("gpu.excluded", SEV_INFO);
}

static void row6_runtime_suspended_is_info(void)
{
	healthy();
	str_copy(in->facts.pci.devs[0].runtime_status, "suspended",
		 sizeof(in->facts.pci.devs[0].runtime_status));
	in->facts.pci.devs[0].config_read = false;
	in->facts.pci.devs[0].cur_width = 0; /* a sleeping link */
	in->facts.pci.devs[0].cur_gen = 1;
	run_checks();
	CHECK_FINDING("pci.runtime_suspended", SEV_INFO);
	CHECK(find("pci.runtime_suspended")->gpu == 0);
	CHECK(find("pci.width_degraded") == NULL);
	CHECK(worst_host() <= SEV_INFO);
	CHECK_FINDING("pci.ok", SEV_OK);
}

/* ---- row 8: RmInitAdapter ---- */

static void row8_init_failed(void)
{
	const struct finding *f;

	healthy();
	in->sys.ngpus = 1; /* NVML sees only the first */
	str_copy(in->facts.kmsg.rm_init_line,
		 "NVRM: GPU 0000:00:07.0: RmInitAdapter failed! (0x62:0x65:1792)",
		 sizeof(in->facts.kmsg.rm_init_line));
	str_copy(in->facts.kmsg.gsp_line,
		 "NVRM: GPU 0000:00:07.0: RmInitAdapter: Cannot initialize GSP firmware RM",
		 sizeof(in->facts.kmsg.gsp_line));
	in->facts.module.firmware_dir = false;
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_FAIL);
	CHECK(count("gpu.init_failed") == 1);
	f = find("gpu.init_failed");
	CHECK(f->gpu == -1);
	CHECK_CONTAINS(f->summary, "GPU 0000:00:07.0");
	CHECK(evidence_has(f, "RmInitAdapter failed"));
	CHECK(evidence_has(f, "GSP firmware RM"));
	CHECK(evidence_has(f, "/lib/firmware/nvidia/580.159.04: missing"));
	CHECK_CONTAINS(f->fix, "Power the machine off completely");
	CHECK(f->fix_flags & FIX_SERVICE);
	CHECK(find("pci.ok") == NULL);
}

static void row8_init_failed_without_log(void)
{
	healthy();
	in->sys.ngpus = 1;
	in->facts.kmsg.read_rc = -EPERM;
	in->facts.kmsg.restricted = true;
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_FAIL);
	CHECK(evidence_has(find("gpu.init_failed"), "/proc/driver/nvidia/gpus/0000:00:07.0: present"));

	/* the GPU answers NVML now: a past failure, a warning */
	healthy();
	str_copy(in->facts.kmsg.rm_init_line,
		 "NVRM: GPU 0000:00:07.0: RmInitAdapter failed! (0x62:0x65:1792)",
		 sizeof(in->facts.kmsg.rm_init_line));
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_WARN);
	CHECK(find("gpu.init_failed")->gpu == 1);
	CHECK_CONTAINS(find("gpu.init_failed")->summary, "answers now");

	/* an old-style line without an address */
	healthy();
	str_copy(in->facts.kmsg.rm_init_line, "NVRM: RmInitAdapter failed! (0x25:0x65:1403)",
		 sizeof(in->facts.kmsg.rm_init_line));
	run_checks();
	CHECK_FINDING("gpu.init_failed", SEV_FAIL);
	CHECK(find("gpu.init_failed")->gpu == -1);
}

static void row8_excluded_is_info(void)
{
	healthy();
	in->facts.pci.devs[1].nv_excluded = true;
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("gpu.excluded", SEV_INFO);
	CHECK(find("gpu.init_failed") == NULL);
	CHECK(worst_host() <= SEV_INFO);
}

/* ---- row 10: fallen off the bus ---- */

static void row10_config_ff(void)
{
	const struct finding *f;

	healthy();
	in->facts.pci.devs[1].config_all_ff = true;
	gpus[1].s.lost = true;
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	f = find("gpu.fallen_off_bus");
	CHECK(f->gpu == 1);
	CHECK_STR(f->summary, "the GPU stopped responding on the PCIe bus");
	CHECK(evidence_has(f, "/sys/bus/pci/devices/0000:00:07.0/config: ff ff ff ff"));
	CHECK(evidence_has(f, "NVML: GPU is lost"));
	CHECK(f->fix_flags & FIX_REBOOT);
	CHECK(count("gpu.fallen_off_bus") == 1);
	CHECK(find("gpu.init_failed") == NULL);
}

static void row10_kernel_log(void)
{
	healthy();
	/* an old Xid line names bus and device, not the function */
	str_copy(in->facts.kmsg.fallen_line,
		 "NVRM: Xid (PCI:0000:00:07): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
		 "the bus.",
		 sizeof(in->facts.kmsg.fallen_line));
	in->sys.ngpus = 1;
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	CHECK(find("gpu.fallen_off_bus")->gpu == -1);
	CHECK_CONTAINS(find("gpu.fallen_off_bus")->summary, "GPU 0000:00:07.0");
	/* not also reported as an initialisation failure */
	CHECK(find("gpu.init_failed") == NULL);

	/* NVML sees it working now: it happened earlier in this boot */
	in->sys.ngpus = 2;
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_WARN);
	CHECK(find("gpu.fallen_off_bus")->gpu == 1);

	/* the newer message, for an address that is not on the bus any more */
	healthy();
	str_copy(in->facts.kmsg.fallen_line,
		 "NVRM: The NVIDIA GPU 0000:b3:00.0 NVRM: (PCI ID: 10de:26b5) installed in this "
		 "system has NVRM: fallen off the bus and is not responding to commands.",
		 sizeof(in->facts.kmsg.fallen_line));
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	CHECK(find("gpu.fallen_off_bus")->gpu == -1);
}

/* NVML's "GPU is lost" alone is evidence enough, and the GPU keeps its index. */
static void row10_nvml_lost_only(void)
{
	const struct finding *f, *lost;

	healthy();
	gpus[1].s.lost = true;
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	f = find("gpu.fallen_off_bus");
	CHECK(f->gpu == 1);
	CHECK_STR(f->summary, "the GPU stopped responding on the PCIe bus");
	CHECK(evidence_has(f, "NVML: GPU is lost (15) on GPU 1 (00000000:00:07.0)"));
	CHECK(f->nevidence == 1);
	CHECK(find("pci.ok") == NULL);

	/* doctor folds nvml.gpu_lost under it */
	findings_free(&fs);
	doctor_check(in, &fs);
	lost = find("nvml.gpu_lost");
	CHECK(lost != NULL);
	CHECK(lost && lost->cause == find("gpu.fallen_off_bus"));
}

/* A lost GPU without a bus id takes the one GPU function no NVML GPU names; when that is not
 * unambiguous it is matched to nothing, and nvml.gpu_lost stays a cause of its own. */
static void row10_lost_without_bus_id(void)
{
	const struct finding *f;

	healthy();
	gpus[1].s.lost = true;
	gpus[1].st.bus_id.st = VAL_ERR;
	gpus[1].st.bus_id.s[0] = '\0';
	run_checks();
	CHECK_FINDING("gpu.fallen_off_bus", SEV_FAIL);
	f = find("gpu.fallen_off_bus");
	CHECK(f->gpu == 1);
	CHECK(evidence_has(f, "GPU 1, with no bus id; 0000:00:07.0 is the one NVIDIA GPU function"));
	CHECK(count("gpu.fallen_off_bus") == 1);

	/* two functions unnamed: which one is GPU 1 is a guess */
	add_pci_gpu("0000:00:08.0", 0x2335, 2);
	run_checks();
	CHECK(find("gpu.fallen_off_bus") == NULL);
	findings_free(&fs);
	doctor_check(in, &fs);
	/* nor is either function said to have failed to initialise: either may be GPU 1 */
	CHECK(find("nvml.gpu_lost") != NULL);
	CHECK(find("gpu.init_failed") == NULL);

	/* a function bound elsewhere or excluded is not NVML's: still unambiguous */
	str_copy(in->facts.pci.devs[2].driver, "vfio-pci", sizeof(in->facts.pci.devs[2].driver));
	run_checks();
	CHECK(find("gpu.fallen_off_bus") && find("gpu.fallen_off_bus")->gpu == 1);

	/* two NVML GPUs without a bus id: ambiguous again */
	healthy();
	gpus[1].s.lost = true;
	gpus[0].st.bus_id.st = gpus[1].st.bus_id.st = VAL_ERR;
	run_checks();
	CHECK(find("gpu.fallen_off_bus") == NULL);

	/* a GPU without a bus id that is not lost is never matched this way */
	healthy();
	gpus[1].st.bus_id.st = VAL_NA;
	run_checks();
	CHECK(find("gpu.fallen_off_bus") == NULL);
	CHECK_FINDING("pci.ok", SEV_OK);
}

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

static void row10_aer(void)
{
	healthy();
	in->facts.pci.devs[0].aer_fatal = 0;
	in->facts.pci.devs[0].aer_nonfatal = 3;
	in->facts.pci.devs[0].aer_correctable = 12;
	run_checks();
	CHECK_FINDING("pci.aer_errors", SEV_WARN);
	CHECK(find("pci.aer_errors")->gpu == 0);

	/* correctable errors alone are not reported */
	in->facts.pci.devs[0].aer_nonfatal = 0;
	run_checks();
	CHECK(find("pci.aer_errors") == NULL);
}

/* ---- row 24's sysfs side: width at any time, speed only as information ---- */

static void link_width_and_speed(void)
{
	const struct finding *f;

	healthy();
	in->facts.pci.devs[0].cur_width = in->facts.pci.devs[1].cur_width = 8;
	run_checks();
	CHECK(count("pci.width_degraded") == 2);
	CHECK_FINDING("pci.width_degraded", SEV_WARN);
	f = find("pci.width_degraded");
	CHECK(f->gpu == 0);
	CHECK_STR(f->summary, "PCIe link runs at x8; the GPU supports x16");
	/* identical summaries for both GPUs, so the report groups them */
	CHECK_STR(fs.v[f - fs.v].summary, fs.v[f - fs.v + 1].summary);
	CHECK_CONTAINS(f->fix, "reseat");

	/* a narrower slot is named */
	in->facts.pci.devs[0].up_max_width = 8;
	str_copy(in->facts.pci.devs[0].up_bdf, "0000:00:01.0", sizeof(in->facts.pci.devs[0].up_bdf));
	run_checks();
	CHECK_CONTAINS(find("pci.width_degraded")->fix, "The slot (port 0000:00:01.0) supports only x8");

	/* an idle link at Gen1: information, never a warning */
	healthy();
	in->facts.pci.devs[0].cur_gen = 1;
	run_checks();
	CHECK_FINDING("pci.link_gen", SEV_INFO);
	CHECK_CONTAINS(find("pci.link_gen")->summary, "idle");
	CHECK(worst_host() <= SEV_INFO);
	CHECK_FINDING("pci.ok", SEV_OK);
}

int main(void)
{
	in = calloc(1, sizeof(*in));
	RUN(row1_no_gpu);
	RUN(row1_echoes_fold_under_no_gpu);
	RUN(pci_unreadable);
	RUN(row5_nouveau_bound);
	RUN(row5_vfio_and_others);
	RUN(pci_no_driver);
	RUN(row6_runtime_suspended_is_info);
	RUN(row8_init_failed);
	RUN(row8_init_failed_without_log);
	RUN(row8_excluded_is_info);
	RUN(row10_config_ff);
	RUN(row10_kernel_log);
	RUN(row10_nvml_lost_only);
	RUN(row10_lost_without_bus_id);
	RUN(echoes_stay_with_their_gpu);
	RUN(row10_aer);
	RUN(link_width_and_speed);
	findings_free(&fs);
	free(in);
	return TEST_DONE();
}
