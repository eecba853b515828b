# bench_html.sh: the HTML page of a stored result, opened in headless Chromium: the DOM it builds
# holds every SVG plot. SKIP when no Chromium is installed (CI installs it best effort).
. "$TOP/tests/cli/lib.sh"
S="$TOP/tests/bench/sample-fakegpu.json"

browser=
for b in chromium chromium-browser google-chrome headless_shell; do
	if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
	# a skip even in CI, where .ci/run installs Chromium only best effort (and lists the SKIP)
	why="no chromium, chromium-browser or google-chrome on PATH"
	[ "${CI:-}" = true ] && why="$why (CI: the best-effort install of chromium failed)"
	skip_all "bench html in headless Chromium: $why"
fi
"$GPUVET" bench --load "$S" --html "$TMP/page.html" >/dev/null 2>&1 || fail "html written"
# Chromium wants a writable home for its profile
HOME=$TMP timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom \
	"file://$TMP/page.html" >"$TMP/dom.html" 2>"$TMP/chromium.err"
n=$(grep -o '<svg' "$TMP/dom.html" | wc -l)
if [ "$n" -ge 9 ]; then pass "chromium: the DOM holds the $n plots"; else
	fail "chromium: the DOM holds the plots" "$n svg elements; $(tail -c 300 "$TMP/chromium.err")"; fi
expect_grep "chromium: polylines drawn" '<polyline' "$TMP/dom.html"
expect_grep "chromium: the tables are there" '<td>copy, our kernel</td>' "$TMP/dom.html"
HOME=$TMP timeout 120 "$browser" --headless --no-sandbox --disable-gpu --window-size=1280,2000 \
	--screenshot="$TMP/page.png" "file://$TMP/page.html" >/dev/null 2>&1
if [ -s "$TMP/page.png" ]; then pass "chromium: the page renders"; else fail "chromium: the page renders"; fi
done_testing
