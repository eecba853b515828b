/*
 * serve_exec.c: `gpuvet serve` in the gpuvet executable: a stand-in that runs gpuvet-serve.
 *
 * serve's HTTP server links libmicrohttpd and, for TLS, gnutls, which brings eight more shared
 * libraries and runs its own set-up (ASN.1 tables, crypto back ends) in every process that
 * loads it: about 1 ms of every `gpuvet status`, which through serve's agent is otherwise a
 * socket round trip. So serve lives in its own executable, gpuvet-serve, built from the same
 * sources with serve.c in place of this file, and `gpuvet serve` hands it the whole command
 * line (global options included) through execv (cmd.c's cmd_exec_program finds it).
 */
#include "cmd.h"
#include "serve_usage.h"

const struct cmd cmd_serve = {
	.name = "serve",
	.summary = SERVE_SUMMARY,
	.usage = serve_usage,
	.program = "gpuvet-serve",
};
