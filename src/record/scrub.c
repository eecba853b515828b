/*
 * scrub.c: `gpuvet record --scrub`, behind scrub.h. recording.c calls scrub_recording() on
 * the finished document just before it is written.
 *
 * Two passes over the jansson document. The first learns the names to hide: users and
 * groups (/etc/passwd, /etc/group, $USER, $HOME, /home/<name>), host and domain names
 * (uname, /etc/hostname, $HOSTNAME, /etc/hosts, resolv.conf), GPU serials and UUIDs in NVML
 * order, DMI serials. The second rewrites every string (file paths, file contents, link
 * targets, folder listings, environment values, vendor answers): first the few files whose
 * structure says what to drop (kernel command line, apt history, passwd, process command
 * lines), then one left-to-right pass per string that replaces learned names as whole
 * words, UUIDs, MAC and IP addresses. One map holds every replacement, so an input gets the
 * same placeholder wherever it appears and the replay's relations (a UUID in NVML and in
 * CUDA_VISIBLE_DEVICES, a home folder in a path and in VIRTUAL_ENV) still hold.
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

/* ---- recognisers ---------------------------------------------------------------------------- */

static bool is_alnum(char c)
{
	return isalnum((unsigned char)c) != 0;
}

static bool is_hex(char c)
{
	return isxdigit((unsigned char)c) != 0;
}

static bool in_set(char c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

/* "Version: 1.15.1.6", "\"version\": \"9.14.0.64\"": the word before a number says what it
 * is (CUDA's version.json lists four-part component versions). */
static bool after_version_word(const char *text, size_t at)
{
	size_t i = at, skipped = 0;

	while (i > 0 && in_set(text[i - 1], " \t:=\"'") && skipped < 6) {
		i--;
		skipped++;
	}
	return i >= 7 && strncasecmp(text + i - 7, "version", 7) == 0;
}

size_t scrub_ipv4_at(const char *text, size_t at)
{
	const char *p = text + at;
	size_t i = 0;
	int part;

	if (at > 0) {
		char b = text[at - 1];

		if (is_alnum(b) || in_set(b, "._+~"))
			return 0;
		/* "nvidia_cudnn_cu13-9.19.0.56": a versioned name */
		if (b == '-' && at > 1 && is_alnum(text[at - 2]))
			return 0;
		/* pip requirements: "==9.19.0.56", ">=1.2.3.4" */
		if (b == '=' && at > 1 && in_set(text[at - 2], "=<>!~"))
			return 0;
		if (after_version_word(text, at))
			return 0;
	}
	for (part = 0; part < 4; part++) {
		size_t digits = 0;
		unsigned v = 0;

		if (part > 0) {
			if (p[i] != '.')
				return 0;
			i++;
		}
		while (isdigit((unsigned char)p[i]) && digits < 4) {
			v = v * 10 + (unsigned)(p[i] - '0');
			i++;
			digits++;
		}
		/* a leading zero ("580.159.04") is a version's way of writing, not an address's */
		if (digits == 0 || digits > 3 || v > 255 || (digits > 1 && p[i - digits] == '0'))
			return 0;
	}
	/* "1.2.3.4.5", "9.19.0.56.dist-info", "9.14.0.64-1", "1.2.3.4+cu13": a longer version */
	if (is_alnum(p[i]) || p[i] == '_')
		return 0;
	if (in_set(p[i], ".-+~") && is_alnum(p[i + 1]))
		return 0;
	return i;
}

size_t scrub_ipv6_at(const char *text, size_t at)
{
	const char *p = text + at;
	char buf[64];
	unsigned char bin[16];
	size_t n = 0, colons = 0;

	if (at > 0 && (is_alnum(text[at - 1]) || in_set(text[at - 1], "_:.")))
		return 0;
	if (!is_hex(p[0]) && p[0] != ':')
		return 0;
	while ((is_hex(p[n]) || p[n] == ':' || p[n] == '.') && n < sizeof(buf) - 1) {
		colons += p[n] == ':';
		n++;
	}
	/* cut by a letter ("Dir::Etc", "std::vector"): a word, not an address */
	if (is_alnum(p[n]) || p[n] == '_')
		return 0;
	/* inet_pton decides; PCI ids ("0000:00:06.0") and times ("02:03:36") fail it. A
	 * trailing '.' or ':' may be punctuation: retry without it. */
	while (n > 0 && colons >= 2) {
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (inet_pton(AF_INET6, buf, bin) == 1)
			return n;
		if (p[n - 1] != '.' && p[n - 1] != ':')
			return 0;
		colons -= p[n - 1] == ':';
		n--;
	}
	return 0;
}

size_t scrub_mac_at(const char *text, size_t at)
{
	const char *p = text + at;
	size_t i = 0, groups = 0;
	char sep;

	if (at > 0 && (is_alnum(text[at - 1]) || in_set(text[at - 1], ":-.")))
		return 0;
	if (!is_hex(p[0]) || !is_hex(p[1]) || (p[2] != ':' && p[2] != '-'))
		return 0;
	sep = p[2];
	/* groups of two hex digits; 6 for Ethernet, 8 for EUI-64, 20 for InfiniBand */
	for (;;) {
		i += 2;
		groups++;
		if (p[i] == sep && is_hex(p[i + 1]) && is_hex(p[i + 2])) {
			i++;
			continue;
		}
		break;
	}
	if (groups < 6 || is_alnum(p[i]) || p[i] == '_')
		return 0;
	if ((p[i] == sep || p[i] == '.') && is_alnum(p[i + 1]))
		return 0;
	return i;
}

size_t scrub_uuid_at(const char *text, size_t at)
{
	static const size_t widths[] = {8, 4, 4, 4, 12};
	const char *p = text + at;
	size_t i = 0, g, k;

	if (at > 0 && is_alnum(text[at - 1]))
		return 0;
	for (g = 0; g < ARRAY_SIZE(widths); g++) {
		if (g > 0) {
			if (p[i] != '-')
				return 0;
			i++;
		}
		for (k = 0; k < widths[g]; k++, i++)
			if (!is_hex(p[i]))
				return 0;
	}
	if (is_alnum(p[i]) || p[i] == '_')
		return 0;
	return i;
}

/* ---- the map of replacements ---------------------------------------------------------------- */

enum kind { K_USER, K_GROUP, K_HOST, K_DOMAIN, K_SERIAL, K_DISK, K_UUID, K_IPV4, K_IPV6, K_MAC, K_COUNT };

struct item {
	char *from; /* as found (names, compared without case), or normalised (addresses) */
	char *to;
	enum kind kind;
	bool word; /* replaced as a whole word anywhere, not only in its own places */
};

struct scrub {
	struct item *items;
	size_t n;
	unsigned next[K_COUNT];
	size_t *words; /* indices of the word items, longest first (items grows while
			* rewriting: pointers into it would not last) */
	size_t nwords;
	bool keep_uuids; /* the string names EFI variables: their vendor GUIDs name no machine */
};

static struct item *find(struct scrub *s, enum kind k, const char *from, size_t len)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].kind == k && strlen(s->items[i].from) == len &&
		    strncasecmp(s->items[i].from, from, len) == 0)
			return &s->items[i];
	return NULL;
}

static bool taken(struct scrub *s, enum kind k, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].kind == k &&
		    (strcasecmp(s->items[i].to, name) == 0 || strcasecmp(s->items[i].from, name) == 0))
			return true;
	return false;
}

static char *placeholder(enum kind k, unsigned n)
{
	static const char *const v4_nets[] = {"192.0.2", "198.51.100", "203.0.113"};

	switch (k) {
	case K_USER: return xasprintf("user%u", n);
	case K_GROUP: return xasprintf("group%u", n);
	case K_HOST: return xasprintf("host%u", n);
	case K_DOMAIN: return xasprintf("domain%u.example", n);
	case K_SERIAL: return xasprintf("serial%u", n);
	case K_DISK: return xasprintf("disk%u", n);
	case K_UUID: return xasprintf("00000000-0000-0000-0000-%012u", n - 1);
	/* the documentation ranges (RFC 5737, RFC 3849): they route nowhere */
	case K_IPV4:
		return xasprintf("%s.%u", v4_nets[((n - 1) / 254) % 3], (n - 1) % 254 + 1);
	case K_IPV6: return xasprintf("2001:db8::%x", n);
	/* locally administered, so never a real vendor's address */
	case K_MAC: return xasprintf("02:00:00:00:%02x:%02x", (n >> 8) & 0xff, n & 0xff);
	default: return xstrdup("scrubbed");
	}
}

/* The placeholder for from, made on first sight. to, when given, is used instead of the
 * next number (GPU UUIDs and serials keep their NVML index). */
static struct item *assign(struct scrub *s, enum kind k, const char *from, size_t len,
			   const char *to, bool word)
{
	struct item *it = find(s, k, from, len);
	char *name;

	if (it)
		return it;
	if (to) {
		name = xstrdup(to);
	} else {
		/* a placeholder already in the recording is never given to something else */
		for (;;) {
			name = placeholder(k, ++s->next[k]);
			if (!taken(s, k, name))
				break;
			free(name);
		}
	}
	s->items = xrealloc(s->items, (s->n + 1) * sizeof(*s->items));
	it = &s->items[s->n++];
	it->from = xstrndup(from, len);
	it->to = name;
	it->kind = k;
	it->word = word;
	return it;
}

/* ---- what to learn ------------------------------------------------------------------------ */

/* Names that identify nobody: default accounts of distribution images, system words that
 * also name folders (a user called "nvidia" must not rename /usr/local/nvidia). */
static const char *const generic_names[] = {
	"root",	    "admin",  "administrator", "user",	   "users",   "guest",	 "nobody",
	"ubuntu",   "debian", "fedora",	       "centos",   "rocky",   "alma",	 "almalinux",
	"rhel",	    "redhat", "suse",	       "opensuse", "arch",    "linux",	 "localhost",
	"localdomain", "local", "ec2-user",    "cloud-user", "azureuser", "opc", "core",
	"nvidia",   "cuda",   "docker",	       "podman",   "video",   "render",	 "home",
	"bin",	    "boot",   "dev",	       "etc",	   "lib",     "lib64",	 "media",
	"mnt",	    "opt",    "proc",	       "run",	   "sbin",    "srv",	 "sys",
	"tmp",	    "usr",    "var",	       "share",	   "data",    "test",	 "none",
	"(none)",   "default", "gpu",	       "scrubbed-host",
};

static bool name_is_placeholder(const char *s)
{
	static const char *const prefixes[] = {"user", "group", "host", "serial", "disk", "domain"};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t pl = strlen(prefixes[i]), k = pl;

		if (strncmp(s, prefixes[i], pl) != 0 || !isdigit((unsigned char)s[pl]))
			continue;
		while (isdigit((unsigned char)s[k]))
			k++;
		if (s[k] == '\0' || (i == 5 && strcmp(s + k, ".example") == 0))
			return true;
	}
	return false;
}

static bool name_is_generic(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generic_names); i++)
		if (strlen(generic_names[i]) == len && strncasecmp(generic_names[i], s, len) == 0)
			return true;
	return false;
}

/* A user or group name: letters, digits, '.', '_', '-' (useradd's rule, plus '.'). */
static size_t name_len(const char *s)
{
	size_t n = 0;

	while (is_alnum(s[n]) || in_set(s[n], "._-"))
		n++;
	return n;
}

static void learn_name(struct scrub *s, enum kind k, const char *name, size_t len)
{
	char *copy;

	if (len == 0 || len > 64 || name[0] == '-' || name[0] == '.' || name_is_generic(name, len))
		return;
	copy = xstrndup(name, len);
	/* short names ("jo") would hit unrelated words: those only go in their own places */
	if (!name_is_placeholder(copy) && !find(s, K_USER, name, len) && !find(s, K_GROUP, name, len))
		assign(s, k, name, len, NULL, len >= 3);
	free(copy);
}

static void learn_user(struct scrub *s, const char *name)
{
	if (name)
		learn_name(s, K_USER, name, name_len(name) == strlen(name) ? strlen(name) : 0);
}

static void learn_domain(struct scrub *s, const char *d, size_t len)
{
	char *copy;

	while (len > 0 && d[len - 1] == '.')
		len--;
	if (len == 0 || name_is_generic(d, len))
		return;
	copy = xstrndup(d, len);
	if (!name_is_placeholder(copy) && scrub_ipv4_at(copy, 0) != len)
		assign(s, K_DOMAIN, d, len, NULL, true);
	free(copy);
}

/* "gpu7" or "gpu7.corp.example": the first label is the host, the rest its domain. */
static void learn_host(struct scrub *s, const char *name)
{
	char buf[256];
	char *dot;
	size_t len;

	if (!name)
		return;
	str_copy(buf, name, sizeof(buf));
	str_trim(buf);
	len = strlen(buf);
	if (len == 0 || scrub_ipv4_at(buf, 0) == len || scrub_ipv6_at(buf, 0) == len)
		return;
	dot = strchr(buf, '.');
	if (dot) {
		learn_domain(s, dot + 1, strlen(dot + 1));
		*dot = '\0';
	}
	len = strlen(buf);
	if (len > 0 && !name_is_generic(buf, len) && !name_is_placeholder(buf) &&
	    strncmp(buf, "ip6-", 4) != 0)
		assign(s, K_HOST, buf, len, NULL, true);
}

/* The text of a files entry: the string itself or its "content". */
static const char *file_text(json_t *files, const char *path)
{
	json_t *v = json_object_get(files, path);

	if (json_is_object(v))
		v = json_object_get(v, "content");
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Calls fn on each line of text, with the line split at sep into at most max fields. */
static void each_record(struct scrub *s, const char *text, char sep,
			void (*fn)(struct scrub *, char **f, size_t nf))
{
	char *copy, *line, *save = NULL;

	if (!text)
		return;
	copy = xstrdup(text);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8];
		size_t nf = 0;
		char *p = line;

		while (nf < ARRAY_SIZE(f)) {
			char *end = strchr(p, sep);

			f[nf++] = p;
			if (!end)
				break;
			*end = '\0';
			p = end + 1;
		}
		fn(s, f, nf);
	}
	free(copy);
}

static bool parse_id(const char *s, uint64_t *id)
{
	return parse_u64(s, id) == 0;
}

/* Accounts from 1000 up (but nobody, 65534) are people; below are the system's own. */
static bool is_person_id(uint64_t id)
{
	return id >= 1000 && id != 65534 && id < 4294967294u;
}

static void learn_passwd_line(struct scrub *s, char **f, size_t nf)
{
	uint64_t uid;

	if (nf >= 3 && parse_id(f[2], &uid) && is_person_id(uid))
		learn_user(s, f[0]);
}

static void learn_group_line(struct scrub *s, char **f, size_t nf)
{
	uint64_t gid;
	char *m, *save = NULL;

	if (nf >= 3 && parse_id(f[2], &gid) && is_person_id(gid))
		learn_name(s, K_GROUP, f[0], name_len(f[0]) == strlen(f[0]) ? strlen(f[0]) : 0);
	/* members are user names, whatever the group */
	if (nf >= 4)
		for (m = strtok_r(f[3], ",", &save); m; m = strtok_r(NULL, ",", &save))
			learn_user(s, str_trim(m));
}

static void learn_hosts_line(struct scrub *s, char **f, size_t nf)
{
	char *line = f[0], *tok, *save = NULL, *hash;
	bool first = true;

	(void)nf;
	if ((hash = strchr(line, '#')) != NULL)
		*hash = '\0';
	for (tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		/* the first field is the address */
		if (!first && !str_starts(tok, "localhost"))
			learn_host(s, tok);
		first = false;
	}
}

static void learn_resolv_line(struct scrub *s, char **f, size_t nf)
{
	char *tok, *save = NULL;
	bool names = false;

	(void)nf;
	for (tok = strtok_r(f[0], " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!names) {
			if (strcmp(tok, "search") != 0 && strcmp(tok, "domain") != 0)
				return;
			names = true;
			continue;
		}
		learn_domain(s, tok, strlen(tok));
	}
}

/* /home/<name> and /Users/<name> anywhere in a string name a user. */
static void learn_homes(struct scrub *s, const char *str)
{
	static const char *const homes[] = {"/home/", "/Users/"};
	size_t h;

	for (h = 0; h < ARRAY_SIZE(homes); h++) {
		const char *p = str;

		while ((p = strstr(p, homes[h])) != NULL) {
			p += strlen(homes[h]);
			learn_name(s, K_USER, p, name_len(p));
		}
	}
}

static bool uuid_is_placeholder(const char *u)
{
	size_t i;

	if (strncmp(u, "00000000-0000-0000-0000-", 24) != 0)
		return false;
	for (i = 24; i < 36; i++)
		if (!isdigit((unsigned char)u[i]))
			return false;
	return true;
}

/* UUIDs a scrubbed recording already holds keep their number: a new one never takes it. */
static void learn_placeholders(struct scrub *s, const char *str)
{
	size_t i;

	for (i = 0; str[i]; i++)
		if (scrub_uuid_at(str, i) == 36 && uuid_is_placeholder(str + i)) {
			char u[37];

			str_copy(u, str + i, sizeof(u));
			assign(s, K_UUID, u, 36, u, false);
			i += 35;
		}
}

static void walk_strings(struct scrub *s, json_t *j, void (*fn)(struct scrub *, const char *))
{
	const char *key;
	json_t *v;
	size_t i;

	if (json_is_string(j)) {
		fn(s, json_string_value(j));
	} else if (json_is_object(j)) {
		json_object_foreach(j, key, v) {
			fn(s, key);
			walk_strings(s, v, fn);
		}
	} else if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			walk_strings(s, v, fn);
	}
}

static void learn_any(struct scrub *s, const char *str)
{
	learn_homes(s, str);
	learn_placeholders(s, str);
}

/* GPU i's UUID and serial become number i, as NVML orders them. */
static void learn_gpus(struct scrub *s, json_t *doc)
{
	json_t *devs = json_object_get(json_object_get(doc, "nvml"), "devices");
	json_t *dev;
	size_t i;

	json_array_foreach(devs, i, dev) {
		json_t *uuid = json_array_get(json_object_get(dev, "nvmlDeviceGetUUID"), 1);
		json_t *serial = json_array_get(json_object_get(dev, "nvmlDeviceGetSerial"), 1);
		char to[64];

		if (json_is_string(uuid)) {
			const char *u = json_string_value(uuid);
			size_t k = strlen(u);

			if (str_starts(u, "GPU-") || str_starts(u, "MIG-"))
				u += 4;
			str_fmt(to, sizeof(to), "00000000-0000-0000-0000-%012zu", i);
			if (k >= 36 && scrub_uuid_at(u, 0) == 36 && !uuid_is_placeholder(u) &&
			    !taken(s, K_UUID, to))
				assign(s, K_UUID, u, 36, to, false);
		}
		if (json_is_string(serial) && strlen(json_string_value(serial)) >= 4) {
			str_fmt(to, sizeof(to), "%013zu", i);
			if (strcmp(json_string_value(serial), to) != 0)
				assign(s, K_SERIAL, json_string_value(serial),
				       strlen(json_string_value(serial)), to, true);
		}
	}
}

/* Serial numbers and asset tags the firmware reports; "Not Specified" and friends (they
 * hold blanks) name nothing and stay. */
static void learn_dmi(struct scrub *s, json_t *files)
{
	static const char *const leaves[] = {"product_serial", "board_serial", "chassis_serial",
					     "board_asset_tag", "chassis_asset_tag"};
	static const char *const dirs[] = {"/sys/class/dmi/id/", "/sys/devices/virtual/dmi/id/"};
	size_t d, l;

	for (d = 0; d < ARRAY_SIZE(dirs); d++)
		for (l = 0; l < ARRAY_SIZE(leaves); l++) {
			char path[128], val[128];
			const char *t;

			str_fmt(path, sizeof(path), "%s%s", dirs[d], leaves[l]);
			if (!(t = file_text(files, path)))
				continue;
			str_copy(val, t, sizeof(val));
			str_trim(val);
			if (strlen(val) >= 4 && !strpbrk(val, " \t") && !name_is_placeholder(val))
				assign(s, K_SERIAL, val, strlen(val), NULL, true);
		}
}

static const char *env_text(json_t *env, const char *name)
{
	json_t *v = json_object_get(env, name);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The last folder of a home directory ("/data/alice" gives alice; "/root" nothing). */
static void learn_home_dir(struct scrub *s, const char *home)
{
	const char *slash;

	if (!home || home[0] != '/')
		return;
	slash = strrchr(home, '/');
	if (slash && slash[1])
		learn_user(s, slash + 1);
}

/* Path prefixes that belong to the system: a learned name that is a folder under one of
 * them ("torch" in /opt/torch/.venv) is a word the machine uses, so it is replaced only in
 * its own places (its home folder, the account files), never as a word. */
static const char *const system_prefixes[] = {"/usr/", "/lib/", "/lib32/", "/lib64/", "/bin/",
					       "/sbin/", "/dev/", "/sys/", "/proc/", "/boot/", "/opt/"};

static void guard_string(struct scrub *s, const char *str)
{
	size_t i, p;

	for (i = 0; str[i]; i++) {
		size_t end, start;

		if (str[i] != '/' || (i > 0 && !in_set(str[i - 1], " \t\n\"'=:,;(")))
			continue;
		for (p = 0; p < ARRAY_SIZE(system_prefixes); p++)
			if (str_starts(str + i, system_prefixes[p]))
				break;
		end = i + strcspn(str + i, " \t\n\"',;:)");
		if (p == ARRAY_SIZE(system_prefixes)) {
			i = end ? end - 1 : i;
			continue;
		}
		for (start = i + 1; start < end;) {
			size_t k = start, t;

			while (k < end && str[k] != '/')
				k++;
			for (t = 0; t < s->n; t++) {
				struct item *it = &s->items[t];

				if ((it->kind == K_USER || it->kind == K_GROUP) && it->word &&
				    strlen(it->from) == k - start &&
				    strncasecmp(it->from, str + start, k - start) == 0)
					it->word = false;
			}
			start = k + 1;
		}
		i = end ? end - 1 : i;
	}
}

static void learn(struct scrub *s, json_t *doc)
{
	json_t *env = json_object_get(doc, "env"), *files = json_object_get(doc, "files");
	json_t *name;
	const char *t;
	size_t i;

	learn_gpus(s, doc);
	learn_user(s, env_text(env, "USER"));
	learn_user(s, env_text(env, "LOGNAME"));
	learn_user(s, env_text(env, "SUDO_USER"));
	learn_user(s, env_text(env, "USERNAME"));
	learn_home_dir(s, env_text(env, "HOME"));
	each_record(s, file_text(files, "/etc/passwd"), ':', learn_passwd_line);
	each_record(s, file_text(files, "/etc/group"), ':', learn_group_line);
	/* the folders in /home are the users' */
	json_array_foreach(json_object_get(json_object_get(files, "/home"), "dir"), i, name)
		if (json_is_string(name))
			learn_user(s, json_string_value(name));
	json_array_foreach(json_object_get(json_object_get(files, "/Users"), "dir"), i, name)
		if (json_is_string(name))
			learn_user(s, json_string_value(name));
	walk_strings(s, doc, learn_any);

	learn_host(s, json_string_value(json_object_get(json_object_get(doc, "uname"), "nodename")));
	learn_host(s, env_text(env, "HOSTNAME"));
	learn_host(s, file_text(files, "/etc/hostname"));
	learn_host(s, file_text(files, "/proc/sys/kernel/hostname"));
	learn_host(s, file_text(files, "/etc/mailname"));
	if ((t = file_text(files, "/proc/sys/kernel/domainname")) != NULL) {
		char d[256];

		str_copy(d, t, sizeof(d));
		str_trim(d);
		learn_domain(s, d, strlen(d));
	}
	each_record(s, file_text(files, "/etc/hosts"), '\n', learn_hosts_line);
	each_record(s, file_text(files, "/etc/resolv.conf"), '\n', learn_resolv_line);
	learn_dmi(s, files);

	walk_strings(s, files, guard_string);
	walk_strings(s, env, guard_string);
}

/* ---- rewriting text ------------------------------------------------------------------------- */

static bool word_char(char c, enum kind k)
{
	/* host and domain labels hold '-': "gpu7-ib0" is another name */
	return is_alnum(c) || ((k == K_HOST || k == K_DOMAIN) && c == '-');
}

static size_t word_at(struct scrub *s, const char *text, size_t at, struct strbuf *out)
{
	size_t w;

	for (w = 0; w < s->nwords; w++) {
		const struct item *it = &s->items[s->words[w]];
		size_t len = strlen(it->from);
		char next;

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
			if (next == '.' && is_alnum(text[at + len + 1]))
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
		struct item *u;

		if (strncmp(text + at, homes[h], hl) != 0)
			continue;
		k = name_len(text + at + hl);
		u = k ? find(s, K_USER, text + at + hl, k) : NULL;
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
	static const char *const prefixes[] = {
		"/dev/disk/by-uuid/", "/dev/disk/by-partuuid/", "/dev/disk/by-id/",
		"/dev/disk/by-label/", "/dev/disk/by-partlabel/", "PARTUUID=", "UUID=",
		"PARTLABEL=", "LABEL=",
	};
	size_t p;

	for (p = 0; p < ARRAY_SIZE(prefixes); p++) {
		size_t pl = strlen(prefixes[p]), k;
		char *name;

		if (strncmp(text + at, prefixes[p], pl) != 0 || (at > 0 && is_alnum(text[at - 1])))
			continue;
		k = strcspn(text + at + pl, " \t\n\"',;/");
		if (k == 0)
			return 0;
		sb_add(out, text + at, pl);
		if (scrub_uuid_at(text, at + pl) == k)
			return pl;
		name = xstrndup(text + at + pl, k);
		if (name_is_placeholder(name))
			sb_adds(out, name);
		else
			sb_adds(out, assign(s, K_DISK, name, k, NULL, false)->to);
		free(name);
		return pl + k;
	}
	return 0;
}

/* Vendor GUIDs of EFI variables, the same on every machine (doctor reads SecureBoot-8be4...). */
static bool uuid_is_well_known(const char *u)
{
	static const char *const known[] = {
		"8be4df61-93ca-11d2-aa0d-00e098032b8c", /* EFI global variables */
		"605dab50-e046-4300-abb6-3dd810dd8b23", /* shim (MokSBState) */
		"d719b2cb-3d3a-4596-a3bc-dad00e67656f", /* image security database */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++)
		if (strncasecmp(u, known[i], 36) == 0)
			return true;
	return false;
}

static void add_uuid(struct scrub *s, const char *u, struct strbuf *out)
{
	if (s->keep_uuids || uuid_is_placeholder(u) || uuid_is_well_known(u))
		sb_add(out, u, 36);
	else
		sb_adds(out, assign(s, K_UUID, u, 36, NULL, false)->to);
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
	return (b[0] == 192 && b[1] == 0 && b[2] == 2) || (b[0] == 198 && b[1] == 51 && b[2] == 100) ||
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
		sb_adds(out, assign(s, K_IPV4, buf, strlen(buf), NULL, false)->to);
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
		sb_adds(out, assign(s, K_IPV6, canon, strlen(canon), NULL, false)->to);
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
	to = assign(s, K_MAC, key, strlen(key), NULL, false)->to;
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
		if (i > 0 && is_alnum((char)b[i - 1]))
			continue;
		for (t = 0; t < s->n; t++) {
			const struct item *it = &s->items[t];
			size_t k = strlen(it->from);
			bool home = i >= 6 && memcmp(b + i - 6, "/home/", 6) == 0;

			if (it->kind > K_SERIAL || (!it->word && !(home && it->kind == K_USER)))
				continue;
			if (i + k > len || strncasecmp((const char *)b + i, it->from, k) != 0 ||
			    (i + k < len && is_alnum((char)b[i + k])))
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

static bool cmdline_key_kept(const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmdline_keep); i++) {
		size_t kl = strlen(cmdline_keep[i]);

		if (cmdline_keep[i][kl - 1] == '.' ? len > kl && strncmp(key, cmdline_keep[i], kl) == 0
						   : len == kl && strncmp(key, cmdline_keep[i], kl) == 0)
			return true;
	}
	return false;
}

static bool cmdline_value_plain(const char *v)
{
	static const char *const flags[] = {"on",  "off", "auto",  "force", "noforce", "y",
					    "n",   "yes", "no",	   "true",  "false",   "lazy",
					    "pt",  "nopt", "strict", "soft", "full",    "none"};
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
	static const char *const kept[] = {"Start-Date:", "End-Date:", "Install:", "Upgrade:",
					   "Remove:", "Purge:", "Downgrade:", "Reinstall:"};
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
			struct item *it = NULL;

			if (p + fl > end)
				fl = (size_t)(end - p);
			if (f > 0)
				sb_addc(&out, ':');
			if (f == 0)
				it = find(s, group ? K_GROUP : K_USER, p, fl);
			if (f == 0 && !it && group)
				it = find(s, K_USER, p, fl);
			if (it) {
				sb_adds(&out, it->to);
			} else if (group && f == 3) {
				/* members */
				const char *m = p;

				while (m < p + fl) {
					size_t ml = strcspn(m, ",\n");
					struct item *u;

					if (m + ml > p + fl)
						ml = (size_t)(p + fl - m);
					u = find(s, K_USER, m, ml);
					if (m > p)
						sb_addc(&out, ',');
					if (u)
						sb_adds(&out, u->to);
					else
						sb_add(&out, m, ml);
					m += ml + 1;
				}
			} else if (!group && f == 4 && find(s, K_USER, line, strcspn(line, ":\n"))) {
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

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Bytes stored in hex: a process's command line keeps argv[0] (scrubbed, with its NUL);
 * anything else is masked in place. */
static char *scrub_hex(struct scrub *s, const char *path, const char *hex)
{
	size_t len = strlen(hex) / 2, i;
	unsigned char *b = xmalloc(len + 1);
	struct strbuf out;

	for (i = 0; i < len; i++) {
		int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(b);
			return xstrdup(hex);
		}
		b[i] = (unsigned char)(hi << 4 | lo);
	}
	b[len] = '\0';
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

static void scrub_file(struct scrub *s, const char *path, json_t *v)
{
	json_t *c, *name;
	char *t;
	size_t i;

	c = json_is_object(v) ? json_object_get(v, "content") : v;
	if (json_is_string(c)) {
		t = scrub_content(s, path, json_string_value(c));
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

static bool env_is_secret(const char *name)
{
	static const char *const words[] = {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL",
					    "API_KEY", "ACCESS_KEY", "PRIVATE_KEY"};
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
						 "scrubbed", "files", "env"};
	struct scrub s;
	json_t *env = json_object_get(doc, "env"), *v;
	const char *key;
	size_t i;

	memset(&s, 0, sizeof(s));
	learn(&s, doc);
	for (i = 0; i < s.n; i++)
		if (s.items[i].word && s.items[i].kind <= K_SERIAL) {
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
		else if (!strstr(key, "VERSION"))
			set_scrubbed(&s, v);
	}
	json_object_foreach(doc, key, v) {
		for (i = 0; i < ARRAY_SIZE(provenance); i++)
			if (strcmp(key, provenance[i]) == 0)
				break;
		if (i == ARRAY_SIZE(provenance))
			scrub_values(&s, v);
	}

	free(s.words);
	for (i = 0; i < s.n; i++) {
		free(s.items[i].from);
		free(s.items[i].to);
	}
	free(s.items);
}
