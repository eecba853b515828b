/* term.c: see term.h. */
#define _GNU_SOURCE
#include "term.h"

#include <stdint.h>

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util.h"

static enum color_mode mode = COLOR_AUTO;

void term_set_color_mode(enum color_mode m)
{
	mode = m;
}

bool term_color(FILE *f)
{
	const char *term = getenv("TERM");

	if (mode == COLOR_ALWAYS)
		return true;
	if (mode == COLOR_NEVER || getenv("NO_COLOR"))
		return false;
	if (!term || strcmp(term, "dumb") == 0)
		return false;
	return isatty(fileno(f));
}

int term_width(int fallback)
{
	struct winsize ws;
	int64_t cols;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (parse_i64(getenv("COLUMNS"), &cols) == 0 && cols > 20 && cols < 10000)
		return (int)cols;
	return fallback;
}

static const char *seq(const char *s)
{
	return term_color(stdout) ? s : "";
}

const char *c_red(void) { return seq("\033[31m"); }
const char *c_yellow(void) { return seq("\033[33m"); }
const char *c_green(void) { return seq("\033[32m"); }
const char *c_cyan(void) { return seq("\033[36m"); }
const char *c_bold(void) { return seq("\033[1m"); }
const char *c_dim(void) { return seq("\033[2m"); }
const char *c_reset(void) { return seq("\033[0m"); }
