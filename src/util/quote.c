/* quote.c: see quote.h. */
#include "quote.h"

#include <stdbool.h>
#include <string.h>

static bool shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_@%+=:,./-", c));
}

void quote_shell_add(struct strbuf *sb, const char *word)
{
	const char *p;

	for (p = word; *p && shell_safe((unsigned char)*p); p++)
		;
	if (word[0] && !*p) {
		sb_adds(sb, word);
		return;
	}
	sb_addc(sb, '\'');
	for (p = word; *p; p++) {
		if (*p == '\'')
			sb_adds(sb, "'\\''"); /* close, an escaped quote, reopen */
		else
			sb_addc(sb, *p);
	}
	sb_addc(sb, '\'');
}

char *quote_shell(const char *word)
{
	struct strbuf sb;

	sb_init(&sb);
	quote_shell_add(&sb, word);
	return sb_detach(&sb);
}

/* The length of the valid UTF-8 sequence at s (2 to 4), or 0: overlong forms, surrogates,
 * code points past U+10FFFF and cut sequences are not valid (RFC 3629). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void add_hex(struct strbuf *sb, unsigned char c)
{
	static const char digits[] = "0123456789abcdef";
	char x[4] = {'\\', 'x', digits[c >> 4], digits[c & 15]};

	sb_add(sb, x, sizeof(x));
}

void quote_visible_add(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n;

		if (*p == '\n') {
			sb_adds(sb, "\\n");
		} else if (*p == '\t') {
			sb_adds(sb, "\\t");
		} else if (*p == '\r') {
			sb_adds(sb, "\\r");
		} else if (*p < 0x20 || *p == 0x7f) {
			add_hex(sb, *p);
		} else if (*p < 0x80) {
			sb_addc(sb, (char)*p);
		} else if ((n = utf8_len(p)) == 0) {
			add_hex(sb, *p);
		} else if (p[0] == 0xc2 && p[1] < 0xa0) {
			/* U+0080..U+009F: C1 controls (U+009B is a one-character CSI) */
			add_hex(sb, p[0]);
			add_hex(sb, p[1]);
			p += 2;
			continue;
		} else {
			sb_add(sb, (const char *)p, n);
			p += n;
			continue;
		}
		p++;
	}
}

char *quote_visible(const char *s)
{
	struct strbuf sb;

	sb_init(&sb);
	quote_visible_add(&sb, s);
	return sb_detach(&sb);
}
