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
# help and version are commands as the others: --help prints their usage (issue 10, bug 8: the
# old binary took "--help" for a command name), version --json prints data as JSON
expect_exit "help --help" 0 "$GPUVET" help --help
expect_grep "help --help prints help's usage" '^usage: gpuvet help \[COMMAND\]' "$TMP/out"
expect_exit "help -h" 0 "$GPUVET" help -h
expect_grep "help -h prints help's usage" '^usage: gpuvet help' "$TMP/out"
expect_exit "help help" 0 "$GPUVET" help help
expect_grep "help help prints help's usage" '^usage: gpuvet help' "$TMP/out"
expect_exit "help with two commands" 4 "$GPUVET" help status doctor
expect_exit "version --help" 0 "$GPUVET" version --help
expect_grep "version --help prints its usage" '^usage: gpuvet version \[--json\]' "$TMP/out"
expect_exit "version --json" 0 "$GPUVET" version --json
if command -v jq >/dev/null 2>&1; then
	expect_jq "version --json: the version" '.version | test("^[0-9]+\\.[0-9]+\\.[0-9]+$")' "$TMP/out"
else
	expect_grep "version --json: the version" '^\{"version": "[0-9]+\.[0-9]+\.[0-9]+"\}$' "$TMP/out"
fi
expect_exit "version with an unknown option" 4 "$GPUVET" version --bogus
"$GPUVET" --help >"$TMP/out" 2>&1
expect_grep "gpuvet --help names the environment page" 'environment: .*docs/environment\.md' "$TMP/out"
expect_grep "gpuvet --help names exit code 130" '130 interrupted' "$TMP/out"

# a root that does not exist says where it came from: the variable or the option (bug 8)
GPUVET_ROOT="$TMP/nonexistent" expect_exit "GPUVET_ROOT that does not exist" 4 "$GPUVET" doctor
expect_grep "GPUVET_ROOT: the error names the variable" "^gpuvet: error: GPUVET_ROOT \(set in the environment\): root '$TMP/nonexistent' is not a directory" "$TMP/err"
expect_grep "GPUVET_ROOT: the hint says to unset it" "hint: unset GPUVET_ROOT" "$TMP/err"
GPUVET_ROOT="$TMP/nonexistent" expect_exit "--root wins over GPUVET_ROOT" 4 "$GPUVET" --root "$TMP/nope2" doctor
expect_grep "--root: the error names the option" "^gpuvet: error: --root: root '$TMP/nope2' is not a directory" "$TMP/err"
expect_no_grep "--root: not the variable" "GPUVET_ROOT" "$TMP/err"
GPUVET_ROOT= expect_exit "an empty GPUVET_ROOT is no root" 0 "$GPUVET" --version

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
