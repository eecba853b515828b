/*
 * host_int.h: what the parts of the root-prefixed view of the machine (host.h) share, and
 * nothing outside them includes.
 *
 *   host.c        reads of the real machine or of a fake root on disk, through hostio
 *   facts_file.c  a fake root's .gpuvet/facts: environment, uname, identity, nodes, errors, hangs
 *   host_mem.c    reads served from a recording loaded in memory (host_mem_*, memtree.h)
 *   kmsg.c        the kernel log, read and filtered (host_read_kmsg)
 */
#ifndef GPUVET_HOST_INT_H
#define GPUVET_HOST_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"

#define HOST_PATH_MAX 4096

struct fact_node {
	char *path;
	struct host_stat st;
};

struct fact_error {
	char *path;
	int errnum;
};

/* the root (host.c) and the number of root changes */
extern char root_dir[HOST_PATH_MAX];
extern unsigned epoch;

/* what the facts file or a recording says (facts_file.c) */
extern bool facts_loaded;
extern bool facts_present;
extern char **fact_env; /* "NAME=VALUE" */
extern size_t fact_env_n;
extern struct host_uname fact_uname;
extern bool fact_uname_set;
extern struct host_identity fact_id;
extern bool fact_id_set;

void facts_free(void);
void facts_load(void);
const struct fact_error *fact_error_for(const char *path);
const struct fact_node *fact_node_for(const char *path);
bool fact_hang_for(const char *path);

enum read_how { READ_WHOLE, READ_TAIL, READ_KMSG, READ_AT };

/* host.c */
void record_stat(const char *resolved, const struct host_stat *st);
char *run_read(const char *path, size_t max, enum read_how how, uint64_t at, size_t *len,
	       int *err, char *resolved, size_t rn);

/* reads from a recording in memory (host_mem.c) */
int mem_fail(const char *resolved, int rc);
char *mem_read(const char *path, size_t max, enum read_how how, uint64_t at, size_t *len,
	       int *err, char *resolved_out, size_t rn);
int mem_readlink(const char *path, char *buf, size_t n);
int mem_list(const char *path, char ***names_out, size_t *n_out);
int mem_stat(const char *path, struct host_stat *out);

#endif
