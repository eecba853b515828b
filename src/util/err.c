/* err.c: filling struct err (see err.h). */
#include "err.h"

#include <stdio.h>
#include <string.h>

#include "quote.h"
#include "strbuf.h"

int err_set(struct err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = code;
	return -1;
}

void err_hint(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->hint, sizeof(e->hint), fmt, ap);
	va_end(ap);
}

void err_clear(struct err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

int err_format(const struct err *e, struct strbuf *sb)
{
	/* messages quote paths, library errors and driver answers: no control byte gets out */
	sb_adds(sb, "gpuvet: error: ");
	quote_visible_add(sb, e->msg[0] ? e->msg : "unknown error");
	sb_addc(sb, '\n');
	if (e->hint[0]) {
		sb_adds(sb, "gpuvet: hint: ");
		quote_visible_add(sb, e->hint);
		sb_addc(sb, '\n');
	}
	return e->code ? e->code : EXIT_ERROR;
}
