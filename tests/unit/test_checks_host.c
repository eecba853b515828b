/*
 * test_checks_host.c: the platform and device-node checks (checks/platform.c, devices.c) on
 * hand-built input (hostcheck.h), for what a scenario cannot state: the healthy machine's one
 * ok line per layer, first in its layer; the H200 sample as a plain folder (--root) read by the
 * real collectors, which replays do not use; and the catalog's definitions. Catalog rows 29,
 * 30, 31 and 33/34 and their negatives are scenarios (tests/scenarios/faults/row29-*, row30-*,
 * row31-*, row33-*, platform-vm-os-unknown.json, untrusted-group-name.json), run by
 * tests/cli/scenarios.sh; test_checks_pci.c keeps the layers between.
 */
#include "fakeroot.h"
#include "hostcheck.h"

/* ---- healthy machines ---- */

static void healthy_bare_metal(void)
{
	const struct finding *f;
	enum layer l;

	healthy();
	run_checks();
	CHECK(worst_host() == SEV_OK);
	for (l = LAYER_PLATFORM; l <= LAYER_DEVICES; l++)
		CHECK(count_sev_layer(SEV_OK, l) == 1);
	CHECK(fs.n == 4);
	f = find("pci.ok");
	CHECK_STR(f->summary, "2 NVIDIA GPUs (10de:2335) bound to nvidia");
	f = find("module.ok");
	CHECK_STR(f->summary, "nvidia 580.159.04 (open kernel module) loaded; nvidia_uvm loaded");
	CHECK(evidence_has(f, "Secure Boot: off"));
	f = find("devices.ok");
	CHECK_STR(f->summary, "nvidiactl, 2 GPU nodes, nvidia-uvm present and read-write for this "
			      "user");
	f = find("platform.ok");
	CHECK_STR(f->summary, "Ubuntu 24.04.3 LTS, kernel 6.8.0-51-generic, x86_64");
	/* the summary line is first in its layer */
	CHECK(strcmp(fs.v[0].def->id, "platform.ok") == 0);
}

/* The H200 sample (a Docker container in a Firecracker VM) as a fake root, through the real
 * collectors: a clean, honest report. */
static void h200_sample_fake_root(void)
{
	char *root = fr_new();
	const char *gpu_dirs[] = {"/sys/devices/pci0000:00/0000:00:06.0",
				  "/sys/devices/pci0000:00/0000:00:07.0"};
	const unsigned char cfg[8] = {0xde, 0x10, 0x35, 0x23, 0x46, 0x05, 0x10, 0x00};
	char path[256];
	enum layer l;
	int i;

	for (i = 0; i < 2; i++) {
		const char *bdf = gpu_dirs[i] + strlen("/sys/devices/pci0000:00/");
		struct {
			const char *name, *value;
		} attrs[] = {
			{"vendor", "0x10de\n"},
			{"device", "0x2335\n"},
			{"class", "0x030200\n"},
			{"subsystem_vendor", "0x10de\n"},
			{"subsystem_device", "0x18bf\n"},
			{"current_link_speed", "32.0 GT/s PCIe\n"},
			{"max_link_speed", "32.0 GT/s PCIe\n"},
			{"current_link_width", "16\n"},
			{"max_link_width", "16\n"},
			{"numa_node", "-1\n"},
			{"local_cpulist", "0-31\n"},
			{"power/runtime_status", "active\n"},
		};
		size_t a;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
		snprintf(path + 200, 56, "../../../devices/pci0000:00/%s", bdf);
		fr_link(root, path, path + 200);
		for (a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++) {
			snprintf(path, sizeof(path), "%s/%s", gpu_dirs[i], attrs[a].name);
			fr_file(root, path, attrs[a].value);
		}
		snprintf(path, sizeof(path), "%s/config", gpu_dirs[i]);
		fr_bytes(root, path, cfg, sizeof(cfg));
		snprintf(path, sizeof(path), "%s/driver", gpu_dirs[i]);
		fr_link(root, path, "../../../bus/pci/drivers/nvidia");
		snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", bdf);
		fr_file(root, path,
			i == 0 ? "Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t "
				 "GPU-94c2b804-9965-e84c-8ddc-92edaaffde49\nVideo BIOS: \t "
				 "96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: "
				 "\t 0xfffffffffffff\nBus Location: \t 0000:00:06.0\nDevice Minor: \t "
				 "0\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n"
			       : "Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\nGPU UUID: \t "
				 "GPU-78dab136-d5bd-de36-96a3-76356cd9be7d\nVideo BIOS: \t "
				 "96.00.a5.00.1a\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: "
				 "\t 0xfffffffffffff\nBus Location: \t 0000:00:07.0\nDevice Minor: \t "
				 "1\nGPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n");
	}
	fr_dir(root, "/sys/bus/pci/drivers/nvidia");
	/* the virtio devices next to them */
	for (i = 1; i <= 5; i++) {
		char bdf[32], target[64];

		snprintf(bdf, sizeof(bdf), "0000:00:0%d.0", i);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
		snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", bdf);
		fr_link(root, path, target);
		snprintf(path, sizeof(path), "/sys/devices/pci0000:00/%s/vendor", bdf);
		fr_file(root, path, "0x1af4\n");
	}
	fr_file(root, "/proc/driver/nvidia/version",
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release "
		"Build  (nixbld@)  \nGCC version:  gcc version 15.3.0 (GCC) \n");
	fr_file(root, "/sys/module/nvidia/version", "580.159.04\n");
	fr_file(root, "/proc/modules", "nvidia_uvm 1830912 - - Live 0xffffffffc080c000 (O)\n"
				       "nvidia 14299136 - - Live 0xffffffffc0400000 (O)\n");
	fr_file(root, "/proc/devices",
		"Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n238 nvidia-uvm\n"
		"239 nvidia-nvswitch\n240 nvidia-nvlink\n241 nvidia-caps\n\nBlock devices:\n"
		"  7 loop\n");
	fr_file(root, "/proc/driver/nvidia/params",
		"ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nModifyDeviceFiles: 1\n"
		"DeviceFileUID: 0\nDeviceFileGID: 0\nDeviceFileMode: 438\n"
		"EnableGpuFirmware: 18\nExcludedGpus: \"\"\n");
	fr_file(root, "/proc/sys/kernel/osrelease", "6.18.44-fc-v657-gpu\n");
	fr_file(root, "/proc/sys/kernel/dmesg_restrict", "1\n");
	fr_file(root, "/proc/cmdline",
		"mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 "
		"pci=realloc=off driver_async_probe=mlx5_core -- --firecracker-init --addr "
		"0.0.0.0:2024\n");
	fr_file(root, "/proc/1/cgroup", "0::/process_api/core\n");
	fr_file(root, "/proc/cpuinfo",
		"processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu vme de pse tsc msr pae "
		"hypervisor lahf_lm\n");
	fr_file(root, "/etc/os-release",
		"PRETTY_NAME=\"Ubuntu 24.04.3 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"24.04\"\n"
		"VERSION=\"24.04.3 LTS (Noble Numbat)\"\nVERSION_CODENAME=noble\nID=ubuntu\n"
		"ID_LIKE=debian\n");
	fr_file(root, "/.dockerenv", "");
	fr_file(root, "/dev/kmsg",
		"4,365,527997,-;nvidia: loading out-of-tree module taints kernel.\n"
		"6,366,615779,-;nvidia-nvlink: Nvlink Core is being initialized, major device number "
		"240\n"
		"3,367,615790,-;NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
		"Release Build  (nixbld@)  \n"
		"4,368,1198430,c;NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB Interrupt "
		"detected. Clearing it.\n"
		"4,370,3926496,c;NVRM: Persistence mode is deprecated and will be removed in a future "
		"release. Please use nvidia-persistenced instead.\n");
	fr_file(root, "/dev/nvidiactl", "");
	fr_file(root, "/dev/nvidia0", "");
	fr_file(root, "/dev/nvidia1", "");
	fr_file(root, "/dev/nvidia-uvm", "");
	fr_file(root, "/dev/nvidia-uvm-tools", "");
	fr_file(root, "/dev/nvidia-caps/nvidia-cap1", "");
	fr_file(root, "/dev/nvidia-caps/nvidia-cap2", "");
	fr_facts(root, "uname sysname Linux\nuname release 6.18.44-fc-v657-gpu\n"
		       "uname machine x86_64\nid 0 0 0\n"
		       "env NVIDIA_VISIBLE_DEVICES=0,1\nenv HOME=/root\n"
		       "env PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/local/cuda/bin:"
		       "/usr/bin:/bin\n"
		       "env LD_LIBRARY_PATH=/usr/local/nvidia/lib64:/usr/local/nvidia/lib\n"
		       "node /dev/nvidiactl c 0666 0 0 195 255\n"
		       "node /dev/nvidia0 c 0666 0 0 195 0\n"
		       "node /dev/nvidia1 c 0666 0 0 195 1\n"
		       "node /dev/nvidia-uvm c 0666 0 0 238 0\n"
		       "node /dev/nvidia-uvm-tools c 0666 0 0 238 1\n"
		       "node /dev/nvidia-caps/nvidia-cap1 c 0400 0 0 241 1\n"
		       "node /dev/nvidia-caps/nvidia-cap2 c 0444 0 0 241 2\n");
	fr_use(root);
	findings_free(&fs);
	memset(in, 0, sizeof(*in));
	memset(gpus, 0, sizeof(gpus));
	facts_collect(&in->facts);
	/* what NVML and CUDA answered there (h200x2-skeleton.json) */
	num_set(&in->sys.nvml_init, 0);
	num_set(&in->sys.cuda_init, 0);
	num_set(&in->sys.cuda_version, 13000);
	in->sys.nvml_lib.attempted = in->sys.nvml_lib.loaded = true;
	str_copy(in->sys.nvml_lib.path, "/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04",
		 sizeof(in->sys.nvml_lib.path));
	str_copy(in->sys.nvml_lib.version, "580.159.04", sizeof(in->sys.nvml_lib.version));
	add_nvml_gpu(0, "00000000:00:06.0", 0, 9, 0);
	add_nvml_gpu(1, "00000000:00:07.0", 1, 9, 0);
	run_checks();
	fr_free(root);

	CHECK(in->facts.platform.container && in->facts.platform.vm && !in->facts.platform.wsl);
	CHECK(in->facts.pci.ngpus == 2);
	CHECK(in->facts.kmsg.read_rc == 0);
	if (worst_host() > SEV_INFO)
		dump();
	CHECK(worst_host() <= SEV_INFO);
	for (l = LAYER_PLATFORM; l <= LAYER_DEVICES; l++)
		CHECK(count_sev_layer(SEV_OK, l) == 1);
	CHECK_FINDING("platform.container", SEV_INFO);
	CHECK_FINDING("platform.vm", SEV_INFO);
	CHECK_FINDING("module.in_container", SEV_INFO);
	CHECK(find("platform.kernel_log_restricted") == NULL);
	CHECK(find("platform.os_unknown") == NULL);
	CHECK_STR(find("pci.ok")->summary, "2 NVIDIA GPUs (10de:2335) bound to nvidia");
	CHECK_STR(find("module.ok")->summary,
		  "nvidia 580.159.04 (open kernel module) loaded; nvidia_uvm loaded");
	CHECK(find("pci.link_gen") == NULL);
}

/* ---- the catalog ---- */

/* Every id a check emits is defined with its layer; ids follow "<layer>.<name>" except the
 * gpu.* ids of the PCI layer. */
static void catalog_entries(void)
{
	size_t n, i;
	const struct finding_def *d = finding_defs(&n);
	int mine = 0;

	for (i = 0; i < n; i++) {
		const char *id = d[i].id;
		size_t j;

		if (d[i].layer > LAYER_DEVICES)
			continue;
		mine++;
		CHECK(str_starts(id, layer_name(d[i].layer)) || str_starts(id, "gpu."));
		for (j = 0; d[i].title[j]; j++)
			CHECK(d[i].title[j] < 'A' || d[i].title[j] > 'Z');
	}
	CHECK(mine >= 40);
	CHECK(finding_def_find("module.not_loaded")->symptom);
	CHECK(finding_def_find("devices.missing")->symptom);
	CHECK(!finding_def_find("module.missing_for_kernel")->symptom);
}

/* The table of checks (catalog.c): bottom up, every layer covered, and each check's findings of
 * its own layer and named after it; the catalog is their definitions, in the table's order. */
static void check_table(void)
{
	size_t i, k, n, at = 0;
	const struct finding_def *all = finding_defs(&n);
	bool layer_seen[LAYER_COUNT] = {false};

	CHECK(doctor_nchecks >= 13);
	for (i = 0; i < doctor_nchecks; i++) {
		const struct check *c = doctor_checks[i];
		char prefix[48];

		CHECK(c->name && c->run && c->defs && c->ndefs > 0);
		CHECK(check_find(c->name) == c);
		CHECK(c->layer < LAYER_COUNT);
		CHECK(i == 0 || doctor_checks[i - 1]->layer <= c->layer);
		layer_seen[c->layer] = true;
		str_fmt(prefix, sizeof(prefix), "%s.", c->name);
		for (k = 0; k < c->ndefs; k++, at++) {
			const struct finding_def *d = &c->defs[k];

			CHECK(d->layer == c->layer);
			CHECK(str_starts(d->id, prefix) ||
			      (!strcmp(c->name, "pci") && str_starts(d->id, "gpu.")));
			CHECK(at < n && !strcmp(all[at].id, d->id));
			CHECK(finding_def_find(d->id) == &all[at]);
		}
	}
	/* then the verdicts of other commands (burn), never run by doctor */
	for (i = 0; i < verdict_nchecks; i++) {
		const struct check *c = verdict_checks[i];
		char prefix[48];

		CHECK(c->name && !c->run && c->defs && c->ndefs > 0 && c->layer < LAYER_COUNT);
		str_fmt(prefix, sizeof(prefix), "%s.", c->name);
		for (k = 0; k < c->ndefs; k++, at++) {
			CHECK(c->defs[k].layer == c->layer && str_starts(c->defs[k].id, prefix));
			CHECK(at < n && finding_def_find(c->defs[k].id) == &all[at]);
		}
	}
	CHECK(at == n);
	for (i = 0; i < LAYER_COUNT; i++)
		CHECK(layer_seen[i]);
	CHECK(check_find("nonexistent") == NULL);
}

int main(void)
{
	in = calloc(1, sizeof(*in));
	RUN(healthy_bare_metal);
	RUN(h200_sample_fake_root);
	RUN(catalog_entries);
	RUN(check_table);
	findings_free(&fs);
	free(in);
	return TEST_DONE();
}
