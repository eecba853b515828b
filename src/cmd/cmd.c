/*
 * cmd.c: option parsing shared by main.c and every command (declared in cmd.h).
 *
 * getopt_long's own messages name the program as argv[0] (the command's name, since main.c
 * hands each command its own argv), name long-only options by their internal letters and come
 * before our error line. cmd_getopt keeps getopt quiet and says, in one "gpuvet: error:" line,
 * which option was wrong as the user typed it, then the usual hint.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/err.h"
#include "../util/util.h"
#include "cmd.h"

/* The long option a typed name (without "--" and "=value") stands for: the exact name, else
 * the one option it abbreviates. NULL when none; *ambiguous when it abbreviates several (two
 * spellings of one option, such as --color and --colour, are one). */
static const struct option *long_named(const struct option *longopts, const char *name, size_t len,
				       const struct option **other)
{
	const struct option *o, *hit = NULL;

	*other = NULL;
	for (o = longopts; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
			return o;
	for (o = longopts; o && o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (!hit)
			hit = o;
		else if (!*other &&
			 (o->has_arg != hit->has_arg || o->val != hit->val || o->flag != hit->flag))
			*other = o;
	}
	return hit;
}

/* What was wrong with the long option in arg ("--name" or "--name=value"). */
static void long_error(const char *arg, const struct option *longopts, bool arg_problem,
		       struct err *e)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *other, *o = long_named(longopts, name, len, &other);
	char full[96] = "";
	int shown = len > 60 ? 60 : (int)len;

	if (!o) {
		err_set(e, EXIT_USAGE, "unknown option '--%.*s'", shown, name);
		return;
	}
	if (other) {
		err_set(e, EXIT_USAGE, "ambiguous option '--%.*s': --%s or --%s", shown, name,
			o->name, other->name);
		return;
	}
	if (strlen(o->name) != len)
		str_fmt(full, sizeof(full), " (--%s)", o->name);
	if (arg_problem && eq && o->has_arg == no_argument)
		err_set(e, EXIT_USAGE, "option '--%.*s'%s takes no value", shown, name, full);
	else if (arg_problem && o->has_arg == required_argument)
		err_set(e, EXIT_USAGE, "option '--%.*s'%s needs a value", shown, name, full);
	else
		err_set(e, EXIT_USAGE, "bad option '--%.*s'", shown, name);
}

int cmd_getopt(const struct cmd *c, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	int before = optind, opt;
	const char *known;
	struct err e;

	opterr = 0;
	optopt = 0;
	opt = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (opt != '?' && opt != ':')
		return opt;
	err_clear(&e);
	/* Long options always move optind past their word; an unknown or ambiguous one leaves
	 * optopt 0, a bad value sets it to the option's value. A short option's error leaves
	 * argv[optind - 1] at its own word ("-jx"), at a skipped non-option or, in the middle of
	 * a group, at the word before, which cannot start with "--" unless nothing was skipped:
	 * then optind has not moved. */
	if (optind > 0 && optind <= argc &&
	    (optopt == 0 || (optind > before && strncmp(argv[optind - 1], "--", 2) == 0))) {
		long_error(argv[optind - 1], longopts, optopt != 0, &e);
	} else {
		char shown[8];

		if (isprint((unsigned char)optopt))
			str_fmt(shown, sizeof(shown), "-%c", optopt);
		else
			str_fmt(shown, sizeof(shown), "-\\x%02x", (unsigned)(unsigned char)optopt);
		known = optopt && optopt != ':' && optopt != '+' ? strchr(shortopts, optopt) : NULL;
		if (known && known[1] == ':')
			err_set(&e, EXIT_USAGE, "option '%s' needs a value", shown);
		else
			err_set(&e, EXIT_USAGE, "unknown option '%s'", shown);
	}
	if (c)
		err_hint(&e, "try 'gpuvet %s --help'", c->name);
	else
		err_hint(&e, "try 'gpuvet help'");
	cmd_report_error(&e);
	return CMD_OPT_ERROR;
}

/* c->program's path: GPUVET_SERVE_BIN when set (the only such program is gpuvet-serve), else
 * next to this executable (the build folder, ./), else in ../lib/gpuvet/ (where make install
 * puts it, as the replay libraries). */
static int find_program(const struct cmd *c, char *out, size_t n)
{
	static const char *const rel[] = {"", "../lib/gpuvet/"};
	const char *env = getenv("GPUVET_SERVE_BIN");
	char exe[PATH_MAX];
	ssize_t len;
	char *slash;
	size_t i;

	if (env && *env) {
		str_copy(out, env, n);
		return 0;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0) {
		str_copy(out, c->program, n);
		return -1;
	}
	exe[len] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < ARRAY_SIZE(rel); i++) {
		str_fmt(out, n, "%s/%s%s", exe, rel[i], c->program);
		if (access(out, X_OK) == 0)
			return 0;
	}
	str_fmt(out, n, "%s/%s", exe, c->program);
	errno = ENOENT;
	return -1;
}

int cmd_exec_program(const struct cmd *c, int argc, char **argv)
{
	char path[PATH_MAX];
	struct err e;

	(void)argc;
	err_clear(&e);
	if (find_program(c, path, sizeof(path)) == 0) {
		fflush(NULL);
		execv(path, argv);
	}
	err_set(&e, EXIT_ERROR, "cannot run %s for 'gpuvet %s': %s", path, c->name,
		errno ? strerror(errno) : "not found");
	err_hint(&e, "%s is built and installed with gpuvet (make; make install puts it in "
		     "PREFIX/lib/gpuvet/); GPUVET_SERVE_BIN names it", c->program);
	return cmd_report_error(&e);
}
