# contrib.sh: what contrib/ ships is checked, not just stored: the alert rules with promtool
# (syntax, and their unit tests with input series and expected alerts), the Grafana dashboard
# and the rules against the metric list contrib/metrics.txt (tests/cli/contrib_check.py), the
# Kubernetes objects against the Kubernetes schemas (kubernetes-validate, in build/venv: .ci/run
# installs it) and against each other, the systemd unit with systemd-analyze, the container
# image's runtime libraries against the binary's, and, when gpuvet has its serve command, a
# live scrape against the metric list. Each checker is also shown a broken copy once, to prove
# it can fail.
. "$TOP/tests/cli/lib.sh"
C="$TOP/contrib"
CHECK="$TOP/tests/cli/contrib_check.py"
# the venv of .ci/run (kubernetes-validate and PyYAML); one venv for every build folder
VENV="$TOP/build/venv"
PY=python3
[ -x "$VENV/bin/python" ] && PY="$VENV/bin/python"
need_tool promtool "the Prometheus alert rules"
need_tool "$PY" "the dashboard, the rules and the Kubernetes objects"

# missing NAME WHY: a tool this machine lacks: a FAIL in CI (.ci/run installs it), else a SKIP
missing() {
	if [ "${CI:-}" = true ]; then fail "$1" "$2"; else skip "$1: $2"; fi
}

# checker NAME ARGS...: contrib_check.py's lines as results (it prints "PASS ..." or "FAIL ...")
checker() {
	name=$1
	shift
	"$PY" "$CHECK" "$@" >"$TMP/check.out" 2>"$TMP/check.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"PASS "*) pass "${line#PASS }" ;;
		"FAIL "*) fail "${line#FAIL }" ;;
		esac
	done <"$TMP/check.out"
	[ "$rc" -eq 0 ] || fail "$name: contrib_check.py ran" "exit $rc: $(head -c 300 "$TMP/check.err")"
}

# ---- Prometheus rules
expect_exit "promtool check rules gpuvet-rules.yml" 0 promtool check rules "$C/prometheus/gpuvet-rules.yml"
expect_exit "promtool test rules: the alerts fire, and only where they should" 0 \
	promtool test rules "$C/prometheus/gpuvet-rules.test.yml"
# the same tests on rules where a lost GPU reads 2 instead of 0 must fail
mkdir -p "$TMP/rules"
cp "$C/prometheus/gpuvet-rules.test.yml" "$TMP/rules/"
sed 's/gpuvet_gpu_up == 0/gpuvet_gpu_up == 2/' "$C/prometheus/gpuvet-rules.yml" >"$TMP/rules/gpuvet-rules.yml"
if cmp -s "$C/prometheus/gpuvet-rules.yml" "$TMP/rules/gpuvet-rules.yml"; then
	fail "promtool test rules fails on a broken rule" "the GPU-lost rule is not 'gpuvet_gpu_up == 0'"
else
	expect_exit "promtool test rules fails on a broken rule" 1 promtool test rules "$TMP/rules/gpuvet-rules.test.yml"
fi

if "$PY" -c 'import yaml' 2>/dev/null; then
	checker rules rules "$C/metrics.txt" "$C/prometheus/gpuvet-rules.yml" "$TOP/src/checks/kernel_log.c"
else
	missing "rules against contrib/metrics.txt" "no PyYAML for $PY (python3 -m venv build/venv && build/venv/bin/pip install kubernetes-validate)"
fi

# ---- the Grafana dashboard
checker dashboard dashboard "$C/metrics.txt" "$C/grafana/gpuvet-dashboard.json"
# every query is PromQL that Prometheus parses (Grafana's variables replaced)
checker promql promql "$C/grafana/gpuvet-dashboard.json" "$TMP/dash-rules.yml"
expect_exit "promtool parses every query of the dashboard" 0 promtool check rules "$TMP/dash-rules.yml"
sed 's/gpuvet_power_watts{/gpuvet_power_watt{/' "$C/grafana/gpuvet-dashboard.json" >"$TMP/dash.json"
"$PY" "$CHECK" dashboard "$C/metrics.txt" "$TMP/dash.json" >"$TMP/dash.out" 2>&1
expect_grep "the dashboard check rejects a metric name gpuvet does not have" \
	'^FAIL .*unknown metric gpuvet_power_watt$|^FAIL .*unknown metric gpuvet_power_watt;' "$TMP/dash.out"

# ---- Kubernetes
KV="$VENV/bin/kubernetes-validate"
[ -x "$KV" ] || KV=$(command -v kubernetes-validate)
if [ -n "$KV" ]; then
	expect_exit "kubernetes-validate --strict gpuvet.yaml" 0 "$KV" --strict --quiet "$C/k8s/gpuvet.yaml"
	expect_exit "kubernetes-validate --strict gpuvet.yaml, Kubernetes 1.27" 0 \
		"$KV" --strict --quiet -k 1.27.0 "$C/k8s/gpuvet.yaml"
	sed 's/^      containers:/      containerz:/' "$C/k8s/gpuvet.yaml" >"$TMP/bad.yaml"
	expect_exit "kubernetes-validate rejects a misspelt DaemonSet" 1 "$KV" --strict --quiet "$TMP/bad.yaml"
else
	missing "kubernetes-validate" "not installed (python3 -m venv build/venv && build/venv/bin/pip install kubernetes-validate)"
fi
# kubernetes-validate has no schema for the ServiceMonitor (a CRD): contrib_check.py checks its
# structure against the CRD's fields, and every object against the others
if "$PY" -c 'import yaml' 2>/dev/null; then
	checker k8s k8s "$C/k8s/gpuvet.yaml" "$C/k8s/servicemonitor.yaml"
	sed 's|path: /metrics|path: /healthz|' "$C/k8s/gpuvet.yaml" >"$TMP/healthz.yaml"
	"$PY" "$CHECK" k8s "$TMP/healthz.yaml" "$C/k8s/servicemonitor.yaml" >"$TMP/k8s.out" 2>&1
	expect_grep "the k8s check rejects a readiness probe on /healthz" '^FAIL .*readinessProbe asks /healthz' "$TMP/k8s.out"
else
	missing "the Kubernetes objects agree" "no PyYAML for $PY"
fi

# ---- systemd: the unit as installed, its ExecStart pointed at this build
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$TMP/unit"
	sed "s|^ExecStart=/usr/bin/gpuvet |ExecStart=$GPUVET |" "$C/systemd/gpuvet-serve.service" \
		>"$TMP/unit/gpuvet-serve.service"
	# verify exits 0 on unknown keys and only prints them: any output is a failure
	systemd-analyze verify --man=no "$TMP/unit/gpuvet-serve.service" >"$TMP/verify" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$TMP/verify" ]; then pass "systemd-analyze verify gpuvet-serve.service"; else
		fail "systemd-analyze verify gpuvet-serve.service" "exit $rc: $(head -c 400 "$TMP/verify")"; fi
	printf 'NoNewPrivilege=yes\n' >>"$TMP/unit/gpuvet-serve.service"
	systemd-analyze verify --man=no "$TMP/unit/gpuvet-serve.service" >"$TMP/verify" 2>&1
	expect_grep "systemd-analyze verify reports a misspelt setting" "Unknown key 'NoNewPrivilege'" "$TMP/verify"
	# the hardening, as systemd scores it: exposure at most 3.0 of 10 (the unit scores 2.3)
	sed "s|^ExecStart=/usr/bin/gpuvet |ExecStart=$GPUVET |" "$C/systemd/gpuvet-serve.service" \
		>"$TMP/unit/gpuvet-serve.service"
	expect_exit "systemd-analyze security: exposure 3.0 or less" 0 \
		systemd-analyze security --offline=yes --threshold=30 "$TMP/unit/gpuvet-serve.service"
else
	skip "systemd-analyze verify gpuvet-serve.service: no systemd-analyze here"
fi

# ---- the container image: the runtime stage installs the package of every shared library the
# binary needs (Debian package names: checked where dpkg knows them)
if command -v dpkg >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 && [ -f /etc/debian_version ]; then
	runtime=$(sed -n '/^FROM debian:12-slim/,$p' "$C/container/Containerfile")
	lacking=
	# gpuvet and gpuvet-serve (serve's HTTP server, beside it in the build folder)
	for lib in $(readelf -d "$GPUVET" $(ls "$(dirname "$GPUVET")/gpuvet-serve" 2>/dev/null) | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|AArch64/ { print $NF; exit }')
		pkg=$({ dpkg -S "$path" || dpkg -S "/usr$path" || dpkg -S "${path#/usr}"; } 2>/dev/null |
			head -1 | cut -d: -f1)
		case "$lib" in libasan.so* | libubsan.so* | liblsan.so* | libtsan.so*) continue ;; esac # `make asan`'s runtimes, never in the image
		case "$pkg" in
		libc6) ;;
		"") lacking="$lacking $lib(no package)" ;;
		*) echo "$runtime" | grep -Eq "[[:space:]]$pkg([[:space:]]|$)" || lacking="$lacking $lib($pkg)" ;;
		esac
	done
	[ -z "$lacking" ] && pass "Containerfile: the runtime image installs every shared library gpuvet links" ||
		fail "Containerfile: the runtime image installs every shared library gpuvet links" "missing:$lacking"
else
	skip "Containerfile's runtime libraries: not a Debian machine with dpkg and readelf"
fi
if timeout 20 docker info >/dev/null 2>&1 && docker build --help 2>/dev/null | grep -q -- '--check'; then
	expect_exit "docker build --check Containerfile" 0 \
		timeout 120 docker build --check -f "$C/container/Containerfile" "$TOP"
else
	skip "docker build --check Containerfile: docker (with BuildKit's --check) does not work here"
fi

# ---- a live scrape of gpuvet serve on a replayed machine: every name and label it exports is
# in contrib/metrics.txt, which the dashboard and the rules are checked against
if "$GPUVET" serve --help >/dev/null 2>&1; then
	need_tool curl "the scrape of gpuvet serve"
	port=$((20000 + $$ % 20000))
	"$GPUVET" --replay "$SCEN/h200x2.json" serve --listen "127.0.0.1:$port" --no-socket \
		--dcgm-names --procs >"$TMP/serve.log" 2>&1 &
	serve_pid=$!
	tries=0
	until curl -sf "http://127.0.0.1:$port/metrics" >"$TMP/scrape.txt" 2>/dev/null || [ $tries -ge 50 ]; do
		sleep 0.2
		tries=$((tries + 1))
	done
	kill "$serve_pid" 2>/dev/null
	wait "$serve_pid" 2>/dev/null
	if [ -s "$TMP/scrape.txt" ]; then
		checker scrape scrape "$C/metrics.txt" "$TMP/scrape.txt"
	else
		fail "scrape gpuvet serve on h200x2.json" "no answer on port $port: $(head -c 300 "$TMP/serve.log")"
	fi
else
	skip "scrape gpuvet serve: this gpuvet has no serve command yet"
fi
done_testing
