/*
 * kmsg.c: what the kernel log says about the NVIDIA driver: Xid lines, and the last line of
 * each driver failure doctor explains (RmInitAdapter, fallen off the bus, GSP boot, module
 * signature rejected, nvidia-uvm's KASLR/HMM failure, nouveau holding the GPU, a GPU this
 * driver release does not support).
 *
 * The log is often restricted to root (dmesg_restrict, catalog row 29); that is recorded, not
 * hidden, so doctor can say what root would add. Xid lines are only collected here: what they
 * mean is checks/kernel_log.c's business. host_read_kmsg already keeps only driver-related
 * records, as "prio,seq,usec,flags;message" lines.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/recorder.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "facts.h"
#include "host_int.h"

#define MSG_MAX 512

/* The kernel escapes a newline inside one record as "\x0a"; multi-line driver messages
 * ("The NVIDIA GPU ... has\nNVRM: fallen off the bus") read better as one line. */
static void unescape_newlines(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (strncmp(r, "\\x0a", 4) == 0) {
			*w++ = ' ';
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* Does s hold a PCI address "dddd:bb:dd.f"? */
static bool has_bdf(const char *s)
{
	for (; *s; s++)
		if (isxdigit((unsigned char)s[0]) && strlen(s) >= 12 && s[4] == ':' && s[7] == ':' &&
		    s[10] == '.')
			return true;
	return false;
}

/* A multi-line driver message printed as separate records names the GPU only in its first
 * record ("NVRM: The NVIDIA GPU 0000:b3:00.0"): join it back when the matching line has no
 * address of its own. */
static void with_context(char *out, size_t n, const char *cur, const char *prev1,
			 const char *prev2)
{
	if (has_bdf(cur))
		str_copy(out, cur, n);
	else if (strstr(prev1, "The NVIDIA GPU"))
		str_fmt(out, n, "%s %s", prev1, cur);
	else if (strstr(prev2, "The NVIDIA GPU"))
		str_fmt(out, n, "%s %s %s", prev2, prev1, cur);
	else
		str_copy(out, cur, n);
}

/* "NVRM: Xid (PCI:0000:10:1c): 63, pid=1234, name=python, Row Remapper ..." */
static void parse_xid(struct kmsg_facts *k, const char *msg, int64_t usec, int64_t seq)
{
	const char *p = strstr(msg, "NVRM: Xid (");
	const char *loc, *close, *num;
	struct xid_event *x;
	char *end;
	long v;

	if (!p)
		return;
	loc = p + strlen("NVRM: Xid (");
	close = strstr(loc, "): ");
	if (!close)
		return;
	num = close + 3;
	v = strtol(num, &end, 10);
	if (end == num || v < 0)
		return;
	if (k->nxids == FACTS_MAX_XIDS) {
		/* keep the most recent: drop the oldest */
		memmove(&k->xids[0], &k->xids[1], sizeof(k->xids[0]) * (FACTS_MAX_XIDS - 1));
		k->nxids--;
		k->nxids_dropped++;
	}
	x = &k->xids[k->nxids++];
	memset(x, 0, sizeof(*x));
	if (str_starts(loc, "PCI:"))
		loc += 4;
	str_copy(x->bdf, loc, (size_t)(close - loc) + 1 < sizeof(x->bdf) ? (size_t)(close - loc) + 1
									   : sizeof(x->bdf));
	x->xid = (int)v;
	while (*end == ',' || *end == ' ')
		end++;
	str_copy(x->text, end, sizeof(x->text));
	x->usec = usec;
	x->seq = seq;
}

static bool rejection(const char *msg)
{
	/* kernel/module/signing.c: "Loading of unsigned module is rejected", "Loading of module
	 * with unavailable key is rejected"; lockdown: "unsigned module loading is restricted" */
	return strstr(msg, "Key was rejected") || (strstr(msg, "Loading of ") && strstr(msg, "is rejected")) ||
	       strstr(msg, "unsigned module loading is restricted");
}

static void parse_line(struct kmsg_facts *k, char *msg, int64_t usec, int64_t seq,
		       const char *prev1, const char *prev2)
{
	parse_xid(k, msg, usec, seq);
	if (strstr(msg, "RmInitAdapter failed"))
		str_copy(k->rm_init_line, msg, sizeof(k->rm_init_line));
	if (strstr(msg, "fallen off the bus"))
		with_context(k->fallen_line, sizeof(k->fallen_line), msg, prev1, prev2);
	/* a real rejection wins over "module verification failed", which only means an unsigned
	 * module was loaded on a kernel that does not enforce signatures */
	if (rejection(msg))
		str_copy(k->key_rejected_line, msg, sizeof(k->key_rejected_line));
	else if (strstr(msg, "module verification failed") && !rejection(k->key_rejected_line))
		str_copy(k->key_rejected_line, msg, sizeof(k->key_rejected_line));
	if (strstr(msg, "request_free_mem_region") && strstr(msg, "-34"))
		str_copy(k->uvm_hmm_line, msg, sizeof(k->uvm_hmm_line));
	if (strstr(msg, "probe routine was not called"))
		str_copy(k->probe_not_called_line, msg, sizeof(k->probe_not_called_line));
	if (strstr(msg, "Cannot initialize GSP firmware RM") ||
	    strstr(msg, "failed to wait for GFW_BOOT") || strstr(msg, "WPR2 already up"))
		str_copy(k->gsp_line, msg, sizeof(k->gsp_line));
	/* i915_pci.c, xe_pci.c: a device id the driver knows but does not enable by default */
	if (strstr(msg, "force_probe="))
		str_copy(k->force_probe_line, msg, sizeof(k->force_probe_line));
	if (strstr(msg, "is not supported by the"))
		with_context(k->unsupported_line, sizeof(k->unsupported_line), msg, prev1, prev2);
}

void kmsg_collect(struct kmsg_facts *k)
{
	char *text = NULL;
	size_t len = 0;
	uint64_t restrict_v;

	memset(k, 0, sizeof(*k));
	k->last_seq = -1;
	k->dmesg_restrict = host_read_u64("/proc/sys/kernel/dmesg_restrict", &restrict_v) == 0
				    ? (int)restrict_v
				    : -1;
	k->read_rc = host_read_kmsg(&text, &len);
	k->restricted = k->read_rc == -EPERM || k->read_rc == -EACCES;
	if (k->read_rc != 0)
		return;
	kmsg_parse(k, text);
	free(text);
}

void kmsg_parse(struct kmsg_facts *k, char *text)
{
	char *line, *save = NULL;
	char prev1[MSG_MAX] = "", prev2[MSG_MAX] = "";

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *semi = strchr(line, ';');
		char msg[MSG_MAX];
		const char *c1, *c2;
		int64_t usec = 0, seq = -1;

		if (!semi)
			continue;
		/* "prio,seq,usec,flags;" */
		c1 = strchr(line, ',');
		c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		if (c1)
			seq = strtoll(c1 + 1, NULL, 10);
		if (c2)
			usec = strtoll(c2 + 1, NULL, 10);
		if (seq > k->last_seq)
			k->last_seq = seq;
		str_copy(msg, semi + 1, sizeof(msg));
		unescape_newlines(msg);
		parse_line(k, msg, usec, seq, prev1, prev2);
		str_copy(prev2, prev1, sizeof(prev2));
		str_copy(prev1, msg, sizeof(prev1));
	}
}

/* Kernel-log lines worth keeping: the driver, PCI errors, module signing, firmware. */
static bool kmsg_interesting(const char *msg)
{
	static const char *const keys[] = {
		"NVRM",	    "nvidia",  "Xid",	   "nouveau",	"NVIDIA",	"module verification",
		"Key was rejected", "Lockdown", "fallen off the bus", "AER", "PCIe Bus Error",
		"secureboot", "Secure boot", "nvlink", "nvswitch", "SXid",
		/* "Loading of module with unavailable key is rejected" names no module */
		"is rejected",
		/* i915 or xe refusing a GPU newer than this kernel (checks/oneapi.c) */
		"force_probe",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (strstr(msg, keys[i]))
			return true;
	return false;
}

int host_read_kmsg(char **text, size_t *len)
{
	char resolved[HOST_PATH_MAX];
	char *raw, *line, *save = NULL;
	size_t have;
	int rc;
	struct strbuf out;

	*text = NULL;
	*len = 0;
	raw = run_read("/dev/kmsg", 0, READ_KMSG, 0, &have, &rc, resolved, sizeof(resolved));
	if (!raw)
		return rc;
	sb_init(&out);
	for (line = strtok_r(raw, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *semi = strchr(line, ';');
		/* continuation lines (" KEY=value") carry device metadata, not text */
		if (line[0] == ' ' || !semi || !kmsg_interesting(semi + 1))
			continue;
		sb_adds(&out, line);
		sb_addc(&out, '\n');
	}
	free(raw);
	if (rec_active())
		rec_file(resolved, out.buf, out.len);
	*len = out.len;
	*text = sb_detach(&out);
	return 0;
}
