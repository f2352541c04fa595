"""Where one recorded op's instructions go: phases of a small-array ``mul`` measured apart
under callgrind, in one run.

Each phase repeats one piece of the recording or of the backward ``N`` times (16 float64
elements); ``time.sleep(0)`` between phases is the marker at which callgrind dumps its
counters (``--dump-before=time_sleep``), so each dump holds one phase. Differences of phases
give the cost of each layer (NumPy's ufunc, the Tensor, ``apply`` without recording,
recording, saving, the engine per node). Run::

    python benchmarks/callgrind_breakdown.py [--n 5000] [--gc]

(``--gc`` leaves the cyclic GC on inside the phases; by default it is off there, and the GC
share of the whole chain is measured by ``callgrind_chain.py --gc off``.)
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

PHASES = [
    ("ufunc", "np.multiply of two 16-element float64 arrays"),
    ("make", "Tensor._make of an array (one fresh Tensor)"),
    ("nograd_mul", "y * w under no_grad (dispatch, apply's short path, forward body, ufunc, Tensor)"),
    ("rec_mul_const", "y * 0.5 recorded (y requires grad): saves nothing"),
    ("rec_mul", "y * w recorded (y requires grad): saves w"),
    ("rec_tanh", "y.tanh() recorded: saves its output"),
    ("bwd_mul_chain", "backward through a chain of y * 0.5 (per node, array path)"),
    ("bwd_mul_chain_graph", "backward through the same chain with create_graph=True (Tensor path)"),
]


def _inner(n: int, keep_gc: bool) -> None:
    import gc
    import time

    import numpy as np

    import dyngrad

    rng = np.random.default_rng(0)
    ad, bd = rng.standard_normal(16), rng.standard_normal(16)
    make = dyngrad.Tensor._make
    x = dyngrad.tensor(ad, requires_grad=True)
    y = x * 1.0
    w = dyngrad.tensor(bd)
    keep: list = []

    def chain(m: int):
        z = x
        for _ in range(m):
            z = z * 0.5
        return z.sum()

    chain(10).backward()  # warm-up
    with dyngrad.no_grad():
        y * w
    (y * w, y * 0.5, y.tanh())
    if not keep_gc:
        gc.disable()
    time.sleep(0)
    for _ in range(n):
        np.multiply(ad, bd)
    time.sleep(0)
    for _ in range(n):
        keep.append(make(ad))
    time.sleep(0)
    keep.clear()
    with dyngrad.no_grad():
        for _ in range(n):
            keep.append(y * w)
    time.sleep(0)
    keep.clear()
    for _ in range(n):
        keep.append(y * 0.5)
    time.sleep(0)
    keep.clear()
    for _ in range(n):
        keep.append(y * w)
    time.sleep(0)
    keep.clear()
    for _ in range(n):
        keep.append(y.tanh())
    time.sleep(0)
    keep.clear()
    loss = chain(n)
    time.sleep(0)
    x.grad = None
    loss.backward()
    time.sleep(0)
    loss = chain(n)
    time.sleep(0)
    x.grad = None
    loss.backward(create_graph=True)
    time.sleep(0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--gc", action="store_true")
    a = ap.parse_args()
    if a.inner:
        _inner(a.n, a.gc)
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg")
        cmd = ["valgrind", "--tool=callgrind", "--dump-before=time_sleep", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--inner", "--n", str(a.n)] + (["--gc"] if a.gc else [])
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        totals = []
        for f in sorted(glob.glob(out + ".*"), key=lambda p: int(p.rsplit(".", 1)[1])):
            with open(f) as fh:
                for line in fh:
                    m = re.match(r"(?:summary|totals):\s+(\d+)", line)
                    if m:
                        totals.append(int(m.group(1)))
                        break
    # dumps: [start..1st sleep], ufunc, make, nograd, rec_const, rec_mul, rec_tanh, (build chain), bwd, (build), bwd_graph, rest
    d = totals[1:]
    vals = {"ufunc": d[0], "make": d[1], "nograd_mul": d[2], "rec_mul_const": d[3], "rec_mul": d[4],
            "rec_tanh": d[5], "bwd_mul_chain": d[7], "bwd_mul_chain_graph": d[9]}
    print(f"instructions per repetition (callgrind, n={a.n}, 16 float64 elements, gc {'on' if a.gc else 'off'})")
    for name, desc in PHASES:
        print(f"  {name:20s} {vals[name] / a.n:9.0f}   {desc}")


if __name__ == "__main__":
    main()
