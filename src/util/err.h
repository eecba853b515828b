/*
 * err.h: the error value every layer below cmd/ returns, and the shared exit codes.
 *
 * Code under src/ never prints or exits on its own: a function that can fail returns -1 and
 * fills a struct err with a one-line message, an optional hint and the exit code the command
 * should end with. main.c and cmd/ decide what to show. The exit codes are documented in
 * docs/exit-codes.md; keep the two in step.
 */
#ifndef GPUVET_ERR_H
#define GPUVET_ERR_H

#include <stdarg.h>

enum exit_code {
	EXIT_OK = 0,	      /* everything checked is fine */
	EXIT_WARN = 1,	      /* at least one warning, no failure */
	EXIT_FAIL = 2,	      /* at least one failure found on the machine */
	EXIT_ERROR = 3,	      /* gpuvet itself could not do its job (bad file, internal error) */
	EXIT_USAGE = 4,	      /* bad command line */
	EXIT_UNAVAILABLE = 5, /* what the command needs is absent (no GPU, no library) */
	EXIT_INTERRUPTED = 130,
	EXIT_PIPE = 141, /* the reader of a stream went away (128 + SIGPIPE, as a shell reports) */
};

struct err {
	char msg[512];
	char hint[512];
	int code; /* enum exit_code */
};

/* Set the message (printf-style) and exit code; returns -1 so callers can `return err_set(...)`. */
int err_set(struct err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Add or replace the hint line. */
void err_hint(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void err_clear(struct err *e);

struct strbuf;
/* The lines a command prints for e: "gpuvet: error: MSG" and, when there is one, "gpuvet: hint:
 * HINT", control bytes made visible (util/quote.h); appended to sb. Returns the exit code to
 * use (EXIT_ERROR when e has none). main.c prints them; serve's agent sends them to its client. */
int err_format(const struct err *e, struct strbuf *sb);

#endif
