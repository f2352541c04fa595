"""Data-parallel training of the digits MLP with dyngrad.distributed and
DistributedDataParallel: one process per rank, each on its share of every batch.

Run: ``mpiexec -n 2 python examples/distributed_mlp.py [--quick] [--out DIR]`` (needs the
``distributed`` and ``demo`` extras: ``pip install "dyngrad[distributed,demo]"``). With
plain ``python`` it is a world of one process (and without mpi4py it trains the bare model),
so the same script is the single-process reference.

The global batch is the same whatever the number of processes: ``DistributedSampler``
gives rank ``r`` every ``N``-th index of one shuffled order, so with ``batch_size = B / N``
the ranks' batches together are exactly the one-process batch, and DDP's averaged
gradient is its gradient (up to rounding): the accuracy is the one-process accuracy. Rank 0
prints the test accuracy, the median time per step and the share of it spent starting and
waiting for the gradient all-reduces, and writes them to ``DIR/result.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

import dyngrad
import dyngrad.distributed as dist
from dyngrad import nn, optim
from dyngrad.demo.train import load_data
from dyngrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="4 epochs (CI)")
    ap.add_argument("--epochs", type=int, default=None, help="default 30, 4 with --quick")
    ap.add_argument("--batch-size", type=int, default=64, help="the global batch (split over the ranks)")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "dyngrad-examples", "distributed_mlp"))
    a = ap.parse_args()
    epochs = a.epochs or (4 if a.quick else 30)

    if dist.is_available():
        dist.init_process_group("mpi")  # rank and world size from mpiexec (one process under plain python)
        rank, world = dist.get_rank(), dist.get_world_size()
    else:
        rank, world = 0, 1
    if a.batch_size % world:
        raise SystemExit(f"--batch-size {a.batch_size} must be divisible by the {world} processes")

    data = load_data(seed=0)
    dyngrad.manual_seed(0)  # the same initial model everywhere (DDP broadcasts rank 0's anyway)
    model: nn.Module = nn.Sequential(nn.Linear(data["n_features"], a.hidden), nn.ReLU(),
                                     nn.Linear(a.hidden, a.hidden), nn.ReLU(), nn.Linear(a.hidden, 10))
    ddp = None
    if dist.is_available():
        ddp = nn.parallel.DistributedDataParallel(model)
        model = ddp
    opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train = TensorDataset(data["X_train"], data["y_train"])
    sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=0, drop_last=True)
    loader = DataLoader(train, batch_size=a.batch_size // world, sampler=sampler, drop_last=True)

    step_times, comm_times = [], []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        total = 0.0
        for xb, yb in loader:
            c0 = ddp._comm_seconds if ddp is not None else 0.0
            t0 = time.perf_counter()
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            step_times.append(time.perf_counter() - t0)
            comm_times.append((ddp._comm_seconds if ddp is not None else 0.0) - c0)
            total += loss.item()
        if rank == 0 and not a.quick:
            print(f"epoch {epoch + 1:2d}  loss (rank 0's shares) {total / len(loader):.4f}")

    with dyngrad.no_grad():
        module = ddp.module if ddp is not None else model
        acc = (module(data["X_test"]).argmax(1) == data["y_test"]).float().mean().item()
    med = statistics.median(step_times)
    share = statistics.median(c / s for c, s in zip(comm_times, step_times))
    if rank == 0:
        print(f"{world} process(es): test accuracy {acc:.4f} after {epochs} epochs; median step "
              f"{med * 1e3:.2f} ms, all-reduce share {share:.0%}")
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "result.json"), "w") as f:
            json.dump({"world_size": world, "epochs": epochs, "test_accuracy": acc, "median_step_s": med,
                       "allreduce_share": share, "global_batch": a.batch_size}, f, indent=1)
    if a.quick:
        assert acc > 0.85, f"test accuracy {acc:.3f} after {epochs} epochs"
    if dist.is_initialized():
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
