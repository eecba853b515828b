# basics.sh: the command line itself: version, help, unknown commands and options.
. "$TOP/tests/cli/lib.sh"

expect_exit "version exits 0" 0 "$GPUVET" --version
expect_grep "version prints the version" '^gpuvet [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/out"
expect_exit "help exits 0" 0 "$GPUVET" help
expect_grep "help lists doctor" '^  doctor ' "$TMP/out"
expect_exit "help for a command" 0 "$GPUVET" help status
expect_grep "status usage" '^usage: gpuvet status' "$TMP/out"
expect_exit "command --help" 0 "$GPUVET" doctor --help
expect_grep "doctor usage" '^usage: gpuvet doctor' "$TMP/out"
expect_exit "no command is a usage error" 4 "$GPUVET"
expect_exit "unknown command" 4 "$GPUVET" frobnicate
expect_grep "unknown command message" "unknown command 'frobnicate'" "$TMP/err"
expect_exit "unknown global option" 4 "$GPUVET" --bogus doctor
expect_exit "unknown command option" 4 "$GPUVET" status --bogus
expect_grep "usage hint names the command" "try 'gpuvet status --help'" "$TMP/err"
expect_exit "bad --color" 4 "$GPUVET" --color=sometimes doctor
expect_exit "root and replay together" 4 "$GPUVET" --root / --replay /dev/null doctor
expect_exit "missing replay file" 3 "$GPUVET" --replay "$TMP/nope.json" status
expect_grep "missing replay file message" "cannot read recording" "$TMP/err"

# library overrides name the file actually tried, and a failing library is a clear error
GPUVET_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$GPUVET" status >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 5 ]; then pass "GPUVET_NVML_LIBRARY missing file exits 5"; else fail "GPUVET_NVML_LIBRARY missing file exits 5" "got $rc"; fi
expect_grep "override path named" "cannot load NVML '/nonexistent/libnvidia-ml.so.1'" "$TMP/err"
expect_grep "hint points at doctor" "hint: run 'gpuvet doctor'" "$TMP/err"
GPUVET_NVML_LIBRARY="$TOP/$O/replay/libnvidia-ml.so.1" "$GPUVET" status >"$TMP/out" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 5 ]; then pass "override library is the one loaded"; else fail "override library is the one loaded" "got $rc"; fi
expect_grep "its init error is decoded" "nvmlInit_v2: NVML Shared Library Not Found \(12\)" "$TMP/err"
done_testing
