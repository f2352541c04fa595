"""The gradient of a loss summed over a chunked dataset on disk, computed chunk-parallel on a
``dask.distributed`` LocalCluster with dyngrad on Dask arrays (docs/backends.md).

The data set (features ``X`` of shape ``(N, D)``, targets ``y``) is an npy stack on disk
(one ``.npy`` file per chunk of rows, ``dask.array.from_npy_stack``); at full size it can be
larger than memory (``--rows 1_300_000_000 --dim 2`` is 20 GB of float64), since every chunk
is read, used and dropped by a worker. The model is logistic regression with an L2 term;
the loss

    L(w, b) = sum_i log(1 + exp(-y_i (x_i . w + b))) + lam/2 |w|^2

is built with ordinary dyngrad ops on the Dask-backed tensors, ``L.backward()`` builds the
gradient's Dask graph, and ``dyngrad.compute(L, w.grad, b.grad)`` runs it on the cluster:
each worker computes the per-chunk partial sums, then Dask's tree reduction adds them.

The same loss and gradient are then computed with NumPy on the whole data (quick mode only:
the data fit in memory there) and compared: they must agree to rounding.

Run::

    python examples/dask_chunked_gradient.py --quick          # small, checked against NumPy
    python examples/dask_chunked_gradient.py --rows 10_000_000 --chunk 500_000

Needs the ``dask`` extra (``pip install "dyngrad[dask]"``).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np


def write_npy_stack(folder: str, rows: int, dim: int, chunk: int, seed: int = 0) -> None:
    """Write ``X`` (rows, dim) and ``y`` (rows,) as npy stacks in ``folder/X`` and ``folder/y``,
    one chunk at a time (never the whole data set in memory)."""
    import dask.array as da

    rng = np.random.default_rng(seed)
    w_true = rng.standard_normal(dim)
    for name in ("X", "y"):
        os.makedirs(os.path.join(folder, name), exist_ok=True)
    n_chunks = -(-rows // chunk)
    sizes = [min(chunk, rows - k * chunk) for k in range(n_chunks)]
    for k, n in enumerate(sizes):
        x = rng.standard_normal((n, dim))
        y = np.where(x @ w_true + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
        np.save(os.path.join(folder, "X", f"{k}.npy"), x)
        np.save(os.path.join(folder, "y", f"{k}.npy"), y)
    import pickle

    for name, shape in (("X", (rows, dim)), ("y", (rows,))):
        chunks = (tuple(sizes),) + tuple((s,) for s in shape[1:])
        with open(os.path.join(folder, name, "info"), "wb") as f:  # what da.from_npy_stack reads
            pickle.dump({"chunks": chunks, "dtype": np.dtype(np.float64), "axis": 0}, f)
    del da


def loss_fn(dg, X, y, w, b, lam):  # noqa: ANN001, ANN201 - the same code for Dask and NumPy tensors
    """sum_i softplus(-y_i (x_i . w + b)) + lam/2 |w|^2 (dyngrad ops only)."""
    margin = -y * (X @ w + b)
    return dg.nn.functional.softplus(margin).sum() + 0.5 * lam * (w * w).sum()


def dyngrad_dask_gradient(folder: str, w0: np.ndarray, b0: float, lam: float) -> tuple:
    """(loss, grad_w, grad_b) as NumPy values, computed on Dask (the current Client, if any)."""
    import dask.array as da

    import dyngrad as dg

    X = dg.from_dask(da.from_npy_stack(os.path.join(folder, "X")))
    y = dg.from_dask(da.from_npy_stack(os.path.join(folder, "y")))
    w = dg.tensor(w0.copy(), dtype=dg.float64, requires_grad=True)  # parameters: NumPy leaves
    b = dg.tensor(b0, dtype=dg.float64, requires_grad=True)
    loss = loss_fn(dg, X, y, w, b, lam)  # a lazy Dask graph: nothing is read yet
    loss.backward()  # the gradient's graph, lazy too: w.grad holds a Dask array
    lv, gw, gb = dg.compute(loss, w.grad, b.grad)  # one pass over the data, chunk-parallel
    return lv.item(), gw.numpy(), gb.item()


def handwritten_dask_gradient(folder: str, w0: np.ndarray, b0: float, lam: float) -> tuple:
    """The same math written by hand in Dask (the benchmark's reference)."""
    import dask
    import dask.array as da

    X = da.from_npy_stack(os.path.join(folder, "X"))
    y = da.from_npy_stack(os.path.join(folder, "y"))
    margin = -y * (X @ w0 + b0)
    loss = da.logaddexp(0.0, margin).sum() + 0.5 * lam * float(w0 @ w0)
    s = -y * (1.0 / (1.0 + da.exp(-margin)))  # d loss / d (x.w + b)
    gw = X.T @ s + lam * w0
    gb = s.sum()
    lv, gw, gb = dask.compute(loss, gw, gb)
    return float(lv), np.asarray(gw), float(gb)


def numpy_gradient(folder: str, w0: np.ndarray, b0: float, lam: float) -> tuple:
    """The reference: dyngrad on NumPy arrays, all the data in memory."""
    import dask.array as da

    import dyngrad as dg

    X = dg.from_numpy(da.from_npy_stack(os.path.join(folder, "X")).compute())
    y = dg.from_numpy(da.from_npy_stack(os.path.join(folder, "y")).compute())
    w = dg.tensor(w0.copy(), dtype=dg.float64, requires_grad=True)
    b = dg.tensor(b0, dtype=dg.float64, requires_grad=True)
    loss = loss_fn(dg, X, y, w, b, lam)
    loss.backward()
    return loss.item(), w.grad.numpy(), b.grad.item()


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small data, checked against NumPy")
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--chunk", type=int, default=250_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--data", default=None, help="folder for the npy stack (default: a temporary one)")
    ap.add_argument("--out", default=None, help="folder for result.json")
    a = ap.parse_args(argv)
    if a.quick:
        a.rows, a.dim, a.chunk = 20_000, 8, 2_500
    from dask.distributed import Client, LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        folder = a.data or os.path.join(tmp, "data")
        if not os.path.exists(os.path.join(folder, "X", "info")):
            write_npy_stack(folder, a.rows, a.dim, a.chunk)
        rng = np.random.default_rng(1)
        w0, b0, lam = rng.standard_normal(a.dim) * 0.1, 0.05, 0.1
        with LocalCluster(n_workers=a.workers, threads_per_worker=1, dashboard_address=None) as cluster, \
                Client(cluster):
            t0 = time.perf_counter()
            lv, gw, gb = dyngrad_dask_gradient(folder, w0, b0, lam)
            t_dyngrad = time.perf_counter() - t0
            t0 = time.perf_counter()
            hv, hw, hb = handwritten_dask_gradient(folder, w0, b0, lam)
            t_hand = time.perf_counter() - t0
        np.testing.assert_allclose([lv, gb], [hv, hb], rtol=1e-10)
        np.testing.assert_allclose(gw, hw, rtol=1e-10, atol=1e-9)
        result = {"rows": a.rows, "dim": a.dim, "chunk": a.chunk, "workers": a.workers, "loss": lv,
                  "dyngrad_dask_s": t_dyngrad, "handwritten_dask_s": t_hand,
                  "rows_per_s_dyngrad": a.rows / t_dyngrad, "rows_per_s_handwritten": a.rows / t_hand}
        if a.quick:
            nv, nw, nb = numpy_gradient(folder, w0, b0, lam)
            np.testing.assert_allclose([lv, gb], [nv, nb], rtol=1e-10)
            np.testing.assert_allclose(gw, nw, rtol=1e-10, atol=1e-9)
            result["equals_numpy"] = True
    print(f"loss {lv:.6f}; |grad w| {np.linalg.norm(gw):.6f}; dyngrad on Dask {t_dyngrad:.2f} s, "
          f"hand-written Dask {t_hand:.2f} s ({a.rows} rows x {a.dim}, chunks of {a.chunk}, {a.workers} workers)"
          + ("; equals the NumPy result" if a.quick else ""))
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "result.json"), "w") as f:
            json.dump(result, f, indent=1)
    return result


if __name__ == "__main__":
    main()
