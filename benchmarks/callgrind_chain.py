"""Instructions per recorded op of a small-array chain, dyngrad vs PyTorch, under callgrind.

Wall-clock timings on a shared machine are noisy; instruction counts are repeatable. This
script runs the chain of ``benchmarks/overhead.py`` (``[mul w, add b, tanh, mul 0.5]``
repeated, 16 float64 elements) under ``valgrind --tool=callgrind`` at two lengths and
reports the difference per op, so that start-up and imports cancel out:

* ``forward``: recording the chain (``N`` ops and the final ``sum``);
* ``backward``: ``loss.backward()`` through it;
* ``total``: both.

Each (library, phase, length) is one valgrind run (the library is imported in every run,
its cost cancels in the difference). Run::

    python benchmarks/callgrind_chain.py [--short 400] [--long 2000] [--libs dyngrad torch]
        [--gc default|off|freeze|threshold]

``--gc`` sets the cyclic garbage collector of the measured process before the chains run:
``off`` (``gc.disable()``), ``freeze`` (``gc.freeze()`` after the imports, so the objects of
the libraries are never scanned again) or ``threshold`` (generation 0 threshold 10,000
instead of 700).

Requires valgrind on PATH; PyTorch is skipped when it is not installed.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

N_ELEM = 16


def _inner(lib_name: str, phase: str, n_ops: int, gc_mode: str = "default") -> None:
    """The measured program: build (and for ``phase == 'both'`` differentiate) a chain of
    ``n_ops`` ops after one warm-up chain of 40 ops."""
    import numpy as np

    if lib_name == "torch":
        import torch as lib

        lib.set_num_threads(1)
    else:
        import dyngrad as lib
    import gc

    if gc_mode == "off":
        gc.disable()
    elif gc_mode == "freeze":
        gc.collect()
        gc.freeze()
    elif gc_mode == "threshold":
        gc.set_threshold(10_000, *gc.get_threshold()[1:])
    rng = np.random.default_rng(0)
    blocks = max(1, n_ops // 4)
    x = lib.tensor(rng.standard_normal(N_ELEM), requires_grad=True)
    ws = [lib.tensor(w) for w in rng.uniform(0.9, 1.1, (blocks, N_ELEM))]
    bs = [lib.tensor(b) for b in rng.uniform(-0.1, 0.1, (blocks, N_ELEM))]

    def run(nb: int, backward: bool) -> None:
        y = x
        for w, b in zip(ws[:nb], bs[:nb]):
            y = y * w
            y = y + b
            y = y.tanh()
            y = y * 0.5
        loss = y.sum()
        if backward:
            x.grad = None
            loss.backward()

    run(10, True)  # warm-up: caches, lazy imports, specialisation
    run(blocks, phase == "both")


def _count(lib_name: str, phase: str, n_ops: int, workdir: str, gc_mode: str = "default") -> int:
    out = os.path.join(workdir, f"cg.{lib_name}.{phase}.{n_ops}")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
         "--inner", lib_name, phase, str(n_ops), gc_mode],
        check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    with open(out) as f:
        for line in f:
            m = re.match(r"(?:summary|totals):\s+(\d+)", line)
            if m:
                return int(m.group(1))
    raise RuntimeError(f"no instruction total in {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--inner", nargs=4, metavar=("LIB", "PHASE", "N", "GC"), help=argparse.SUPPRESS)
    ap.add_argument("--gc", default="default", choices=["default", "off", "freeze", "threshold"])
    ap.add_argument("--short", type=int, default=400, help="ops in the short chain (default 400)")
    ap.add_argument("--long", type=int, default=2000, help="ops in the long chain (default 2000)")
    ap.add_argument("--libs", nargs="+", default=["dyngrad", "torch"])
    a = ap.parse_args()
    if a.inner:
        _inner(a.inner[0], a.inner[1], int(a.inner[2]), a.inner[3])
        return
    libs = list(a.libs)
    if "torch" in libs:
        try:
            import torch  # noqa: F401
        except ImportError:
            libs.remove("torch")
            print("PyTorch not installed: skipped")
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for lib in libs:
            per = {}
            for phase in ("fwd", "both"):
                lo = _count(lib, phase, a.short, tmp, a.gc)
                hi = _count(lib, phase, a.long, tmp, a.gc)
                per[phase] = (hi - lo) / (4 * (a.long // 4 - a.short // 4))
            res[lib] = (per["fwd"], per["both"] - per["fwd"], per["both"])
    print(f"instructions per op (callgrind; chain of {a.short} vs {a.long} ops, {N_ELEM} float64 elements, "
          f"gc {a.gc})")
    print(f"  {'':8s} {'forward':>10s} {'backward':>10s} {'total':>10s}")
    for lib, (f, b, t) in res.items():
        print(f"  {lib:8s} {f:10.0f} {b:10.0f} {t:10.0f}")
    if "torch" in res and "dyngrad" in res:
        d, r = res["dyngrad"], res["torch"]
        print(f"  ratio    {d[0] / r[0]:10.2f} {d[1] / r[1]:10.2f} {d[2] / r[2]:10.2f}")


if __name__ == "__main__":
    main()
