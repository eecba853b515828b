"""leak.py: a training job whose GPU memory grows every step, for `gpuvet advise` (advise.memory_growth).

Planted: a small fully convolutional network (a denoiser) whose loop keeps each step's
per-pixel loss map in a list "for the epoch's statistics", without .detach(): the 2 MB map
(32 x 1 x 128 x 128 float32) stays on the GPU with its autograd history, so the job's memory grows by
about 2 MB a step until it would run out. As a safety net the list is emptied once the
allocations pass 60 % of the GPU's memory (counted in the result as "leak_cleared").

--fixed: the statistic kept as a running sum of loss.detach() on the GPU: no growth.

    python leak.py [--seconds 30] [--fixed] [--dry-run]
"""
import sys

import advjob


def main():
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    dev = advjob.device(args)
    batch, side, width = (32, 128, 64) if not args.dry_run else (4, 32, 8)
    model = nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
        nn.Conv2d(width, 3, 3, padding=1),
    ).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    g = torch.Generator(device=dev).manual_seed(0)
    clean = torch.rand(8, batch, 3, side, side, device=dev, generator=g)
    noisy = clean + 0.1 * torch.randn(8, batch, 3, side, side, device=dev, generator=g)
    amp = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda")
    limit = 0.6 * torch.cuda.get_device_properties(dev).total_memory if dev.type == "cuda" else 0
    kept = []
    running = torch.zeros((), device=dev)
    cleared = [0]

    def step(i):
        k = i % 8
        with amp:
            out = model(noisy[k])
        # per-pixel loss, averaged over the channels: batch x 1 x side x side, float32
        loss_map = (out.float() - clean[k]).pow(2).mean(1, keepdim=True)
        loss = loss_map.mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if args.fixed:
            running.add_(loss.detach())
        else:
            kept.append(loss_map)  # the bug: the tensor itself, with its graph, every step
            if limit and torch.cuda.memory_allocated() > limit:
                print("leak: %d maps kept, past 60 %% of the GPU's memory: list emptied"
                      % len(kept), file=sys.stderr, flush=True)
                kept.clear()
                cleared[0] += 1

    advjob.run(args, "leak", dev, step, batch, lambda: {
        "leak_bytes_per_step": 0 if args.fixed else batch * side * side * 4,
        "kept_maps": len(kept), "leak_cleared": cleared[0]})


if __name__ == "__main__":
    main()
