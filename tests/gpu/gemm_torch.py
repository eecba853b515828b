#!/usr/bin/env python3
"""gemm_torch.py: PyTorch's side of tests/gpu/gemm-vs-torch.sh: one square matmul measured the
way `gpuvet bench gemm` measures its headline (src/bench/gemm.c), so the two can be compared
on the same GPU, data and duration.

Inputs: normal(0, 1) by default (torch.randn), or what GPUVET_GEMM_INPUT=uniform (random sign,
magnitude in [1/16, 1)) and =positive ([1/16, 1)) give gpuvet. Method: a warm-up of --warmup
seconds of products, a burst of --burst products between two CUDA events, then at least
--sustain seconds of products back to back between two events. Prints one JSON object.

Layouts, as cuBLAS sees them (column-major): "tn" is `a @ b.t()` (what gpuvet runs by default),
"nn" is `a @ b`. tf32 is fp32 with torch.backends.cuda.matmul.allow_tf32 = True; fp32 with it
False.
"""
import argparse
import json
import math
import sys


def make(torch, n, dtype, dist, gen):
    # Drawn in double for fp64, so every bit of the mantissa carries data as gpuvet's do: a
    # float32 draw widened to double has 29 zero mantissa bits, which switch less, draw less
    # power and run about 15 % faster at the H200's power limit (seen: 62 against 54 TFLOP/s
    # with the same cuBLASLt algorithm).
    base = torch.float64 if dtype == torch.float64 else torch.float32
    if dist == "normal":
        x = torch.randn(n, n, device="cuda", dtype=base, generator=gen)
    else:
        x = torch.rand(n, n, device="cuda", dtype=base, generator=gen) * (15 / 16) + 1 / 16
        if dist == "uniform":
            sign = torch.randint(0, 2, (n, n), device="cuda", generator=gen) * 2 - 1
            x = x * sign
    return x.to(dtype)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--precision", required=True, choices=["bf16", "fp16", "tf32", "fp32", "fp64"])
    ap.add_argument("--n", type=int, default=8192)
    ap.add_argument("--input", default="normal", choices=["normal", "uniform", "positive"])
    ap.add_argument("--layout", default="tn", choices=["tn", "nn"])
    ap.add_argument("--warmup", type=float, default=0.5, help="seconds of products first")
    ap.add_argument("--burst", type=int, default=20, help="products in the burst")
    ap.add_argument("--sustain", type=float, default=0.5, help="seconds back to back, at least")
    ap.add_argument("--backend", default="default", choices=["default", "cublas", "cublaslt"],
                    help="torch.backends.cuda.preferred_blas_library")
    ap.add_argument("--device", type=int, default=0)
    a = ap.parse_args(argv)

    import torch

    torch.cuda.set_device(a.device)
    if a.backend != "default":
        torch.backends.cuda.preferred_blas_library(a.backend)
    torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32,
             "fp32": torch.float32, "fp64": torch.float64}[a.precision]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(10)
    x = make(torch, a.n, dtype, a.input, gen)
    y = make(torch, a.n, dtype, a.input, gen)
    out = torch.empty(a.n, a.n, device="cuda", dtype=dtype)
    yy = y.t() if a.layout == "tn" else y

    def mm(k):
        for _ in range(k):
            torch.matmul(x, yy, out=out)

    def timed(k):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        mm(k)
        e.record()
        e.synchronize()
        return s.elapsed_time(e) / 1e3

    flop = 2.0 * a.n ** 3
    # warm-up: clocks up and the power cap reached, as gpuvet's ramp and candidate timing do
    t, spent = 0.0, 0.0
    while spent < a.warmup:
        t = timed(1)
        spent += t
    burst = timed(a.burst)
    ops = max(2, math.ceil(a.sustain / (burst / a.burst)))
    whole = timed(ops)
    # the result must be right, or the rate means nothing: one entry against fp64
    ref = (x[:8].double() @ yy[:, :8].double())
    got = out[:8, :8].double()
    err = ((got - ref).abs() / (x[:8].double().abs() @ yy[:, :8].double().abs())).max().item()
    print(json.dumps({
        "tool": "torch", "torch": torch.__version__, "precision": a.precision, "n": a.n,
        "input": a.input, "layout": a.layout, "backend": a.backend,
        "sustained_tflops": flop * ops / whole / 1e12, "sustained_s": whole,
        "sustained_ops": ops, "burst_tflops": flop * a.burst / burst / 1e12,
        "burst_ops": a.burst, "warmup_s": spent, "max_rel_err": err,
        "device": torch.cuda.get_device_name(a.device),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
