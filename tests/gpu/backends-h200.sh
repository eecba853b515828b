#!/bin/sh
# backends-h200.sh: issue 14 on the H200 machine, in one device call: NVIDIA's behaviour and
# speed with the other vendors' backends in (tests/bench/backends-nvidia.sh: status, its JSON
# and doctor of the binary before against the binary now, idle and with the GPU busy), what
# the sysfs backends find on an NVIDIA machine (its DRM cards are nvidia-drm's and the BMC's:
# no AMD or Intel GPU), a recording of the machine now, and OpenCL (tests/gpu/opencl-h200.sh).
#   OUT=DIR sh tests/gpu/backends-h200.sh OLD NEW
# PY names a Python with torch for the busy load (default /opt/torch/.venv/bin/python).
set -u
OLD=$1 NEW=$2
OUT=${OUT:-$(mktemp -d)}
PY=${PY:-/opt/torch/.venv/bin/python}
mkdir -p "$OUT"
echo "== the DRM cards of this machine and their drivers"
for c in /sys/class/drm/card*; do
	case $c in *-*) continue ;; esac
	echo "$c: $(basename "$(readlink -f "$c/device/driver")") $(cat "$c/device/vendor" 2>/dev/null)"
done
echo "== status of both binaries"
"$NEW" status --no-agent
"$NEW" status --no-agent --json >"$OUT/status-new.json"
"$OLD" status --no-agent --json >"$OUT/status-old.json"
python3 - "$OUT/status-new.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("gpus:", len(d["gpus"]), "vendors:", sorted({g.get("vendor") for g in d["gpus"]}),
      "drivers:", sorted({g.get("driver", "-") for g in d["gpus"]}))
PY
echo "== timing (interleaved, medians)"
BUSY_CMD="$PY -c 'import torch,time
a=torch.randn(8192,8192,device=\"cuda\",dtype=torch.bfloat16)
t=time.time()
while time.time()-t<240: (a@a).sum().item()'" bash tests/bench/backends-nvidia.sh "$OLD" "$NEW" "${REPS:-30}" | tee "$OUT/timing.txt"
echo "== record now"
"$NEW" record --scrub "$OUT/h200-now.json" && python3 - "$OUT/h200-now.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["files"]
print("files:", len(f), "/sys/class/drm kept:", "/sys/class/drm" in f,
      "drm cards listed:", (f.get("/sys/class/drm") or {}).get("dir"))
PY
"$NEW" --replay "$OUT/h200-now.json" status --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print("replay of the new recording:", len(d["gpus"]), "GPUs", sorted({g["vendor"] for g in d["gpus"]}))'
echo "== doctor now (its OpenCL and vendor layers)"
/usr/bin/time -f "doctor wall %e s" "$NEW" doctor >"$OUT/doctor.txt" 2>"$OUT/doctor.time"; echo "exit $?"
cat "$OUT/doctor.time"; grep -E "opencl|amd|intel|ascend|pci " "$OUT/doctor.txt" | head
echo "== OpenCL"
OUT="$OUT/opencl" sh tests/gpu/opencl-h200.sh "$NEW" 2>&1 | tail -40
