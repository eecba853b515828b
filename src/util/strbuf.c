/* strbuf.c: see strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->cap)
		return;
	while (sb->cap < need)
		sb->cap = sb->cap ? sb->cap * 2 : 64;
	sb->buf = xrealloc(sb->buf, sb->cap);
}

void sb_init(struct strbuf *sb)
{
	sb->buf = xmalloc(64);
	sb->cap = 64;
	sb->len = 0;
	sb->buf[0] = '\0';
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	grow(sb, n);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char probe[1]; /* not NULL: gcc 12 with -fsanitize=undefined -O1 warns "null format string" */
	int n;

	va_start(ap, fmt);
	n = vsnprintf(probe, sizeof(probe), fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

char *sb_detach(struct strbuf *sb)
{
	char *p = sb->buf;

	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return p;
}
