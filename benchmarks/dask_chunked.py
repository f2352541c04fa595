"""Throughput of the chunked-gradient workload (examples/dask_chunked_gradient.py): dyngrad on
Dask arrays vs the same math written by hand in Dask, on one ``LocalCluster`` (2 workers, one
thread each), interleaved, median of ``--repeats`` runs each after a warm-up of both. Also
the size of the two task graphs (what the scheduler has to ship). Run::

    python benchmarks/dask_chunked.py [--rows 2000000 --dim 16 --chunk 250000 --repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

import dask_chunked_gradient as ex  # noqa: E402
import numpy as np  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--chunk", type=int, default=250_000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    from dask.distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        ex.write_npy_stack(tmp, a.rows, a.dim, a.chunk)
        rng = np.random.default_rng(1)
        w0, b0, lam = rng.standard_normal(a.dim) * 0.1, 0.05, 0.1
        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster):
            ex.dyngrad_dask_gradient(tmp, w0, b0, lam)  # warm-up: workers import what the tasks need
            ex.handwritten_dask_gradient(tmp, w0, b0, lam)
            times: dict[str, list[float]] = {"dyngrad": [], "hand": []}
            for _ in range(a.repeats):
                for name, fn in (("dyngrad", ex.dyngrad_dask_gradient), ("hand", ex.handwritten_dask_gradient)):
                    t0 = time.perf_counter()
                    fn(tmp, w0, b0, lam)
                    times[name].append(time.perf_counter() - t0)
    md, mh = statistics.median(times["dyngrad"]), statistics.median(times["hand"])
    mb = a.rows * a.dim * 8 / 1e6
    print(f"{a.rows} rows x {a.dim} float64 ({mb:.0f} MB), chunks of {a.chunk}, 2 workers x 1 thread, "
          f"median of {a.repeats}")
    print(f"dyngrad on Dask   {md:.3f} s  {mb / md:8.1f} MB/s")
    print(f"hand-written Dask {mh:.3f} s  {mb / mh:8.1f} MB/s")
    print(f"dyngrad / hand-written time: {md / mh:.2f}")


if __name__ == "__main__":
    main()
