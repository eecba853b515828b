/*
 * serve_usage.h: `gpuvet serve`'s summary and help, shared by the command itself (serve.c, in
 * the gpuvet-serve executable) and the stand-in that runs it (serve_exec.c, in gpuvet).
 */
#ifndef GPUVET_CMD_SERVE_USAGE_H
#define GPUVET_CMD_SERVE_USAGE_H

#define SERVE_SUMMARY "export GPU metrics and health to Prometheus over HTTP"

static const char serve_usage[] =
	"usage: gpuvet serve [--listen [ADDR]:PORT] [--web-config FILE] [--interval SEC]\n"
	"                    [--slow-interval SEC] [--doctor-interval SEC] [--dcgm-names]\n"
	"                    [--procs] [--max-connections N] [--timeout SEC]\n"
	"                    [--socket PATH | --no-socket] [--history[=DB]] [--json]\n"
	"\n"
	"A Prometheus exporter: GPU metrics at /metrics (text format, or OpenMetrics when the\n"
	"scraper asks), doctor's verdict at /healthz (200 ok, 503 failure). Values are collected\n"
	"on their own clock and cached, so any number of scrapers costs what one does; a value a\n"
	"GPU cannot give is absent, never 0. Nothing on the GPU is changed.\n"
	"\n"
	"options:\n"
	"  -l, --listen ADDR   [ADDR]:PORT to listen on (default 127.0.0.1:9849; :PORT for\n"
	"                      every address, PORT 0 for any free port)\n"
	"      --web-config FILE  TLS and basic authentication, in the Prometheus\n"
	"                      exporter-toolkit's web-config format (docs/cmd/serve.md)\n"
	"  -d, --interval SEC  the fast tier's tick: utilisation, memory, power, clocks...\n"
	"                      (default 1)\n"
	"      --slow-interval SEC  the slow tier's: traffic rates, energy, ECC, remapped rows,\n"
	"                      slowdown counters, the kernel log's Xids (default 5)\n"
	"      --doctor-interval SEC  run doctor's checks this often (default 60; 0: never)\n"
	"      --dcgm-names    also dcgm-exporter's DCGM_FI_* metrics, names and labels\n"
	"      --procs         per-process metrics (at most 64 per GPU)\n"
	"      --max-connections N  open connections at most (default 64)\n"
	"      --timeout SEC   close a connection idle this long (default 10)\n"
	"      --socket PATH   the local agent's Unix socket, which 'gpuvet status' asks first\n"
	"                      (default /run/gpuvet/agent.sock for root, else\n"
	"                      $XDG_RUNTIME_DIR/gpuvet/agent.sock)\n"
	"      --no-socket     no local agent\n"
	"      --history[=DB]  store the events seen (Xid, ECC and remap changes, throttle\n"
	"                      episodes, GPU lost) in the history database (docs/cmd/history.md)\n"
	"  -j, --json          one JSON line on start (address, pid) and one per change of\n"
	"                      doctor's verdict, on stdout\n"
	"  -h, --help          this help\n"
	"\n"
	"SIGTERM or Ctrl-C ends it with exit status 0.\n";

#endif
