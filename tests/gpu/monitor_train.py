"""monitor_train.py: a small PyTorch training loop for tests/gpu/monitor-h200.sh.

A convolutional net on GPU 0 fed by a DataLoader with four worker processes that do real
CPU work per sample (like decoding and augmenting images), so the job has CPU children whose
load gpuvet must add to the main process. Runs for DURATION seconds (default 40), writes its
PID to PIDFILE at start and "ready" to READYFILE once training is in a steady state.

    python3 monitor_train.py DURATION PIDFILE READYFILE
"""
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    """Random 3x96x96 images with a little CPU work each, labels 0-9."""

    def __len__(self):
        return 10 ** 7

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        x = torch.rand(3, 96, 96, generator=g)
        # blur and jitter: a few milliseconds of CPU per sample, like JPEG decode + augment
        for _ in range(4):
            x = F.avg_pool2d(x.unsqueeze(0), 3, stride=1, padding=1).squeeze(0)
        x = x + 0.01 * torch.randn(3, 96, 96, generator=g)
        return x, i % 10


def worker_init(_):
    torch.set_num_threads(1)


def main():
    duration = float(sys.argv[1]) if len(sys.argv) > 1 else 40.0
    pidfile = sys.argv[2] if len(sys.argv) > 2 else None
    readyfile = sys.argv[3] if len(sys.argv) > 3 else None
    if pidfile:
        with open(pidfile, "w") as f:
            f.write("%d\n" % os.getpid())
    dev = torch.device("cuda:0")
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(128, 256, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(256, 256, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10),
    ).to(dev)
    # a resident buffer, so the job's GPU memory is well above the CUDA context's
    ballast = torch.empty(2 * 1024 ** 3, dtype=torch.uint8, device=dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loader = DataLoader(Synthetic(), batch_size=128, num_workers=4, pin_memory=True,
                        persistent_workers=True, prefetch_factor=4, worker_init_fn=worker_init)
    start = time.time()
    steps = 0
    for x, y in loader:
        x = x.to(dev, non_blocking=True)
        y = y.to(dev, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        steps += 1
        if steps == 30 and readyfile:
            torch.cuda.synchronize()
            with open(readyfile, "w") as f:
                f.write("ready\n")
        if time.time() - start > duration:
            break
    torch.cuda.synchronize()
    print("monitor_train: %d steps in %.1f s (%.1f steps/s), loss %.3f, ballast %d MiB"
          % (steps, time.time() - start, steps / (time.time() - start), loss.item(),
             ballast.numel() // 2 ** 20), flush=True)


if __name__ == "__main__":
    main()
