/*
 * top_json.h: `gpuvet top --once --json`, the frame's data as one JSON object: the GPUs shown
 * with their values and what holds them back, and the processes as the table lists them
 * (filtered and sorted). A value the GPU does not give is absent, never 0. The keys are
 * documented in docs/cmd/top.md; the text frame is tui/frame.c, the command top.c.
 */
#ifndef GPUVET_TOP_JSON_H
#define GPUVET_TOP_JSON_H

#include <stdio.h>

#include "../gpu/collector.h"
#include "../tui/frame.h"

/* Write the object (indented, one trailing newline) to f; source says where the snapshot came
 * from ("agent" or "nvml", collector_source_name). */
void top_json_print(const struct mon_snapshot *s, const struct top_view *v, const char *source,
		    FILE *f);

#endif
