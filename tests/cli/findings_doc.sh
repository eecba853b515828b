# findings_doc.sh: every finding id doctor can report is documented in docs/findings.md, and the
# document names no id doctor does not have (docs/findings-<vendor>.md hold other vendors'
# stacks). An id is documented where the document defines
# it: a "#### id" heading (several ids separated by ", ", a note in brackets after them) or the
# first cell of a table row ("| `id` | ..."). Ids are compared whole: `platform.wsl1` does not
# document `platform.wsl`.
. "$TOP/tests/cli/lib.sh"
DOC="$TOP/docs/findings.md $(ls "$TOP"/docs/findings-*.md 2>/dev/null | tr '\n' ' ')"

"$GPUVET" doctor --list-findings >"$TMP/ids.txt" 2>"$TMP/err"
n=$(wc -l <"$TMP/ids.txt")
[ "$n" -ge 100 ] && pass "doctor lists its $n finding ids" || fail "doctor lists its finding ids" "only $n"
awk '{ print $1 }' "$TMP/ids.txt" | sort >"$TMP/ids"

{
	sed -n 's/^#### \([a-z_][a-z0-9_]*\.[a-z0-9_., ]*\).*/\1/p' $DOC | tr ',' '\n'
	sed -n 's/^| `\([a-z_][a-z0-9_]*\.[a-z0-9_]*\)` |.*/\1/p' $DOC
} | tr -d ' ' | grep -v '^$' | sort -u >"$TMP/documented"
nd=$(wc -l <"$TMP/documented")

missing=$(comm -23 "$TMP/ids" "$TMP/documented" | tr '\n' ' ')
[ -z "$missing" ] && pass "every finding id has its entry in docs/findings.md" ||
	fail "every finding id has its entry in docs/findings.md" "missing: $missing"
extra=$(comm -13 "$TMP/ids" "$TMP/documented" | tr '\n' ' ')
[ -z "$extra" ] && [ "$nd" -ge 100 ] && pass "docs/findings.md documents $nd ids, each one doctor has" ||
	fail "docs/findings.md documents only ids doctor has" "$nd documented; not in doctor: $extra"
dups=$(uniq -d "$TMP/ids" | tr '\n' ' ')
[ -z "$dups" ] && pass "finding ids are unique" || fail "finding ids are unique" "$dups"
done_testing
