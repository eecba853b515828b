# env_doc.sh: every environment variable gpuvet reads is on docs/environment.md (issue 10). The
# names are taken from the sources: each getenv("NAME") and host_getenv("NAME") call, the
# helpers that pass a literal name on to them (copy_env, env_value, the library loaders'
# override names), and every "GPUVET_*" or "FAKEGPU_*" string in src/ and the fake libraries.
. "$TOP/tests/cli/lib.sh"
DOC="$TOP/docs/environment.md"
[ -f "$DOC" ] || bail "docs/environment.md exists" "no such file"
pass "docs/environment.md exists"
srcs="$TOP/src $TOP/tests/nvml-replay $TOP/tests/bench/fakegpu"
# shellcheck disable=SC2086
{
	grep -rhoE '(getenv|copy_env|env_value)\("[A-Za-z_][A-Za-z0-9_]*"' $srcs --include='*.c' --include='*.h'
	grep -rhoE '"(GPUVET|FAKEGPU)_[A-Z0-9_]+"' $srcs --include='*.c' --include='*.h'
} | grep -oE '"[A-Za-z_][A-Za-z0-9_]*"' | tr -d '"' | sort -u >"$TMP/names"
n=$(wc -l <"$TMP/names")
# the sources read at least these: a grep that finds fewer is broken, not the page
if [ "$n" -ge 20 ] && grep -qx GPUVET_ROOT "$TMP/names" && grep -qx GPUVET_NVML_LIBRARY "$TMP/names"; then
	pass "the sources name $n environment variables"
else
	fail "the sources name the environment variables" "found $n: $(tr '\n' ' ' <"$TMP/names")"
fi
missing=
while read -r v; do
	grep -q "\`$v\`" "$DOC" || missing="$missing $v"
done <"$TMP/names"
if [ -z "$missing" ]; then pass "docs/environment.md names every variable read"; else
	fail "docs/environment.md names every variable read" "missing:$missing"; fi
# and the page is linked from where users look
expect_grep "README links docs/environment.md" 'docs/environment\.md' "$TOP/README.md"
"$GPUVET" --help >"$TMP/help" 2>&1
expect_grep "gpuvet --help names docs/environment.md" 'environment: .*docs/environment\.md' "$TMP/help"
done_testing
