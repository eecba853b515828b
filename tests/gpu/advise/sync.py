"""sync.py: a training job that waits for the GPU every step, for `gpuvet advise` (advise.sync_points).

Planted: a mid-size residual MLP (12 blocks, width 4096, batch 512, bf16) whose loop, like
many tutorials', every step calls loss.item() and prints it, computes an accuracy and takes it
to the host with .cpu(), and calls torch.cuda.synchronize() "to time the step". Each of these
stops the host until the GPU has finished, so the GPU then waits while Python launches the
next step: short idle gaps at the step rate, the main thread busy, little PCIe traffic.

--fixed: the loss and the accuracy are summed on the GPU (detached) and taken to the host and
printed every 50 steps only; no synchronize.

    python sync.py [--seconds 30] [--fixed] [--dry-run]
"""
import sys
import time

import advjob


def main():
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    dev = advjob.device(args)
    width, depth, batch = (4096, 12, 512) if not args.dry_run else (256, 4, 32)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(width)
            self.fc1 = nn.Linear(width, width)
            self.fc2 = nn.Linear(width, width)

        def forward(self, x):
            return x + self.fc2(F.gelu(self.fc1(self.norm(x))))

    model = nn.Sequential(*[Block() for _ in range(depth)], nn.Linear(width, 100)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    g = torch.Generator(device=dev).manual_seed(0)
    xs = torch.randn(8, batch, width, device=dev, generator=g)
    ys = torch.randint(0, 100, (8, batch), device=dev, generator=g)
    amp = torch.autocast(dev.type, dtype=torch.bfloat16)
    # the job logs to stdout as training scripts do; the result line must stay the last one
    log = sys.stdout
    acc_sum = torch.zeros((), device=dev)
    loss_sum = torch.zeros((), device=dev)
    t_last = [time.monotonic()]

    def step(i):
        k = i % 8
        with amp:
            logits = model(xs[k])
            loss = F.cross_entropy(logits, ys[k])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if not args.fixed:
            acc = (logits.argmax(1) == ys[k]).float().mean().cpu()
            if dev.type == "cuda":
                torch.cuda.synchronize()
            now = time.monotonic()
            print("step %d loss %.4f acc %.3f %.1f ms" % (i, loss.item(), float(acc),
                                                          1e3 * (now - t_last[0])), file=log)
            t_last[0] = now
        else:
            loss_sum.add_(loss.detach().float())
            acc_sum.add_((logits.detach().argmax(1) == ys[k]).float().mean())
            if (i + 1) % 50 == 0:
                print("step %d loss %.4f acc %.3f" % (i, loss_sum.item() / 50, acc_sum.item() / 50),
                      file=log)
                loss_sum.zero_()
                acc_sum.zero_()

    advjob.run(args, "sync", dev, step, batch, {"width": width, "depth": depth})


if __name__ == "__main__":
    main()
