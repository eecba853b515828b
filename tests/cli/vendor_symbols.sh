# vendor_symbols.sh: every vendor symbol gpuvet binds (the SYM tables of src/vendor/*.c) is
# called somewhere, the replay's fake NVML exports every name gpuvet may bind (so a replay can
# serve any driver the recording came from), and bench's fake CUDA, NCCL and cuBLASLt export at
# least one name of each symbol. Then the oldest binding, the unsuffixed process-list calls of
# drivers before 470, is replayed end to end.
. "$TOP/tests/cli/lib.sh"
need_tool jq "what a replayed record holds"
need_tool nm "the symbols the fake libraries export"
R="$TOP/$O/replay"
F="$TOP/$O/fakegpu"
syms() { # syms FILE: "field name name..." per SYM(...) entry, multi-line entries joined
	tr '\n' ' ' <"$1" | grep -o 'SYM([A-Za-z0-9_]*, *[a-z]*,[^)]*)' |
		sed -E 's/SYM\(([A-Za-z0-9_]+), *[a-z]+,(.*)\)/\1 \2/; s/[",]/ /g; s/  +/ /g' |
		grep -v '^field ' # the macro's own definition
}
for lib in nvml cuda cublaslt nccl; do
	syms "$TOP/src/vendor/$lib.c" >"$TMP/$lib.syms"
	n=$(wc -l <"$TMP/$lib.syms")
	[ "$n" -gt 3 ] && pass "$lib: $n bound symbols read" || fail "$lib: bound symbols read" "only $n"
	unused=
	while read -r field names; do
		if ! grep -rqw --include='*.c' --include='*.h' -- "$field" "$TOP/src" \
			--exclude="$lib.c" --exclude="$lib.h"; then
			unused="$unused $field"
		fi
	done <"$TMP/$lib.syms"
	[ -z "$unused" ] && pass "$lib: every bound symbol is called" ||
		fail "$lib: every bound symbol is called" "bound, never called:$unused"
done

exports() { nm -D --defined-only "$1" | awk '{ print $NF }' | sort -u; }
exports "$R/libnvidia-ml.so.1" >"$TMP/fake-nvml"
missing=
while read -r field names; do
	for n in $names; do grep -qx -- "$n" "$TMP/fake-nvml" || missing="$missing $n"; done
done <"$TMP/nvml.syms"
[ -z "$missing" ] && pass "the fake NVML exports every name gpuvet binds" ||
	fail "the fake NVML exports every name gpuvet binds" "missing:$missing"
for pair in cuda:libcuda.so.1 cublaslt:libcublasLt.so.13 nccl:libnccl.so.2; do
	lib=${pair%%:*}
	exports "$F/${pair#*:}" >"$TMP/fake-$lib"
	missing=
	while read -r field names; do
		found=
		for n in $names; do grep -qx -- "$n" "$TMP/fake-$lib" && found=1; done
		[ -n "$found" ] || missing="$missing $field"
	done <"$TMP/$lib.syms"
	[ -z "$missing" ] && pass "bench's fake $lib exports each symbol bench binds" ||
		fail "bench's fake $lib exports each symbol bench binds" "missing:$missing"
done

# a driver before 470: only the unsuffixed process calls and their shorter struct, which has
# no MIG instance ids (read as "none", 2^32-1, where the newer calls give 1 and 2)
cat >"$TMP/new.json" <<EOJ
{"gpuvet_recording": 1, "derive": "$SCEN/monitor/procs.json",
 "nvml": {"devices": {"0": {"nvmlDeviceGetComputeRunningProcesses": [0, [4242, 24696061952, 1, 2]]}}}}
EOJ
cat >"$TMP/old.json" <<EOJ
{"gpuvet_recording": 1, "derive": "$TMP/new.json",
 "libraries": {"nvml": {"missing": ["nvmlDeviceGetComputeRunningProcesses_v3",
  "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses_v3",
  "nvmlDeviceGetGraphicsRunningProcesses_v2"]}}}
EOJ
expect_exit "newer process calls: record" 0 "$GPUVET" --replay "$TMP/new.json" record "$TMP/again.json"
expect_jq "newer process calls: instance ids read" \
	'.nvml.devices[0]["nvmlDeviceGetComputeRunningProcesses"][1][2] == 1' "$TMP/again.json"
expect_exit "pre-470 process calls: record" 0 "$GPUVET" --replay "$TMP/old.json" record "$TMP/again.json"
expect_jq "pre-470 process calls: the process is read through them" \
	'.nvml.devices[0]["nvmlDeviceGetComputeRunningProcesses"][1][0] == 4242' "$TMP/again.json"
expect_jq "pre-470 process calls: no instance ids in the short struct" \
	'.nvml.devices[0]["nvmlDeviceGetComputeRunningProcesses"][1][2] == 4294967295' "$TMP/again.json"
done_testing
