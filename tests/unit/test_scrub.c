/*
 * test_scrub.c: `gpuvet record --scrub` (src/capture/scrub.c). The address and UUID
 * recognisers on what they must find and on what only looks like an address (PCI bus ids,
 * driver and package versions, dates); then a hand-made recording seeded with a user, a host
 * and its domain, addresses, UUIDs and serials, scrubbed as a whole: none of them may be
 * left, what doctor reads must be, and the same input must get the same placeholder.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capture/scrub.h"
#include "test.h"
#include "util/util.h"

/* The length the recogniser finds at the first position where it finds anything. */
static size_t first_match(size_t (*rec)(const char *, size_t), const char *text, size_t *at)
{
	size_t i, m;

	for (i = 0; text[i]; i++)
		if ((m = rec(text, i)) != 0) {
			if (at)
				*at = i;
			return m;
		}
	return 0;
}

static bool finds(size_t (*rec)(const char *, size_t), const char *text, const char *want)
{
	size_t at = 0, m = first_match(rec, text, &at);

	return m == strlen(want) && strncmp(text + at, want, m) == 0;
}

static bool finds_none(size_t (*rec)(const char *, size_t), const char *text)
{
	return first_match(rec, text, NULL) == 0;
}

/* Things doctor reads that look a little like addresses. */
/* clang-format off */
static const char *const not_addresses[] = {
	"Bus Location: 0000:00:06.0",
	"00000000:00:06.0",
	"/sys/devices/pci0000:00/0000:00:07.0/config",
	"NVRM version: 580.159.04  Release Build",
	"13.580.159.04",
	"Video BIOS: 96.00.A5.00.1A",
	"Start-Date: 2025-10-01  02:03:36",
	"2024-05-01T06:25:13+0000 SUBDEBUG Upgrade: nvidia-driver-3:550.67-1.el9.x86_64",
	"Install: libcudnn9-cuda-13:amd64 (9.14.0.64-1)",
	"libcudnn9-cuda-13=9.14.0.64-1",
	"Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"",
	"nvidia_cudnn_cu13-9.19.0.56.dist-info",
	"\"libcufile\" : { \"version\" : \"1.15.1.6\" }",
	"Version: 9.14.0.64",
	"clinfo:amd64 (3.0.23.01.25-1build1)",
	"Dir::Etc::sourcelist=/tmp/x APT::Sandbox::User=root",
	"DMA Mask: 0xfffffffffffff",
	"6.8.0-87-generic #87-Ubuntu SMP PREEMPT_DYNAMIC",
};
/* clang-format on */

static void test_ipv4(void)
{
	size_t i;

	CHECK(finds(scrub_ipv4_at, "inet 10.20.30.40/24 brd", "10.20.30.40"));
	CHECK(finds(scrub_ipv4_at, "ip=10.20.30.40::10.20.30.1:255.255.255.0", "10.20.30.40"));
	CHECK(finds(scrub_ipv4_at, "nameserver 192.168.1.1", "192.168.1.1"));
	CHECK(finds(scrub_ipv4_at, "http://172.16.0.5:3128/", "172.16.0.5"));
	CHECK(finds(scrub_ipv4_at, "at 8.8.8.8.", "8.8.8.8"));
	CHECK(finds(scrub_ipv4_at, "1.2.3.4", "1.2.3.4"));
	for (i = 0; i < ARRAY_SIZE(not_addresses); i++)
		if (!finds_none(scrub_ipv4_at, not_addresses[i])) {
			printf("FAIL %s: an address in \"%s\"\n", test_current, not_addresses[i]);
			test_failed_now = 1;
			return;
		}
	CHECK(finds_none(scrub_ipv4_at, "256.1.1.1"));
	CHECK(finds_none(scrub_ipv4_at, "1.2.3"));
	CHECK(finds_none(scrub_ipv4_at, "v1.2.3.4"));
}

static void test_ipv6(void)
{
	size_t i;

	CHECK(finds(scrub_ipv6_at, "inet6 fe80::5054:ff:feab:cdef/64 scope link",
		    "fe80::5054:ff:feab:cdef"));
	CHECK(
	    finds(scrub_ipv6_at, "KUBERNETES_SERVICE_HOST fd12:3456:789a::1", "fd12:3456:789a::1"));
	CHECK(finds(scrub_ipv6_at, "[2a01:4f8:c0c:1234::2]:443", "2a01:4f8:c0c:1234::2"));
	CHECK(finds(scrub_ipv6_at, "2001:0db8:0000:0000:0000:ff00:0042:8329",
		    "2001:0db8:0000:0000:0000:ff00:0042:8329"));
	CHECK(finds(scrub_ipv6_at, "via fe80::1.", "fe80::1"));
	for (i = 0; i < ARRAY_SIZE(not_addresses); i++)
		if (!finds_none(scrub_ipv6_at, not_addresses[i])) {
			printf("FAIL %s: an address in \"%s\"\n", test_current, not_addresses[i]);
			test_failed_now = 1;
			return;
		}
	CHECK(finds_none(scrub_ipv6_at, "std::vector<int> Dpkg::Options"));
	CHECK(finds_none(scrub_ipv6_at, "12:34:56"));
	CHECK(finds_none(scrub_ipv6_at, "52:54:00:ab:cd:ef:12:34:56:78:9a"));
}

static void test_mac(void)
{
	size_t i;

	CHECK(finds(scrub_mac_at, "link/ether 52:54:00:ab:cd:ef brd ff:ff:ff:ff:ff:ff",
		    "52:54:00:ab:cd:ef"));
	CHECK(finds(scrub_mac_at, "BOOTIF=01-52-54-00-AB-CD-EF", "01-52-54-00-AB-CD-EF"));
	CHECK(
	    finds(scrub_mac_at, "10.0.0.9 0x1 0x2 52:54:00:AB:CD:EF * eth0", "52:54:00:AB:CD:EF"));
	/* InfiniBand: 20 bytes */
	CHECK(finds(scrub_mac_at, "00:00:10:29:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5d:2f:3e\n",
		    "00:00:10:29:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5d:2f:3e"));
	for (i = 0; i < ARRAY_SIZE(not_addresses); i++)
		if (!finds_none(scrub_mac_at, not_addresses[i])) {
			printf("FAIL %s: an address in \"%s\"\n", test_current, not_addresses[i]);
			test_failed_now = 1;
			return;
		}
	CHECK(finds_none(scrub_mac_at, "52:54:00:ab:cd"));
	CHECK(finds_none(scrub_mac_at, "52:54:00:ab:cd:efg"));
	CHECK(finds_none(scrub_mac_at, "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"));
}

static void test_uuid(void)
{
	size_t i;

	CHECK(finds(scrub_uuid_at, "GPU-3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b",
		    "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"));
	CHECK(finds(scrub_uuid_at, "GPU UUID: GPU-3F1E2D4C-5B6A-4978-8A9B-0C1D2E3F4A5B\n",
		    "3F1E2D4C-5B6A-4978-8A9B-0C1D2E3F4A5B"));
	CHECK(finds(scrub_uuid_at, "MIG-GPU-3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b/1/0",
		    "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"));
	CHECK(finds(scrub_uuid_at, "root=UUID=0b7e5c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a ro",
		    "0b7e5c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a"));
	for (i = 0; i < ARRAY_SIZE(not_addresses); i++)
		CHECK(finds_none(scrub_uuid_at, not_addresses[i]));
	CHECK(finds_none(scrub_uuid_at, "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5"));
	CHECK(finds_none(scrub_uuid_at, "x3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"));
	CHECK(finds_none(scrub_uuid_at, "3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5bc"));
}

/* ---- a whole recording ---------------------------------------------------------------------- */

static void put_file(json_t *doc, const char *path, const char *content)
{
	json_object_set_new(json_object_get(doc, "files"), path, json_string(content));
}

static void put_entry(json_t *doc, const char *path, const char *key, json_t *v)
{
	json_t *files = json_object_get(doc, "files"), *e = json_object_get(files, path);

	if (!e) {
		e = json_object();
		json_object_set_new(files, path, e);
	}
	json_object_set_new(e, key, v);
}

static void put_env(json_t *doc, const char *name, const char *value)
{
	json_object_set_new(json_object_get(doc, "env"), name, json_string(value));
}

static json_t *answer_s(const char *s)
{
	return json_pack("[i, s]", 0, s);
}

static char *hex_of(const char *data, size_t len)
{
	char *out = malloc(2 * len + 1);
	size_t i;

	for (i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", (unsigned char)data[i]);
	out[2 * len] = '\0';
	return out;
}

static json_t *seeded(void)
{
	json_t *doc = json_object(), *dev0 = json_object(), *dev1 = json_object();
	static const char cmd[] = "/home/alice/venv/bin/python\0train.py\0--host\0gpu7\0";
	static const char cache[] = "ld.so-1.7.0\0/home/alice/lib/libfoo.so\0/usr/lib/libbar.so";
	char *h;

	json_object_set_new(doc, "gpuvet_recording", json_integer(1));
	json_object_set_new(doc, "files", json_object());
	json_object_set_new(doc, "env", json_object());
	json_object_set_new(doc, "uname",
			    json_pack("{s:s, s:s, s:s}", "sysname", "Linux", "nodename",
				      "gpu7.corp.example", "release", "6.8.0-87-generic"));
	json_object_set_new(doc, "description", json_string("alice's box gpu7, see 10.20.30.40"));

	put_env(doc, "HOME", "/home/alice");
	put_env(doc, "USER", "alice");
	put_env(doc, "HOSTNAME", "gpu7");
	put_env(doc, "PATH",
		"/home/alice/.local/bin:/home/alice/venv/bin:/usr/local/cuda/bin:/usr/bin");
	put_env(doc, "VIRTUAL_ENV", "/home/alice/venv");
	put_env(doc, "CUDA_VISIBLE_DEVICES", "GPU-3F1E2D4C-5B6A-4978-8A9B-0C1D2E3F4A5B");
	put_env(doc, "KUBERNETES_SERVICE_HOST", "fd12:3456:789a::1");
	put_env(doc, "NV_CUDNN_VERSION", "9.14.0.64");
	put_env(doc, "HF_TOKEN", "hf_abcdefSECRET");

	json_object_set_new(dev0, "nvmlDeviceGetUUID",
			    answer_s("GPU-3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"));
	json_object_set_new(dev0, "nvmlDeviceGetSerial", answer_s("1654123456789"));
	json_object_set_new(dev0, "nvmlDeviceGetPciInfo",
			    json_pack("[i, s, i, i]", 0, "00000000:00:06.0", 0, 6));
	json_object_set_new(dev1, "nvmlDeviceGetUUID",
			    answer_s("GPU-9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d"));
	json_object_set_new(dev1, "nvmlDeviceGetSerial", answer_s("1654123456790"));
	json_object_set_new(doc, "nvml",
			    json_pack("{s:{s:[i,s]}, s:[o, o]}", "system",
				      "nvmlSystemGetDriverVersion", 0, "580.159.04", "devices",
				      dev0, dev1));

	put_file(doc, "/etc/passwd",
		 "root:x:0:0:root:/root:/bin/bash\n"
		 "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
		 "alice:x:1000:1000:Alice Example,,,:/home/alice:/bin/bash\n"
		 "jo:x:1001:1001::/home/jo:/bin/bash\n"
		 "torch:x:1002:1002::/home/torch:/bin/bash\n");
	put_file(doc, "/etc/group",
		 "root:x:0:\nadm:x:4:ubuntu,alice\nvideo:x:44:alice,jo\nalice:x:1000:\n"
		 "mlteam:x:2000:alice,jo\n");
	put_file(doc, "/etc/shadow", "alice:$6$salt$hash:19000:0:99999:7:::\n");
	put_file(doc, "/etc/hostname", "gpu7\n");
	put_file(doc, "/proc/sys/kernel/hostname", "gpu7\n");
	put_file(doc, "/etc/hosts",
		 "127.0.0.1 localhost\n127.0.1.1 gpu7.corp.example gpu7\n10.20.30.41 "
		 "gpu8.corp.example gpu8\n"
		 "::1 ip6-localhost ip6-loopback\n");
	put_file(doc, "/etc/resolv.conf", "nameserver 10.20.30.1\nsearch corp.example\n");
	put_file(doc, "/etc/fstab",
		 "UUID=0b7e5c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a / ext4 defaults 0 1\n"
		 "UUID=ABCD-1234 /boot/efi vfat umask=0077 0 1\n"
		 "10.20.30.5:/export/home /nfs nfs defaults 0 0\n");
	put_file(
	    doc, "/proc/cmdline",
	    "BOOT_IMAGE=/boot/vmlinuz-6.8.0-87-generic "
	    "root=UUID=0b7e5c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a "
	    "ro iommu=pt nouveau.modeset=0 module_blacklist=nouveau,nvidiafb "
	    "rd.driver.blacklist=nouveau vfio-pci.ids=10de:2335 "
	    "ip=10.20.30.40::10.20.30.1:255.255.255.0:gpu7:eth0:off nfsroot=nas1:/export/alice "
	    "BOOTIF=01-52-54-00-ab-cd-ef quiet -- --user alice\n");
	put_file(doc, "/var/log/apt/history.log",
		 "\nStart-Date: 2025-10-10  18:00:55\n"
		 "Commandline: /usr/bin/apt-get install -y nvidia-driver-580 -o "
		 "Dir::Cache=/home/alice/c\n"
		 "Requested-By: alice (1000)\n"
		 "Install: nvidia-driver-580:amd64 (580.159.04-0ubuntu1), libcudnn9-cuda-13:amd64 "
		 "(9.14.0.64-1)\n"
		 "End-Date: 2025-10-10  18:01:30\n");
	put_file(doc, "/sys/class/net/eth0/address", "52:54:00:ab:cd:ef\n");
	put_file(doc, "/sys/class/net/bond0/address", "52:54:00:ab:cd:ef\n");
	put_file(doc, "/sys/class/net/eth0/broadcast", "ff:ff:ff:ff:ff:ff\n");
	put_file(doc, "/etc/network/interfaces", "address 10.20.30.40\nnetmask 255.255.255.0\n");
	put_file(doc, "/sys/class/net/ib0/address",
		 "00:00:10:29:fe:80:00:00:00:00:00:00:0c:42:a1:03:00:5d:2f:3e\n");
	put_file(doc, "/proc/net/arp",
		 "IP address       HW type     Flags       HW address            Mask     Device\n"
		 "10.20.30.1       0x1         0x2         52:54:00:12:34:56     *        eth0\n");
	put_file(doc, "/proc/net/if_inet6", "fe80::5054:ff:feab:cdef eth0\n");
	put_file(doc, "/sys/class/dmi/id/product_serial", "VMW-7421-ABCD\n");
	put_file(doc, "/sys/class/dmi/id/board_serial", "Not Specified\n");
	put_file(doc, "/sys/class/dmi/id/product_uuid", "4c4c4544-0042-3510-8052-b4c04f4e3732\n");
	put_file(doc, "/sys/class/dmi/id/product_name", "KVM\n");
	put_file(doc, "/proc/driver/nvidia/gpus/0000:00:06.0/information",
		 "Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-3F1E2D4C-5B6A-4978-8A9B-0C1D2E3F4A5B\n"
		 "Bus Location: \t 0000:00:06.0\nGPU Firmware: \t 580.159.04\n");
	put_file(doc, "/dev/kmsg",
		 "6,400,5000000,-;NVRM: GPU at PCI:0000:00:07: "
		 "GPU-9A8B7C6D-5E4F-4A3B-9C2D-1E0F2A3B4C5D\n"
		 "6,401,5000001,-;NVRM: GPU Board Serial Number: 1654123456790\n");
	put_file(doc, "/home/alice/venv/pyvenv.cfg",
		 "home = /home/alice/.pyenv/versions/3.12.3/bin\n");
	put_file(doc, "/home/jo/notes", "jo was here\n");
	put_file(doc, "/home/torch/x", "x\n");
	put_file(doc,
		 "/opt/torch/.venv/lib/python3.12/site-packages/torch-2.11.0.dist-info/METADATA",
		 "Name: torch\nVersion: 2.11.0\n"
		 "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"\n");
	put_entry(doc, "/opt/torch/.venv/lib/python3.12/site-packages", "dir",
		  json_pack("[s, s]", "nvidia_cudnn_cu13-9.19.0.56.dist-info", "torch"));
	put_file(doc, "/usr/local/cuda-13.0/version.json",
		 "{ \"libcufile\" : { \"name\" : \"cuFile\", \"version\" : \"1.15.1.6\" } }\n");
	put_entry(doc, "/home", "dir", json_pack("[s, s, s]", "alice", "jo", "torch"));
	put_entry(doc, "/dev/disk/by-uuid", "dir",
		  json_pack("[s, s]", "0b7e5c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a", "ABCD-1234"));
	put_entry(doc, "/dev/disk/by-id", "dir",
		  json_pack("[s]", "nvme-Samsung_SSD_980_S5GXNF0R123456A"));
	put_entry(doc, "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		  "hex", json_string("0600000001"));
	h = hex_of(cmd, sizeof(cmd) - 1);
	put_entry(doc, "/proc/4242/cmdline", "hex", json_string(h));
	free(h);
	put_file(doc, "/proc/4243/cmdline", "sshd: alice [priv]");
	put_file(doc, "/proc/4242/comm", "python\n");
	h = hex_of(cache, sizeof(cache) - 1);
	put_entry(doc, "/etc/ld.so.cache", "hex", json_string(h));
	free(h);
	put_entry(doc, "/usr/local/nvidia/lib64/libcuda.so.1", "link",
		  json_string("libcuda.so.580.159.04"));
	return doc;
}

static char *scrubbed_text(void)
{
	json_t *doc = seeded();
	char *text;

	scrub_recording(doc);
	text = json_dumps(doc, JSON_SORT_KEYS);
	json_decref(doc);
	return text;
}

static bool has(const char *text, const char *needle)
{
	return strcasestr(text, needle) != NULL;
}

static void test_scrub_removes_identifiers(void)
{
	/* clang-format off */
	static const char *const gone[] = {
		"alice", "gpu7", "gpu8", "corp.example", "10.20.30", "fd12:3456", "52:54:00",
		"52-54-00", "fe80::5054", "0c:42:a1", "3f1e2d4c", "9a8b7c6d", "0b7e5c1a",
		"ABCD-1234", "S5GXNF0R123456A", "4c4c4544", "1654123456789", "1654123456790",
		"VMW-7421", "Alice Example", "Requested-By", "$6$salt", "train.py", "hf_abcdef",
		"mlteam", "nas1", "/home/jo/", "/home/torch/", "616c696365" /* alice in hex */
	};
	/* clang-format on */
	char *text = scrubbed_text();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gone); i++)
		if (has(text, gone[i])) {
			printf("FAIL %s: \"%s\" is still in the scrubbed recording\n", test_current,
			       gone[i]);
			test_failed_now = 1;
			free(text);
			return;
		}
	free(text);
}

static void test_scrub_keeps_what_doctor_reads(void)
{
	/* clang-format off */
	static const char *const kept[] = {
		"iommu=pt", "nouveau.modeset=0", "module_blacklist=nouveau,nvidiafb",
		"rd.driver.blacklist=nouveau", "vfio-pci.ids=10de:2335", "0000:00:06.0",
		"00000000:00:06.0", "580.159.04", "9.14.0.64-1", "nvidia-cudnn-cu13==9.19.0.56",
		"nvidia_cudnn_cu13-9.19.0.56.dist-info", "\\\"version\\\" : \\\"1.15.1.6\\\"",
		"Install: nvidia-driver-580:amd64 (580.159.04-0ubuntu1)",
		"Start-Date: 2025-10-10  18:00:55", "Commandline: apt-get\\n", "/opt/torch/.venv",
		"SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		"root:x:0:0:root:/root:/bin/bash", "adm:x:4:ubuntu,",
		"\"NV_CUDNN_VERSION\": \"9.14.0.64\"", "127.0.0.1 localhost",
		"netmask 255.255.255.0", "ff:ff:ff:ff:ff:ff", "KVM", "Linux", "6.8.0-87-generic",
	};
	/* clang-format on */
	char *text = scrubbed_text();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kept); i++)
		if (!strstr(text, kept[i])) {
			printf("FAIL %s: \"%s\" was scrubbed\n", test_current, kept[i]);
			test_failed_now = 1;
			free(text);
			return;
		}
	CHECK(!strstr(text, "--user"));
	free(text);
}

static const char *file_str(json_t *doc, const char *path)
{
	json_t *v = json_object_get(json_object_get(doc, "files"), path);

	return json_string_value(json_is_object(v) ? json_object_get(v, "content") : v);
}

static const char *file_field(json_t *doc, const char *path, const char *key)
{
	return json_string_value(
	    json_object_get(json_object_get(json_object_get(doc, "files"), path), key));
}

static void test_scrub_stable_placeholders(void)
{
	json_t *doc = seeded(), *env, *devs;
	const char *cmdline;
	char gw[32];

	scrub_recording(doc);
	env = json_object_get(doc, "env");
	devs = json_object_get(json_object_get(doc, "nvml"), "devices");
	/* GPU i is placeholder i, whatever the case or prefix it is written with */
	CHECK_STR(json_string_value(json_array_get(
		      json_object_get(json_array_get(devs, 0), "nvmlDeviceGetUUID"), 1)),
		  "GPU-00000000-0000-0000-0000-000000000000");
	CHECK_STR(json_string_value(json_array_get(
		      json_object_get(json_array_get(devs, 1), "nvmlDeviceGetUUID"), 1)),
		  "GPU-00000000-0000-0000-0000-000000000001");
	CHECK_STR(json_string_value(json_object_get(env, "CUDA_VISIBLE_DEVICES")),
		  "GPU-00000000-0000-0000-0000-000000000000");
	CHECK(strstr(file_str(doc, "/dev/kmsg"), "GPU-00000000-0000-0000-0000-000000000001"));
	CHECK(strstr(file_str(doc, "/proc/driver/nvidia/gpus/0000:00:06.0/information"),
		     "GPU-00000000-0000-0000-0000-000000000000"));
	CHECK_STR(json_string_value(json_array_get(
		      json_object_get(json_array_get(devs, 0), "nvmlDeviceGetSerial"), 1)),
		  "0000000000000");
	/* the user's home: the same placeholder in env values, file paths and contents */
	CHECK_STR(json_string_value(json_object_get(env, "VIRTUAL_ENV")), "/home/user1/venv");
	CHECK_STR(json_string_value(json_object_get(env, "USER")), "user1");
	CHECK_STR(file_str(doc, "/home/user1/venv/pyvenv.cfg"),
		  "home = /home/user1/.pyenv/versions/3.12.3/bin\n");
	CHECK(strstr(file_str(doc, "/etc/passwd"), "user1:x:1000:1000::/home/user1:/bin/bash\n"));
	CHECK(strstr(file_str(doc, "/etc/group"), "video:x:44:user1,user2\n"));
	/* a short name and one that is also a folder of the system: in their homes only */
	CHECK(file_str(doc, "/home/user2/notes"));
	CHECK_STR(file_str(doc, "/home/user2/notes"), "jo was here\n");
	CHECK(file_str(doc, "/home/user3/x"));
	CHECK(file_str(
	    doc, "/opt/torch/.venv/lib/python3.12/site-packages/torch-2.11.0.dist-info/METADATA"));
	/* host and domain */
	CHECK_STR(json_string_value(json_object_get(json_object_get(doc, "uname"), "nodename")),
		  "host1.domain1.example");
	CHECK_STR(json_string_value(json_object_get(env, "HOSTNAME")), "host1");
	CHECK_STR(file_str(doc, "/etc/hostname"), "host1\n");
	CHECK(strstr(file_str(doc, "/etc/hosts"), "127.0.1.1 host1.domain1.example host1\n"));
	/* addresses: one placeholder per address, the same wherever it appears */
	CHECK(str_starts(file_str(doc, "/sys/class/net/eth0/address"), "02:00:00:00:00:"));
	CHECK_STR(file_str(doc, "/sys/class/net/eth0/address"),
		  file_str(doc, "/sys/class/net/bond0/address"));
	cmdline = file_str(doc, "/proc/cmdline");
	CHECK(strstr(cmdline, "BOOTIF=02-00-00-00-00-00-"));
	CHECK(strstr(cmdline, "root=UUID=00000000-0000-0000-0000-000000000002 "));
	CHECK(strstr(file_str(doc, "/etc/fstab"),
		     "UUID=00000000-0000-0000-0000-000000000002 / ext4"));
	CHECK(strstr(file_str(doc, "/etc/fstab"), "UUID=disk1 /boot/efi"));
	CHECK(str_starts(file_str(doc, "/etc/resolv.conf"), "nameserver 192.0.2."));
	str_copy(gw, file_str(doc, "/etc/resolv.conf") + strlen("nameserver "), sizeof(gw));
	gw[strcspn(gw, "\n")] = '\0';
	CHECK(strstr(file_str(doc, "/proc/net/arp"), gw));
	CHECK(strlen(file_str(doc, "/sys/class/net/ib0/address")) == 60);
	CHECK(str_starts(file_str(doc, "/sys/class/net/ib0/address"),
			 "02:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:"));
	CHECK(strstr(json_string_value(json_object_get(env, "KUBERNETES_SERVICE_HOST")),
		     "2001:db8::"));
	CHECK_STR(json_string_value(json_object_get(env, "HF_TOKEN")), "scrubbed");
	/* a process keeps its executable, not its arguments */
	CHECK_STR(file_field(doc, "/proc/4242/cmdline", "hex"),
		  "2f686f6d652f75736572312f76656e762f62696e2f707974686f6e00");
	CHECK_STR(file_str(doc, "/proc/4243/cmdline"), "sshd:");
	CHECK_STR(file_str(doc, "/etc/shadow"), "");
	/* a binary file keeps its size */
	CHECK(strlen(file_field(doc, "/etc/ld.so.cache", "hex")) ==
	      2 * strlen("ld.so-1.7.0") + 2 + 2 * strlen("/home/alice/lib/libfoo.so") + 2 +
		  2 * strlen("/usr/lib/libbar.so"));
	json_decref(doc);
}

/* A host called "node" is a word the system uses (/sys/devices/system/node): it stays in
 * paths and inside other words ("numa_node") and is replaced only where host names live; a
 * two-letter user likewise only in $USER and its home. */
static void test_scrub_system_words(void)
{
	json_t *doc = json_object(), *files = json_object(), *env = json_object();

	json_object_set_new(doc, "gpuvet_recording", json_integer(1));
	json_object_set_new(doc, "files", files);
	json_object_set_new(doc, "env", env);
	json_object_set_new(doc, "uname", json_pack("{s:s}", "nodename", "node"));
	put_env(doc, "HOSTNAME", "node");
	put_env(doc, "USER", "jo");
	put_env(doc, "HOME", "/home/jo");
	put_file(doc, "/etc/hostname", "node\n");
	put_file(doc, "/sys/bus/pci/devices/0000:00:06.0/numa_node", "0\n");
	put_file(doc, "/sys/devices/system/node/online", "0-1\n");
	put_file(doc, "/proc/1/comm", "jo_trainer\n");
	scrub_recording(doc);
	CHECK_STR(json_string_value(json_object_get(json_object_get(doc, "uname"), "nodename")),
		  "host1");
	CHECK_STR(json_string_value(json_object_get(env, "HOSTNAME")), "host1");
	CHECK_STR(file_str(doc, "/etc/hostname"), "host1\n");
	CHECK_STR(json_string_value(json_object_get(env, "USER")), "user1");
	CHECK_STR(json_string_value(json_object_get(env, "HOME")), "/home/user1");
	CHECK_STR(file_str(doc, "/sys/bus/pci/devices/0000:00:06.0/numa_node"), "0\n");
	CHECK_STR(file_str(doc, "/sys/devices/system/node/online"), "0-1\n");
	CHECK_STR(file_str(doc, "/proc/1/comm"), "jo_trainer\n");
	json_decref(doc);
}

/* A recording scrubbed twice is the recording scrubbed once. */
static void test_scrub_idempotent(void)
{
	json_t *doc = seeded();
	char *once, *twice;

	scrub_recording(doc);
	once = json_dumps(doc, JSON_SORT_KEYS);
	scrub_recording(doc);
	twice = json_dumps(doc, JSON_SORT_KEYS);
	json_decref(doc);
	CHECK(once && twice);
	if (strcmp(once, twice) != 0) {
		size_t i = 0;

		while (once[i] == twice[i])
			i++;
		printf("FAIL %s: differs at ...%.60s... vs ...%.60s...\n", test_current,
		       once + (i > 30 ? i - 30 : 0), twice + (i > 30 ? i - 30 : 0));
		test_failed_now = 1;
	}
	free(once);
	free(twice);
}

int main(void)
{
	RUN(test_ipv4);
	RUN(test_ipv6);
	RUN(test_mac);
	RUN(test_uuid);
	RUN(test_scrub_removes_identifiers);
	RUN(test_scrub_keeps_what_doctor_reads);
	RUN(test_scrub_stable_placeholders);
	RUN(test_scrub_system_words);
	RUN(test_scrub_idempotent);
	return TEST_DONE();
}
