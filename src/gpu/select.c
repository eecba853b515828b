/*
 * select.c: GPU id lists parsed and matched (see select.h).
 *
 * The rules are nvidia-smi's, made strict where it helps the user: an index is decimal digits
 * only, a UUID entry starts with "GPU-" (what NVML and nvidia-smi print) and goes on in hex and
 * dashes, and a bus id is compared by value, so "18:00.0" and "00000000:18:00.0" are the same
 * GPU. Anything else is refused while parsing, before a GPU is asked.
 */
#define _GNU_SOURCE
#include "select.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

#define HINT_FORM "give indexes, UUIDs (or a unique start of one) or PCI bus ids, comma-separated"
#define HINT_LIST "'gpuvet status --query index,uuid,pci.bus_id --format csv' lists the GPUs"

/* Up to max hex digits at *p; false when there are none. */
static bool hex_field(const char **p, unsigned max, unsigned *out)
{
	unsigned v = 0, k = 0;

	while (k < max && isxdigit((unsigned char)**p)) {
		char c = (char)tolower((unsigned char)**p);

		v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
		(*p)++;
		k++;
	}
	*out = v;
	return k > 0;
}

/* "[domain:]bus:device.function": domain up to 8 hex digits (NVML writes 8, sysfs 4), the
 * others as lspci writes them. s has at least one ':'. */
static bool parse_bus(const char *s, struct pci_addr *a)
{
	const char *p = s;
	unsigned f1, f2, fn;
	bool has_domain = strchr(strchr(s, ':') + 1, ':') != NULL;

	a->dom = 0;
	if (has_domain && (!hex_field(&p, 8, &a->dom) || *p++ != ':'))
		return false;
	if (!hex_field(&p, 2, &f1) || *p++ != ':' || !hex_field(&p, 2, &f2) || *p++ != '.' ||
	    !hex_field(&p, 1, &fn) || *p)
		return false;
	if (f2 > 0x1f || fn > 7)
		return false;
	a->bus = f1;
	a->dev = f2;
	a->fn = (int)fn;
	return true;
}

static bool uuid_chars(const char *s)
{
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

/* One entry, already trimmed and not empty. */
static int parse_one(const char *tok, struct select_id *id, struct err *e)
{
	size_t len = strlen(tok);

	memset(id, 0, sizeof(*id));
	if (len >= sizeof(id->text)) {
		err_set(e, EXIT_USAGE, "GPU id '%.24s...' is too long", tok);
		err_hint(e, HINT_FORM);
		return -1;
	}
	str_copy(id->text, tok, sizeof(id->text));
	if (tok[strspn(tok, "0123456789")] == '\0' && parse_u64(tok, &id->index) == 0) {
		id->kind = SELECT_INDEX;
		return 0;
	}
	if (len > 4 && strncasecmp(tok, "GPU-", 4) == 0 && uuid_chars(tok + 4)) {
		id->kind = SELECT_UUID;
		return 0;
	}
	if (strchr(tok, ':') && parse_bus(tok, &id->bus)) {
		id->kind = SELECT_BUS;
		return 0;
	}
	err_set(e, EXIT_USAGE, "'%s' is not a GPU index, UUID or PCI bus id", tok);
	err_hint(e, HINT_FORM);
	return -1;
}

int select_parse(const char *ids, struct select_list *out, struct err *e)
{
	struct select_list l = {NULL, 0};
	char *copy = xstrdup(ids ? ids : ""), *p = copy;
	size_t cap = 1;

	if (!*str_trim(copy)) {
		free(copy);
		err_set(e, EXIT_USAGE, "no GPU id given");
		err_hint(e, HINT_FORM);
		return -1;
	}
	for (p = copy; *p; p++)
		cap += *p == ',';
	l.v = xcalloc(cap, sizeof(*l.v));
	p = copy;
	for (;;) {
		char *comma = strchr(p, ',');
		char *tok;

		if (comma)
			*comma = '\0';
		tok = str_trim(p);
		if (!*tok) {
			err_set(e, EXIT_USAGE, "empty GPU id in '%s'", ids);
			err_hint(e, HINT_FORM);
			goto fail;
		}
		if (parse_one(tok, &l.v[l.n], e) != 0)
			goto fail;
		l.n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	if (out)
		*out = l;
	else
		select_list_free(&l);
	return 0;
fail:
	free(copy);
	select_list_free(&l);
	return -1;
}

void select_list_free(struct select_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static bool id_matches(const struct select_id *id, const struct select_gpu *g)
{
	struct pci_addr have;

	switch (id->kind) {
	case SELECT_INDEX: return id->index == g->index;
	case SELECT_UUID: return g->uuid && strncasecmp(id->text, g->uuid, strlen(id->text)) == 0;
	case SELECT_BUS:
		return g->bus_id && pci_addr_parse(g->bus_id, &have) &&
		       pci_addr_same(&id->bus, &have);
	}
	return false;
}

int select_match(const struct select_list *l, const struct select_gpu *gpus, size_t n,
		 size_t *picks, struct err *e)
{
	size_t k, i, j;

	for (k = 0; k < l->n; k++) {
		const struct select_id *id = &l->v[k];
		size_t hits = 0, first = 0;

		for (i = 0; i < n; i++) {
			if (!id_matches(id, &gpus[i]))
				continue;
			if (hits++ == 0) {
				first = i;
				continue;
			}
			err_set(e, EXIT_USAGE, "'%s' matches more than one GPU (%u and %u)",
				id->text, gpus[first].index, gpus[i].index);
			err_hint(e, "give more of the UUID; " HINT_LIST);
			return -1;
		}
		if (!hits) {
			err_set(e, EXIT_USAGE, "no GPU matches '%s' (%zu GPU%s present)", id->text,
				n, n == 1 ? "" : "s");
			err_hint(e, HINT_LIST);
			return -1;
		}
		for (j = 0; j < k; j++)
			if (picks[j] == first) {
				err_set(e, EXIT_USAGE, "GPU %u is named twice ('%s' and '%s')",
					gpus[first].index, l->v[j].text, id->text);
				err_hint(e, "name each GPU once");
				return -1;
			}
		picks[k] = first;
	}
	return 0;
}

int select_system(const char *ids, const struct gpu_system *sys, bool *selected, struct err *e)
{
	struct select_list l;
	struct select_gpu *gpus;
	size_t *picks, k;
	unsigned i;
	int rc;

	for (i = 0; i < sys->ngpus; i++)
		selected[i] = ids == NULL;
	if (!ids)
		return 0;
	if (select_parse(ids, &l, e) != 0)
		return -1;
	gpus = xcalloc(sys->ngpus ? sys->ngpus : 1, sizeof(*gpus));
	picks = xcalloc(l.n, sizeof(*picks));
	for (i = 0; i < sys->ngpus; i++) {
		const struct gpu *g = &sys->gpus[i];

		gpus[i].index = g->index;
		gpus[i].uuid = text_ok(&g->st.uuid) ? g->st.uuid.s : NULL;
		gpus[i].bus_id = text_ok(&g->st.bus_id) ? g->st.bus_id.s : NULL;
	}
	rc = select_match(&l, gpus, sys->ngpus, picks, e);
	for (k = 0; rc == 0 && k < l.n; k++)
		selected[picks[k]] = true;
	free(picks);
	free(gpus);
	select_list_free(&l);
	return rc;
}
