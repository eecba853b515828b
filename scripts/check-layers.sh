#!/bin/sh
# check-layers.sh [SRC]: every `#include "..."` in SRC (default: the repository's src/) points
# down the layer order, or within its own folder. Prints each include against it as
# FILE:LINE: #include "...": why, and exits 1 when there is any; run by tests/cli/layers.sh.
#
# The order, bottom up (a folder may include its own files and those of lower ranks only; folders
# of one rank do not include each other):
#
#   0  util/ kernels/ version.h   helpers, the GPU kernels' shared header, the version
#   1  capture/                   the recorder: util/ and the JSON library only, so any layer may
#                                 report what it reads
#   2  vendor/ host/              the vendor libraries; what the OS says
#   3  gpu/                       the device model, built on vendor/ and host/
#   4  checks/ bench/ tui/        doctor's checks, the benchmarks, the terminal UI;
#                                 view/: what `status` shows, rendered from a gpu_system;
#                                 history/: the history database (SQLite), its events from the
#                                 collector's snapshots and the kernel log (gpu/, host/)
#   5  replay/ burn/              a recording served to host/ and vendor/; burn's stress run and
#                                 verdict, built on bench/, gpu/ and checks/finding.h;
#                                 advise/: advise's sampler, timeline and diagnosis (gpu/, host/,
#                                 checks/finding.h); serve/: the exporter and the local agent
#                                 (gpu/'s collector, checks/'s doctor, host/'s kernel log, view/);
#                                 fleet/: doctor --slurm's rules and processes (checks/)
#   6  cmd/                       the commands, the only code that prints
#   7  main.c
#
# And NVML and CUDA stay behind the device model: checks/ and tui/ never include vendor/ (gpu/
# decodes vendor return codes into reasons, gpu/reason.h). A new folder under src/ has no rank
# until it is given one below: the check says so.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$top/src}
cd "$src" || exit 2
find . -type f \( -name '*.c' -o -name '*.h' \) | sed 's|^\./||' | LC_ALL=C sort |
	xargs awk -v shown="${1:-src}" '
function rank(layer) {
	if (layer == "util" || layer == "kernels" || layer == "version") return 0
	if (layer == "capture") return 1
	if (layer == "vendor" || layer == "host") return 2
	if (layer == "gpu") return 3
	if (layer == "checks" || layer == "bench" || layer == "tui" || layer == "view" ||
	    layer == "history") return 4
	if (layer == "replay" || layer == "burn" || layer == "advise" || layer == "serve" ||
	    layer == "fleet") return 5
	if (layer == "cmd") return 6
	if (layer == "main") return 7
	return -1
}
# the folder a path under src/ belongs to; a file at the top is its own layer (main, version)
function layer_of(path,   name) {
	if (index(path, "/")) return substr(path, 1, index(path, "/") - 1)
	name = path
	sub(/\.[ch]$/, "", name)
	return name
}
# dir/inc with "." and ".." folded; "" when it climbs out of src/
function resolve(dir, inc,   path, n, a, i, k, st, out) {
	path = dir == "" ? inc : dir "/" inc
	n = split(path, a, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "" || a[i] == ".") continue
		if (a[i] == "..") { if (k == 0) return ""; k--; continue }
		st[++k] = a[i]
	}
	out = st[1]
	for (i = 2; i <= k; i++) out = out "/" st[i]
	return out
}
function exists(path,   line, r) {
	r = (getline line < path)
	close(path)
	return r >= 0
}
function report(why) {
	printf "%s/%s:%d: %s: %s\n", shown, FILENAME, FNR, $0, why
	bad++
}
FNR == 1 && rank(layer_of(FILENAME)) < 0 {
	printf "%s/%s: src/%s has no layer: give it one in scripts/check-layers.sh\n", shown, FILENAME, layer_of(FILENAME)
	bad++
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*$/, "", inc)
	from = layer_of(FILENAME)
	dir = FILENAME
	if (!sub(/\/[^\/]*$/, "", dir)) dir = ""
	target = resolve(dir, inc)
	if (rank(from) < 0) next
	if (target == "" || !exists(target)) { report("names no file under src/"); next }
	to = layer_of(target)
	if (to == from) next
	if (rank(to) < 0) { report("src/" to " has no layer: give it one in scripts/check-layers.sh"); next }
	if (to == "vendor" && (from == "checks" || from == "tui")) {
		report(from " may not include vendor (NVML and CUDA stay behind gpu/)")
		next
	}
	if (rank(to) >= rank(from))
		report(from " may not include " to " (" (rank(to) == rank(from) ? "same rank" : "a layer above it") ")")
}
END {
	if (bad) {
		printf "%d include%s against the layer order (scripts/check-layers.sh)\n", bad, bad == 1 ? "" : "s"
		exit 1
	}
}' || exit 1
