"""DistributedDataParallel scaling on this machine, and a model of the all-reduce for more.

Two measurements, both with ``mpiexec`` from the environment (the ``distributed`` extra):

1. Strong scaling of an MLP training step (784-512-512-10, float32, global batch 256, SGD):
   the same global batch on 1 process and on 2 (each rank 128 rows, DDP averaging the
   gradients), the two launched alternately ``--rounds`` times; the median step time of
   each launch, then the median over launches. The 1-process run once with BLAS using all
   cores, once with one thread (each of the 2 ranks gets one: ``init_process_group`` shares
   the cores). Reported: the speed-ups and the share of the 2-process step spent starting
   and waiting for the all-reduces (the wait includes the other rank's lag).
2. The all-reduce itself with 2 ranks: ``dist.all_reduce`` of 8 B to 16 MiB (median of many
   calls), raw ``mpi4py`` ``Allreduce`` beside it (dyngrad's overhead: the Python wrapper,
   the polling wait, the signature check; the check alone by rerunning with
   ``DYNGRAD_DISTRIBUTED_CHECKS=0``), and the alpha-beta fit ``t(n) = alpha + beta * n`` of the
   raw calls. From alpha and beta, MPICH's algorithms give the cost for ``p`` ranks of
   the MLP's gradient (``n`` bytes): recursive doubling ``log2(p) * (alpha + n beta)`` (short
   messages), Rabenseifner's reduce-scatter + all-gather ``2 log2(p) alpha + 2 (p-1)/p n beta``
   (MPICH's default for long ones), and a ring ``2 (p-1) alpha + 2 (p-1)/p n beta``.
   Here alpha and beta are shared-memory numbers of one machine; between machines use
   the network's (e.g. ~2 us and 1/12.5 GB/s for 100 Gb/s InfiniBand).

Usage: ``python benchmarks/ddp_scaling.py [--rounds 5] [--steps 40]`` (prints markdown).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SIZES = (784, 512, 512, 10)
BATCH = 256


def _mpiexec() -> str:
    here = Path(sys.executable).parent / "mpiexec"
    exe = str(here) if here.exists() else shutil.which("mpiexec")
    if exe is None:
        raise SystemExit('no mpiexec: pip install "dyngrad[distributed]"')
    return exe


def launch(n: int, *args: str, env: dict | None = None) -> dict:
    src = Path(__file__).resolve().parents[1] / "src"
    e = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]), **(env or {})}
    p = subprocess.run([_mpiexec(), "-n", str(n), sys.executable, __file__, *args], capture_output=True, text=True,
                       env=e, timeout=600)
    if p.returncode != 0:
        raise SystemExit(p.stdout + p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ workers (under mpiexec)

def worker_step(steps: int, bucket_view: bool) -> None:
    import dyngrad
    import dyngrad.distributed as dist
    from dyngrad import nn, optim

    dist.init_process_group("mpi")
    r, w = dist.get_rank(), dist.get_world_size()
    dyngrad.manual_seed(0)
    layers: list = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    model = nn.parallel.DistributedDataParallel(nn.Sequential(*layers[:-1]), gradient_as_bucket_view=bucket_view)
    opt = optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(r)
    X = dyngrad.tensor(rng.standard_normal((BATCH // w, SIZES[0])).astype(np.float32))
    y = dyngrad.tensor(rng.integers(0, 10, BATCH // w))
    times, comm = [], []
    for i in range(steps + 5):
        c0 = model._comm_seconds
        t0 = time.perf_counter()
        opt.zero_grad()
        nn.functional.cross_entropy(model(X), y).backward()
        opt.step()
        if i >= 5:
            times.append(time.perf_counter() - t0)
            comm.append(model._comm_seconds - c0)
    grad_bytes = sum(p.numel() * 4 for p in model.parameters())
    if r == 0:
        print(json.dumps({"step": statistics.median(times), "comm_share": statistics.median(
            c / t for c, t in zip(comm, times)), "grad_bytes": grad_bytes, "buckets": len(model._buckets)}))
    dist.destroy_process_group()


def worker_allreduce() -> None:
    import dyngrad
    import dyngrad.distributed as dist
    from dyngrad.distributed import _group

    dist.init_process_group("mpi")
    MPI = _group.mpi()
    comm = MPI.COMM_WORLD
    out = {}
    for k in range(3, 25, 2):  # 8 B .. 16 MiB
        n = 2 ** k // 4
        a = np.ones(n, dtype=np.float32)
        t = dyngrad.tensor(a)
        reps = max(9, min(400, int(2e7 / max(n, 1000))))
        raw, ours = [], []
        for _ in range(3):  # warm-up
            comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM)
            dist.all_reduce(t)
        for _ in range(reps):  # interleaved
            comm.Barrier()
            t0 = time.perf_counter()
            comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM)
            raw.append(time.perf_counter() - t0)
            comm.Barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            ours.append(time.perf_counter() - t0)
        out[4 * n] = (statistics.median(raw), statistics.median(ours))
    if dist.get_rank() == 0:
        print(json.dumps(out))
    dist.destroy_process_group()


# ------------------------------------------------------------------ the driver

def model_costs(alpha: float, beta: float, n: float, p: int) -> dict:
    lg = math.log2(p)
    return {"recursive doubling": lg * (alpha + n * beta),
            "Rabenseifner (MPICH long)": 2 * lg * alpha + 2 * (p - 1) / p * n * beta,
            "ring": 2 * (p - 1) * alpha + 2 * (p - 1) / p * n * beta}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--worker", choices=["step", "allreduce"])
    ap.add_argument("--bucket-view", action="store_true")
    a = ap.parse_args()
    if a.worker == "step":
        return worker_step(a.steps, a.bucket_view)
    if a.worker == "allreduce":
        return worker_allreduce()

    one, one1, two, twov = [], [], [], []
    for _ in range(a.rounds):  # alternate the launches so machine load hits all alike
        one.append(launch(1, "--worker", "step", "--steps", str(a.steps)))
        one1.append(launch(1, "--worker", "step", "--steps", str(a.steps), env={"OMP_NUM_THREADS": "1"}))
        two.append(launch(2, "--worker", "step", "--steps", str(a.steps)))
        twov.append(launch(2, "--worker", "step", "--steps", str(a.steps), "--bucket-view"))
    t1 = statistics.median(r["step"] for r in one)
    t11 = statistics.median(r["step"] for r in one1)
    t2 = statistics.median(r["step"] for r in two)
    share = statistics.median(r["comm_share"] for r in two)
    t2v = statistics.median(r["step"] for r in twov)
    sharev = statistics.median(r["comm_share"] for r in twov)
    gb = two[0]["grad_bytes"]
    print(f"## MLP {'-'.join(map(str, SIZES))}, global batch {BATCH}, {a.rounds} alternating launches of "
          f"{a.steps} steps\n")
    print("| processes | median step | speed-up vs 1 | all-reduce share |\n| --- | --- | --- | --- |")
    print(f"| 1 (BLAS threads: all cores) | {t1 * 1e3:.2f} ms | 1.00x | - |")
    print(f"| 1 (1 BLAS thread) | {t11 * 1e3:.2f} ms | {t1 / t11:.2f}x | - |")
    print(f"| 2 (1 BLAS thread each) | {t2 * 1e3:.2f} ms | {t1 / t2:.2f}x ({t11 / t2:.2f}x the 1-thread run) | "
          f"{share:.0%} |")
    print(f"| 2, `gradient_as_bucket_view=True` | {t2v * 1e3:.2f} ms | {t1 / t2v:.2f}x ({t11 / t2v:.2f}x) | "
          f"{sharev:.0%} |")
    print(f"\ngradient: {gb / 2**20:.2f} MiB in {two[0]['buckets']} buckets\n")

    on = launch(2, "--worker", "allreduce")
    off = launch(2, "--worker", "allreduce", env={"DYNGRAD_DISTRIBUTED_CHECKS": "0"})
    sizes = np.array([int(k) for k in on])
    raw = np.array([v[0] for v in on.values()])
    ours = np.array([v[1] for v in on.values()])
    ours_off = np.array([v[1] for v in off.values()])
    A = np.stack([np.ones_like(sizes, dtype=float), sizes.astype(float)], 1)
    alpha, beta = np.linalg.lstsq(A, raw, rcond=None)[0]
    alpha = max(alpha, float(raw[0]))  # the fit's intercept is noisy; the smallest message bounds it
    print("## all_reduce, 2 ranks (median per call)\n")
    print("| bytes | MPI Allreduce | dist.all_reduce | without the signature check |\n| --- | --- | --- | --- |")
    for s, r_, o, f in zip(sizes, raw, ours, ours_off):
        print(f"| {s:,} | {r_ * 1e6:.1f} us | {o * 1e6:.1f} us | {f * 1e6:.1f} us |")
    print(f"\nalpha-beta fit of the raw calls: alpha = {alpha * 1e6:.2f} us, beta = {beta * 1e9:.3f} ns/B "
          f"({1 / beta / 1e9:.2f} GB/s)\n")
    print(f"## model: all-reduce of the MLP's {gb / 2**20:.2f} MiB gradient on p ranks (this machine's alpha, beta)\n")
    print("| p | recursive doubling | Rabenseifner (MPICH long) | ring | vs 1-process step |\n| --- | --- | --- | --- | --- |")
    for p in (2, 4, 8, 16, 64, 256, 1024):
        c = model_costs(alpha, beta, gb, p)
        best = min(c.values())
        print(f"| {p} | {c['recursive doubling'] * 1e3:.2f} ms | {c['Rabenseifner (MPICH long)'] * 1e3:.2f} ms | "
              f"{c['ring'] * 1e3:.2f} ms | {best / t1:.2f}x |")


if __name__ == "__main__":
    main()
