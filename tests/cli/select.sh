# select.sh: every command that selects GPUs reads -i/--id the same way (gpu/select.c), and every
# command that needs NVML says the same thing when it cannot have it (gpu/libcheck.c).
# The machine: the 2 x H200 bench skeleton (NVML and CUDA answers) with GPU 1's UUID changed so
# that "GPU-94c2" starts both UUIDs and "GPU-94c2f" only GPU 1's.
. "$TOP/tests/cli/lib.sh"
need_tool jq "the selected GPUs in JSON"
cat >"$TMP/m.json" <<EOF
{"gpuvet_recording": 1, "derive": "$TOP/tests/bench/h200x2-skeleton.json",
 "nvml": {"devices": {"1": {"nvmlDeviceGetUUID": [0, "GPU-94c2ffff-0000-1111-2222-333344445555"]}}}}
EOF

# sel_run CMD IDS: run a selecting command on the machine with -i IDS (top and watch call it -g)
sel_run() {
	case $1 in
	status) "$GPUVET" --replay "$TMP/m.json" status -i "$2" --json ;;
	watch) "$GPUVET" --replay "$TMP/m.json" watch -c 1 -d 0.1 -i "$2" --json -f sm ;;
	top) "$GPUVET" --replay "$TMP/m.json" top --once -d 0.1 -g "$2" ;;
	bench) "$GPUVET" --replay "$TMP/m.json" bench memory -i "$2" ;;
	esac >"$TMP/out" 2>"$TMP/err"
}

# selected CMD: the GPU indexes the command showed, comma-separated
selected() {
	case $1 in
	status) jq -r '[.gpus[].index] | map(tostring) | join(",")' "$TMP/out" ;;
	watch) jq -rs '[.[] | select(.kind == "gpu") | .gpu] | map(tostring) | join(",")' "$TMP/out" ;;
	top) sed -n 's/^ GPU \([0-9]*\) .*/\1/p' "$TMP/out" | paste -sd, - ;;
	esac
}

# A unique start of a UUID, a short bus id and a mixed list select the same GPUs everywhere.
for c in status watch top; do
	for case in "GPU-94c2f:1" "gpu-94C2B:0" "00:07.0:1" "0000:00:06.0,GPU-94c2f:0,1"; do
		ids=${case%:*}
		want=${case##*:}
		sel_run $c "$ids"
		rc=$?
		got=$(selected $c 2>/dev/null)
		if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
			pass "$c -i $ids selects GPU $want"
		else
			fail "$c -i $ids selects GPU $want" "exit $rc, GPUs '$got'; $(head -c 300 "$TMP/err")"
		fi
	done
done
# bench cannot measure on a replay: the ids are accepted when it gets as far as saying so
for ids in GPU-94c2f gpu-94C2B 00:07.0 0000:00:06.0,GPU-94c2f; do
	expect_exit "bench -i $ids: gets past the selection" 5 sel_run bench "$ids"
	expect_grep "bench -i $ids: stops only for the replay" "needs a real GPU" "$TMP/err"
done

# Each bad list gives the same two lines (error, hint) and exit 4 from every command.
for ids in GPU-94c2 7 0,0 "0,,1" "" foo; do
	sel_run status "$ids"
	cp "$TMP/err" "$TMP/want"
	for c in status watch top bench; do
		sel_run $c "$ids"
		rc=$?
		if [ "$rc" -eq 4 ] && [ "$(wc -l <"$TMP/err")" -eq 2 ] && cmp -s "$TMP/err" "$TMP/want" &&
			grep -q '^gpuvet: hint: ' "$TMP/err"; then
			pass "$c -i '$ids': the same error and hint as status"
		else
			fail "$c -i '$ids': the same error and hint as status" \
				"exit $rc; $(head -c 300 "$TMP/err") / status: $(head -c 200 "$TMP/want")"
		fi
	done
done
sel_run status GPU-94c2
expect_grep "an ambiguous start names the GPUs it matches" \
	"^gpuvet: error: 'GPU-94c2' matches more than one GPU \(0 and 1\)$" "$TMP/err"
expect_grep "ambiguous: the hint asks for more of the UUID" "^gpuvet: hint: give more of the UUID" "$TMP/err"
sel_run status 0,GPU-94c2b
expect_grep "a GPU named twice" "^gpuvet: error: GPU 0 is named twice \('0' and 'GPU-94c2b'\)$" "$TMP/err"

# NVML that cannot be used: the same message from status, topo, top and watch, naming the file
# that was loaded or tried and why it failed.
nvml_same() { # NAME WANT-PATTERN ARGS...: each command exits 5 with the same stderr
	name=$1; want=$2; shift 2
	"$@" status >"$TMP/out" 2>"$TMP/want"
	expect_grep "$name: status names the file and the reason" "$want" "$TMP/want"
	for c in topo "top --once" "watch -c 1"; do
		# shellcheck disable=SC2086
		"$@" $c >"$TMP/out" 2>"$TMP/err"
		rc=$?
		if [ "$rc" -eq 5 ] && cmp -s "$TMP/err" "$TMP/want"; then
			pass "$name: $c says what status says"
		else
			fail "$name: $c says what status says" \
				"exit $rc; $(head -c 300 "$TMP/err") / status: $(head -c 300 "$TMP/want")"
		fi
	done
}
echo '{"gpuvet_recording": 1}' >"$TMP/bare.json"
nvml_same "replay without NVML" "^gpuvet: error: cannot load NVML 'libnvidia-ml.so.1': " \
	"$GPUVET" --replay "$TMP/bare.json"
nvml_same "a library without a required symbol" \
	"^gpuvet: error: cannot load NVML: .*'/usr/local/nvidia/lib64/libnvidia-ml.so.580.159.04' lacks required symbol nvmlDeviceGetCount_v2$" \
	"$GPUVET" --replay "$SCEN/faults/nvml-missing-required-symbol.json"
nvml_same "GPUVET_NVML_LIBRARY names a missing file" \
	"^gpuvet: error: cannot load NVML '$TMP/none/libnvidia-ml.so.1': " \
	env GPUVET_NVML_LIBRARY="$TMP/none/libnvidia-ml.so.1" "$GPUVET"
nvml_same "nvmlInit fails" "^gpuvet: error: nvmlInit_v2: Driver Not Loaded \(9\)$" \
	"$GPUVET" --replay "$SCEN/faults/row02-module-not-loaded.json"
done_testing
