# scrub.sh: `gpuvet record --scrub` on a replay of h200x2 seeded with what identifies a
# person or a site (a user alice, the host gpu7.corp.example, IPv4, IPv6 and MAC addresses,
# GPU UUIDs in both cases, GPU serials, a filesystem UUID on the kernel command line, an apt
# Requested-By line). A plain recording of the same replay must hold every seed (so the test
# can fail); the scrubbed one none of them; and doctor must find the same on both.
# src/capture/scrub.c does the work; test_scrub.c tests it on files record does not read.
. "$TOP/tests/cli/lib.sh"
need_tool jq "JSON output"
BASE="$SCEN/h200x2.json"

jq '
.description = "h200x2 seeded for tests/cli/scrub.sh"
| .uname.nodename = "gpu7.corp.example"
| .env.HOME = "/home/alice"
| .env.PATH = "/home/alice/.local/bin:/home/alice/venv/bin:" + .env.PATH
| .env.VIRTUAL_ENV = "/home/alice/venv"
| .env.KUBERNETES_SERVICE_HOST = "fd12:3456:789a::1"
| .nvml.devices[0].nvmlDeviceGetUUID = [0, "GPU-3f1e2d4c-5b6a-4978-8a9b-0c1d2e3f4a5b"]
| .nvml.devices[1].nvmlDeviceGetUUID = [0, "GPU-9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d"]
| .nvml.devices[0].nvmlDeviceGetSerial = [0, "1654123456789"]
| .nvml.devices[1].nvmlDeviceGetSerial = [0, "1654123456790"]
| .files["/proc/driver/nvidia/gpus/0000:00:06.0/information"] |=
	sub("GPU-0[-0]*"; "GPU-3F1E2D4C-5B6A-4978-8A9B-0C1D2E3F4A5B")
| .files["/proc/driver/nvidia/gpus/0000:00:07.0/information"] |=
	sub("GPU-0[-0]*1"; "GPU-9A8B7C6D-5E4F-4A3B-9C2D-1E0F2A3B4C5D")
| .files["/dev/kmsg"] +=
	"6,400,5000000,-;NVRM: GPU at PCI:0000:00:07: GPU-9A8B7C6D-5E4F-4A3B-9C2D-1E0F2A3B4C5D\n" +
	"6,401,5000001,-;NVRM: GPU Board Serial Number: 1654123456790\n" +
	"6,402,5000002,-;NVRM: peer ib0 10.20.30.41 fe80::5054:ff:feab:cdef 52:54:00:ab:cd:ef gpu7\n"
| .files["/proc/cmdline"] = "BOOT_IMAGE=/boot/vmlinuz-6.8.0-87-generic " +
	"root=UUID=0b7e5c1a-9d2f-4e3b-8a6c-1f2e3d4c5b6a ro iommu=pt nouveau.modeset=0 " +
	"ip=10.20.30.40::10.20.30.1:255.255.255.0:gpu7:eth0:off BOOTIF=01-52-54-00-ab-cd-ef " +
	"console=ttyS0 -- --user alice\n"
| .files["/etc/group"] += "video:x:44:alice\nalice:x:1000:\n"
| .files["/var/log/apt/history.log"].content += "\nStart-Date: 2026-10-20  10:00:00\n" +
	"Commandline: apt-get install -y nvidia-utils-580 -o Dir::Cache=/home/alice/apt\n" +
	"Requested-By: alice (1000)\nInstall: nvidia-utils-580:amd64 (580.159.04-0ubuntu1)\n" +
	"End-Date: 2026-10-20  10:00:09\n"
| .files["/home/alice/venv/pyvenv.cfg"] = "home = /home/alice/.pyenv/versions/3.12.3/bin\n"
' "$BASE" >"$TMP/seeded.json"

expect_exit "record the seeded replay" 0 "$GPUVET" --replay "$TMP/seeded.json" record "$TMP/plain.json"
expect_exit "record the seeded replay scrubbed" 0 \
	"$GPUVET" --replay "$TMP/seeded.json" record --scrub "$TMP/scrub.json"

# each seed: in the plain recording (record reads that place), not in the scrubbed one
for seed in alice gpu7 corp.example 10.20.30 fd12:3456 fe80::5054 52:54:00:ab 52-54-00-ab \
	3f1e2d4c 9a8b7c6d 0b7e5c1a 1654123456789 1654123456790 Requested-By; do
	if grep -qi -- "$seed" "$TMP/plain.json"; then pass "seeded: $seed is recorded"; else
		fail "seeded: $seed is recorded" "the test no longer reaches it"; fi
	if grep -qi -- "$seed" "$TMP/scrub.json"; then
		fail "scrub removes $seed" "$(grep -io -- ".\{30\}$seed.\{10\}" "$TMP/scrub.json" | head -1)"
	else pass "scrub removes $seed"; fi
done

expect_jq "scrubbed flag" '.scrubbed == true' "$TMP/scrub.json"
expect_jq "plain recording is not flagged" '.scrubbed == false' "$TMP/plain.json"
# relations survive: one placeholder per input wherever it appears
expect_jq "GPU 0 UUID placeholder in NVML and /proc" '
	.nvml.devices[0].nvmlDeviceGetUUID[1] == "GPU-00000000-0000-0000-0000-000000000000" and
	(.files["/proc/driver/nvidia/gpus/0000:00:06.0/information"] |
	 contains("GPU-00000000-0000-0000-0000-000000000000"))' "$TMP/scrub.json"
expect_jq "home folder placeholder in env and paths" '
	.env.VIRTUAL_ENV == "/home/user1/venv" and (.files | has("/home/user1/venv/pyvenv.cfg"))' \
	"$TMP/scrub.json"
expect_jq "host and domain placeholders" '.uname.nodename == "host1.domain1.example"' "$TMP/scrub.json"
# what doctor reads stays
expect_jq "kernel parameters doctor reads stay" '
	.files["/proc/cmdline"] | contains("iommu=pt") and contains("nouveau.modeset=0") and
	(contains("--") | not)' "$TMP/scrub.json"
expect_jq "apt package lines stay" '
	.files["/var/log/apt/history.log"].content |
	contains("Install: nvidia-utils-580:amd64 (580.159.04-0ubuntu1)")' "$TMP/scrub.json"
expect_grep "bus ids stay" '"00000000:00:06.0"' "$TMP/scrub.json"

# doctor finds the same on the seeded machine and on its scrubbed recording
sel='[.findings[] | {id, severity, gpus}] | sort_by(.id, (.gpus | tostring))'
for m in seeded h200x2 h200x1; do
	src="$SCEN/$m.json"
	[ "$m" = seeded ] && src="$TMP/seeded.json"
	"$GPUVET" --replay "$src" record --scrub "$TMP/s-$m.json" 2>/dev/null
	"$GPUVET" --replay "$src" doctor --json 2>/dev/null | jq -c "$sel" >"$TMP/a.sel"
	"$GPUVET" --replay "$TMP/s-$m.json" doctor --json 2>/dev/null | jq -c "$sel" >"$TMP/b.sel"
	if [ -s "$TMP/a.sel" ] && cmp -s "$TMP/a.sel" "$TMP/b.sel"; then
		pass "scrubbed $m gives the same doctor findings"
	else
		fail "scrubbed $m gives the same doctor findings" "$(diff "$TMP/a.sel" "$TMP/b.sel" | head -4)"
	fi
done
done_testing
