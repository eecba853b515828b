/*
 * scrub.c: `gpuvet record --scrub`, behind scrub.h. recording.c calls scrub_recording() on
 * the finished document just before it is written.
 *
 * Two passes over the jansson document. The first (scrub_learn.c) learns the names to hide:
 * users and groups (/etc/passwd, /etc/group, $USER, $HOME, /home/<name>), host and domain
 * names (uname, /etc/hostname, $HOSTNAME, /etc/hosts, resolv.conf), GPU serials and UUIDs in
 * NVML order, DMI serials. The second, here, rewrites every string (file paths, file contents, link
 * targets, folder listings, environment values, vendor answers): first the few files whose
 * structure says what to drop (kernel command line, apt history, passwd, process command
 * lines), then one left-to-right pass per string that replaces learned names as whole
 * words, UUIDs, MAC and IP addresses (recognised by scrub_addr.c). One map holds every replacement,
 * so an input gets the same placeholder wherever it appears and the replay's relations (a UUID in
 * NVML and in CUDA_VISIBLE_DEVICES, a home folder in a path and in VIRTUAL_ENV) still hold.
 *
 * What doctor needs is left alone by construction: PCI bus ids, driver and package versions,
 * dates, the kernel parameters it reads, package names in the apt history.
 */
#define _GNU_SOURCE
#include "scrub.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/strbuf.h"
#include "../util/util.h"
#include "scrub_int.h"

/* ---- rewriting text ------------------------------------------------------------------------- */

/* Characters that continue a word: a host "node" is not in "numa_node", a host "gpu7" not in
 * "gpu7-ib0" (host and domain labels hold '-'). */
static bool word_char(char c, enum scrub_kind k)
{
	return scrub_is_alnum(c) || c == '_' || ((k == K_HOST || k == K_DOMAIN) && c == '-');
}

static size_t word_at(struct scrub *s, const char *text, size_t at, struct strbuf *out)
{
	size_t w;

	for (w = 0; w < s->nwords; w++) {
		const struct scrub_item *it = &s->items[s->words[w]];
		size_t len = strlen(it->from);
		char next;

		if (!it->word && !s->own_place)
			continue;
		if (tolower((unsigned char)text[at]) != tolower((unsigned char)it->from[0]) ||
		    strncasecmp(text + at, it->from, len) != 0)
			continue;
		if (at > 0 && word_char(text[at - 1], it->kind))
			continue;
		next = text[at + len];
		if (word_char(next, it->kind))
			continue;
		if (it->kind == K_DOMAIN) {
			/* "corp.example.org" is another domain; a one-label domain ("lan") only
			 * counts as the end of a name */
			if (next == '.' && scrub_is_alnum(text[at + len + 1]))
				continue;
			if (!strchr(it->from, '.') && (at == 0 || text[at - 1] != '.'))
				continue;
		}
		sb_adds(out, it->to);
		return len;
	}
	return 0;
}

/* /home/<user> for every learned user, short or a system word too. */
static size_t home_at(struct scrub *s, const char *text, size_t at, struct strbuf *out)
{
	static const char *const homes[] = {"/home/", "/Users/"};
	size_t h;

	for (h = 0; h < ARRAY_SIZE(homes); h++) {
		size_t hl = strlen(homes[h]), k;
		struct scrub_item *u;

		if (strncmp(text + at, homes[h], hl) != 0)
			continue;
		k = scrub_name_len(text + at + hl);
		u = k ? scrub_find(s, K_USER, text + at + hl, k) : NULL;
		if (!u)
			return 0;
		sb_add(out, text + at, hl);
		sb_adds(out, u->to);
		return hl + k;
	}
	return 0;
}

/* Disk ids and labels: /dev/disk/by-id/<model_serial>, by-label/<name>, fstab's and the
 * kernel command line's UUID=, LABEL=. A real UUID is left to the UUID pass. */
static size_t disk_at(struct scrub *s, const char *text, size_t at, struct strbuf *out)
{
	/* clang-format off */
	static const char *const prefixes[] = {
		"/dev/disk/by-uuid/", "/dev/disk/by-partuuid/", "/dev/disk/by-id/",
		"/dev/disk/by-label/", "/dev/disk/by-partlabel/", "PARTUUID=", "UUID=",
		"PARTLABEL=", "LABEL=",
	};
	/* clang-format on */
	size_t p;

	for (p = 0; p < ARRAY_SIZE(prefixes); p++) {
		size_t pl = strlen(prefixes[p]), k;
		char *name;

		if (strncmp(text + at, prefixes[p], pl) != 0 ||
		    (at > 0 && scrub_is_alnum(text[at - 1])))
			continue;
		k = strcspn(text + at + pl, " \t\n\"',;/");
		if (k == 0)
			return 0;
		sb_add(out, text + at, pl);
		if (scrub_uuid_at(text, at + pl) == k)
			return pl;
		name = xstrndup(text + at + pl, k);
		if (scrub_name_is_placeholder(name))
			sb_adds(out, name);
		else
			sb_adds(out, scrub_assign(s, K_DISK, name, k, NULL, false)->to);
		free(name);
		return pl + k;
	}
	return 0;
}

/* Vendor GUIDs of EFI variables, the same on every machine (doctor reads SecureBoot-8be4...). */
static bool uuid_is_well_known(const char *u)
{
	/* clang-format off */
	static const char *const known[] = {
		"8be4df61-93ca-11d2-aa0d-00e098032b8c", /* EFI global variables */
		"605dab50-e046-4300-abb6-3dd810dd8b23", /* shim (MokSBState) */
		"d719b2cb-3d3a-4596-a3bc-dad00e67656f", /* image security database */
	};
	/* clang-format on */
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (strncasecmp(u, known[i], 36) == 0)
			return true;
	return false;
}

static void add_uuid(struct scrub *s, const char *u, struct strbuf *out)
{
	if (s->keep_uuids || scrub_uuid_is_placeholder(u) || uuid_is_well_known(u))
		sb_add(out, u, 36);
	else
		sb_adds(out, scrub_assign(s, K_UUID, u, 36, NULL, false)->to);
}

static bool ipv4_keep(const unsigned char b[4])
{
	uint32_t v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	uint32_t inv = ~v;

	/* this network, loopback, multicast and reserved: they name no machine */
	if (b[0] == 0 || b[0] == 127 || b[0] >= 224)
		return true;
	/* a netmask (255.255.255.0) is made of leading ones */
	if (b[0] == 255 && (inv & (inv + 1)) == 0)
		return true;
	/* the placeholders themselves */
	return (b[0] == 192 && b[1] == 0 && b[2] == 2) ||
	       (b[0] == 198 && b[1] == 51 && b[2] == 100) ||
	       (b[0] == 203 && b[1] == 0 && b[2] == 113);
}

static void add_ipv4(struct scrub *s, const char *a, size_t len, struct strbuf *out)
{
	char buf[16];
	unsigned char b[4];

	str_copy(buf, a, len + 1 < sizeof(buf) ? len + 1 : sizeof(buf));
	if (inet_pton(AF_INET, buf, b) != 1 || ipv4_keep(b))
		sb_add(out, a, len);
	else
		sb_adds(out, scrub_assign(s, K_IPV4, buf, strlen(buf), NULL, false)->to);
}

static void add_ipv6(struct scrub *s, const char *a, size_t len, struct strbuf *out)
{
	static const unsigned char zero[16];
	char buf[64], canon[64];
	unsigned char b[16];

	str_copy(buf, a, len + 1 < sizeof(buf) ? len + 1 : sizeof(buf));
	if (inet_pton(AF_INET6, buf, b) != 1 || !inet_ntop(AF_INET6, b, canon, sizeof(canon))) {
		sb_add(out, a, len);
		return;
	}
	/* unspecified, loopback, multicast, the documentation prefix */
	if (memcmp(b, zero, 15) == 0 || b[0] == 0xff ||
	    (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8))
		sb_add(out, a, len);
	else
		sb_adds(out, scrub_assign(s, K_IPV6, canon, strlen(canon), NULL, false)->to);
}

/* Written with the address's own separator and number of groups. */
static void add_mac(struct scrub *s, const char *a, size_t len, struct strbuf *out)
{
	char key[96];
	size_t i, groups = (len + 1) / 3;
	const char *to;
	bool zero = true, ones = true;

	for (i = 0; i < len && i < sizeof(key) - 1; i++) {
		key[i] = a[i] == '-' ? ':' : (char)tolower((unsigned char)a[i]);
		if (i % 3 != 2) {
			zero = zero && a[i] == '0';
			ones = ones && tolower((unsigned char)a[i]) == 'f';
		}
	}
	key[i] = '\0';
	if (zero || ones || str_starts(key, "02:00:00:00:")) {
		sb_add(out, a, len);
		return;
	}
	to = scrub_assign(s, K_MAC, key, strlen(key), NULL, false)->to;
	/* 02, then zeros, then the number in the last two groups */
	for (i = 0; i < groups; i++) {
		if (i > 0)
			sb_addc(out, a[2]);
		if (i == 0)
			sb_adds(out, "02");
		else if (i + 2 >= groups)
			sb_add(out, to + 12 + (i + 2 - groups) * 3, 2);
		else
			sb_adds(out, "00");
	}
}

/* Every replacement in one left-to-right pass: text already replaced is never looked at
 * again, so a placeholder cannot be replaced twice. Returns a new string. */
static char *scrub_text(struct scrub *s, const char *text)
{
	struct strbuf out;
	size_t i = 0, m;

	sb_init(&out);
	while (text[i]) {
		if ((m = home_at(s, text, i, &out)) || (m = disk_at(s, text, i, &out)) ||
		    (m = word_at(s, text, i, &out))) {
			i += m;
		} else if ((m = scrub_uuid_at(text, i)) != 0) {
			add_uuid(s, text + i, &out);
			i += m;
		} else if ((m = scrub_mac_at(text, i)) != 0) {
			add_mac(s, text + i, m, &out);
			i += m;
		} else if ((m = scrub_ipv6_at(text, i)) != 0) {
			add_ipv6(s, text + i, m, &out);
			i += m;
		} else if ((m = scrub_ipv4_at(text, i)) != 0) {
			add_ipv4(s, text + i, m, &out);
			i += m;
		} else {
			sb_addc(&out, text[i++]);
		}
	}
	return sb_detach(&out);
}

/* Binary files (ld.so.cache) keep their layout: a learned name is overwritten with as many
 * 'x' as it has letters. */
static void mask_binary(struct scrub *s, unsigned char *b, size_t len)
{
	size_t i, t;

	for (i = 0; i < len; i++) {
		if (i > 0 && scrub_is_alnum((char)b[i - 1]))
			continue;
		for (t = 0; t < s->n; t++) {
			const struct scrub_item *it = &s->items[t];
			size_t k = strlen(it->from);
			bool home = i >= 6 && memcmp(b + i - 6, "/home/", 6) == 0;

			if (it->kind > K_SERIAL || (!it->word && !(home && it->kind == K_USER)))
				continue;
			if (i + k > len || strncasecmp((const char *)b + i, it->from, k) != 0 ||
			    (i + k < len && scrub_is_alnum((char)b[i + k])))
				continue;
			memset(b + i, 'x', k);
			break;
		}
	}
}

/* ---- files whose structure says what to drop ------------------------------------------------ */

/* Kernel parameters whose values stay: what src/host and src/checks read (module.c's
 * blacklists and nouveau.modeset, fabric.c's iommu, pci.c's vfio-pci.ids), and common
 * settings whose values name nothing. A name ending in '.' is a module's prefix. Other
 * parameters keep their name; their value is replaced unless it is a number or a flag. */
/* clang-format off */
static const char *const cmdline_keep[] = {
	"nouveau.", "nvidia.", "nvidia-drm.", "nvidia_drm.", "nvidia_uvm.", "nvidia_modeset.",
	"module_blacklist", "modprobe.blacklist", "rd.driver.blacklist", "rd.driver.pre",
	"rd.driver.post", "vfio-pci.", "vfio_pci.", "iommu", "iommu.", "intel_iommu", "amd_iommu",
	"pci", "pcie_aspm", "pcie_acs_override", "pcie_ports", "BOOT_IMAGE", "root", "rootfstype",
	"rootflags", "resume", "init", "rdinit", "console", "loglevel", "mitigations", "panic",
	"reboot", "crashkernel", "hugepages", "hugepagesz", "default_hugepagesz",
	"transparent_hugepage", "isolcpus", "nohz_full", "rcu_nocbs", "numa_balancing", "swiotlb",
	"lockdown", "module.sig_enforce", "efi", "acpi", "selinux", "enforcing", "apparmor",
	"security", "systemd.unified_cgroup_hierarchy", "cgroup_no_v1", "cgroup_enable", "psi",
	"random.trust_cpu", "memhp_default_state",
};
/* clang-format on */

static bool cmdline_key_kept(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmdline_keep); i++) {
		size_t kl = strlen(cmdline_keep[i]);

		if (cmdline_keep[i][kl - 1] == '.'
			? len > kl && strncmp(key, cmdline_keep[i], kl) == 0
			: len == kl && strncmp(key, cmdline_keep[i], kl) == 0)
			return true;
	}
	return false;
}

static bool cmdline_value_plain(const char *v)
{
	static const char *const flags[] = {"on", "off",  "auto",   "force", "noforce", "y",
					    "n",  "yes",  "no",     "true",  "false",   "lazy",
					    "pt", "nopt", "strict", "soft",  "full",    "none"};
	size_t i;

	if (*v && strspn(v, "0123456789abcdefABCDEFx,.:-") == strlen(v) &&
	    isdigit((unsigned char)v[0]))
		return true;
	for (i = 0; i < ARRAY_SIZE(flags); i++)
		if (strcmp(v, flags[i]) == 0)
			return true;
	return false;
}

/* Everything after "--" is for init, not the kernel (module.c stops there too): dropped. */
static char *filter_cmdline(const char *text)
{
	struct strbuf out;
	char *copy = xstrdup(text), *tok, *save = NULL;

	sb_init(&out);
	for (tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(tok, '=');

		if (strcmp(tok, "--") == 0)
			break;
		if (out.len)
			sb_addc(&out, ' ');
		if (!eq || cmdline_key_kept(tok, (size_t)(eq - tok)) || cmdline_value_plain(eq + 1))
			sb_adds(&out, tok);
		else
			sb_addf(&out, "%.*s=scrubbed", (int)(eq - tok), tok);
	}
	sb_addc(&out, '\n');
	free(copy);
	return sb_detach(&out);
}

/* The apt history keeps its dates, the package lines (names and versions, which doctor
 * reads) and the name of the tool that ran; Requested-By names a user and Commandline's
 * arguments can name anything. */
static char *filter_apt_history(const char *text)
{
	static const char *const kept[] = {"Start-Date:", "End-Date:", "Install:",   "Upgrade:",
					   "Remove:",     "Purge:",    "Downgrade:", "Reinstall:"};
	struct strbuf out;
	const char *line = text;

	sb_init(&out);
	while (*line) {
		size_t len = strcspn(line, "\n"), i;

		if (len == 0) {
			sb_addc(&out, '\n');
		} else if (str_starts(line, "Commandline: ")) {
			const char *cmd = line + 13, *base;
			size_t w = strcspn(cmd, " \n");

			for (base = cmd + w; base > cmd && base[-1] != '/'; base--)
				;
			sb_adds(&out, "Commandline: ");
			sb_add(&out, base, (size_t)(cmd + w - base));
			sb_addc(&out, '\n');
		} else {
			for (i = 0; i < ARRAY_SIZE(kept); i++)
				if (str_starts(line, kept[i])) {
					sb_add(&out, line, len);
					sb_addc(&out, '\n');
					break;
				}
		}
		line += len;
		if (*line == '\n')
			line++;
	}
	return sb_detach(&out);
}

/* passwd and group: learned names replaced field by field (also the short ones and system
 * words, which the text pass leaves), the GECOS field (a person's real name) emptied. */
static char *filter_accounts(struct scrub *s, const char *text, bool group)
{
	struct strbuf out;
	const char *line = text;

	sb_init(&out);
	while (*line) {
		size_t len = strcspn(line, "\n"), f = 0;
		const char *p = line, *end = line + len;

		while (p <= end) {
			size_t fl = strcspn(p, ":\n");
			struct scrub_item *it = NULL;

			if (p + fl > end)
				fl = (size_t)(end - p);
			if (f > 0)
				sb_addc(&out, ':');
			if (f == 0)
				it = scrub_find(s, group ? K_GROUP : K_USER, p, fl);
			if (f == 0 && !it && group)
				it = scrub_find(s, K_USER, p, fl);
			if (it) {
				sb_adds(&out, it->to);
			} else if (group && f == 3) {
				/* members */
				const char *m = p;

				while (m < p + fl) {
					size_t ml = strcspn(m, ",\n");
					struct scrub_item *u;

					if (m + ml > p + fl)
						ml = (size_t)(p + fl - m);
					u = scrub_find(s, K_USER, m, ml);
					if (m > p)
						sb_addc(&out, ',');
					if (u)
						sb_adds(&out, u->to);
					else
						sb_add(&out, m, ml);
					m += ml + 1;
				}
			} else if (!group && f == 4 &&
				   scrub_find(s, K_USER, line, strcspn(line, ":\n"))) {
				/* GECOS of a person: dropped */
			} else {
				sb_add(&out, p, fl);
			}
			p += fl + 1;
			f++;
		}
		sb_addc(&out, '\n');
		line = *end ? end + 1 : end;
	}
	return sb_detach(&out);
}

static bool is_proc_file(const char *path, const char *leaf)
{
	const char *p;

	if (!str_starts(path, "/proc/"))
		return false;
	p = path + 6;
	if (str_starts(p, "self/"))
		p += 5;
	else {
		size_t d = strspn(p, "0123456789");

		if (d == 0 || p[d] != '/')
			return false;
		p += d + 1;
	}
	return strcmp(p, leaf) == 0;
}

/* Files that hold secrets or a whole environment: nothing of them is kept. */
static bool drop_whole(const char *path)
{
	return strcmp(path, "/etc/shadow") == 0 || strcmp(path, "/etc/gshadow") == 0 ||
	       is_proc_file(path, "environ");
}

/* The text of a file, filtered by what the file is, then scrubbed. Returns a new string. */
static char *scrub_content(struct scrub *s, const char *path, const char *text)
{
	char *filtered = NULL, *out;

	if (drop_whole(path))
		return xstrdup("");
	if (strcmp(path, "/proc/cmdline") == 0)
		filtered = filter_cmdline(text);
	else if (str_starts(path, "/var/log/apt/history.log"))
		filtered = filter_apt_history(text);
	else if (strcmp(path, "/etc/passwd") == 0 || strcmp(path, "/etc/group") == 0)
		filtered = filter_accounts(s, text, strcmp(path, "/etc/group") == 0);
	else if (is_proc_file(path, "cmdline"))
		/* a process that rewrote its title ("sshd: alice [priv]") keeps its first word */
		filtered = xstrndup(text, strcspn(text, " \t\n"));
	out = scrub_text(s, filtered ? filtered : text);
	free(filtered);
	return out;
}

/* Bytes stored in hex: a process's command line keeps argv[0] (scrubbed, with its NUL);
 * anything else is masked in place. */
static char *scrub_hex(struct scrub *s, const char *path, const char *hex)
{
	size_t len, i;
	unsigned char *b = (unsigned char *)hex_decode(hex, &len);
	struct strbuf out;

	if (!b)
		return xstrdup(hex);
	sb_init(&out);
	if (drop_whole(path)) {
		/* nothing */
	} else if (is_proc_file(path, "cmdline")) {
		char *argv0 = scrub_text(s, (const char *)b);

		for (i = 0; argv0[i]; i++)
			sb_addf(&out, "%02x", (unsigned char)argv0[i]);
		sb_adds(&out, "00");
		free(argv0);
	} else {
		mask_binary(s, b, len);
		for (i = 0; i < len; i++)
			sb_addf(&out, "%02x", b[i]);
	}
	free(b);
	return sb_detach(&out);
}

static void set_scrubbed(struct scrub *s, json_t *str)
{
	char *t;

	if (!json_is_string(str))
		return;
	t = scrub_text(s, json_string_value(str));
	json_string_set(str, t);
	free(t);
}

/* A folder whose entries are scrubbed as the paths they make: the folders of /home are
 * users (short names and system words too), those of /dev/disk/by-id are disks. */
static bool dir_in_context(const char *path)
{
	return strcmp(path, "/home") == 0 || strcmp(path, "/Users") == 0 ||
	       str_starts(path, "/dev/disk/by-");
}

static void scrub_dir_entry(struct scrub *s, const char *path, json_t *name)
{
	size_t pl = strlen(path) + 1;
	char *full, *t;

	if (!json_is_string(name))
		return;
	if (!dir_in_context(path)) {
		set_scrubbed(s, name);
		return;
	}
	full = xasprintf("%s/%s", path, json_string_value(name));
	t = scrub_text(s, full);
	/* the path keeps its folder part, so the entry is what follows it */
	if (strlen(t) > pl && strncmp(t, full, pl) == 0)
		json_string_set(name, t + pl);
	free(t);
	free(full);
}

/* Files that exist to hold a user's or a host's name. */
static bool own_place_file(const char *path)
{
	static const char *const own[] = {"/etc/hostname", "/proc/sys/kernel/hostname",
					  "/etc/mailname", "/etc/hosts"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (strcmp(path, own[i]) == 0)
			return true;
	return false;
}

static void scrub_file(struct scrub *s, const char *path, json_t *v)
{
	json_t *c, *name;
	char *t;
	size_t i;

	c = json_is_object(v) ? json_object_get(v, "content") : v;
	if (json_is_string(c)) {
		s->own_place = own_place_file(path);
		t = scrub_content(s, path, json_string_value(c));
		s->own_place = false;
		json_string_set(c, t);
		free(t);
	}
	if (!json_is_object(v))
		return;
	if (json_is_string(c = json_object_get(v, "hex"))) {
		t = scrub_hex(s, path, json_string_value(c));
		json_string_set(c, t);
		free(t);
	}
	set_scrubbed(s, json_object_get(v, "link"));
	json_array_foreach(json_object_get(v, "dir"), i, name)
		scrub_dir_entry(s, path, name);
}

/* The files object rebuilt with scrubbed paths as keys (a user's home is in the path). */
static void scrub_files(struct scrub *s, json_t *doc)
{
	json_t *files = json_object_get(doc, "files"), *out, *v;
	const char *path;

	if (!json_is_object(files))
		return;
	out = json_object();
	json_object_foreach(files, path, v) {
		char *key;

		s->keep_uuids = str_starts(path, "/sys/firmware/efi/");
		scrub_file(s, path, v);
		key = scrub_text(s, path);
		/* two paths that differ only in what was scrubbed: the first stays */
		if (!json_object_get(out, key))
			json_object_set(out, key, v);
		free(key);
	}
	s->keep_uuids = false;
	json_object_set_new(doc, "files", out);
}

/* Variables that exist to hold a user's or a host's name. */
static bool env_is_own_place(const char *name)
{
	static const char *const own[] = {"USER", "LOGNAME", "SUDO_USER", "USERNAME", "HOME",
					  "HOSTNAME"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	return false;
}

static bool env_is_secret(const char *name)
{
	static const char *const words[] = {"TOKEN",      "SECRET",  "PASSWORD",   "PASSWD",
					    "CREDENTIAL", "API_KEY", "ACCESS_KEY", "PRIVATE_KEY"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(words); i++)
		if (strstr(name, words[i]))
			return true;
	return false;
}

static void scrub_values(struct scrub *s, json_t *j)
{
	json_t *v;
	size_t i;
	const char *key;

	if (json_is_string(j))
		set_scrubbed(s, j);
	else if (json_is_array(j))
		json_array_foreach(j, i, v)
			scrub_values(s, v);
	else if (json_is_object(j))
		json_object_foreach(j, key, v)
			scrub_values(s, v);
}

static const struct scrub *sort_state;

static int by_length_desc(const void *a, const void *b)
{
	size_t la = strlen(sort_state->items[*(const size_t *)a].from);
	size_t lb = strlen(sort_state->items[*(const size_t *)b].from);

	return la < lb ? 1 : la > lb ? -1 : 0;
}

void scrub_recording(json_t *doc)
{
	static const char *const provenance[] = {"gpuvet_recording", "gpuvet_version", "created",
						 "scrubbed",         "files",          "env"};
	struct scrub s;
	json_t *env = json_object_get(doc, "env"), *v;
	const char *key;
	size_t i;

	memset(&s, 0, sizeof(s));
	scrub_learn(&s, doc);
	for (i = 0; i < s.n; i++)
		if (s.items[i].kind <= K_SERIAL) {
			s.words = xrealloc(s.words, (s.nwords + 1) * sizeof(*s.words));
			s.words[s.nwords++] = i;
		}
	/* the longest first: "gpu7.corp.example" is tried before "gpu7" */
	sort_state = &s;
	if (s.nwords)
		qsort(s.words, s.nwords, sizeof(*s.words), by_length_desc);
	sort_state = NULL;

	scrub_files(&s, doc);
	json_object_foreach(env, key, v) {
		if (json_is_string(v) && env_is_secret(key))
			json_string_set(v, "scrubbed");
		/* NV_CUDNN_VERSION=9.14.0.64 is a version, whatever it looks like */
		else if (!strstr(key, "VERSION")) {
			s.own_place = env_is_own_place(key);
			set_scrubbed(&s, v);
			s.own_place = false;
		}
	}
	json_object_foreach(doc, key, v) {
		for (i = 0; i < ARRAY_SIZE(provenance); i++)
			if (strcmp(key, provenance[i]) == 0)
				break;
		if (i == ARRAY_SIZE(provenance)) {
			s.own_place = strcmp(key, "uname") == 0;
			scrub_values(&s, v);
			s.own_place = false;
		}
	}

	free(s.words);
	for (i = 0; i < s.n; i++) {
		free(s.items[i].from);
		free(s.items[i].to);
	}
	free(s.items);
}
