"""small.py: a launch-bound training job, for `gpuvet advise` (advise.small_work).

Planted: a tiny MLP (48 blocks of Linear(256, 256) + LayerNorm + GELU) trained on batches of
8: every kernel is a few microseconds long, so the GPU spends the step waiting for Python and
the CUDA launch path. NVML's utilisation can look fine while SM activity and occupancy (GPM)
stay low: there is too little work per launch.

--fixed: batch 1024, the first fix advise should print (larger batches; CUDA graphs and
torch.compile come next). The step takes about as long, so compare samples/s, not step time.

    python small.py [--seconds 30] [--fixed] [--dry-run]
"""
import advjob


def main():
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    dev = advjob.device(args)
    width, depth = 256, 48
    batch = 1024 if args.fixed else 8
    blocks = []
    for _ in range(depth):
        blocks += [nn.Linear(width, width), nn.LayerNorm(width), nn.GELU()]
    model = nn.Sequential(*blocks, nn.Linear(width, 10)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    # a fixed pool of batches already on the GPU: only the work per launch is at stake here
    g = torch.Generator(device=dev).manual_seed(0)
    xs = torch.randn(16, batch, width, device=dev, generator=g)
    ys = torch.randint(0, 10, (16, batch), device=dev, generator=g)

    def step(i):
        k = i % 16
        loss = F.cross_entropy(model(xs[k]), ys[k])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    advjob.run(args, "small", dev, step, batch, {"width": width, "depth": depth})


if __name__ == "__main__":
    main()
