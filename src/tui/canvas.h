/*
 * canvas.h: a grid of character cells with attributes, drawn by tui/frame.c and shown either
 * by tui/tui.c (curses) or as plain text (`gpuvet top --once`). No curses here, so the layout
 * is the same in both and tests can read it.
 *
 * A cell holds an ASCII character or one of the few glyphs below (bars and plots), which the
 * front end turns into UTF-8 or ASCII depending on the terminal.
 */
#ifndef GPUVET_CANVAS_H
#define GPUVET_CANVAS_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/strbuf.h"

/* Glyphs: eighth blocks for plots (GLYPH_BLOCK1..8) and a full bar cell. */
enum {
	GLYPH_BLOCK1 = 0x80, /* U+2581 .. U+2588: GLYPH_BLOCK1 + k for k/8 (k = 0..7) */
	GLYPH_BLOCK8 = 0x87,
	GLYPH_BAR = 0x88,    /* a filled bar cell ('|' in ASCII) */
	GLYPH_HLINE = 0x89,  /* a horizontal rule ('-') */
};

/* Attributes: a colour role plus styles. Colour roles fall back to styles in monochrome. */
enum {
	ATTR_COLOR_MASK = 0x0f,
	COL_NONE = 0,
	COL_GOOD,   /* green */
	COL_WARN,   /* yellow */
	COL_BAD,    /* red */
	COL_ACCENT, /* cyan */
	COL_TITLE,  /* the title bar */
	COL_DIM,
	ATTR_BOLD = 0x10,
	ATTR_REVERSE = 0x20,
	ATTR_UNDERLINE = 0x40,
};

struct cell {
	unsigned char ch;
	unsigned char attr;
};

struct canvas {
	int w, h;
	struct cell *cells;
};

void canvas_init(struct canvas *cv, int w, int h);
void canvas_free(struct canvas *cv);
void canvas_clear(struct canvas *cv);
/* Write s at (x, y), clipped to the canvas and to at most maxw cells (maxw < 0: no limit);
 * returns the number of cells written. Non-printable bytes become '?'. */
int canvas_put(struct canvas *cv, int x, int y, const char *s, unsigned char attr, int maxw);
int canvas_putf(struct canvas *cv, int x, int y, unsigned char attr, int maxw, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
void canvas_glyph(struct canvas *cv, int x, int y, unsigned char glyph, unsigned char attr);
/* Set the attribute of a run of cells without changing the characters. */
void canvas_attr(struct canvas *cv, int x, int y, int n, unsigned char attr);
void canvas_fill(struct canvas *cv, int x, int y, int w, int h, char ch, unsigned char attr);
/* The text of the canvas, one line per row, trailing blanks removed; utf8 picks the glyphs. */
void canvas_text(const struct canvas *cv, bool utf8, struct strbuf *out);
/* How a glyph looks: UTF-8 or ASCII. */
const char *canvas_glyph_str(unsigned char ch, bool utf8);

#endif
