/* test_kmsg.c: kmsg_collect on fake kernel logs: Xid lines, the driver failures doctor
 * explains, and a restricted log (host/kmsg.c). */
#include <errno.h>
#include <stdlib.h>

#include "fakeroot.h"
#include "host/facts.h"
#include "test.h"

static struct kmsg_facts kf;

static void collect_log(const char *log, const char *facts)
{
	char *root = fr_new();

	fr_file(root, "/dev/kmsg", log);
	fr_file(root, "/proc/sys/kernel/dmesg_restrict", "1\n");
	if (facts)
		fr_facts(root, facts);
	fr_use(root);
	kmsg_collect(&kf);
	fr_free(root);
}

/* The sample's log: nothing in it is a failure. */
static void h200_sample(void)
{
	collect_log("4,365,527997,-;nvidia: loading out-of-tree module taints kernel.\n"
		    "6,366,615779,-;nvidia-nvlink: Nvlink Core is being initialized, major device "
		    "number 240\n"
		    "3,367,615790,-;NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  "
		    "580.159.04  Release Build  (nixbld@)  \n"
		    "4,368,1198430,c;NVRM: gpuClearFbhubPoisonIntrForBug2924523_GA100: FBHUB "
		    "Interrupt detected. Clearing it.\n"
		    "4,370,3926496,c;NVRM: Persistence mode is deprecated and will be removed in a "
		    "future release. Please use nvidia-persistenced instead.\n",
		    NULL);
	CHECK(kf.read_rc == 0 && !kf.restricted);
	CHECK(kf.dmesg_restrict == 1);
	CHECK(kf.nxids == 0 && kf.nxids_dropped == 0);
	CHECK_STR(kf.rm_init_line, "");
	CHECK_STR(kf.fallen_line, "");
	CHECK_STR(kf.key_rejected_line, "");
	CHECK_STR(kf.uvm_hmm_line, "");
	CHECK_STR(kf.probe_not_called_line, "");
	CHECK_STR(kf.gsp_line, "");
	CHECK_STR(kf.unsupported_line, "");
}

static void xid_lines(void)
{
	collect_log("4,10,1000,-;NVRM: Xid (PCI:0000:10:1c): 63, pid=1234, name=python, Row "
		    "Remapper: New row marked for remapping\n"
		    "4,11,2000,-;nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal\n"
		    "4,12,3000,-;NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', name=<unknown>, "
		    "GPU has fallen off the bus.\n",
		    NULL);
	CHECK(kf.nxids == 2);
	CHECK_STR(kf.xids[0].bdf, "0000:10:1c");
	CHECK(kf.xids[0].xid == 63);
	CHECK_STR(kf.xids[0].text, "pid=1234, name=python, Row Remapper: New row marked for remapping");
	CHECK(kf.xids[0].usec == 1000);
	CHECK_STR(kf.xids[1].bdf, "0000:b3:00");
	CHECK(kf.xids[1].xid == 79);
	CHECK(kf.xids[1].usec == 3000);
	/* burn counts the Xids after a mark by sequence number */
	CHECK(kf.xids[0].seq == 10 && kf.xids[1].seq == 12 && kf.last_seq == 12);
	CHECK_STR(kf.fallen_line, "NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', name=<unknown>, "
				  "GPU has fallen off the bus.");
}

static void many_xids_keep_the_latest(void)
{
	char *log = malloc(100 * 128);
	size_t off = 0;
	int i;

	for (i = 0; i < 100; i++)
		off += (size_t)snprintf(log + off, 128, "4,%d,%d,-;NVRM: Xid (PCI:0000:01:00): %d, "
							"pid=1\n",
					i, i, 13 + i);
	collect_log(log, NULL);
	free(log);
	CHECK(kf.nxids == FACTS_MAX_XIDS);
	CHECK(kf.nxids_dropped == 100 - FACTS_MAX_XIDS);
	CHECK(kf.xids[FACTS_MAX_XIDS - 1].xid == 13 + 99);
	CHECK(kf.xids[0].xid == 13 + 100 - FACTS_MAX_XIDS);
}

static void driver_failures(void)
{
	collect_log("3,1,100,-;NVRM: GPU 0000:98:00.0: RmInitAdapter: Cannot initialize GSP "
		    "firmware RM\n"
		    "3,2,200,-;NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)\n"
		    "3,3,300,-;nvidia-uvm: uvm_pmm_devmem: devmem_alloc_pagemap: "
		    "request_free_mem_region() err -34\n"
		    "3,4,400,-;NVRM: The NVIDIA probe routine was not called for 1 device(s).\n"
		    "3,5,500,-;NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85)\\x0aNVRM: "
		    "installed in this system is not supported by the\\x0aNVRM: NVIDIA 550.54.15 "
		    "driver release.\n",
		    NULL);
	CHECK_STR(kf.rm_init_line, "NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)");
	CHECK_STR(kf.gsp_line, "NVRM: GPU 0000:98:00.0: RmInitAdapter: Cannot initialize GSP "
			       "firmware RM");
	CHECK(strstr(kf.uvm_hmm_line, "err -34") != NULL);
	CHECK_STR(kf.probe_not_called_line, "NVRM: The NVIDIA probe routine was not called for 1 "
					    "device(s).");
	CHECK_STR(kf.unsupported_line, "NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2b85) NVRM: "
				       "installed in this system is not supported by the NVRM: NVIDIA "
				       "550.54.15 driver release.");
	CHECK(kf.nxids == 0);
}

/* Newer drivers print the fallen-off message without an Xid, over several records. */
static void fallen_off_without_xid(void)
{
	collect_log("3,1,100,-;NVRM: The NVIDIA GPU 0000:b3:00.0\n"
		    "3,2,100,-;NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
		    "3,3,100,-;NVRM: fallen off the bus and is not responding to commands.\n",
		    NULL);
	CHECK_STR(kf.fallen_line, "NVRM: The NVIDIA GPU 0000:b3:00.0 NVRM: (PCI ID: 10de:26b5) "
				  "installed in this system has NVRM: fallen off the bus and is not "
				  "responding to commands.");
	CHECK(kf.nxids == 0);
}

static void signature_lines(void)
{
	/* a real rejection is kept over a later "verification failed" (unsigned but loaded) */
	collect_log("5,1,100,-;Lockdown: modprobe: unsigned module loading is restricted; see man "
		    "kernel_lockdown.7\n"
		    "4,2,200,-;nvidia: module verification failed: signature and/or required key "
		    "missing - tainting kernel\n",
		    NULL);
	CHECK_STR(kf.key_rejected_line, "Lockdown: modprobe: unsigned module loading is restricted; "
					"see man kernel_lockdown.7");

	collect_log("4,2,200,-;nvidia: module verification failed: signature and/or required key "
		    "missing - tainting kernel\n",
		    NULL);
	CHECK(strstr(kf.key_rejected_line, "module verification failed") != NULL);

	/* the kernel's own words name no module; host_read_kmsg keeps them only when they
	 * mention nvidia (see the report: its filter drops the bare form) */
	collect_log("5,1,100,-;nvidia: Loading of module with unavailable key is rejected\n", NULL);
	CHECK(strstr(kf.key_rejected_line, "unavailable key is rejected") != NULL);
}

static void restricted_log(void)
{
	collect_log("4,1,1,-;NVRM: Xid (PCI:0000:01:00): 79, pid=1\n", "error /dev/kmsg EPERM\n");
	CHECK(kf.read_rc == -EPERM);
	CHECK(kf.restricted);
	CHECK(kf.dmesg_restrict == 1);
	CHECK(kf.nxids == 0);

	/* an absent log is not "restricted" */
	{
		char *root = fr_new();

		fr_use(root);
		kmsg_collect(&kf);
		fr_free(root);
	}
	CHECK(kf.read_rc == -ENOENT);
	CHECK(!kf.restricted);
	CHECK(kf.dmesg_restrict == -1);
}

int main(void)
{
	RUN(h200_sample);
	RUN(xid_lines);
	RUN(many_xids_keep_the_latest);
	RUN(driver_failures);
	RUN(fallen_off_without_xid);
	RUN(signature_lines);
	RUN(restricted_log);
	return TEST_DONE();
}
