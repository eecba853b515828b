/* test_host.c: the root-prefixed host layer: reads, links inside the root, facts, access. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fakeroot.h"
#include "test.h"
#include "util/util.h"

static void reads_under_root(void)
{
	char *root = fr_new();
	char line[64];
	size_t len = 0;
	int rc = 0;
	char *data;

	fr_file(root, "/proc/modules", "nvidia 1 0 - Live 0x0 (O)\n");
	fr_use(root);
	data = host_read("/proc/modules", 4096, &len, &rc);
	CHECK(data != NULL);
	CHECK(len == 26);
	free(data);
	CHECK(host_read_line("/proc/modules", line, sizeof(line)) == 0);
	CHECK_STR(line, "nvidia 1 0 - Live 0x0 (O)");
	CHECK(host_read("/proc/nope", 100, NULL, &rc) == NULL && rc == -ENOENT);
	fr_free(root);
}

static void absolute_links_stay_inside(void)
{
	char *root = fr_new();
	char buf[256];

	fr_file(root, "/usr/lib/libcuda.so.580.1", "x");
	fr_link(root, "/usr/lib/libcuda.so.1", "/usr/lib/libcuda.so.580.1");
	fr_link(root, "/sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:01:00.0");
	fr_file(root, "/sys/devices/pci0000:00/0000:01:00.0/vendor", "0x10de\n");
	fr_use(root);
	CHECK(host_realpath("/usr/lib/libcuda.so.1", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "/usr/lib/libcuda.so.580.1");
	CHECK(host_read_line("/sys/bus/pci/devices/0000:01:00.0/vendor", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "0x10de");
	CHECK(host_realpath("/sys/bus/pci/devices/0000:01:00.0", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "/sys/devices/pci0000:00/0000:01:00.0");
	CHECK(host_readlink("/usr/lib/libcuda.so.1", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "/usr/lib/libcuda.so.580.1");
	fr_free(root);
}

static void facts_env_uname_nodes(void)
{
	char *root = fr_new();
	struct host_uname un;
	struct host_stat st;
	struct host_identity id;

	fr_file(root, "/dev/nvidia0", "");
	fr_file(root, "/dev/kmsg", "");
	fr_facts(root, "env CUDA_VISIBLE_DEVICES=0,1\n"
		       "uname release 6.8.0-51-generic\n"
		       "id 1000 1000 44\n"
		       "node /dev/nvidia0 c 0660 0 44 195 0\n"
		       "error /dev/kmsg EPERM\n");
	fr_use(root);
	CHECK(host_is_fake());
	CHECK_STR(host_getenv("CUDA_VISIBLE_DEVICES"), "0,1");
	CHECK(host_getenv("HOME") == NULL);
	CHECK(host_uname(&un) == 0);
	CHECK_STR(un.release, "6.8.0-51-generic");
	CHECK(host_stat("/dev/nvidia0", &st) == 0);
	CHECK(st.type == 'c' && st.mode == 0660 && st.gid == 44 && st.major == 195);
	CHECK(host_identity(&id) == 0 && id.uid == 1000 && id.ngroups == 1 && id.groups[0] == 44);
	/* in group 44 with mode 0660: read and write allowed */
	CHECK(host_access("/dev/nvidia0", R_OK | W_OK) == 0);
	{
		char *text = NULL;
		size_t len = 0;

		CHECK(host_read_kmsg(&text, &len) == -EPERM);
	}
	fr_free(root);
}

/* host_facts_parse (the fuzzer's way in) reads the text the way a root's facts file is read:
 * comments skipped, the last line without its newline, bytes past len ignored. */
static void facts_from_memory(void)
{
	static const char text[] = "# a comment\n"
				   "env CUDA_VISIBLE_DEVICES=0,1\n"
				   "uname machine aarch64\n"
				   "id 1000 1000 44 45\n"
				   "env LAST=yes\nenv CUT=off";
	struct host_uname un;
	struct host_identity id;

	CHECK(host_facts_parse(text, sizeof(text) - 1 - strlen("\nenv CUT=off")) == 0);
	CHECK(host_is_fake());
	CHECK_STR(host_root(), "");
	CHECK_STR(host_getenv("CUDA_VISIBLE_DEVICES"), "0,1");
	CHECK_STR(host_getenv("LAST"), "yes");
	CHECK(host_getenv("CUT") == NULL);
	CHECK(host_getenv("HOME") == NULL);
	CHECK(host_uname(&un) == 0);
	CHECK_STR(un.machine, "aarch64");
	CHECK(host_identity(&id) == 0 && id.uid == 1000 && id.ngroups == 2 && id.groups[1] == 45);
	/* an empty text is an empty facts file: no environment at all */
	CHECK(host_facts_parse("", 0) == 0);
	CHECK(host_is_fake());
	CHECK(host_getenv("CUDA_VISIBLE_DEVICES") == NULL);
	CHECK(host_set_root(NULL, NULL) == 0);
	CHECK(!host_is_fake());
}

static void access_denied_without_group(void)
{
	char *root = fr_new();

	fr_file(root, "/dev/nvidia0", "");
	fr_facts(root, "id 1000 1000\nnode /dev/nvidia0 c 0660 0 44 195 0\n");
	fr_use(root);
	CHECK(host_access("/dev/nvidia0", R_OK | W_OK) == -EACCES);
	fr_free(root);
}

static void kmsg_filters_lines(void)
{
	char *root = fr_new();
	char *text = NULL;
	size_t len = 0;

	fr_file(root, "/dev/kmsg",
		"6,1,100,-;Linux version 6.8\n"
		"4,2,200,-;NVRM: Xid (PCI:0000:10:00): 79, pid=123, GPU has fallen off the bus.\n"
		" SUBSYSTEM=pci\n"
		"6,3,300,-;usb 1-1: new device\n");
	fr_use(root);
	CHECK(host_read_kmsg(&text, &len) == 0);
	CHECK(strstr(text, "Xid (PCI:0000:10:00): 79") != NULL);
	CHECK(strstr(text, "usb") == NULL);
	CHECK(strstr(text, "SUBSYSTEM") == NULL);
	free(text);
	fr_free(root);
}

static void version_compare(void)
{
	CHECK(version_cmp("580.65.06", "580.159.04") < 0);
	CHECK(version_cmp("580.159.04", "580.159.04") == 0);
	CHECK(version_cmp("12.4", "12.10") < 0);
	CHECK(version_cmp("550", "525.60.13") > 0);
}

int main(void)
{
	RUN(reads_under_root);
	RUN(absolute_links_stay_inside);
	RUN(facts_env_uname_nodes);
	RUN(facts_from_memory);
	RUN(access_denied_without_group);
	RUN(kmsg_filters_lines);
	RUN(version_compare);
	return TEST_DONE();
}
