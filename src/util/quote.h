/*
 * quote.h: machine strings made safe to show. A library path, a kernel release or a group
 * name comes from the machine, and whoever controls the machine (or a recording) chooses it:
 * pasted bare into a printed shell command, `$(...)` in it would run when the user pastes the
 * command; printed raw, an escape byte would drive the user's terminal. The counterpart is
 * quote.c.
 */
#ifndef GPUVET_QUOTE_H
#define GPUVET_QUOTE_H

#include "strbuf.h"

/*
 * Append word so that a POSIX shell reads it back as one word, unchanged: bare when it holds
 * only [A-Za-z0-9_@%+=:,./-] (and is not empty), else in single quotes, with each ' written as
 * '\''. Nothing in it is expanded: a value meant to be expanded by the shell, such as
 * $(uname -r), must not go through here.
 */
void quote_shell_add(struct strbuf *sb, const char *word);
/* The same as a new heap string (the caller frees it). */
char *quote_shell(const char *word);

/*
 * Append s with every byte that could drive a terminal made visible: control characters
 * (below 0x20, 0x7f) as \n, \t, \r or \xNN, the C1 controls U+0080..U+009F (which some
 * terminals obey, ESC [ written in one character) and bytes that are not valid UTF-8 as \xNN.
 * Valid UTF-8 text is left as it is; a backslash is left as it is.
 */
void quote_visible_add(struct strbuf *sb, const char *s);
/* The same as a new heap string (the caller frees it). */
char *quote_visible(const char *s);

#endif
