# layers.sh: src/ includes run one way (scripts/check-layers.sh has the order), and the check
# catches what it is there to catch: includes planted in a copy of src/ against the order.
. "$TOP/tests/cli/lib.sh"
check="$TOP/scripts/check-layers.sh"

if sh "$check" >"$TMP/out" 2>&1; then
	pass "src/ includes follow the layer order"
else
	fail "src/ includes follow the layer order" "$(head -c 800 "$TMP/out")"
fi

# plant FILE TEXT: append a line to FILE of the copy; prints FILE:LINE as the check names it
plant() {
	printf '%s\n' "$2" >>"$TMP/src/$1"
	echo "$TMP/src/$1:$(wc -l <"$TMP/src/$1" | tr -d ' ')"
}

cp -R "$TOP/src" "$TMP/src"
up=$(plant host/devnodes.c '#include "../replay/replay.h"')
cycle=$(plant capture/recording.c '#include "../host/host.h"')
vendor=$(plant checks/nvml.c '#  include "../vendor/nvml.h"')
peer=$(plant tui/fmt.c '#include "../checks/finding.h"')
nofile=$(plant gpu/busid.c '#include "../util/nothing.h"')
mkdir "$TMP/src/store"
printf '#include "../util/util.h"\n' >"$TMP/src/store/db.c"
sh "$check" "$TMP/src" >"$TMP/out" 2>&1
got=$?
if [ "$got" -ne 0 ]; then pass "planted includes: the check exits non-zero"; else
	fail "planted includes: the check exits non-zero" "exit 0"; fi
expect_grep "a layer including one above it is named" \
	"^$up: #include \"../replay/replay.h\": host may not include replay" "$TMP/out"
expect_grep "the capture leaf including host/ (the old record/ cycle) is named" \
	"^$cycle: #include \"../host/host.h\": capture may not include host" "$TMP/out"
expect_grep "checks/ including vendor/ is named" \
	"^$vendor: #  include \"../vendor/nvml.h\": checks may not include vendor" "$TMP/out"
expect_grep "folders of one rank including each other are named" \
	"^$peer: #include \"../checks/finding.h\": tui may not include checks" "$TMP/out"
expect_grep "an include naming no file is named" "^$nofile: .*names no file" "$TMP/out"
expect_grep "a folder without a layer is named" "^$TMP/src/store/db.c: src/store has no layer" \
	"$TMP/out"
expect_grep "the count of violations is printed" "^6 includes against the layer order" "$TMP/out"
done_testing
