/*
 * drmfdinfo.c: DRM clients from /proc/PID/fdinfo (drmfdinfo.h).
 *
 * A process's open DRM files are found by their descriptor links (/dev/dri/cardN or renderDN),
 * and only those fdinfo files are read: reading every fdinfo of every process would cost far
 * more on a machine with many sockets. The same client seen through several descriptors or
 * processes (dup, fork, a file passed over a socket) is kept once, under the first PID met.
 */
#define _GNU_SOURCE
#include "drmfdinfo.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/host.h"
#include "../util/util.h"

int drm_engine_class(const char *e)
{
	static const struct {
		const char *name;
		int cls;
	} names[] = {
	    /* amdgpu */
	    {"gfx", DRM_CLASS_COMPUTE},
	    {"compute", DRM_CLASS_COMPUTE},
	    {"dma", DRM_CLASS_COPY},
	    {"sdma", DRM_CLASS_COPY},
	    {"dec", DRM_CLASS_DEC},
	    {"jpeg", DRM_CLASS_DEC},
	    {"vcn", DRM_CLASS_DEC},
	    {"enc", DRM_CLASS_ENC},
	    {"enc_1", DRM_CLASS_ENC},
	    /* i915 (its video engines encode and decode) */
	    {"render", DRM_CLASS_COMPUTE},
	    {"copy", DRM_CLASS_COPY},
	    {"video", DRM_CLASS_DEC},
	    /* xe */
	    {"rcs", DRM_CLASS_COMPUTE},
	    {"ccs", DRM_CLASS_COMPUTE},
	    {"bcs", DRM_CLASS_COPY},
	    {"vcs", DRM_CLASS_DEC},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(names[i].name, e) == 0)
			return names[i].cls;
	return -1;
}

/* "123 KiB" -> bytes; -1 when it does not parse */
static int64_t parse_size(const char *v)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v)
		return -1;
	while (*end == ' ' || *end == '\t')
		end++;
	if (str_starts(end, "KiB"))
		n <<= 10;
	else if (str_starts(end, "MiB"))
		n <<= 20;
	else if (str_starts(end, "GiB"))
		n <<= 30;
	return (int64_t)n;
}

static uint64_t parse_count(const char *v)
{
	return strtoull(v, NULL, 10);
}

/* Device-local memory regions as the drivers name them: amdgpu "vram", i915 "local0", xe
 * "vram0". */
static bool local_region(const char *r)
{
	return str_starts(r, "vram") || str_starts(r, "local");
}

static void add_mem(int64_t *dst, int64_t v)
{
	if (v < 0)
		return;
	*dst = (*dst < 0 ? 0 : *dst) + v;
}

bool drm_fdinfo_parse(const char *text, struct drm_client *c)
{
	const char *line = text;
	bool is_drm = false, resident_seen = false;
	int64_t resident = -1, legacy = -1;
	unsigned pid = c->pid;

	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->mem_bytes = c->gtt_bytes = -1;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char key[64], val[128];
		const char *colon = strchr(line, ':');
		size_t klen, vlen;
		int cls;

		if (!colon || (nl && colon > nl)) {
			line = nl ? nl + 1 : NULL;
			continue;
		}
		klen = (size_t)(colon - line);
		if (klen >= sizeof(key)) {
			line = nl ? nl + 1 : NULL;
			continue;
		}
		memcpy(key, line, klen);
		key[klen] = 0;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		vlen = nl ? (size_t)(nl - colon) : strlen(colon);
		if (vlen >= sizeof(val))
			vlen = sizeof(val) - 1;
		memcpy(val, colon, vlen);
		val[vlen] = 0;
		line = nl ? nl + 1 : NULL;

		if (strcmp(key, "drm-driver") == 0) {
			is_drm = true;
			str_copy(c->driver, val, sizeof(c->driver));
		} else if (strcmp(key, "drm-pdev") == 0) {
			str_copy(c->pdev, val, sizeof(c->pdev));
		} else if (strcmp(key, "drm-client-id") == 0) {
			c->client_id = parse_count(val);
		} else if (str_starts(key, "drm-engine-capacity-")) {
			/* engines of one class counted together: busy time may exceed wall time */
			continue;
		} else if (str_starts(key, "drm-engine-")) {
			cls = drm_engine_class(key + 11);
			if (cls >= 0) {
				c->busy_ns[cls] += parse_count(val);
				c->has[cls] = true;
			}
		} else if (str_starts(key, "drm-total-cycles-")) {
			cls = drm_engine_class(key + 17);
			if (cls >= 0) {
				uint64_t v = parse_count(val);

				/* engines of one class share the GPU's clock: keep the largest */
				if (v > c->total_cycles[cls])
					c->total_cycles[cls] = v;
			}
		} else if (str_starts(key, "drm-cycles-")) {
			cls = drm_engine_class(key + 11);
			if (cls >= 0) {
				c->cycles[cls] += parse_count(val);
				c->has_cycles[cls] = true;
			}
		} else if (str_starts(key, "drm-resident-")) {
			if (local_region(key + 13)) {
				add_mem(&resident, parse_size(val));
				resident_seen = true;
			}
		} else if (strcmp(key, "drm-memory-vram") == 0) {
			add_mem(&legacy, parse_size(val));
		} else if (strcmp(key, "drm-memory-gtt") == 0) {
			add_mem(&c->gtt_bytes, parse_size(val));
		}
	}
	/* the standard key first; amdgpu's own drm-memory-vram before kernel 6.13 */
	c->mem_bytes = resident_seen ? resident : legacy;
	return is_drm;
}

static bool wanted(const struct drm_client *c, const char *const *pdevs, size_t npdevs)
{
	size_t i;

	if (!pdevs)
		return true;
	for (i = 0; i < npdevs; i++)
		if (strcmp(pdevs[i], c->pdev) == 0)
			return true;
	return false;
}

/* the clients of one process, added to *v unless seen */
static void scan_pid(const char *pid, struct drm_client **v, size_t *n, unsigned *unreadable)
{
	char dir[64], path[128], link[128], **fds = NULL;
	size_t nfds = 0, i, k;

	str_fmt(dir, sizeof(dir), "/proc/%s/fd", pid);
	if (host_list(dir, &fds, &nfds) != 0) {
		(*unreadable)++;
		return;
	}
	for (i = 0; i < nfds; i++) {
		struct drm_client c;
		char *text;
		bool dup = false;
		int rc;

		str_fmt(path, sizeof(path), "%s/%s", dir, fds[i]);
		if (host_readlink(path, link, sizeof(link)) < 0 || !str_starts(link, "/dev/dri/"))
			continue;
		str_fmt(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fds[i]);
		text = host_read(path, 16384, NULL, &rc);
		if (!text)
			continue;
		c.pid = (unsigned)strtoul(pid, NULL, 10);
		if (!drm_fdinfo_parse(text, &c)) {
			free(text);
			continue;
		}
		free(text);
		for (k = 0; k < *n && !dup; k++)
			dup = (*v)[k].client_id == c.client_id && strcmp((*v)[k].pdev, c.pdev) == 0;
		if (dup)
			continue;
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = c;
	}
	host_list_free(fds, nfds);
}

/* Every client of every device, read from /proc now. */
static int scan_all(struct drm_client **out, size_t *n, unsigned *unreadable)
{
	char **pids = NULL;
	size_t npids = 0, i;
	struct drm_client *v = NULL;
	int rc;

	*out = NULL;
	*n = 0;
	*unreadable = 0;
	rc = host_list("/proc", &pids, &npids);
	if (rc != 0)
		return rc;
	for (i = 0; i < npids; i++)
		if (str_all_digits(pids[i]))
			scan_pid(pids[i], &v, n, unreadable);
	host_list_free(pids, npids);
	*out = v;
	return 0;
}

/* The last sweep of /proc, for every device: the collector's threads (one per GPU) ask within
 * a few milliseconds of each other at each tick, and one sweep serves them all, as one would
 * for a single GPU (a sweep reads every process's descriptor links: on an 8-GPU node, eight
 * sweeps a second would cost eight times the CPU). A sweep older than SWEEP_REUSE_NS is never
 * reused, so two readings meant to be apart (Intel's 20 ms pair) are two sweeps. */
#define SWEEP_REUSE_NS 5000000

static pthread_mutex_t sweep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int64_t t_ns;
	int rc;
	struct drm_client *v;
	size_t n;
	unsigned unreadable;
	char root[512]; /* host_root() when it was taken: another root is another machine */
} sweep;

int drm_clients_scan(const char *const *pdevs, size_t npdevs, struct drm_client **out, size_t *n,
		     unsigned *unreadable)
{
	size_t i;
	int64_t now = now_ns();
	int rc;

	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&sweep_lock);
	if (!sweep.t_ns || now - sweep.t_ns > SWEEP_REUSE_NS || strcmp(sweep.root, host_root())) {
		free(sweep.v);
		sweep.rc = scan_all(&sweep.v, &sweep.n, &sweep.unreadable);
		sweep.t_ns = now_ns();
		str_copy(sweep.root, host_root(), sizeof(sweep.root));
	}
	rc = sweep.rc;
	if (unreadable)
		*unreadable = sweep.unreadable;
	for (i = 0; sweep.rc == 0 && i < sweep.n; i++) {
		if (!wanted(&sweep.v[i], pdevs, npdevs))
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = sweep.v[i];
	}
	pthread_mutex_unlock(&sweep_lock);
	return rc;
}
