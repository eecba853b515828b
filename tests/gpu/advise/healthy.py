"""healthy.py: the control for `gpuvet advise` (advise.ok): a job with nothing to fix.

A mid-size convnet (bf16, channels-last) trained on batches of 256 images (3 x 64 x 64) that
already sit on the GPU: the GPU is busy the whole step, the host only launches. advise should
find no bottleneck. tests/gpu/advise-h200.sh also runs it with and without advise attached to
measure advise's own cost.

--fixed: accepted and changes nothing (there is nothing to fix), so the script can treat every
job alike.

    python healthy.py [--seconds 30] [--fixed] [--dry-run]
"""
import advjob


def main():
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    dev = advjob.device(args)
    batch, side, width = (256, 64, 128) if not args.dry_run else (8, 32, 8)

    def conv(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    model = nn.Sequential(
        *conv(3, width), *conv(width, width), nn.MaxPool2d(2),
        *conv(width, 2 * width), *conv(2 * width, 2 * width), nn.MaxPool2d(2),
        *conv(2 * width, 4 * width), *conv(4 * width, 4 * width),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * width, 100),
    ).to(dev)
    cl = torch.channels_last if dev.type == "cuda" else torch.contiguous_format
    model = model.to(memory_format=cl)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator(device=dev).manual_seed(0)
    xs = torch.randn(8, batch, 3, side, side, device=dev, generator=g)
    ys = torch.randint(0, 100, (8, batch), device=dev, generator=g)
    xs = [x.contiguous(memory_format=cl) for x in xs]
    amp = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda")

    def step(i):
        k = i % 8
        with amp:
            loss = F.cross_entropy(model(xs[k]), ys[k])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    advjob.run(args, "healthy", dev, step, batch, {"width": width})


if __name__ == "__main__":
    main()
