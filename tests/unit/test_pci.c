/* test_pci.c: pci_collect and pci_gen_from_speed on fake sysfs trees (host/pci.c). */
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"

static struct pci_facts pf;

/* A PCI function at sysfs path `real` (under /sys/devices) with its bus link. */
static void add_fn(const char *root, const char *bdf, const char *real, const char *vendor,
		   const char *device, const char *class_code)
{
	char path[512], target[512];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	snprintf(target, sizeof(target), "../../..%s", real + strlen("/sys"));
	fr_link(root, path, target);
	snprintf(path, sizeof(path), "%s/vendor", real);
	fr_file(root, path, vendor);
	snprintf(path, sizeof(path), "%s/device", real);
	fr_file(root, path, device);
	snprintf(path, sizeof(path), "%s/class", real);
	fr_file(root, path, class_code);
}

static void attr(const char *root, const char *dir, const char *name, const char *value)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fr_file(root, path, value);
}

static void gen_from_speed(void)
{
	CHECK(pci_gen_from_speed("2.5 GT/s PCIe") == 1);
	CHECK(pci_gen_from_speed("5.0 GT/s PCIe") == 2);
	CHECK(pci_gen_from_speed("8.0 GT/s PCIe") == 3);
	CHECK(pci_gen_from_speed("16.0 GT/s PCIe") == 4);
	CHECK(pci_gen_from_speed("32.0 GT/s PCIe") == 5);
	CHECK(pci_gen_from_speed("64.0 GT/s PCIe") == 6);
	/* older kernels */
	CHECK(pci_gen_from_speed("5 GT/s") == 2);
	CHECK(pci_gen_from_speed("8 GT/s") == 3);
	CHECK(pci_gen_from_speed("2.5 GT/s") == 1);
	CHECK(pci_gen_from_speed("Unknown") == -1);
	CHECK(pci_gen_from_speed("") == -1);
	CHECK(pci_gen_from_speed(NULL) == -1);
	CHECK(pci_gen_from_speed("3.0 GT/s") == -1);
}

/* Two H200s on the root bus of a Firecracker VM, next to virtio devices, as sampled. */
static void h200_sample(void)
{
	char *root = fr_new();
	const char *g0 = "/sys/devices/pci0000:00/0000:00:06.0";
	const unsigned char cfg[8] = {0xde, 0x10, 0x35, 0x23, 0x46, 0x05, 0x10, 0x00};

	add_fn(root, "0000:00:01.0", "/sys/devices/pci0000:00/0000:00:01.0", "0x1af4\n",
	       "0x1041\n", "0x020000\n");
	add_fn(root, "0000:00:06.0", g0, "0x10de\n", "0x2335\n", "0x030200\n");
	attr(root, g0, "subsystem_vendor", "0x10de\n");
	attr(root, g0, "subsystem_device", "0x18bf\n");
	attr(root, g0, "current_link_speed", "32.0 GT/s PCIe\n");
	attr(root, g0, "max_link_speed", "32.0 GT/s PCIe\n");
	attr(root, g0, "current_link_width", "16\n");
	attr(root, g0, "max_link_width", "16\n");
	attr(root, g0, "numa_node", "-1\n");
	attr(root, g0, "local_cpulist", "0-31\n");
	attr(root, g0, "power/runtime_status", "active\n");
	fr_bytes(root, "/sys/devices/pci0000:00/0000:00:06.0/config", cfg, sizeof(cfg));
	fr_link(root, "/sys/devices/pci0000:00/0000:00:06.0/driver",
		"../../../bus/pci/drivers/nvidia");
	fr_dir(root, "/sys/bus/pci/drivers/nvidia");
	fr_file(root, "/proc/driver/nvidia/gpus/0000:00:06.0/information",
		"Model: \t\t NVIDIA H200\nIRQ:   \t\t 41\n"
		"GPU UUID: \t GPU-94c2b804-9965-e84c-8ddc-92edaaffde49\n"
		"Video BIOS: \t 96.00.a5.00.1a\nBus Type: \t PCIe\n"
		"Bus Location: \t 0000:00:06.0\nDevice Minor: \t 0\n"
		"GPU Firmware: \t 580.159.04\nGPU Excluded:\t No\n");
	fr_use(root);
	pci_collect(&pf);
	CHECK(pf.sysfs_read);
	CHECK(pf.n == 1);
	CHECK(pf.ngpus == 1 && pf.nswitches == 0);
	CHECK_STR(pf.devs[0].bdf, "0000:00:06.0");
	CHECK(pf.devs[0].vendor == 0x10de && pf.devs[0].device == 0x2335);
	CHECK(pf.devs[0].subsys_vendor == 0x10de && pf.devs[0].subsys_device == 0x18bf);
	CHECK(pf.devs[0].class_code == 0x030200);
	CHECK(pf.devs[0].is_gpu && !pf.devs[0].is_nvswitch);
	CHECK_STR(pf.devs[0].driver, "nvidia");
	CHECK(pf.devs[0].cur_gen == 5 && pf.devs[0].max_gen == 5);
	CHECK(pf.devs[0].cur_width == 16 && pf.devs[0].max_width == 16);
	/* the parent is the root bus pci0000:00, not a port */
	CHECK_STR(pf.devs[0].up_bdf, "");
	CHECK(pf.devs[0].up_max_gen == -1 && pf.devs[0].up_max_width == -1);
	CHECK(pf.devs[0].numa_node == -1);
	CHECK_STR(pf.devs[0].local_cpulist, "0-31");
	CHECK_STR(pf.devs[0].runtime_status, "active");
	CHECK(pf.devs[0].aer_fatal == -1 && pf.devs[0].aer_nonfatal == -1 &&
	      pf.devs[0].aer_correctable == -1);
	CHECK(pf.devs[0].config_read && !pf.devs[0].config_all_ff);
	CHECK(pf.devs[0].iommu_group == -1);
	CHECK(pf.devs[0].nv_info);
	CHECK_STR(pf.devs[0].nv_model, "NVIDIA H200");
	CHECK_STR(pf.devs[0].nv_uuid, "GPU-94c2b804-9965-e84c-8ddc-92edaaffde49");
	CHECK_STR(pf.devs[0].nv_firmware, "580.159.04");
	CHECK(!pf.devs[0].nv_excluded);
	CHECK(pf.devs[0].nv_minor == 0);
	fr_free(root);
}

/* A GPU behind a x8 port: upstream capability, AER totals, config reads ff, nouveau bound,
 * an IOMMU group, and the driver's "GPU Excluded: Yes". */
static void behind_a_port_and_broken(void)
{
	char *root = fr_new();
	const char *port = "/sys/devices/pci0000:00/0000:00:01.0";
	const char *gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
	const unsigned char ff[4] = {0xff, 0xff, 0xff, 0xff};

	add_fn(root, "0000:01:00.0", gpu, "0x10de\n", "0x2684\n", "0x030000\n");
	attr(root, port, "max_link_speed", "16.0 GT/s PCIe\n");
	attr(root, port, "max_link_width", "8\n");
	attr(root, gpu, "current_link_speed", "2.5 GT/s PCIe\n");
	attr(root, gpu, "max_link_speed", "16.0 GT/s PCIe\n");
	attr(root, gpu, "current_link_width", "8\n");
	attr(root, gpu, "max_link_width", "16\n");
	attr(root, gpu, "numa_node", "1\n");
	attr(root, gpu, "aer_dev_fatal", "Undefined 0\nDLP 0\nTOTAL_ERR_FATAL 2\n");
	attr(root, gpu, "aer_dev_nonfatal", "Undefined 0\nTOTAL_ERR_NONFATAL 0\n");
	attr(root, gpu, "aer_dev_correctable", "RxErr 5\nTOTAL_ERR_COR 7\n");
	fr_bytes(root, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/config", ff, sizeof(ff));
	fr_link(root, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/driver",
		"../../../../bus/pci/drivers/nouveau");
	fr_link(root, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/iommu_group",
		"../../../../kernel/iommu_groups/17");
	fr_file(root, "/proc/driver/nvidia/gpus/0000:01:00.0/information",
		"Model: \t\t NVIDIA GeForce RTX 4090\nDevice Minor: \t 3\nGPU Excluded:\t Yes\n");
	fr_use(root);
	pci_collect(&pf);
	CHECK(pf.n == 1 && pf.ngpus == 1);
	CHECK_STR(pf.devs[0].driver, "nouveau");
	CHECK_STR(pf.devs[0].up_bdf, "0000:00:01.0");
	CHECK(pf.devs[0].up_max_gen == 4 && pf.devs[0].up_max_width == 8);
	CHECK(pf.devs[0].cur_gen == 1 && pf.devs[0].max_gen == 4);
	CHECK(pf.devs[0].cur_width == 8 && pf.devs[0].max_width == 16);
	CHECK(pf.devs[0].numa_node == 1);
	CHECK(pf.devs[0].aer_fatal == 2 && pf.devs[0].aer_nonfatal == 0 &&
	      pf.devs[0].aer_correctable == 7);
	CHECK(pf.devs[0].config_read && pf.devs[0].config_all_ff);
	CHECK(pf.devs[0].iommu_group == 17);
	CHECK(pf.devs[0].nv_excluded);
	CHECK(pf.devs[0].nv_minor == 3);
	CHECK_STR(pf.devs[0].runtime_status, "");
	fr_free(root);
}

/* A runtime-suspended laptop GPU: its config space is not read (that would wake it). */
static void suspended_gpu_left_asleep(void)
{
	char *root = fr_new();
	const char *gpu = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
	const unsigned char ff[4] = {0xff, 0xff, 0xff, 0xff};

	add_fn(root, "0000:01:00.0", gpu, "0x10de\n", "0x28a0\n", "0x030200\n");
	attr(root, gpu, "power/runtime_status", "suspended\n");
	fr_bytes(root, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/config", ff, sizeof(ff));
	fr_use(root);
	pci_collect(&pf);
	CHECK(pf.n == 1);
	CHECK_STR(pf.devs[0].runtime_status, "suspended");
	CHECK(!pf.devs[0].config_read && !pf.devs[0].config_all_ff);
	CHECK_STR(pf.devs[0].driver, "");
	CHECK(pf.devs[0].cur_gen == -1 && pf.devs[0].cur_width == -1);
	CHECK(!pf.devs[0].nv_info && pf.devs[0].nv_minor == -1);
	fr_free(root);
}

/* NVSwitches and a GPU's audio function are NVIDIA functions but not GPUs. */
static void switches_and_other_functions(void)
{
	char *root = fr_new();

	add_fn(root, "0000:05:00.0", "/sys/devices/pci0000:00/0000:05:00.0", "0x10de\n",
	       "0x22a3\n", "0x068000\n");
	add_fn(root, "0000:06:00.0", "/sys/devices/pci0000:00/0000:06:00.0", "0x10de\n",
	       "0x22a3\n", "0x068000\n");
	add_fn(root, "0000:07:00.0", "/sys/devices/pci0000:00/0000:07:00.0", "0x10de\n",
	       "0x2330\n", "0x030200\n");
	add_fn(root, "0000:07:00.1", "/sys/devices/pci0000:00/0000:07:00.1", "0x10de\n",
	       "0x22ba\n", "0x040300\n");
	fr_use(root);
	pci_collect(&pf);
	CHECK(pf.n == 4);
	CHECK(pf.ngpus == 1);
	CHECK(pf.nswitches == 2);
	CHECK(pf.devs[0].is_nvswitch && !pf.devs[0].is_gpu);
	CHECK(!pf.devs[3].is_gpu && !pf.devs[3].is_nvswitch);
	fr_free(root);
}

static void no_sysfs(void)
{
	char *root = fr_new();

	fr_use(root);
	pci_collect(&pf);
	CHECK(!pf.sysfs_read);
	CHECK(pf.n == 0 && pf.ngpus == 0);
	fr_free(root);

	/* readable but without NVIDIA functions */
	root = fr_new();
	add_fn(root, "0000:00:01.0", "/sys/devices/pci0000:00/0000:00:01.0", "0x8086\n", "0x1237\n",
	       "0x060000\n");
	fr_use(root);
	pci_collect(&pf);
	CHECK(pf.sysfs_read);
	CHECK(pf.n == 0 && pf.ngpus == 0);
	fr_free(root);
}

int main(void)
{
	RUN(gen_from_speed);
	RUN(h200_sample);
	RUN(behind_a_port_and_broken);
	RUN(suspended_gpu_left_asleep);
	RUN(switches_and_other_functions);
	RUN(no_sysfs);
	return TEST_DONE();
}
