/*
 * term.h: how human output looks: colour only on a terminal (and never with NO_COLOR or
 * --color=never), the terminal's width, and a few ANSI styles.
 */
#ifndef GPUVET_TERM_H
#define GPUVET_TERM_H

#include <stdbool.h>
#include <stdio.h>

enum color_mode { COLOR_AUTO = 0, COLOR_ALWAYS, COLOR_NEVER };

void term_set_color_mode(enum color_mode m);
/* Should output to f be coloured? */
bool term_color(FILE *f);
/* Columns of the terminal on fd 1, or `fallback` when not a terminal. */
int term_width(int fallback);

/* ANSI sequences, or "" when colour is off for stdout. */
const char *c_red(void);
const char *c_yellow(void);
const char *c_green(void);
const char *c_cyan(void);
const char *c_bold(void);
const char *c_dim(void);
const char *c_reset(void);

#endif
