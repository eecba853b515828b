/*
 * scrub_addr.c: the recognisers of `record --scrub` (scrub.h): IPv4, IPv6 and MAC
 * addresses and UUIDs in free text. scrub.c decides what replaces them. The hard part is
 * what only looks like an address and must stay, because doctor reads it: PCI bus ids
 * ("0000:00:06.0"), driver and package versions ("580.159.04", "9.14.0.64-1",
 * "==9.19.0.56"), dates and times.
 */
#define _GNU_SOURCE
#include "scrub.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"
#include "scrub_int.h"

static bool is_hex(char c)
{
	return isxdigit((unsigned char)c) != 0;
}

/* "Version: 1.15.1.6", "\"version\": \"9.14.0.64\"": the word before a number says what it
 * is (CUDA's version.json lists four-part component versions). */
static bool after_version_word(const char *text, size_t at)
{
	size_t i = at, skipped = 0;

	while (i > 0 && scrub_in_set(text[i - 1], " \t:=\"'") && skipped < 6) {
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

		if (scrub_is_alnum(b) || scrub_in_set(b, "._+~"))
			return 0;
		/* "nvidia_cudnn_cu13-9.19.0.56": a versioned name */
		if (b == '-' && at > 1 && scrub_is_alnum(text[at - 2]))
			return 0;
		/* pip requirements: "==9.19.0.56", ">=1.2.3.4" */
		if (b == '=' && at > 1 && scrub_in_set(text[at - 2], "=<>!~"))
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
	if (scrub_is_alnum(p[i]) || p[i] == '_')
		return 0;
	if (scrub_in_set(p[i], ".-+~") && scrub_is_alnum(p[i + 1]))
		return 0;
	return i;
}

size_t scrub_ipv6_at(const char *text, size_t at)
{
	const char *p = text + at;
	char buf[64];
	unsigned char bin[16];
	size_t n = 0, colons = 0;

	if (at > 0 && (scrub_is_alnum(text[at - 1]) || scrub_in_set(text[at - 1], "_:.")))
		return 0;
	if (!is_hex(p[0]) && p[0] != ':')
		return 0;
	while ((is_hex(p[n]) || p[n] == ':' || p[n] == '.') && n < sizeof(buf) - 1) {
		colons += p[n] == ':';
		n++;
	}
	/* cut by a letter ("Dir::Etc", "std::vector"): a word, not an address */
	if (scrub_is_alnum(p[n]) || p[n] == '_')
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

	if (at > 0 && (scrub_is_alnum(text[at - 1]) || scrub_in_set(text[at - 1], ":-.")))
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
	if (groups < 6 || scrub_is_alnum(p[i]) || p[i] == '_')
		return 0;
	if ((p[i] == sep || p[i] == '.') && scrub_is_alnum(p[i + 1]))
		return 0;
	return i;
}

size_t scrub_uuid_at(const char *text, size_t at)
{
	static const size_t widths[] = {8, 4, 4, 4, 12};
	const char *p = text + at;
	size_t i = 0, g, k;

	if (at > 0 && scrub_is_alnum(text[at - 1]))
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
	if (scrub_is_alnum(p[i]) || p[i] == '_')
		return 0;
	return i;
}
