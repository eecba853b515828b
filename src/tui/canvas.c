/* canvas.c: see canvas.h. */
#define _GNU_SOURCE
#include "canvas.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"

void canvas_init(struct canvas *cv, int w, int h)
{
	cv->w = w > 0 ? w : 1;
	cv->h = h > 0 ? h : 1;
	cv->cells = xcalloc((size_t)cv->w * (size_t)cv->h, sizeof(*cv->cells));
	canvas_clear(cv);
}

void canvas_free(struct canvas *cv)
{
	free(cv->cells);
	cv->cells = NULL;
	cv->w = cv->h = 0;
}

void canvas_clear(struct canvas *cv)
{
	size_t i, n = (size_t)cv->w * (size_t)cv->h;

	for (i = 0; i < n; i++) {
		cv->cells[i].ch = ' ';
		cv->cells[i].attr = 0;
	}
}

int canvas_put(struct canvas *cv, int x, int y, const char *s, unsigned char attr, int maxw)
{
	int n = 0;

	if (y < 0 || y >= cv->h || !s)
		return 0;
	for (; *s && x < cv->w && (maxw < 0 || n < maxw); s++, x++, n++) {
		unsigned char c = (unsigned char)*s;

		if (x < 0)
			continue;
		cv->cells[y * cv->w + x].ch = (c >= 0x20 && c < 0x7f) ? c : '?';
		cv->cells[y * cv->w + x].attr = attr;
	}
	return n;
}

int canvas_putf(struct canvas *cv, int x, int y, unsigned char attr, int maxw, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return canvas_put(cv, x, y, buf, attr, maxw);
}

void canvas_glyph(struct canvas *cv, int x, int y, unsigned char glyph, unsigned char attr)
{
	if (x < 0 || y < 0 || x >= cv->w || y >= cv->h)
		return;
	cv->cells[y * cv->w + x].ch = glyph;
	cv->cells[y * cv->w + x].attr = attr;
}

void canvas_attr(struct canvas *cv, int x, int y, int n, unsigned char attr)
{
	int i;

	if (y < 0 || y >= cv->h)
		return;
	for (i = 0; i < n; i++)
		if (x + i >= 0 && x + i < cv->w)
			cv->cells[y * cv->w + x + i].attr = attr;
}

void canvas_fill(struct canvas *cv, int x, int y, int w, int h, char ch, unsigned char attr)
{
	int i, j;

	for (j = y; j < y + h; j++)
		for (i = x; i < x + w; i++)
			if (i >= 0 && j >= 0 && i < cv->w && j < cv->h) {
				cv->cells[j * cv->w + i].ch = (unsigned char)ch;
				cv->cells[j * cv->w + i].attr = attr;
			}
}

const char *canvas_glyph_str(unsigned char ch, bool utf8)
{
	static const char *const blocks_utf8[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
						   "\u2585", "\u2586", "\u2587", "\u2588"};
	static const char *const blocks_ascii[8] = {"_", ".", ":", "-", "=", "+", "*", "#"};
	static char one[2];

	if (ch >= GLYPH_BLOCK1 && ch <= GLYPH_BLOCK8)
		return utf8 ? blocks_utf8[ch - GLYPH_BLOCK1] : blocks_ascii[ch - GLYPH_BLOCK1];
	if (ch == GLYPH_BAR)
		return utf8 ? "\u2588" : "|";
	if (ch == GLYPH_HLINE)
		return utf8 ? "\u2500" : "-";
	one[0] = (char)(ch < 0x80 ? ch : '?');
	one[1] = '\0';
	return one;
}

void canvas_text(const struct canvas *cv, bool utf8, struct strbuf *out)
{
	int x, y;

	for (y = 0; y < cv->h; y++) {
		int last = cv->w - 1;

		while (last >= 0 && cv->cells[y * cv->w + last].ch == ' ')
			last--;
		for (x = 0; x <= last; x++)
			sb_adds(out, canvas_glyph_str(cv->cells[y * cv->w + x].ch, utf8));
		sb_addc(out, '\n');
	}
}
