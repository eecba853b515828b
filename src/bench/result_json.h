/* result_json.h: a benchmark run as JSON (result_json.c); the schema is in docs/bench.md. */
#ifndef GPUVET_BENCH_RESULT_JSON_H
#define GPUVET_BENCH_RESULT_JSON_H

#include <jansson.h>

struct bench_result;
struct bench_run;

json_t *bench_result_json(const struct bench_result *r);
/* {"results": [...], "summary": [...], "notes": [...], "plots": [...], "interrupted": b,
 *  "unverified": n}; the caller owns the reference. */
json_t *bench_run_json(const struct bench_run *run);

#endif
