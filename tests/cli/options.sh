# options.sh: a bad option, global or a command's, gives one "gpuvet: error:" line naming it as
# typed and one hint line, and exit 4 (cmd_getopt in src/cmd/cmd.c); getopt says nothing itself.
. "$TOP/tests/cli/lib.sh"
REC="$SCEN/h200x2.json"

# bad_option NAME WANT-ERROR HINT-COMMAND ARGS...: exit 4, stderr exactly the error and the hint
bad_option() {
	name=$1; want=$2; hint=$3; shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	printf 'gpuvet: error: %s\ngpuvet: hint: try %s\n' "$want" "$hint" >"$TMP/want"
	if [ "$rc" -eq 4 ] && cmp -s "$TMP/err" "$TMP/want"; then
		pass "$name"
	else
		fail "$name" "exit $rc; stderr: $(head -c 300 "$TMP/err")"
	fi
}

# global options: never an internal letter
bad_option "--color without a value" "option '--color' needs a value" "'gpuvet help'" \
	"$GPUVET" --color
bad_option "--colour without a value" "option '--colour' needs a value" "'gpuvet help'" \
	"$GPUVET" --colour
bad_option "--col abbreviates --color" "option '--col' (--color) needs a value" "'gpuvet help'" \
	"$GPUVET" --col
bad_option "--replay without a value" "option '--replay' needs a value" "'gpuvet help'" \
	"$GPUVET" --replay
bad_option "--root without a value" "option '--root' needs a value" "'gpuvet help'" \
	"$GPUVET" --root
bad_option "--ver is ambiguous" "ambiguous option '--ver': --version or --verbose" "'gpuvet help'" \
	"$GPUVET" --ver status
bad_option "unknown global option" "unknown option '--bogus'" "'gpuvet help'" \
	"$GPUVET" --bogus doctor
bad_option "unknown global option with a value" "unknown option '--bogus'" "'gpuvet help'" \
	"$GPUVET" --bogus=1 doctor
bad_option "unknown short global option" "unknown option '-c'" "'gpuvet help'" \
	"$GPUVET" -c always doctor
bad_option "--version takes no value" "option '--version' takes no value" "'gpuvet help'" \
	"$GPUVET" --version=2
bad_option "--color with a bad value" "--color takes auto, always or never, not 'sometimes'" \
	"'gpuvet help'" "$GPUVET" --color=sometimes doctor

# every command: an unknown long and short option, one error line and one hint
for c in bench doctor record status top topo watch; do
	bad_option "$c: unknown option" "unknown option '--bogus'" "'gpuvet $c --help'" \
		"$GPUVET" --replay "$REC" $c --bogus
	bad_option "$c: unknown short option" "unknown option '-Z'" "'gpuvet $c --help'" \
		"$GPUVET" --replay "$REC" $c -Z
	bad_option "$c: unknown short option in a group" "unknown option '-Z'" "'gpuvet $c --help'" \
		"$GPUVET" --replay "$REC" $c -Zh
	bad_option "$c: --help takes no value" "option '--help' takes no value" "'gpuvet $c --help'" \
		"$GPUVET" --replay "$REC" $c --help=yes
done

# options that need a value, long (named as typed, with the name it abbreviates) and short
bad_option "status --query without a value" "option '--query' needs a value" \
	"'gpuvet status --help'" "$GPUVET" --replay "$REC" status --query
bad_option "status --query-gpu without a value" "option '--query-gpu' needs a value" \
	"'gpuvet status --help'" "$GPUVET" --replay "$REC" status --query-gpu
bad_option "status -i without a value" "option '-i' needs a value" \
	"'gpuvet status --help'" "$GPUVET" --replay "$REC" status -i
bad_option "status --form abbreviates --format" "option '--form' (--format) needs a value" \
	"'gpuvet status --help'" "$GPUVET" --replay "$REC" status --query index --form
bad_option "status --hel is ambiguous" "ambiguous option '--hel': --help-query or --help" \
	"'gpuvet status --help'" "$GPUVET" --replay "$REC" status --hel
bad_option "status -ji: -i in a group without a value" "option '-i' needs a value" \
	"'gpuvet status --help'" "$GPUVET" --replay "$REC" status -ji
bad_option "watch --interval without a value" "option '--interval' needs a value" \
	"'gpuvet watch --help'" "$GPUVET" --replay "$REC" watch -c 1 --interval
bad_option "watch --id without a value" "option '--id' needs a value" \
	"'gpuvet watch --help'" "$GPUVET" --replay "$REC" watch --id
bad_option "top --delay without a value" "option '--delay' needs a value" \
	"'gpuvet top --help'" "$GPUVET" --replay "$REC" top --once --delay
bad_option "top --width without a value" "option '--width' needs a value" \
	"'gpuvet top --help'" "$GPUVET" --replay "$REC" top --once --width
bad_option "bench --size without a value" "option '--size' needs a value" \
	"'gpuvet bench --help'" "$GPUVET" --replay "$REC" bench memory --size
bad_option "bench -i without a value" "option '-i' needs a value" \
	"'gpuvet bench --help'" "$GPUVET" --replay "$REC" bench memory -i
bad_option "record --message without a value" "option '--message' needs a value" \
	"'gpuvet record --help'" "$GPUVET" --replay "$REC" record "$TMP/r.json" --message
bad_option "topo --json takes no value" "option '--json' takes no value" \
	"'gpuvet topo --help'" "$GPUVET" --replay "$REC" topo --json=1
bad_option "doctor --json takes no value" "option '--json' takes no value" \
	"'gpuvet doctor --help'" "$GPUVET" --replay "$REC" doctor --json=yes

# what the user typed is echoed with its control bytes escaped
esc=$(printf '\033')
"$GPUVET" --replay "$REC" status "--x${esc}[2J" >"$TMP/out" 2>"$TMP/err"
expect_no_grep "a typed escape is not echoed raw" "$esc" "$TMP/err"
expect_grep "a typed escape is shown escaped" "unknown option '--x\\\\x1b\[2J'" "$TMP/err"
done_testing
