/*
 * scrub_learn.c: the first pass of `record --scrub` (scrub.h): what the recording names
 * that identifies a person or a site, into the map of replacements that scrub.c rewrites
 * the recording with (scrub_int.h).
 *
 * Users and groups come from /etc/passwd and /etc/group (ids from 1000 up), $USER, $HOME
 * and /home/<name>; hosts and domains from uname, /etc/hostname, $HOSTNAME, /etc/hosts and
 * resolv.conf; GPU serials and UUIDs in NVML order (GPU i gets placeholder i); DMI serials.
 * Default accounts and system words ("ubuntu", "nvidia", "dev") are never learnt: they
 * name nobody and would break paths doctor reads.
 */
#define _GNU_SOURCE
#include "scrub.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "scrub_int.h"

/* ---- the map of replacements ---------------------------------------------------------------- */

struct scrub_item *scrub_find(struct scrub *s, enum scrub_kind k, const char *from, size_t len)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].kind == k && strlen(s->items[i].from) == len &&
		    strncasecmp(s->items[i].from, from, len) == 0)
			return &s->items[i];
	return NULL;
}

static bool taken(struct scrub *s, enum scrub_kind k, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->items[i].kind == k && (strcasecmp(s->items[i].to, name) == 0 ||
					      strcasecmp(s->items[i].from, name) == 0))
			return true;
	return false;
}

static char *placeholder(enum scrub_kind k, unsigned n)
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
	case K_IPV4: return xasprintf("%s.%u", v4_nets[((n - 1) / 254) % 3], (n - 1) % 254 + 1);
	case K_IPV6: return xasprintf("2001:db8::%x", n);
	/* locally administered, so never a real vendor's address */
	case K_MAC: return xasprintf("02:00:00:00:%02x:%02x", (n >> 8) & 0xff, n & 0xff);
	default: return xstrdup("scrubbed");
	}
}

/* The placeholder for from, made on first sight. to, when given, is used instead of the
 * next number (GPU UUIDs and serials keep their NVML index). */
struct scrub_item *scrub_assign(struct scrub *s, enum scrub_kind k, const char *from, size_t len,
				const char *to, bool word)
{
	struct scrub_item *it = scrub_find(s, k, from, len);
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
/* clang-format off */
static const char *const generic_names[] = {
	/* default accounts and host names of distribution and cloud images */
	"root", "admin", "administrator", "user", "users", "guest", "nobody", "ubuntu", "debian",
	"fedora", "centos", "rocky", "alma", "almalinux", "rhel", "redhat", "suse", "opensuse",
	"arch", "linux", "localhost", "localdomain", "local", "ec2-user", "cloud-user", "azureuser",
	"opc", "core", "none", "(none)", "default", "scrubbed-host",
	/* words of the system: packages, groups, folders */
	"nvidia", "cuda", "docker", "podman", "video", "render", "gpu", "data", "test", "home",
	"bin", "boot", "dev", "etc", "lib", "lib64", "media", "mnt", "opt", "proc", "run", "sbin",
	"srv", "sys", "tmp", "usr", "var", "share",
};
/* clang-format on */

bool scrub_name_is_placeholder(const char *s)
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

static bool scrub_name_is_generic(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generic_names); i++)
		if (strlen(generic_names[i]) == len && strncasecmp(generic_names[i], s, len) == 0)
			return true;
	return false;
}

/* A user or group name: letters, digits, '.', '_', '-' (useradd's rule, plus '.'). */
size_t scrub_name_len(const char *s)
{
	size_t n = 0;

	while (scrub_is_alnum(s[n]) || scrub_in_set(s[n], "._-"))
		n++;
	return n;
}

static void learn_name(struct scrub *s, enum scrub_kind k, const char *name, size_t len)
{
	char *copy;

	if (len == 0 || len > 64 || name[0] == '-' || name[0] == '.' ||
	    scrub_name_is_generic(name, len))
		return;
	copy = xstrndup(name, len);
	/* short names ("jo") would hit unrelated words: those only go in their own places */
	if (!scrub_name_is_placeholder(copy) && !scrub_find(s, K_USER, name, len) &&
	    !scrub_find(s, K_GROUP, name, len))
		scrub_assign(s, k, name, len, NULL, len >= 3);
	free(copy);
}

static void learn_user(struct scrub *s, const char *name)
{
	if (name)
		learn_name(s, K_USER, name,
			   scrub_name_len(name) == strlen(name) ? strlen(name) : 0);
}

static void learn_domain(struct scrub *s, const char *d, size_t len)
{
	char *copy;

	while (len > 0 && d[len - 1] == '.')
		len--;
	if (len == 0 || scrub_name_is_generic(d, len))
		return;
	copy = xstrndup(d, len);
	if (!scrub_name_is_placeholder(copy) && scrub_ipv4_at(copy, 0) != len)
		scrub_assign(s, K_DOMAIN, d, len, NULL, true);
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
	if (len > 0 && !scrub_name_is_generic(buf, len) && !scrub_name_is_placeholder(buf) &&
	    strncmp(buf, "ip6-", 4) != 0)
		scrub_assign(s, K_HOST, buf, len, NULL, true);
}

/* The text of a files entry: the string itself or its "content". */
static const char *file_text(json_t *files, const char *path)
{
	json_t *v = json_object_get(files, path);

	if (json_is_object(v))
		v = json_object_get(v, "content");
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Calls fn on each line of text, split at sep into at most 8 fields (sep '\n': the whole
 * line is one field). */
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
		learn_name(s, K_GROUP, f[0],
			   scrub_name_len(f[0]) == strlen(f[0]) ? strlen(f[0]) : 0);
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
			learn_name(s, K_USER, p, scrub_name_len(p));
		}
	}
}

bool scrub_uuid_is_placeholder(const char *u)
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
		if (scrub_uuid_at(str, i) == 36 && scrub_uuid_is_placeholder(str + i)) {
			char u[37];

			str_copy(u, str + i, sizeof(u));
			scrub_assign(s, K_UUID, u, 36, u, false);
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
			if (k >= 36 && scrub_uuid_at(u, 0) == 36 && !scrub_uuid_is_placeholder(u) &&
			    !taken(s, K_UUID, to))
				scrub_assign(s, K_UUID, u, 36, to, false);
		}
		if (json_is_string(serial) && strlen(json_string_value(serial)) >= 4) {
			str_fmt(to, sizeof(to), "%013zu", i);
			if (strcmp(json_string_value(serial), to) != 0)
				scrub_assign(s, K_SERIAL, json_string_value(serial),
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
			if (strlen(val) >= 4 && !strpbrk(val, " \t") &&
			    !scrub_name_is_placeholder(val))
				scrub_assign(s, K_SERIAL, val, strlen(val), NULL, true);
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

/* Path prefixes that belong to the system: a learned user, group or host name that is a
 * folder under one of them ("torch" in /opt/torch/.venv) is a word the machine uses, so it
 * is replaced only in its own places (its home folder, the account files, uname and the
 * host name files, $USER and $HOSTNAME), never as a word. */
static const char *const system_prefixes[] = {"/usr/",  "/lib/",  "/lib32/", "/lib64/",
					      "/bin/",  "/sbin/", "/dev/",   "/sys/",
					      "/proc/", "/boot/", "/opt/"};

static void guard_string(struct scrub *s, const char *str)
{
	size_t i, p;

	for (i = 0; str[i]; i++) {
		size_t end, start;

		if (str[i] != '/' || (i > 0 && !scrub_in_set(str[i - 1], " \t\n\"'=:,;(")))
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
				struct scrub_item *it = &s->items[t];

				if ((it->kind == K_USER || it->kind == K_GROUP || it->kind == K_HOST) &&
				    it->word &&
				    strlen(it->from) == k - start &&
				    strncasecmp(it->from, str + start, k - start) == 0)
					it->word = false;
			}
			start = k + 1;
		}
		i = end ? end - 1 : i;
	}
}

void scrub_learn(struct scrub *s, json_t *doc)
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

	learn_host(s,
		   json_string_value(json_object_get(json_object_get(doc, "uname"), "nodename")));
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
