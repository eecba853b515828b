"""h2d.py: a training job held up by its host-to-device copies, for `gpuvet advise` (advise.h2d_copies).

Planted: the data set lives in host memory as one large ordinary (pageable) tensor, and each
step copies a 77 MB batch (128 x 3 x 224 x 224 float32) with a blocking .to("cuda") before a
small network runs on it. A pageable copy goes through a staging buffer at a fraction of the
link's pinned rate, and the GPU computes nothing while it lasts: PCIe receive during the gaps,
far below what a pinned copy reaches on this machine.

--fixed: the host tensor pinned (pin_memory()), each batch copied with non_blocking=True on a
side stream one step ahead (prefetch), so the copy runs at the pinned rate and overlaps the
previous step's compute.

    python h2d.py [--seconds 30] [--fixed] [--dry-run]
"""
import advjob


def main():
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    dev = advjob.device(args)
    batch, side, nbatches = (128, 224, 12) if not args.dry_run else (8, 64, 4)
    # about 0.9 GB of "dataset" in host memory, made once (its making is not measured)
    xs = torch.rand(nbatches, batch, 3, side, side)
    ys = torch.randint(0, 100, (nbatches, batch))
    model = nn.Sequential(
        nn.Conv2d(3, 32, 7, stride=4, padding=3), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 100),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    amp = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda")
    prefetch = args.fixed and dev.type == "cuda"
    if prefetch:
        xs = xs.pin_memory()
        ys = ys.pin_memory()
        copier = torch.cuda.Stream()

        def load(k):
            with torch.cuda.stream(copier):
                return xs[k].to(dev, non_blocking=True), ys[k].to(dev, non_blocking=True)

        ahead = [load(0)]

    def step(i):
        if prefetch:
            cur = torch.cuda.current_stream()
            # the compute waits for the copy enqueued last step, not for the one enqueued next
            cur.wait_stream(copier)
            x, y = ahead[0]
            # the tensors came from the copier's pool: tell it they are used on this stream
            x.record_stream(cur)
            y.record_stream(cur)
            ahead[0] = load((i + 1) % nbatches)
        else:
            k = i % nbatches
            x, y = xs[k].to(dev), ys[k].to(dev)
        with amp:
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    advjob.run(args, "h2d", dev, step, batch, {
        "batch_bytes": xs[0].numel() * xs[0].element_size(), "pinned": bool(prefetch)})


if __name__ == "__main__":
    main()
