# watch_dmon.sh: `gpuvet watch` takes the options a `nvidia-smi dmon` user types (issue 10):
# -i IDS selects GPUs (-g stays as a hidden alias), -d SEC is the interval, -s GROUPS picks the
# metric groups in dmon's column order, -o D/T/DT puts the date and time in front; the media
# engines' columns (enc dec jpg ofa) where a GPU has them, '-' where not, asked once; Ctrl-C
# and SIGTERM end it at once with 130.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
M="$SCEN/monitor"
expect_slurp() {
	if jq -e -s "$2" "$3" >/dev/null 2>&1; then pass "$1"; else fail "$1" "jq -s '$2' is not true"; fi
}

# -i is the GPU, as in dmon (it was the interval: `watch -i 1` watched every GPU)
expect_exit "-i 1" 0 "$GPUVET" --replay "$M/x2.json" watch -i 1 -c 2 -d 0.1 --json -f sm
expect_slurp "-i 1 watches GPU 1 only" 'length == 2 and all(.gpu == 1)' "$TMP/out"
expect_exit "--id 0" 0 "$GPUVET" --replay "$M/x2.json" watch --id 0 -c 1 -d 0.1 --json -f sm
expect_slurp "--id 0 watches GPU 0 only" 'length == 1 and all(.gpu == 0)' "$TMP/out"
expect_exit "-g, the old letter, still works" 0 "$GPUVET" --replay "$M/x2.json" watch -g 1 -c 1 -d 0.1 --json -f sm
expect_slurp "-g 1 watches GPU 1 only" 'length == 1 and all(.gpu == 1)' "$TMP/out"
expect_exit "-i 0.5 is not an interval" 4 "$GPUVET" --replay "$M/x2.json" watch -i 0.5 -c 1
# -d is the interval; --interval stays
expect_exit "--interval still works" 0 "$GPUVET" --replay "$M/x2.json" watch --interval 0.1 -c 1 -f sm
expect_exit "--delay 0 is refused" 4 "$GPUVET" --replay "$M/x2.json" watch --delay 0
expect_exit "watch --help" 0 "$GPUVET" watch --help
expect_grep "help: -i, --id" '^  -i, --id IDS ' "$TMP/out"
expect_grep "help: -d, --delay" '^  -d, --delay SEC ' "$TMP/out"
expect_grep "help: -s, --select" '^  -s, --select GROUPS ' "$TMP/out"
expect_grep "help: -o, --options" '^  -o, --options D\|T\|DT ' "$TMP/out"
expect_no_grep "help: -g is no longer shown" '-g' "$TMP/out"

# -s: dmon's groups, in dmon's order whatever the order given
expect_exit "-s tmecvup" 0 "$GPUVET" --replay "$M/x2.json" watch -s tmecvup -c 1 -d 0.2
expect_grep "-s: every group in dmon's order" '^#  gpu   pwr gtemp mtemp   sm  mem  enc  dec  jpg  ofa  mclk  pclk pviol tviol      fb   bar1  sbecc  dbecc    pci  rxpci  txpci$' "$TMP/out"
expect_grep "-s: units" '^#  Idx     W     C     C    %    %    %    %    %    %   MHz   MHz     %     %      MB     MB   errs   errs   errs   MB/s   MB/s$' "$TMP/out"
expect_exit "-s t" 0 "$GPUVET" --replay "$M/x2.json" watch -s t -c 1 -d 0.2
expect_grep "-s t: PCIe only" '^#  gpu  rxpci  txpci$' "$TMP/out"
expect_exit "-s with -f" 0 "$GPUVET" --replay "$M/x2.json" watch -s c -f state,pclk -c 1 -d 0.2
expect_grep "-s then -f, a column once" '^#  gpu  mclk  pclk    state$' "$TMP/out"
expect_exit "-s x is refused" 4 "$GPUVET" --replay "$M/x2.json" watch -s px
expect_grep "-s x names the letter" "not 'x'" "$TMP/err"

# -o DT: the date and the time in front, as dmon
expect_exit "-o DT" 0 "$GPUVET" --replay "$M/x2.json" watch -o DT -s p -c 1 -d 0.2
expect_grep "-o DT header" '^#Date     Time       gpu   pwr gtemp mtemp$' "$TMP/out"
expect_grep "-o DT units" '^#YYYYMMDD HH:MM:SS   Idx     W     C     C$' "$TMP/out"
expect_grep "-o DT row" '^ [0-9]{8} [0-9]{2}:[0-9]{2}:[0-9]{2}     0    81    40    40$' "$TMP/out"
expect_exit "-o D" 0 "$GPUVET" --replay "$M/x2.json" watch -o D -s p -c 1 -d 0.2
expect_grep "-o D row" '^ [0-9]{8}     1    78 ' "$TMP/out"
expect_exit "-t is -o T" 0 "$GPUVET" --replay "$M/x2.json" watch -t -s p -c 1 -d 0.2
expect_grep "-t row" '^ [0-9]{2}:[0-9]{2}:[0-9]{2}     0    81 ' "$TMP/out"
expect_exit "-o X is refused" 4 "$GPUVET" --replay "$M/x2.json" watch -o X

# the media engines: GPU 0 has them, GPU 1 answers "not supported"
expect_exit "-s u on media engines" 0 "$GPUVET" --replay "$M/media.json" watch -s um -c 2 -d 0.2
expect_grep "enc dec jpg ofa bar1 of GPU 0" '^     0    0    0   12   34    5    0       0     32$' "$TMP/out"
expect_grep "'-' where not supported" '^     1    0    0    -    -    -    -       0      -$' "$TMP/out"
expect_exit "-s u --json" 0 "$GPUVET" --replay "$M/media.json" watch -s um -c 2 -d 0.2 --json
expect_slurp "json: the media engines of GPU 0" '[.[] | select(.gpu == 0)] | length == 2 and all(.util_enc_pct == 12 and .util_dec_pct == 34 and .util_jpg_pct == 5 and .util_ofa_pct == 0 and .bar1_used_bytes == 33554432)' "$TMP/out"
expect_slurp "json: absent where not supported, never 0" '[.[] | select(.gpu == 1)] | length == 2 and all(has("util_enc_pct") or has("util_dec_pct") or has("bar1_used_bytes") | not)' "$TMP/out"
GPUVET_TRACE=1 "$GPUVET" --replay "$M/media.json" watch -s u -c 4 -d 0.1 >/dev/null 2>"$TMP/trace"
n1=$(grep -cE 'nvmlDeviceGet(Encoder|Decoder|Jpg|Ofa)Utilization +gpu +1 ' "$TMP/trace")
n0=$(grep -cE 'nvmlDeviceGet(Encoder|Decoder|Jpg|Ofa)Utilization +gpu +0 ' "$TMP/trace")
[ "$n1" = 4 ] && pass "'not supported' is asked once" || fail "'not supported' is asked once" "$n1 calls on GPU 1"
[ "$n0" -ge 12 ] && pass "supported engines are asked each tick" || fail "supported engines are asked each tick" "$n0 calls on GPU 0"
GPUVET_TRACE=1 "$GPUVET" --replay "$M/media.json" watch -f sm,pwr -c 2 -d 0.1 >/dev/null 2>"$TMP/trace"
expect_no_grep "not asked without their columns" 'Utilization +gpu|BAR1' "$TMP/trace"

# Ctrl-C and SIGTERM: exit 130 at once, even in a long interval
for sig in INT TERM; do
	"$GPUVET" --replay "$M/x2.json" watch -d 10 -f sm >"$TMP/sig.out" 2>"$TMP/sig.err" &
	pid=$!
	sleep 1
	start=$(date +%s)
	kill -$sig $pid
	wait $pid
	rc=$?
	took=$(( $(date +%s) - start ))
	[ "$rc" = 130 ] && pass "SIG$sig: exit 130" || fail "SIG$sig: exit 130" "exit $rc"
	[ "$took" -le 2 ] && pass "SIG$sig: ends at once in a 10 s interval" || fail "SIG$sig: ends at once in a 10 s interval" "took $took s"
done
done_testing
