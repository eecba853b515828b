/* visible.c: see visible.h. */
#define _GNU_SOURCE
#include "visible.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

/* The GPU whose UUID starts with prefix, when exactly one does; -1 otherwise. CUDA takes a
 * unique start of a UUID, as nvidia-smi -i does. */
static int by_uuid(const char *prefix, size_t len, const struct visible_gpu *gpus, size_t n)
{
	int found = -1;
	size_t i;

	if (len <= 4) /* "GPU-" alone names nothing */
		return -1;
	for (i = 0; i < n; i++) {
		if (!gpus[i].uuid || strncasecmp(gpus[i].uuid, prefix, len) != 0)
			continue;
		if (found >= 0)
			return -1; /* ambiguous: CUDA takes it as no device */
		found = (int)i;
	}
	return found;
}

/* Mark what one entry names; false when it names nothing (the list stops there). *mig_guess
 * is set when a new-style MIG UUID was taken to mean every GPU with MIG on. */
static bool mark(const char *tok, const struct visible_gpu *gpus, size_t n, bool *visible,
		 bool *mig_guess)
{
	size_t i;
	int g;

	if (tok[0] && strspn(tok, "0123456789") == strlen(tok)) {
		uint64_t idx;

		if (parse_u64(tok, &idx) != 0)
			return false;
		for (i = 0; i < n; i++)
			if (gpus[i].index == idx) {
				visible[i] = true;
				return true;
			}
		return false;
	}
	if (strncasecmp(tok, "GPU-", 4) == 0) {
		g = by_uuid(tok, strlen(tok), gpus, n);
		if (g < 0)
			return false;
		visible[g] = true;
		return true;
	}
	if (strncasecmp(tok, "MIG-GPU-", 8) == 0) {
		/* the old form names its GPU: MIG-GPU-<uuid>/<gi>/<ci> */
		const char *slash = strchr(tok, '/');

		g = by_uuid(tok + 4, slash ? (size_t)(slash - tok - 4) : strlen(tok + 4), gpus, n);
		if (g < 0 || !gpus[g].mig_on)
			return false;
		visible[g] = true;
		return true;
	}
	if (strncasecmp(tok, "MIG-", 4) == 0 && tok[4]) {
		/* an instance UUID does not name its GPU, and the probe does not list instances:
		 * it is on one of the GPUs with MIG on */
		bool any = false;

		for (i = 0; i < n; i++)
			if (gpus[i].mig_on) {
				visible[i] = true;
				any = true;
			}
		*mig_guess |= any;
		return any;
	}
	return false; /* "-1", "NoDevFiles", a bus id: CUDA takes none of these */
}

unsigned visible_parse(const char *value, const struct visible_gpu *gpus, size_t n,
		       bool *visible, char *note, size_t note_n)
{
	char buf[1024], *p, *tok;
	bool mig_guess = false;
	unsigned count = 0;
	size_t i;

	note[0] = '\0';
	for (i = 0; i < n; i++)
		visible[i] = value == NULL;
	if (!value)
		return (unsigned)n;
	str_copy(buf, value, sizeof(buf));
	p = str_trim(buf);
	if (!p[0]) {
		str_copy(note, "CUDA_VISIBLE_DEVICES is set and empty: CUDA sees no GPU (unset it to see all)",
			 note_n);
		return 0;
	}
	for (;;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		tok = str_trim(p);
		if (!mark(tok, gpus, n, visible, &mig_guess)) {
			str_fmt(note, note_n,
				"CUDA_VISIBLE_DEVICES='%s': '%s' is no GPU here, so CUDA ignores it and "
				"what follows",
				value, tok[0] ? tok : "(empty)");
			break;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	for (i = 0; i < n; i++)
		count += visible[i];
	if (!note[0] && mig_guess)
		str_fmt(note, note_n,
			"CUDA_VISIBLE_DEVICES names a MIG instance: shown are the GPUs with MIG on, as "
			"its UUID does not say which GPU holds it");
	else if (!note[0] && count == 0)
		str_fmt(note, note_n, "CUDA_VISIBLE_DEVICES='%s' leaves CUDA no GPU", value);
	return count;
}
