/* frame_int.h: what the parts of the top screen (frame.c, frame_procs.c, frame_overlay.c)
 * share. */
#ifndef GPUVET_FRAME_INT_H
#define GPUVET_FRAME_INT_H

#include "frame.h"

/* The process table in rows y .. y+h-1 (header included); returns the rows used. */
int frame_draw_procs(struct canvas *cv, const struct mon_snapshot *s, struct top_view *v, int y,
		     int h);

/* The overlays, drawn last, over the middle of the screen. */
void frame_draw_help(struct canvas *cv);
void frame_draw_confirm(struct canvas *cv, const struct top_view *v);
void frame_draw_menu(struct canvas *cv, const struct top_view *v);

#endif
