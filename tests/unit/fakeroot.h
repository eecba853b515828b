/*
 * fakeroot.h: building small fake machine trees for unit tests of the host collectors.
 *
 *   char *root = fr_new();                      a fresh temporary folder
 *   fr_file(root, "/proc/modules", "nvidia 1 0 - Live 0x0 (O)\n");
 *   fr_exec(root, "/usr/bin/python3.12");        an executable file
 *   fr_link(root, "/sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:01:00.0");
 *   fr_facts(root, "env CUDA_VISIBLE_DEVICES=0\n");  lines of .gpuvet/facts (docs/scenarios.md)
 *   fr_use(root);                               point the host layer at it
 *   ...
 *   fr_free(root);
 *
 * With a .gpuvet/facts file present, the environment, uname and identity come only from it.
 */
#ifndef GPUVET_FAKEROOT_H
#define GPUVET_FAKEROOT_H


#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"

static __attribute__((unused)) void fr_mkdirs(const char *path)
{
	char tmp[4096];
	char *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

static __attribute__((unused)) void fr_parent(const char *full)
{
	char tmp[4096];
	char *slash;

	snprintf(tmp, sizeof(tmp), "%s", full);
	slash = strrchr(tmp, '/');
	if (slash) {
		*slash = '\0';
		fr_mkdirs(tmp);
	}
}

static __attribute__((unused)) char *fr_new(void)
{
	char *root = strdup("/tmp/gpuvet-unit-XXXXXX");

	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	return root;
}

static __attribute__((unused)) void fr_file(const char *root, const char *path, const char *content)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fr_parent(full);
	f = fopen(full, "w");
	if (!f) {
		perror(full);
		exit(2);
	}
	fputs(content, f);
	fclose(f);
}

/* An executable file (mode 0755): a python3 or nvcc that PATH lookups accept. */
static __attribute__((unused)) void fr_exec(const char *root, const char *path)
{
	char full[4096];

	fr_file(root, path, "ELF");
	snprintf(full, sizeof(full), "%s%s", root, path);
	chmod(full, 0755);
}

static __attribute__((unused)) void fr_bytes(const char *root, const char *path, const void *data, size_t n)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fr_parent(full);
	f = fopen(full, "w");
	if (!f) {
		perror(full);
		exit(2);
	}
	fwrite(data, 1, n, f);
	fclose(f);
}

static __attribute__((unused)) void fr_dir(const char *root, const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root, path);
	fr_mkdirs(full);
}

static __attribute__((unused)) void fr_link(const char *root, const char *path, const char *target)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root, path);
	fr_parent(full);
	if (symlink(target, full) != 0 && errno != EEXIST) {
		perror(full);
		exit(2);
	}
}

static __attribute__((unused)) void fr_facts(const char *root, const char *lines)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s/.gpuvet/facts", root);
	fr_parent(full);
	f = fopen(full, "a");
	if (!f) {
		perror(full);
		exit(2);
	}
	fputs(lines, f);
	fclose(f);
}

static __attribute__((unused)) void fr_use(const char *root)
{
	struct err e;

	if (host_set_root(root, &e) != 0) {
		fprintf(stderr, "fr_use: %s\n", e.msg);
		exit(2);
	}
}

static __attribute__((unused)) int fr_rm(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static __attribute__((unused)) void fr_free(char *root)
{
	struct err e;

	host_set_root(NULL, &e);
	nftw(root, fr_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
}

#endif
