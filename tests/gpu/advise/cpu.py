"""cpu.py: a job that holds a CUDA context but trains on the CPU, for `gpuvet advise` (advise.cpu_work).

Planted: the script touches the GPU once (torch.zeros(1, device="cuda"), as a leftover "is
CUDA there?" check does, which creates a context and so shows the process on the GPU), then
trains an MLP (4 x Linear(2048, 2048), batch 256) with model and data left on the CPU, with
torch.set_num_threads(8): the GPU stays near 0 % while the process keeps eight cores busy.

--fixed: model and data on "cuda".

    python cpu.py [--seconds 30] [--fixed] [--dry-run]
"""
import advjob


def main():
    args = advjob.options(__doc__.split("\n")[0])
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    gpu = advjob.device(args)
    if gpu.type == "cuda":
        torch.zeros(1, device="cuda")  # the context, as the forgotten check makes it
    torch.set_num_threads(8)
    dev = gpu if args.fixed else torch.device("cpu")
    width, depth, batch = (2048, 4, 256) if not args.dry_run else (256, 4, 32)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    model = nn.Sequential(*layers, nn.Linear(width, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    xs = torch.randn(8, batch, width, device=dev)
    ys = torch.randint(0, 10, (8, batch), device=dev)

    def step(i):
        k = i % 8
        loss = F.cross_entropy(model(xs[k]), ys[k])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    # synchronised as the GPU, even when the work is on the CPU: the step ends on the host
    advjob.run(args, "cpu", gpu, step, batch, {"train_device": dev.type, "threads": 8})


if __name__ == "__main__":
    main()
