"""input.py: a training job starved by its input pipeline, for `gpuvet advise` (advise.input_pipeline).

Planted: each sample costs about 2.5 ms of CPU in Dataset.__getitem__ (a decoded image made,
cropped, flipped, normalised and blurred: what JPEG decoding and augmentation cost), and the
DataLoader has num_workers=0, so the main process prepares every batch on one core while the
GPU waits: the GPU idles in gaps of a batch's preparation (about 160 ms for 64 samples) and
the main process sits at 100 % of one core.

--fixed: DataLoader(num_workers=8, pin_memory=True, persistent_workers=True) and the copies
made with non_blocking=True: what advise should print on a 16-core machine.

    python input.py [--seconds 30] [--fixed] [--dry-run]
"""
import advjob


class Images:
    """A map-style dataset of synthetic 3x128x128 images, labels 0-99, each costing cpu_s of
    CPU to make."""

    def __init__(self, cpu_s, size=160, crop=128):
        self.cpu_s, self.size, self.crop = cpu_s, size, crop

    def __len__(self):
        return 10 ** 6

    def __getitem__(self, i):
        import time
        import torch
        t0 = time.thread_time()
        g = torch.Generator().manual_seed(i)
        s, c = self.size, self.crop
        img = torch.randint(0, 256, (3, s, s), dtype=torch.uint8, generator=g)
        x = img.float().div_(255.0)
        oy, ox = (int(v) for v in torch.randint(0, s - c + 1, (2,), generator=g))
        x = x[:, oy:oy + c, ox:ox + c]
        if i % 2:
            x = x.flip(2)
        x = (x - 0.45) / 0.225
        return advjob.cpu_work(x, t0, self.cpu_s).contiguous(), i % 100


def main():
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader
    # image decoding and augmentation (PIL, numpy) run on one core per process; so does this
    # stand-in, in the main process as in the workers (which PyTorch sets to one thread)
    torch.set_num_threads(1)
    dev = advjob.device(args)
    batch = 64 if not args.dry_run else 8
    ds = Images(2.5e-3)
    if args.fixed:
        loader = DataLoader(ds, batch_size=batch, shuffle=True, num_workers=8, pin_memory=True,
                            persistent_workers=True, drop_last=True)
    else:
        loader = DataLoader(ds, batch_size=batch, shuffle=True, num_workers=0, drop_last=True)
    width = 128 if not args.dry_run else 8
    model = nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
        nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
        nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(2 * width, 4 * width, 3, padding=1), nn.BatchNorm2d(4 * width), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * width, 100),
    ).to(dev)
    if dev.type == "cuda":
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    it = [iter(loader)]
    amp = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=dev.type == "cuda")

    def step(_):
        try:
            x, y = next(it[0])
        except StopIteration:  # an epoch is 10**6 samples; a new one if a run outlasts it
            it[0] = iter(loader)
            x, y = next(it[0])
        x = x.to(dev, non_blocking=args.fixed)
        y = y.to(dev, non_blocking=args.fixed)
        with amp:
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    advjob.run(args, "input", dev, step, batch, {
        "cpu_ms_per_sample": 2.5,
        "num_workers": loader.num_workers, "pin_memory": loader.pin_memory})


if __name__ == "__main__":
    main()
