#!/bin/sh
# bench-h200.sh: `gpuvet bench all` against PyTorch doing the same work, in one call on the
# 2 x H200 machine, and both against the peer-tool figures measured there (anchors-h200.md).
#
#   sh tests/gpu/bench-h200.sh [--quick] [--system-libs]
#
# Needs ./gpuvet (built elsewhere with nvcc: the H200 image has no libjansson to build with; the
# binary links jansson statically and needs only glibc and the NVIDIA libraries there), python3
# with torch (the image's /opt/torch/.venv), two GPUs for the P2P and all-reduce parts. Writes
# into $OUT (a temporary folder when unset): gpuvet.json, gpuvet.txt (the table), bench.html,
# torch.json, compare.txt and log.txt.
#
# Every part runs under `timeout` and fails soft: a part that fails says why and the rest goes on.
# gpuvet is stopped with SIGINT at its limit, so its partial results still land in gpuvet.json.
# Full run: under 6 minutes (gpuvet at most 4, PyTorch at most 1.7); --quick: under a minute
# (gpuvet --quick with 512 MiB buffers, at most 32 s; PyTorch at 512 MiB, bf16/fp16 only,
# all-reduce at 512 MiB only, at most 25 s).
#
# By default gpuvet uses the cuBLASLt and NCCL that PyTorch loads (the pip wheels in its
# site-packages), so the comparison isolates gpuvet's method from library versions;
# --system-libs lets gpuvet find its own (system paths first).
#
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and friends): on these shared hosts a program
# using it can take the GPUs out of service.
set -u
QUICK=0
SYSLIBS=0
for a in "$@"; do
	case "$a" in
	--quick) QUICK=1 ;;
	--system-libs) SYSLIBS=1 ;;
	-h | --help) sed -n '2,26p' "$0"; exit 0 ;;
	*) echo "bench-h200: unknown argument '$a'" >&2; exit 4 ;;
	esac
done
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
LOG="$OUT/log.txt"
GPUVET=${GPUVET:-$(pwd)/gpuvet}
T0=$(date +%s)
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

say() { echo "== [$(($(date +%s) - T0)) s] $*" | tee -a "$LOG"; }

if [ "$QUICK" -eq 1 ]; then
	SIZE_MIB=512
	GV_ARGS="all --quick --size 512M --time-budget 0.04"
	GV_LIMIT=32
	PT_LIMIT=25
else
	SIZE_MIB=1024
	GV_ARGS="all"
	GV_LIMIT=240
	PT_LIMIT=100
fi

say "machine"
{
	nvidia-smi -L 2>&1 | head -8
	nvidia-smi --query-gpu=index,name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 | head -9
	uname -r
	nproc
	env | grep -E '^(NCCL_|CUDA_VISIBLE|NVIDIA_VISIBLE)' | sort
} >>"$LOG" 2>&1
tail -n 14 "$LOG"

# ---- the libraries PyTorch uses ---------------------------------------------------------------
if [ "$SYSLIBS" -eq 0 ]; then
	SITE=$(timeout 60 python3 -c 'import site; print(site.getsitepackages()[0])' 2>>"$LOG")
	for f in "$SITE"/nvidia/cu13/lib/libcublasLt.so.13 "$SITE"/nvidia/cublas/lib/libcublasLt.so.1[23]; do
		if [ -f "$f" ]; then export GPUVET_CUBLASLT_LIBRARY="$f"; break; fi
	done
	if [ -f "$SITE/nvidia/nccl/lib/libnccl.so.2" ]; then
		export GPUVET_NCCL_LIBRARY="$SITE/nvidia/nccl/lib/libnccl.so.2"
	fi
	say "gpuvet uses PyTorch's libraries: ${GPUVET_CUBLASLT_LIBRARY:-system cuBLASLt}, ${GPUVET_NCCL_LIBRARY:-system NCCL}"
fi

# ---- gpuvet -------------------------------------------------------------------------------------
GV_RC=none
if [ ! -x "$GPUVET" ]; then
	say "gpuvet: no binary at $GPUVET: build it where nvcc and libjansson-dev are (make), and carry ./gpuvet"
else
	"$GPUVET" --version >>"$LOG" 2>&1
	"$GPUVET" bench --list 2>&1 | tail -n 1 | tee -a "$LOG"
	# preflight (a few seconds): if this driver refuses the kernels built into the binary, build
	# them here for sm_90 with the machine's nvcc and load them from the file instead
	timeout -k 5 30 "$GPUVET" bench launch -i 0 --quick --time-budget 0.02 >/dev/null 2>"$TMPD/pre.err"
	pre=$?
	cat "$TMPD/pre.err" >>"$LOG"
	if [ "$pre" -ne 0 ] && grep -q "cannot load gpuvet's kernels" "$TMPD/pre.err" && command -v nvcc >/dev/null 2>&1; then
		say "the driver refused the built-in kernels; building them here for sm_90"
		for f in src/kernels/*.cu; do echo "#include \"$(pwd)/$f\""; done >"$TMPD/all.cu"
		if timeout 120 nvcc -fatbin -O3 -std=c++17 -I. -Isrc/kernels -gencode arch=compute_90,code=sm_90 \
			-o "$TMPD/kernels.fatbin" "$TMPD/all.cu" >>"$LOG" 2>&1; then
			export GPUVET_BENCH_KERNELS="$TMPD/kernels.fatbin"
		fi
	elif [ "$pre" -ne 0 ]; then
		say "preflight: gpuvet bench launch exited $pre: $(tail -n 2 "$TMPD/pre.err" | tr '\n' ' ')"
	fi
	say "gpuvet bench $GV_ARGS --json (limit ${GV_LIMIT} s)"
	# shellcheck disable=SC2086
	timeout -k 15 -s INT "$GV_LIMIT" "$GPUVET" bench $GV_ARGS --json --html "$OUT/bench.html" \
		>"$OUT/gpuvet.json" 2>>"$LOG"
	GV_RC=$?
	say "gpuvet exit code $GV_RC (0 ok, 2 a result failed verification, 124 stopped at the time limit: partial results)"
	if "$GPUVET" bench --load "$OUT/gpuvet.json" >"$OUT/gpuvet.txt" 2>>"$LOG"; then
		cat "$OUT/gpuvet.txt"
	else
		say "gpuvet: no readable result (see log.txt)"
	fi
fi

# ---- PyTorch doing the same work ------------------------------------------------------------
cat >"$TMPD/torch_ref.py" <<'PY'
# PyTorch doing what gpuvet bench measures, timed the usual PyTorch way (CUDA events around
# back-to-back work after warm-up; host clock for pageable copies and for all-reduce, as
# nccl-tests). Writes one JSON object; every part is optional and fails soft.
import json, os, sys, time, traceback

GB = 1e9
res = {"errors": []}


def ev_time(torch, fn, reps, warm=3, trials=5):
    """median over trials of seconds per call, CUDA events around reps calls"""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(trials):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(reps):
            fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) / 1e3 / reps)
    ts.sort()
    return ts[len(ts) // 2]


def host_time(torch, fn, reps, warm=1, trials=3, devs=(0,)):
    for _ in range(warm):
        fn()
    for d in devs:
        torch.cuda.synchronize(d)
    ts = []
    for _ in range(trials):
        t = time.perf_counter()
        for _ in range(reps):
            fn()
        for d in devs:
            torch.cuda.synchronize(d)
        ts.append((time.perf_counter() - t) / reps)
    ts.sort()
    return ts[len(ts) // 2]


def ar_worker(rank, world, sizes, port, q):
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world, device_id=torch.device("cuda", rank))
    out = {}
    for sz in sizes:
        x = torch.randn(sz // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        reps, ts = 20, []
        for _ in range(3):
            dist.barrier()
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(reps):
                dist.all_reduce(x)
            torch.cuda.synchronize()
            ts.append((time.perf_counter() - t) / reps)
        ts.sort()
        algbw = sz / ts[1] / GB
        out[str(sz)] = {"algbw_gbs": algbw, "busbw_gbs": algbw * 2 * (world - 1) / world,
                        "time_us": ts[1] * 1e6}
        del x
        torch.cuda.empty_cache()
    if rank == 0:
        q.put(out)
    dist.destroy_process_group()


def main():
    out_path, size_mib, quick = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
    N = size_mib << 20

    def save():
        with open(out_path, "w") as f:
            json.dump(res, f, indent=1)

    try:
        import torch
        res["torch"] = torch.__version__
        res["cuda"] = torch.version.cuda
        res["gpus"] = torch.cuda.device_count()
        res["nccl"] = ".".join(map(str, torch.cuda.nccl.version()))
    except Exception as e:
        res["errors"].append("import torch: %s" % e)
        save()
        return

    def part(name, fn):
        t = time.time()
        try:
            fn()
        except Exception as e:
            res["errors"].append("%s: %s" % (name, e))
            traceback.print_exc()
        print("torch: %s done in %.1f s" % (name, time.time() - t), flush=True)
        save()

    def device_copy():
        a = torch.empty(N, dtype=torch.uint8, device="cuda:0").random_()
        b = torch.empty_like(a)
        t = ev_time(torch, lambda: b.copy_(a), 20)
        assert torch.equal(a, b)
        res["copy_gbs"] = N / t / GB          # bytes copied once (nvbandwidth's count)
        res["copy_traffic_gbs"] = 2 * N / t / GB

    def host_device():
        d = torch.empty(N, dtype=torch.uint8, device="cuda:0")
        h = torch.empty(N, dtype=torch.uint8).random_().pin_memory()
        res["h2d_pinned_gbs"] = N / ev_time(torch, lambda: d.copy_(h, non_blocking=True), 5) / GB
        assert torch.equal(d.cpu(), h)
        res["d2h_pinned_gbs"] = N / ev_time(torch, lambda: h.copy_(d, non_blocking=True), 5) / GB
        p = torch.empty(N, dtype=torch.uint8).random_()
        res["h2d_pageable_gbs"] = N / host_time(torch, lambda: d.copy_(p), 2) / GB
        res["d2h_pageable_gbs"] = N / host_time(torch, lambda: p.copy_(d), 2) / GB

    def gpu_gpu():
        if torch.cuda.device_count() < 2:
            raise RuntimeError("one GPU")
        a = torch.empty(N, dtype=torch.uint8, device="cuda:0").random_()
        b = torch.empty(N, dtype=torch.uint8, device="cuda:1")
        res["p2p_access"] = torch.cuda.can_device_access_peer(0, 1)
        t = host_time(torch, lambda: b.copy_(a, non_blocking=True), 10, warm=3, devs=(0, 1))
        assert torch.equal(a.to("cuda:1"), b)
        res["p2p_copy_gbs"] = N / t / GB

    def matmul():
        res["matmul_tflops"] = {}
        for n in ([8192] if quick else [4096, 8192]):
            for name, dt, tf32 in [("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
                                   ("tf32", torch.float32, True), ("fp32", torch.float32, False),
                                   ("fp64", torch.float64, False)]:
                if quick and name not in ("bf16", "fp16"):
                    continue
                torch.backends.cuda.matmul.allow_tf32 = tf32
                a = torch.randn(n, n, dtype=dt, device="cuda:0")
                b = torch.randn(n, n, dtype=dt, device="cuda:0")
                reps = 20 if dt in (torch.bfloat16, torch.float16) else 5
                t = ev_time(torch, lambda: a @ b, reps)
                res["matmul_tflops"]["%s_%d" % (name, n)] = 2 * n ** 3 / t / 1e12
                del a, b
        torch.backends.cuda.matmul.allow_tf32 = False

    def allreduce():
        import torch.multiprocessing as mp
        world = torch.cuda.device_count()
        if world < 2:
            raise RuntimeError("one GPU")
        sizes = [512 << 20] if quick else [512 << 20, 8 << 30]
        ctx = mp.get_context("spawn")
        q = ctx.Queue()
        port = 29500 + os.getpid() % 1000
        ps = [ctx.Process(target=ar_worker, args=(r, world, sizes, port, q)) for r in range(world)]
        for p in ps:
            p.start()
        try:
            res["allreduce"] = q.get(timeout=90)
            res["allreduce_gpus"] = world
        finally:
            for p in ps:
                p.join(timeout=20)
                if p.is_alive():
                    p.kill()

    part("device copy", device_copy)
    part("host<->device", host_device)
    part("gpu->gpu", gpu_gpu)
    part("matmul", matmul)
    part("all-reduce", allreduce)
    save()


if __name__ == "__main__":
    main()
PY

if [ -x "$(command -v python3)" ]; then
	say "PyTorch doing the same work (limit ${PT_LIMIT} s)"
	timeout -k 10 "$PT_LIMIT" python3 "$TMPD/torch_ref.py" "$OUT/torch.json" "$SIZE_MIB" "$QUICK" >>"$LOG" 2>&1
	say "PyTorch exit code $? ($(grep -c '^torch: ' "$LOG") parts done)"
else
	say "PyTorch: no python3"
fi

# ---- the comparison -------------------------------------------------------------------------
cat >"$TMPD/compare.py" <<'PY'
# gpuvet against PyTorch (same call) and against the peer tools' figures of 2026-11-30
# (reference/anchors-h200.md, copied here as constants).
import json, sys

gv_path, pt_path, size_mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
GIB = 1 << 30
ANCHOR = {  # anchors-h200.md
    "device_local_copy": 2096.0,      # nvbandwidth device_local_copy, GB/s copied once
    "pytorch_copy_traffic": 4300.0,   # PyTorch copy_ 1 GiB, read+write
    "hbm_datasheet": 4800.0,
    "h2d_ce": 55.4, "d2h_ce": 55.4,   # nvbandwidth *_memcpy_ce
    "h2d_sm": 51.4, "d2h_sm": 52.5,   # nvbandwidth *_memcpy_sm
    "h2d_pageable_torch": 7.3, "d2h_pageable_torch": 13.9,
    "p2p_write_ce": 396.0, "p2p_read_ce": 394.0, "p2p_bidir_ce": 779.0,
    "p2p_latency_on_us": 2.3, "p2p_latency_off_us": 16.5,
    "gemm": {"bf16": 792.0, "fp16": 759.0, "tf32": 395.0, "fp32": 50.8, "fp64": 56.2, "fp8": 1453.0},
    "allreduce_busbw": {512 << 20: 313.0, 8 << 30: 350.0},   # nccl-tests, 2 GPUs, NVLS off
    "allreduce_busbw_torch": {512 << 20: 313.0, 8 << 30: 344.0},
    "launch_us": 4.35, "launch_sync_us": 9.58, "dtoh_4b_us": 10.3,
}

try:
    gv = json.load(open(gv_path))
except Exception as e:
    print("compare: no gpuvet result (%s)" % e)
    gv = {"results": []}
try:
    pt = json.load(open(pt_path))
except Exception as e:
    print("compare: no PyTorch result (%s)" % e)
    pt = {}

def find(bench, test, gpu=0, peer=None, size=None, headline=None):
    best = None
    for r in gv.get("results", []):
        if r.get("bench") != bench or r.get("test") != test:
            continue
        if gpu is not None and r.get("gpu") != gpu:
            continue
        if peer is not None and r.get("peer") != peer:
            continue
        if size is not None and r.get("size") != size:
            continue
        if headline is not None and bool(r.get("headline")) != headline:
            continue
        if best is None or (r["median"] > best["median"]) != r.get("lower_is_better", False):
            best = r
    return best

rows = []  # (what, gpuvet, reference, ref name, goal ratio or None, lower_is_better)
def row(what, r, ref, refname, goal=None, key="median", lower=False):
    v = r.get(key) if r else None
    rows.append((what, v, ref, refname, goal, lower, r))

size = size_mib << 20
copy_k = find("memory", "copy_kernel", size=size)
copy_d = find("memory", "copy_driver", size=size)
copy_best = max([x for x in (copy_k, copy_d) if x], key=lambda x: x["median"], default=None)
row("device copy, best of kernel/driver (GB/s copied)", copy_best, ANCHOR["device_local_copy"], "nvbandwidth device_local_copy", 0.98)
row("device copy, best (GB/s copied)", copy_best, pt.get("copy_gbs"), "PyTorch copy_")
row("device copy, our kernel (GB/s copied)", copy_k, ANCHOR["device_local_copy"], "nvbandwidth device_local_copy")
row("device copy, driver (GB/s copied)", copy_d, ANCHOR["device_local_copy"], "nvbandwidth device_local_copy")
rd = find("memory", "read_kernel", size=size)
row("read kernel, HBM traffic (GB/s)", rd, ANCHOR["hbm_datasheet"], "datasheet 4.8 TB/s", 0.90, key="hbm_traffic")
row("copy kernel, HBM traffic (GB/s)", copy_k, pt.get("copy_traffic_gbs"), "PyTorch copy_ traffic", key="hbm_traffic")
for t, k in (("triad_kernel", "triad"), ("write_kernel", "write")):
    row("%s kernel (GB/s)" % k, find("memory", t, size=size), ANCHOR["hbm_datasheet"], "datasheet 4.8 TB/s")
for test, name, anchor, pk in (("h2d_pinned", "H2D pinned CE", "h2d_ce", "h2d_pinned_gbs"),
                              ("d2h_pinned", "D2H pinned CE", "d2h_ce", "d2h_pinned_gbs")):
    r = find("transfer", test, size=size, headline=True)
    row("%s (GB/s)" % name, r, ANCHOR[anchor], "nvbandwidth %s_memcpy_ce" % test[:3], 0.98)
    row("%s (GB/s)" % name, r, pt.get(pk), "PyTorch copy_(non_blocking)")
for test, name, anchor, pk in (("h2d_pageable", "H2D pageable", "h2d_pageable_torch", "h2d_pageable_gbs"),
                              ("d2h_pageable", "D2H pageable", "d2h_pageable_torch", "d2h_pageable_gbs")):
    r = find("transfer", test, size=size, headline=True)
    row("%s (GB/s)" % name, r, pt.get(pk), "PyTorch copy_ (same call)")
    row("%s (GB/s)" % name, r, ANCHOR[anchor], "PyTorch 1 GiB (2026-11-30)")
row("H2D pinned SM kernel (GB/s)", find("transfer", "h2d_sm", size=size), ANCHOR["h2d_sm"], "nvbandwidth h2d_memcpy_sm")
row("D2H pinned SM kernel (GB/s)", find("transfer", "d2h_sm", size=size), ANCHOR["d2h_sm"], "nvbandwidth d2h_memcpy_sm")
w = find("p2p", "write_ce", gpu=0, peer=1, size=size)
row("GPU0->GPU1 write CE (GB/s)", w, ANCHOR["p2p_write_ce"], "nvbandwidth d2d_memcpy_write_ce", 0.98)
row("GPU0->GPU1 write CE (GB/s)", w, pt.get("p2p_copy_gbs"), "PyTorch cuda:1.copy_(cuda:0)")
row("GPU0->GPU1 read CE (GB/s)", find("p2p", "read_ce", gpu=0, peer=1, size=size), ANCHOR["p2p_read_ce"], "nvbandwidth d2d_memcpy_read_ce", 0.98)
row("GPU0<->GPU1 both ways (GB/s)", find("p2p", "bidir_ce", gpu=0, peer=1, size=size), ANCHOR["p2p_bidir_ce"], "nvbandwidth bidirectional read_ce total", 0.98)
row("GPU0->GPU1 SM write (GB/s)", find("p2p", "write_sm", gpu=0, peer=1, size=size), ANCHOR["p2p_write_ce"], "nvbandwidth write_ce")
row("P2P latency on (us)", find("p2p", "latency_p2p_on", gpu=0, peer=1), ANCHOR["p2p_latency_on_us"], "p2pBandwidthLatencyTest", lower=True)
row("P2P latency off (us)", find("p2p", "latency_p2p_off", gpu=0, peer=1), ANCHOR["p2p_latency_off_us"], "p2pBandwidthLatencyTest", lower=True)
mm = pt.get("matmul_tflops", {})
for p in ("bf16", "fp16", "tf32", "fp32", "fp64", "fp8"):
    for n in (8192, 4096):
        r = find("gemm", p, size=n)
        if r is None and n == 4096:
            continue
        goal = 0.97 if p in ("bf16", "fp16") and n == 8192 else None
        if "%s_%d" % (p, n) in mm or p != "fp8":
            row("GEMM %s n=%d (TFLOP/s)" % (p, n), r, mm.get("%s_%d" % (p, n)), "PyTorch matmul (same call)", goal)
        if n == 8192:
            row("GEMM %s n=%d (TFLOP/s)" % (p, n), r, ANCHOR["gemm"][p], "PyTorch 2026-11-30" if p != "fp8" else "MAMF best shape (other shapes)")
ar = pt.get("allreduce", {})
for sz in (512 << 20, 8 << 30):
    r = find("allreduce", "busbw", gpu=None, size=sz)
    row("all-reduce busbw %d MiB (GB/s)" % (sz >> 20), r, ANCHOR["allreduce_busbw"][sz], "nccl-tests all_reduce_perf -g 2", 0.97)
    row("all-reduce busbw %d MiB (GB/s)" % (sz >> 20), r, (ar.get(str(sz)) or {}).get("busbw_gbs"), "torch.distributed (same call)")
row("kernel launch (us)", find("launch", "launch"), ANCHOR["launch_us"], "CUDA runtime, 20000 launches", lower=True)
row("launch + sync (us)", find("launch", "launch_sync"), ANCHOR["launch_sync_us"], "CUDA runtime", lower=True)
row("4-byte D2H read (us)", find("launch", "dtoh_4b"), ANCHOR["dtoh_4b_us"], "cudaMemcpy", lower=True)

def fmt(v):
    if v is None:
        return "n/a"
    return "%.4g" % v

print("%-48s %10s %10s  %-40s %7s %6s %5s  %s" % ("what (GPU 0 unless named)", "gpuvet", "reference",
      "reference is", "ratio", "SM MHz", "W", "goal"))
misses = 0
for what, v, ref, refname, goal, lower, r in rows:
    ver = r.get("verified") if r else None
    clk = fmt(r.get("sm_clock_mhz")) if r and r.get("sm_clock_mhz") is not None else ""
    pw = "%.0f" % r["power_w"] if r and r.get("power_w") is not None else ""
    ratio = None
    if v is not None and ref:
        ratio = (ref / v) if lower else (v / ref)
    verdict = ""
    if goal is not None:
        if ratio is None:
            verdict = "NOT MEASURED (>= %.2f)" % goal
            misses += 1
        elif ratio >= goal:
            verdict = "PASS (>= %.2f)" % goal
        else:
            verdict = "MISS (< %.2f)" % goal
            misses += 1
    if ver is False:
        verdict += " UNVERIFIED"
    print("%-48s %10s %10s  %-40s %7s %6s %5s  %s" % (what, fmt(v), fmt(ref), refname[:40], fmt(ratio),
          clk, pw, verdict))
print()
print("ratio = gpuvet / reference (for times: reference / gpuvet), so above 1 is gpuvet ahead")
unv = gv.get("unverified")
print("gpuvet: %s results, %s failed verification, exit code %s, errors: %s" % (
    len(gv.get("results", [])), unv, gv.get("exit_code"), "; ".join(gv.get("errors", [])) or "none"))
if pt:
    print("PyTorch %s (CUDA %s, NCCL %s), errors: %s" % (pt.get("torch"), pt.get("cuda"), pt.get("nccl"),
          "; ".join(pt.get("errors", [])) or "none"))
if not gv.get("results") or unv != 0:
    misses += 1
    print("every result verified: MISS (%s unverified)" % unv)
else:
    print("every result verified: PASS")
print("configs that won (memory kernels, GEMM algorithms):")
for r in gv.get("results", []):
    if r.get("headline") and r.get("gpu") == 0 and r.get("bench") in ("memory", "gemm"):
        print("  %-40s %s" % (r.get("label"), r.get("config")))
print("done criteria missed or not measured: %d" % misses)
PY

say "comparison"
if [ -x "$(command -v python3)" ]; then
	timeout 60 python3 "$TMPD/compare.py" "$OUT/gpuvet.json" "$OUT/torch.json" "$SIZE_MIB" >"$OUT/compare.txt" 2>>"$LOG"
	cat "$OUT/compare.txt"
fi
say "done: gpuvet exit $GV_RC; files in $OUT"
ls -la "$OUT" >>"$LOG" 2>&1
