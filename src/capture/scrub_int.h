/*
 * scrub_int.h: what the parts of `record --scrub` share; not for use outside
 * src/capture/scrub*.c. scrub_learn.c fills the map of replacements from the recording,
 * scrub.c rewrites the recording with it, scrub_addr.c recognises addresses and UUIDs
 * (its functions are in scrub.h, for the unit tests).
 */
#ifndef GPUVET_SCRUB_INT_H
#define GPUVET_SCRUB_INT_H

#include <ctype.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

enum scrub_kind {
	K_USER,
	K_GROUP,
	K_HOST,
	K_DOMAIN,
	K_SERIAL,
	K_DISK,
	K_UUID,
	K_IPV4,
	K_IPV6,
	K_MAC,
	K_COUNT
};

struct scrub_item {
	char *from; /* as found (names, compared without case), or normalised (addresses) */
	char *to;
	enum scrub_kind kind;
	bool word; /* replaced as a whole word anywhere, not only in its own places */
};

struct scrub {
	struct scrub_item *items;
	size_t n;
	unsigned next[K_COUNT];
	size_t *words; /* indices of the name items, longest first (items grows while
			* rewriting: pointers into it would not last) */
	size_t nwords;
	bool keep_uuids; /* the string names EFI variables: their vendor GUIDs name no machine */
	bool own_place;	 /* the string is where names belong (uname, /etc/hostname, $USER): names
			  * that are not words anywhere are replaced here too */
};

static inline bool scrub_is_alnum(char c)
{
	return isalnum((unsigned char)c) != 0;
}

static inline bool scrub_in_set(char c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

/* The item for (k, from[0..len)), compared without case; NULL when there is none. */
struct scrub_item *scrub_find(struct scrub *s, enum scrub_kind k, const char *from, size_t len);
/* The item for from, made on first sight with the next free placeholder of its kind, or
 * with to when given (GPU i keeps NVML index i). The pointer lasts until the next call. */
struct scrub_item *scrub_assign(struct scrub *s, enum scrub_kind k, const char *from, size_t len,
				const char *to, bool word);
/* Whether s is one of the placeholders ("user3", "domain1.example", ...). */
bool scrub_name_is_placeholder(const char *s);
/* The length of the user or group name at the start of s (letters, digits, '.', '_', '-'). */
size_t scrub_name_len(const char *s);
/* Whether the 36 characters at u are a placeholder UUID (00000000-0000-0000-0000-<digits>). */
bool scrub_uuid_is_placeholder(const char *u);
/* The first pass: everything to hide that the recording names, into s. */
void scrub_learn(struct scrub *s, json_t *doc);

#endif
