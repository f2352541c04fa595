"""Instructions per training step under callgrind (repeatable on a shared machine, where
wall-clock ratios move by 0.3x with the load): the conv step of ``conv_step.py``, the MLP
step of ``mlp_step.py`` and the ``vmap(grad)`` call of ``vmap.py``.

Each (workload, library, length) is one ``valgrind --tool=callgrind`` run that imports the
library, runs 2 warm-up steps and then ``k`` steps; the difference between ``k = long`` and
``k = short`` divided by ``long - short`` is the instructions per step (start-up cancels).
Valgrind runs the code without AVX-512 (it reports no such CPU feature), so BLAS and oneDNN
take other kernels than natively: compare dyngrad with itself (before / after a change:
``--src``), and read the count against PyTorch's as indicative only.

Usage: ``python benchmarks/callgrind_steps.py [--work conv mlp vmap] [--libs dyngrad torch numpy]
[--src PATH] [--short 1] [--long 3]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

PROGRAM = r'''
import sys
sys.path.insert(0, {here!r})
import numpy as np
work, lib, k = {work!r}, {lib!r}, {k}
if work == "conv":
    import conv_step as C
    rng = np.random.default_rng(0)
    x = rng.standard_normal((C.BATCH, 1, 28, 28)).astype(np.float32); y = rng.integers(0, 10, C.BATCH)
    if lib == "torch":
        import torch; torch.set_num_threads(1)
        m = C.torch_model(torch); xt, yt = torch.from_numpy(x), torch.from_numpy(y)
        def step():
            m.zero_grad(); torch.nn.functional.cross_entropy(m(xt), yt).backward()
    else:
        import dyngrad; dyngrad.manual_seed(0)
        m = C.dyngrad_model(); xd, yd = dyngrad.tensor(x), dyngrad.tensor(y)
        def step():
            m.zero_grad(); dyngrad.nn.functional.cross_entropy(m(xd), yd).backward()
elif work == "mlp":
    import mlp_step as M
    rng = np.random.default_rng(1)
    x = rng.standard_normal((M.BATCH, 784)).astype(np.float32); y = rng.integers(0, 10, M.BATCH)
    if lib == "numpy":
        ps = M.init(); step = lambda: M.numpy_step(ps, x, y)
    elif lib == "torch":
        import torch; torch.set_num_threads(1)
        s, _ = M.torch_setup(M.init()); xt, yt = torch.from_numpy(x), torch.from_numpy(y); step = lambda: s(xt, yt)
    else:
        import dyngrad
        s, _ = M.dyngrad_setup(M.init()); xd, yd = dyngrad.tensor(x), dyngrad.tensor(y); step = lambda: s(xd, yd)
else:
    import vmap as V
    if lib == "torch":
        import torch; torch.set_num_threads(1)
    step = (V.torch_fns() if lib == "torch" else V.dyngrad_fns())["vmap"]
for _ in range(2):
    step()
for _ in range(k):
    step()
'''


def instructions(work: str, lib: str, k: int, src: str | None) -> int:
    with tempfile.TemporaryDirectory() as d:
        prog = Path(d) / "prog.py"
        prog.write_text(PROGRAM.format(here=str(HERE), work=work, lib=lib, k=k))
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        if src:
            env["PYTHONPATH"] = src
        out = Path(d) / "cg.out"
        r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, str(prog)],
                           env=env, capture_output=True, text=True)
        m = re.search(r"Collected : (\d+)", r.stderr)
        if r.returncode or not m:
            raise RuntimeError(f"callgrind run failed ({work}, {lib}, k={k}):\n{r.stderr[-2000:]}")
        return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", nargs="+", default=["conv", "mlp", "vmap"], choices=["conv", "mlp", "vmap"])
    ap.add_argument("--libs", nargs="+", default=["dyngrad", "torch"])
    ap.add_argument("--src", default=None, help="PYTHONPATH for dyngrad (a source tree's src/)")
    ap.add_argument("--short", type=int, default=1)
    ap.add_argument("--long", type=int, default=3)
    a = ap.parse_args()
    for work in a.work:
        for lib in a.libs:
            if lib == "numpy" and work != "mlp":
                continue
            lo = instructions(work, lib, a.short, a.src)
            hi = instructions(work, lib, a.long, a.src)
            print(f"{work:5s} {lib:8s} {(hi - lo) / (a.long - a.short) / 1e6:10.1f} M instructions per step", flush=True)


if __name__ == "__main__":
    main()
