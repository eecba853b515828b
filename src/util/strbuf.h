/*
 * strbuf.h: a growable, always NUL-terminated string, for building output and file contents.
 */
#ifndef GPUVET_STRBUF_H
#define GPUVET_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf; /* never NULL after sb_init */
	size_t len;
	size_t cap;
};

void sb_init(struct strbuf *sb);
void sb_release(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the buffer to the caller (who frees it) and reset the strbuf. */
char *sb_detach(struct strbuf *sb);

#endif
