# burn_html.sh: `gpuvet burn --html FILE` on two fake GPUs (tests/bench/fakegpu, as burn.sh): the
# page is written and well-formed (python3's html.parser, every element closed in order), holds
# each GPU's verdict and findings; a path it cannot write to exits 3 before anything runs; a
# failing GPU is FAIL on the page; after Ctrl-C the page is still written, marked partial. The
# fakes have no NVML: the plots say n/a (tests/unit/test_burn_html.c draws real timelines).
. "$TOP/tests/cli/lib.sh"
need_tool python3 "the HTML check"
fake_gpus "burn --html"
R="--duration 1 --memory-fraction 0.002"

# well_formed NAME FILE: every element closed, in order (void elements and <x/> aside)
cat >"$TMP/check.py" <<'EOF'
import sys
from html.parser import HTMLParser

VOID = {"meta", "br", "hr", "img", "input", "link"}

class Check(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tags = [], [], {}

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append("</%s> at %s closes %s" % (tag, self.getpos(), self.stack[-1:] or "nothing"))
        else:
            self.stack.pop()

c = Check()
c.feed(open(sys.argv[1], encoding="utf-8").read())
c.close()
if c.stack:
    c.errors.append("unclosed: %s" % c.stack)
if c.tags.get("script"):
    c.errors.append("a <script> element")
print("\n".join(c.errors[:5]) if c.errors else "ok %d sections" % c.tags.get("section", 0))
sys.exit(1 if c.errors else 0)
EOF
well_formed() {
	if out=$(python3 "$TMP/check.py" "$2" 2>&1); then pass "$1 ($out)"; else fail "$1" "$out"; fi
}

# a clean run writes the page
rm -f "$TMP/page.html"
expect_exit "burn --html: clean run passes" 0 "$GPUVET" burn $R --html "$TMP/page.html"
if [ -s "$TMP/page.html" ]; then pass "burn --html: the page is written"; else fail "burn --html: the page is written"; fi
well_formed "burn --html: the page is well-formed" "$TMP/page.html"
expect_grep "burn --html: GPU 0's section, named" '<section class="gpu" id="gpu-0"><h2>GPU 0 Fake GPU 0 <span class="ok">PASS' "$TMP/page.html"
expect_grep "burn --html: GPU 1's section, named" '<section class="gpu" id="gpu-1"><h2>GPU 1 Fake GPU 1 <span class="ok">PASS' "$TMP/page.html"
expect_grep "burn --html: the PCI slot" "PCI slot 0000:11:00.0" "$TMP/page.html"
expect_grep "burn --html: the findings" "<code>burn.no_telemetry</code>" "$TMP/page.html"
expect_grep "burn --html: every GPU passed" "2 of 2 GPUs passed" "$TMP/page.html"
expect_grep "burn --html: without NVML the plots say n/a" "GPU temperature: no value read during the run [(]n/a[)]" "$TMP/page.html"
expect_grep "burn --html: the text report still goes to stdout" "^GPU 1  Fake GPU 1 " "$TMP/out"

# --json and --html together: JSON on stdout, the page beside it
need_tool jq "JSON output"
expect_exit "burn --json --html" 0 "$GPUVET" burn $R --json --html "$TMP/both.html"
expect_jq "burn --json --html: stdout is the JSON report" '(.gpus | length) == 2 and .exit_code == 0' "$TMP/out"
well_formed "burn --json --html: the page is well-formed" "$TMP/both.html"

# a path it cannot write to fails at once (a 60 s run would take 60 s), before any GPU is touched
start=$(date +%s)
expect_exit "burn --html into a missing folder exits 3" 3 "$GPUVET" burn --duration 60 --html "$TMP/missing/page.html"
took=$(($(date +%s) - start))
if [ "$took" -lt 20 ]; then pass "burn --html: the path is checked before the run"; else
	fail "burn --html: the path is checked before the run" "took $took s"; fi
expect_grep "burn --html: the error names the path" "cannot write '$TMP/missing/page.html'" "$TMP/err"
if [ -s "$TMP/out" ]; then fail "burn --html: nothing ran" "$(head -c 200 "$TMP/out")"; else pass "burn --html: nothing ran"; fi
expect_exit "burn --html onto a folder exits 3" 3 "$GPUVET" burn --duration 60 --html "$TMP"
expect_exit "burn --html without a path (exit 4)" 4 "$GPUVET" burn --html

# a failing GPU is FAIL on the page, with the finding that says why
GPUVET_BURN_INJECT=bitflip:1 expect_exit "burn --html: a flipped bit fails (exit 2)" 2 "$GPUVET" burn $R --html "$TMP/fail.html"
well_formed "burn --html: the failing run's page is well-formed" "$TMP/fail.html"
expect_grep "burn --html: GPU 1 is FAIL" '<section class="gpu" id="gpu-1"><h2>GPU 1 Fake GPU 1 <span class="bad">FAIL' "$TMP/fail.html"
expect_grep "burn --html: GPU 0 still PASS" '<section class="gpu" id="gpu-0"><h2>GPU 0 Fake GPU 0 <span class="ok">PASS' "$TMP/fail.html"
expect_grep "burn --html: the finding, its evidence and fix" '<code>burn.wrong_results</code>.*class="evidence".*class="fix"' "$TMP/fail.html"
expect_grep "burn --html: 1 of 2 passed" "1 of 2 GPUs passed" "$TMP/fail.html"

# Ctrl-C: the page is still written, marked partial
rm -f "$TMP/int.html"
"$GPUVET" burn --duration 60 --memory-fraction 0.002 --html "$TMP/int.html" >"$TMP/int.out" 2>"$TMP/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
if [ "$rc" = 130 ]; then pass "burn --html: Ctrl-C exits 130"; else fail "burn --html: Ctrl-C exits 130" "exit $rc"; fi
if [ -s "$TMP/int.html" ]; then pass "burn --html: Ctrl-C still writes the page"; else fail "burn --html: Ctrl-C still writes the page"; fi
well_formed "burn --html: the partial page is well-formed" "$TMP/int.html"
expect_grep "burn --html: the page says it is partial" "Interrupted [(]Ctrl-C or SIGTERM[)]" "$TMP/int.html"
# file_replace's temporaries are .NAME.<16 hex digits> beside the page
left=$(find "$TMP" -maxdepth 1 -name '.*.html.*')
if [ -n "$left" ]; then fail "burn --html: no temporary left behind" "$left"; else
	pass "burn --html: no temporary left behind"; fi

# the bandwidth phase's GPU-to-GPU pairs are on the page, both ways
expect_exit "burn --mode bandwidth --html" 0 "$GPUVET" burn --mode bandwidth --duration 2 --html "$TMP/bw.html"
expect_grep "burn --html: the GPU-to-GPU table" '<h2>GPU to GPU</h2>' "$TMP/bw.html"
expect_grep "burn --html: the pair, measured both ways" '<tr><td>GPU 0 &harr; GPU 1</td><td class="n">[0-9.e+-]*</td><td class="n">[0-9.e+-]*</td>' "$TMP/bw.html"
expect_no_grep "burn --html: no pair table without the bandwidth phase" '<h2>GPU to GPU</h2>' "$TMP/page.html"
done_testing
