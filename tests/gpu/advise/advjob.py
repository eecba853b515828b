"""advjob.py: the harness shared by the training jobs of tests/gpu/advise/ (input.py, small.py,
sync.py, h2d.py, leak.py, cpu.py, starved.py, healthy.py), each of which plants one bottleneck
for `gpuvet advise` to find; tests/gpu/advise-h200.sh runs them on the H200.

A job builds its model and data, then hands run() one function that does one training step.
run() steps for --warmup seconds, writes --ready, then measures for --seconds: every few
seconds a progress line on stderr, and at the end one JSON line on stdout with the mean step
time, steps/s and samples/s, and a mark (wall clock, steps) every second so that the script can
take the step rate over the window advise was attached (advise's own cost).

Options common to every job:
    --seconds S     how long to measure after the warm-up (default 30)
    --warmup S      warm-up before measuring (default 3; at least 3 steps)
    --fixed         apply the fix advise should print for this job's bottleneck
    --dry-run       on the CPU with small sizes, to check a job where there is no GPU
    --pidfile F     write the main process's PID there at start
    --ready F       write "ready" there once the warm-up is over
    --progress S    seconds between progress lines on stderr (default 5)

Only the standard library and torch: the GPU machine has no network and no numpy guarantee.
"""
import argparse
import json
import os
import sys
import time


def options(description, extra=None, argv=None):
    """Parse the common options (and the job's own, added by extra(parser))."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=3.0)
    ap.add_argument("--fixed", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--pidfile")
    ap.add_argument("--ready")
    ap.add_argument("--progress", type=float, default=5.0)
    if extra:
        extra(ap)
    args = ap.parse_args(argv)
    if args.pidfile:
        write(args.pidfile, "%d\n" % os.getpid())
    return args


def write(path, text):
    # written whole then renamed, so the script polling for it never reads half a file
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def device(args):
    """"cuda" on the GPU machine, "cpu" for a dry run; fails early without a GPU."""
    import torch
    if args.dry_run:
        return torch.device("cpu")
    if not torch.cuda.is_available():
        sys.exit("advjob: no CUDA device (use --dry-run to check a job on the CPU)")
    return torch.device("cuda")


def sync(dev):
    import torch
    if dev.type == "cuda":
        torch.cuda.synchronize()


def run(args, name, dev, step, samples_per_step, info=None):
    """Call step(i) until --warmup then --seconds have passed; print the JSON result line.

    samples_per_step: the batch size (samples/s is the figure to compare across a batch size
    change). info: a dict merged into the result (the job's sizes, what --fixed changed), or a
    function returning one, called at the end.
    """
    import torch
    i = 0
    t0 = time.monotonic()
    while i < 3 or time.monotonic() - t0 < args.warmup:
        step(i)
        i += 1
    sync(dev)
    if args.ready:
        write(args.ready, "ready\n")
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats()
    start = time.monotonic()
    wall_start = time.time()
    marks = [[round(wall_start, 3), 0]]
    next_mark = start + 1.0
    next_progress = start + args.progress
    n = 0
    now = start
    while now - start < args.seconds:
        step(i)
        i += 1
        n += 1
        now = time.monotonic()
        if now >= next_mark:
            marks.append([round(time.time(), 3), n])
            next_mark += 1.0
        if now >= next_progress:
            el = now - start
            print("%s: %.0f s, %d steps, %.1f steps/s, %.0f samples/s"
                  % (name, el, n, n / el, n * samples_per_step / el), file=sys.stderr, flush=True)
            next_progress += args.progress
    # the queued GPU work belongs to the measured steps
    sync(dev)
    elapsed = time.monotonic() - start
    marks.append([round(time.time(), 3), n])
    res = {
        "job": name,
        "fixed": bool(args.fixed),
        "device": dev.type,
        "seconds": round(elapsed, 3),
        "steps": n,
        "step_ms": round(1e3 * elapsed / max(n, 1), 3),
        "steps_s": round(n / elapsed, 3),
        "batch": samples_per_step,
        "samples_s": round(n * samples_per_step / elapsed, 1),
        "warmup_steps": i - n,
        "pid": os.getpid(),
    }
    if dev.type == "cuda":
        res["gpu_mem_peak_bytes"] = torch.cuda.max_memory_allocated()
        res["gpu_mem_end_bytes"] = torch.cuda.memory_allocated()
    if info:
        res.update(info() if callable(info) else info)
    res["marks"] = marks
    print(json.dumps(res), flush=True)
    return res


def cpu_work(x, start, cpu_s):
    """Blur the image x (C, H, W) over and over until this thread has spent cpu_s seconds of
    CPU since thread_time() read start: what decoding and augmenting a sample costs.

    Counted in the thread's own CPU time, not in loop counts or wall time, so a sample costs
    the same on a fast or slow host and whether or not its core is shared (starved.py shares
    it on purpose: the cost must not shrink there). Needs one intra-op thread (the caller's
    torch.set_num_threads(1); DataLoader workers have it), or the work leaves the thread."""
    import torch.nn.functional as F
    end = start + cpu_s
    x = x.unsqueeze(0)
    while True:
        x = F.avg_pool2d(x, 3, stride=1, padding=1)
        if time.thread_time() >= end:
            return x.squeeze(0)
