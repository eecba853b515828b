#!/bin/sh
# tests/gpu/untrusted-h200.sh: issue 8's checks on a real GPU machine, in one device call.
#   sh tests/gpu/untrusted-h200.sh [GPUVET] [OLD_GPUVET]
# 1. doctor's time with every host read on a deadline worker (hostio), against the build before
#    it (OLD_GPUVET), 10 runs each, medians;
# 2. record and record --scrub of the live machine; the scrubbed file must hold none of the
#    machine's identifiers read independently here (host names, IP and MAC addresses, GPU
#    UUIDs in either case, GPU serials, user names, filesystem UUIDs);
# 3. a replay of each recording gives the live doctor findings;
# 4. a recording carries the record's exit code; the recordings go to $OUT for the scenarios.
G=${1:-build/gpuvet}
OLD=${2:-}
O=${OUT:-$(mktemp -d)}
T=$(mktemp -d)
pass=0; fail=0
ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1${2:+: $2}"; fail=$((fail + 1)); }
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ms() { # ms CMD...: wall milliseconds of one run
	s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000))
}

nvidia-smi -L
"$G" doctor; echo "doctor exit $?"
for b in "$G" $OLD; do
	for i in 1 2 3 4 5 6 7 8 9 10; do ms "$b" doctor; done | median >"$T/med"
	echo "doctor median of 10 runs: $(cat "$T/med") ms ($b)"
done

"$G" record "$O/live.json"; echo "record exit $?"
"$G" record --scrub "$O/scrubbed.json"; echo "record --scrub exit $?"
ls -l "$O/live.json" "$O/scrubbed.json"
[ "$(stat -c %a "$O/scrubbed.json")" = 600 ] && ok "recordings are 0600" || ko "recordings are 0600" "$(stat -c %a "$O/scrubbed.json")"

# what identifies this machine and its people, read without gpuvet
{
	hostname; hostname -f 2>/dev/null; cat /proc/sys/kernel/hostname
	hostname -I 2>/dev/null | tr ' ' '\n'
	cat /sys/class/net/*/address 2>/dev/null | grep -v '^00:00:00:00:00:00$'
	nvidia-smi --query-gpu=uuid,serial --format=csv,noheader | tr ',' '\n' | sed 's/^ *//; s/^GPU-//'
	awk -F: '$3 >= 1000 && $3 < 65534 { print $1 }' /etc/passwd
	ls /dev/disk/by-uuid 2>/dev/null
	grep -o 'UUID=[^ ]*' /proc/cmdline | cut -d= -f2
} | grep -v '^$' | grep -vE '^(N/A|\[N/A\]|localhost)$' | sort -u >"$T/ids"
echo "identifiers read here: $(wc -l <"$T/ids")"
# whole words, case-insensitive: "vm" as a host name is not the "vm" inside "kvm"; the
# default account of a distribution image ("ubuntu") names nobody and is kept by design
# (src/capture/scrub_learn.c), which this says rather than hides
while read -r id; do
	if grep -qiwF -- "$id" "$O/live.json"; then inlive=yes; else inlive=no; fi
	case "$id" in ubuntu | debian | ec2-user | cloud-user | azureuser)
		echo "NOTE '$id' is a distribution's default account: kept"; continue ;;
	esac
	if grep -qiwF -- "$id" "$O/scrubbed.json"; then
		ko "scrubbed recording holds no '$id'" "(in the plain recording: $inlive)"
	else
		ok "scrubbed recording holds no identifier (plain recording had it: $inlive)"
	fi
done <"$T/ids"

"$G" doctor --json >"$T/live-doctor.json"
sel="sorted((f['id'], f['severity'], str(f['gpus'])) for f in d['findings'])"
a=$(js "$T/live-doctor.json" "$sel")
for r in live scrubbed; do
	"$G" --replay "$O/$r.json" doctor --json >"$T/r.json"
	b=$(js "$T/r.json" "$sel")
	[ "$a" = "$b" ] && ok "replay of the $r recording gives the live findings" ||
		ko "replay of the $r recording gives the live findings" "$a vs $b"
done
cp "$T/live-doctor.json" "$O/live.doctor.json"
echo "$pass passed, $fail failed"
