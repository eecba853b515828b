/*
 * facts_file.c: a fake root's .gpuvet/facts, the facts a directory tree cannot hold: the
 * environment, uname, the user's identity, device nodes, forced errors and reads that hang
 * (docs/scenarios.md). Read once per root; host.c asks it (host_int.h lists the parts).
 */
#define _GNU_SOURCE
#include "host_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

bool facts_loaded;
bool facts_present;
char **fact_env; /* "NAME=VALUE" */
size_t fact_env_n;
struct host_uname fact_uname;
bool fact_uname_set;
struct host_identity fact_id;
bool fact_id_set;
static struct fact_node *fact_nodes;
static size_t fact_nodes_n;
static struct fact_error *fact_errors;
static size_t fact_errors_n;
static char **fact_hangs; /* paths whose reads block for ever (`hang PATH`) */
static size_t fact_hangs_n;

int host_errno_from_name(const char *name)
{
	static const struct {
		const char *name;
		int num;
	} names[] = {
		{"ENOENT", ENOENT}, {"EACCES", EACCES}, {"EPERM", EPERM},   {"EIO", EIO},
		{"ENODEV", ENODEV}, {"ENXIO", ENXIO},	{"EINVAL", EINVAL}, {"ENOTDIR", ENOTDIR},
		{"EBUSY", EBUSY},   {"EAGAIN", EAGAIN}, {"ELOOP", ELOOP},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].num;
	return EIO;
}

void facts_free(void)
{
	size_t i;

	for (i = 0; i < fact_env_n; i++)
		free(fact_env[i]);
	free(fact_env);
	for (i = 0; i < fact_nodes_n; i++)
		free(fact_nodes[i].path);
	free(fact_nodes);
	for (i = 0; i < fact_errors_n; i++)
		free(fact_errors[i].path);
	free(fact_errors);
	for (i = 0; i < fact_hangs_n; i++)
		free(fact_hangs[i]);
	free(fact_hangs);
	fact_env = NULL;
	fact_nodes = NULL;
	fact_errors = NULL;
	fact_hangs = NULL;
	fact_env_n = fact_nodes_n = fact_errors_n = fact_hangs_n = 0;
	fact_uname_set = fact_id_set = false;
	memset(&fact_uname, 0, sizeof(fact_uname));
	memset(&fact_id, 0, sizeof(fact_id));
	facts_present = false;
}

/* Parse one line of .gpuvet/facts; unknown lines are ignored so older gpuvets read newer files. */
static void facts_line(char *line)
{
	char *sp = strchr(line, ' ');
	char *rest;

	if (!sp)
		return;
	*sp = '\0';
	rest = sp + 1;
	if (strcmp(line, "env") == 0) {
		fact_env = xrealloc(fact_env, (fact_env_n + 1) * sizeof(*fact_env));
		fact_env[fact_env_n++] = xstrdup(rest);
	} else if (strcmp(line, "uname") == 0) {
		char *val = strchr(rest, ' ');

		if (!val)
			return;
		*val++ = '\0';
		fact_uname_set = true;
		if (strcmp(rest, "sysname") == 0)
			str_copy(fact_uname.sysname, val, sizeof(fact_uname.sysname));
		else if (strcmp(rest, "nodename") == 0)
			str_copy(fact_uname.nodename, val, sizeof(fact_uname.nodename));
		else if (strcmp(rest, "release") == 0)
			str_copy(fact_uname.release, val, sizeof(fact_uname.release));
		else if (strcmp(rest, "version") == 0)
			str_copy(fact_uname.version, val, sizeof(fact_uname.version));
		else if (strcmp(rest, "machine") == 0)
			str_copy(fact_uname.machine, val, sizeof(fact_uname.machine));
	} else if (strcmp(line, "id") == 0) {
		unsigned a = 0, b = 0;
		char *tok, *save = NULL;
		int k = 0;

		fact_id_set = true;
		for (tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save), k++) {
			uint64_t v;

			if (parse_u64(tok, &v) != 0)
				continue;
			if (k == 0)
				a = (unsigned)v;
			else if (k == 1)
				b = (unsigned)v;
			else if (fact_id.ngroups < (int)ARRAY_SIZE(fact_id.groups))
				fact_id.groups[fact_id.ngroups++] = (unsigned)v;
		}
		fact_id.uid = a;
		fact_id.gid = b;
	} else if (strcmp(line, "node") == 0) {
		/* node PATH TYPE MODE UID GID MAJOR MINOR */
		char path[HOST_PATH_MAX], type[8];
		unsigned mode, uid, gid, maj, min;

		if (sscanf(rest, "%4095s %7s %o %u %u %u %u", path, type, &mode, &uid, &gid, &maj,
			   &min) != 7)
			return;
		fact_nodes = xrealloc(fact_nodes, (fact_nodes_n + 1) * sizeof(*fact_nodes));
		fact_nodes[fact_nodes_n].path = xstrdup(path);
		memset(&fact_nodes[fact_nodes_n].st, 0, sizeof(struct host_stat));
		fact_nodes[fact_nodes_n].st.type = type[0];
		fact_nodes[fact_nodes_n].st.mode = mode & 07777;
		fact_nodes[fact_nodes_n].st.uid = uid;
		fact_nodes[fact_nodes_n].st.gid = gid;
		fact_nodes[fact_nodes_n].st.major = maj;
		fact_nodes[fact_nodes_n].st.minor = min;
		fact_nodes_n++;
	} else if (strcmp(line, "error") == 0) {
		char path[HOST_PATH_MAX], name[32];

		if (sscanf(rest, "%4095s %31s", path, name) != 2)
			return;
		fact_errors = xrealloc(fact_errors, (fact_errors_n + 1) * sizeof(*fact_errors));
		fact_errors[fact_errors_n].path = xstrdup(path);
		fact_errors[fact_errors_n].errnum = host_errno_from_name(name);
		fact_errors_n++;
	} else if (strcmp(line, "hang") == 0) {
		char path[HOST_PATH_MAX];

		if (sscanf(rest, "%4095s", path) != 1)
			return;
		fact_hangs = xrealloc(fact_hangs, (fact_hangs_n + 1) * sizeof(*fact_hangs));
		fact_hangs[fact_hangs_n++] = xstrdup(path);
	}
}

static void facts_read(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	facts_present = true;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (line[0] && line[0] != '#')
			facts_line(line);
	}
	free(line);
}

void facts_load(void)
{
	char path[HOST_PATH_MAX];
	FILE *f;

	if (facts_loaded)
		return;
	facts_loaded = true;
	if (!root_dir[0])
		return;
	str_fmt(path, sizeof(path), "%s/.gpuvet/facts", root_dir);
	f = fopen(path, "re");
	if (!f)
		return;
	facts_read(f);
	fclose(f);
}

int host_facts_parse(const char *text, size_t len)
{
	FILE *f;

	facts_free();
	facts_loaded = true;
	root_dir[0] = '\0';
	if (!len) {
		facts_present = true; /* an empty facts file; fmemopen refuses a zero size */
		return 0;
	}
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return -errno;
	facts_read(f);
	fclose(f);
	return 0;
}

const struct fact_error *fact_error_for(const char *path)
{
	size_t i;

	facts_load();
	for (i = 0; i < fact_errors_n; i++)
		if (strcmp(fact_errors[i].path, path) == 0)
			return &fact_errors[i];
	return NULL;
}

const struct fact_node *fact_node_for(const char *path)
{
	size_t i;

	facts_load();
	for (i = 0; i < fact_nodes_n; i++)
		if (strcmp(fact_nodes[i].path, path) == 0)
			return &fact_nodes[i];
	return NULL;
}

bool fact_hang_for(const char *path)
{
	size_t i;

	for (i = 0; i < fact_hangs_n; i++)
		if (strcmp(fact_hangs[i], path) == 0)
			return true;
	return false;
}
