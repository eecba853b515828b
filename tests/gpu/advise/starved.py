"""starved.py: a job denied the CPU it needs, for `gpuvet advise` (advise.starved_host).

Planted: the job and its four DataLoader workers are pinned to one core
(os.sched_setaffinity, as a wrong taskset or a scheduler's cpuset does), and another process,
started here but not a child of the job (double fork: it is reparented, so it is no part of
the job's process tree), burns that same core in a Python loop. The job's processes spend
most of their time runnable but waiting for the core: CPU pressure high, the host far from
busy, the GPU idle. A cgroup quota cannot be lowered on the GPU machine, so the affinity and
the hog stand in for it.

--fixed: no pinning and no hog (everything else the same).

    python starved.py [--seconds 30] [--fixed] [--dry-run]
"""
import os
import sys
import time


def start_hog(core, seconds, job_pid):
    """Fork a process that burns core until job_pid is gone or seconds have passed; return
    its PID (read back through a pipe, since the hog is a grandchild)."""
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(r)
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        os.sched_setaffinity(0, {core})
        os.write(w, b"%d\n" % os.getpid())
        os.close(w)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            x = 0
            for k in range(200000):
                x += k
            try:
                os.kill(job_pid, 0)
            except ProcessLookupError:
                break
        os._exit(0)
    os.close(w)
    os.waitpid(child, 0)
    with os.fdopen(r) as f:
        return int(f.read().strip() or 0)


def main():
    # before torch is imported, so that its thread pools see the one core they may use
    fixed = "--fixed" in sys.argv[1:]
    hog = 0
    core = None
    if not fixed:
        core = max(os.sched_getaffinity(0))
        secs = 30.0
        for k, a in enumerate(sys.argv[:-1]):
            if a in ("--seconds", "--warmup"):
                secs += float(sys.argv[k + 1])
        hog = start_hog(core, secs + 60, os.getpid())
        os.sched_setaffinity(0, {core})
    import advjob
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader
    dev = advjob.device(args)

    class Samples:
        """Synthetic 3x64x64 images costing 0.25 ms of CPU each (in the workers)."""

        def __len__(self):
            return 10 ** 6

        def __getitem__(self, i):
            t0 = time.thread_time()
            g = torch.Generator().manual_seed(i)
            return advjob.cpu_work(torch.rand(3, 64, 64, generator=g), t0, 0.25e-3), i % 10

    batch = 64 if not args.dry_run else 8
    loader = DataLoader(Samples(), batch_size=batch, num_workers=4, pin_memory=dev.type == "cuda",
                        persistent_workers=True, drop_last=True)
    width = 128 if not args.dry_run else 8
    model = nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * width, 10),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    amp = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda")
    it = [iter(loader)]

    def step(_):
        try:
            x, y = next(it[0])
        except StopIteration:
            it[0] = iter(loader)
            x, y = next(it[0])
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        with amp:
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    try:
        advjob.run(args, "starved", dev, step, batch, {
            "pinned_core": core, "hog_pid": hog, "num_workers": 4})
    finally:
        if hog:
            try:
                os.kill(hog, 9)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    main()
