# findings_doc.sh: every finding id doctor can report is documented in docs/findings.md.
. "$TOP/tests/cli/lib.sh"

"$GPUVET" doctor --list-findings >"$TMP/ids" 2>"$TMP/err"
n=$(wc -l <"$TMP/ids")
[ "$n" -ge 100 ] && pass "doctor lists its $n finding ids" || fail "doctor lists its finding ids" "only $n"
missing=
while read -r id layer rest; do
	grep -q -- "$id" "$TOP/docs/findings.md" || missing="$missing $id"
done <"$TMP/ids"
[ -z "$missing" ] && pass "every finding id is in docs/findings.md" || fail "every finding id is in docs/findings.md" "missing:$missing"
dups=$(awk '{ print $1 }' "$TMP/ids" | sort | uniq -d)
[ -z "$dups" ] && pass "finding ids are unique" || fail "finding ids are unique" "$dups"
