"""DataLoader throughput on a CPU-heavy per-sample transform: ``num_workers=2`` against
``num_workers=0``, measured interleaved in the same run (and PyTorch's DataLoader with the
same dataset and 2 workers, if torch is installed, as a reference for what the machine gives).

Each sample is a 64x64 float32 image built from its index and put through ``--work`` rounds of
elementwise NumPy (sin, tanh, a shifted average: about 1-2 ms per sample, no BLAS, so one
core per process); batches of 16 are collated with ``default_collate``. Workers are
persistent, so the numbers are steady-state throughput (worker start-up is timed separately).

Usage: ``python benchmarks/dataloader_throughput.py [--samples 384] [--repeats 5] [--work 40]``.
Prints samples/s per configuration (median over repeats), the speed-up 2 workers / 0
workers (median of the per-repeat ratios, with quartiles) and the start-up time of 2 workers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from dyngrad.utils.data import DataLoader, Dataset  # noqa: E402


def transform(i: int, work: int) -> np.ndarray:
    x = np.random.default_rng(i).standard_normal((64, 64)).astype(np.float32)
    for _ in range(work):
        x = np.tanh(np.sin(x) * 1.5 + 0.25 * (np.roll(x, 1, 0) + np.roll(x, 1, 1)))
    return x


class Heavy(Dataset):
    def __init__(self, n: int, work: int) -> None:
        self.n, self.work = n, work

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[np.ndarray, int]:
        return transform(i, self.work), i % 10


def epoch_time(loader) -> float:
    t = time.perf_counter()
    for _ in loader:
        pass
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=384)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--work", type=int, default=40)
    args = ap.parse_args()
    ds = Heavy(args.samples, args.work)
    t = time.perf_counter()
    transform(0, args.work)
    per_sample = time.perf_counter() - t
    loaders = {"0 workers": DataLoader(ds, batch_size=16), "2 workers": DataLoader(ds, batch_size=16, num_workers=2,
                                                                                      persistent_workers=True)}
    t = time.perf_counter()
    next(iter(DataLoader(ds, batch_size=16, num_workers=2)))
    startup = time.perf_counter() - t
    try:
        import torch.utils.data as tud

        class TorchHeavy(tud.Dataset):
            __len__, __getitem__ = Heavy.__len__, Heavy.__getitem__

            def __init__(self, n, work):
                self.n, self.work = n, work

        loaders["torch 2 workers"] = tud.DataLoader(TorchHeavy(args.samples, args.work), batch_size=16, num_workers=2,
                                                    persistent_workers=True)
    except ImportError:
        pass
    for loader in loaders.values():  # warm up (starts the persistent workers)
        epoch_time(loader)
    times: dict[str, list[float]] = {k: [] for k in loaders}
    for _ in range(args.repeats):
        for k, loader in loaders.items():
            times[k].append(epoch_time(loader))
    print(f"{args.samples} samples/epoch, batch 16, ~{per_sample * 1e3:.1f} ms transform per sample, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    for k, ts in times.items():
        print(f"{k:16s} {args.samples / statistics.median(ts):8.1f} samples/s  (median epoch {statistics.median(ts):.3f} s)")
    ratios = sorted(a / b for a, b in zip(times["0 workers"], times["2 workers"]))
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    print(f"speed-up 2 workers / 0 workers: median {statistics.median(ratios):.2f}x (quartiles {q[0]:.2f}-{q[2]:.2f})")
    if "torch 2 workers" in times:
        tr = sorted(a / b for a, b in zip(times["0 workers"], times["torch 2 workers"]))
        print(f"torch 2 workers / dyngrad 0 workers: median {statistics.median(tr):.2f}x")
    print(f"start-up of 2 workers (fork) to the first batch: {startup * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
