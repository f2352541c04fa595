"""NumPy per-op overhead before and after the backend seam (issue 15), in instructions.

Counts instructions with ``valgrind --tool=callgrind`` (deterministic, so the shared, noisy
machine does not matter) for a chain of small ops on a 16-element float64 vector
(``[mul w, add b, tanh, mul 0.5, sum-free]`` repeated), forward then backward, run
twice: with ``n`` and ``2n`` links, so the start-up (interpreter, imports) cancels and the
difference over ``4n`` ops is the cost of one op (forward plus its share of backward).

Each source tree (``--before``, ``--after``: the ``src`` folders of two checkouts) is
measured in the same run, interleaved. Run::

    python benchmarks/backend_overhead.py --before /work/main/src --after src [--n 200]

``--child N`` is the measured workload itself (what valgrind runs).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile


def child(n: int) -> None:
    import numpy as np

    import dyngrad

    rng = np.random.default_rng(0)
    x = dyngrad.from_numpy(rng.standard_normal(16)).requires_grad_()
    w = dyngrad.from_numpy(rng.standard_normal(16))
    b = dyngrad.from_numpy(rng.standard_normal(16))
    y = x
    for _ in range(n):
        y = ((y * w + b).tanh()) * 0.5
    y.sum().backward()


def instructions(src: str, n: int) -> int:
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        env = dict(os.environ, PYTHONPATH=src, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                            sys.executable, __file__, "--child", str(n)],
                           env=env, capture_output=True, text=True, check=True)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if m is None:
            raise RuntimeError(r.stderr[-2000:])
        return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="/work/main/src")
    ap.add_argument("--after", default="src")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--child", type=int, default=None)
    a = ap.parse_args()
    if a.child is not None:
        child(a.child)
        return
    per: dict[str, int] = {}
    counts: dict[tuple[str, int], int] = {}
    for n in (a.n, 2 * a.n):  # interleaved: before, after, before, after
        for name, src in (("before", a.before), ("after", a.after)):
            counts[name, n] = instructions(os.path.abspath(src), n)
    for name in ("before", "after"):
        per[name] = (counts[name, 2 * a.n] - counts[name, a.n]) // (4 * a.n)
        print(f"{name:6s} {per[name]:9d} instructions per op (forward + backward), "
              f"n={a.n}: {counts[name, a.n]} / 2n: {counts[name, 2 * a.n]}")
    print(f"after / before: {per['after'] / per['before']:.4f}")


if __name__ == "__main__":
    main()
