"""Instructions per recorded op (forward + backward) of a chain of small float64 ops, under
``valgrind --tool=callgrind``: instruction counts are repeatable on a shared, noisy machine
where timings are not.

The measure (as in RESULTS.md, issue 10): run the chain with ``--ops 1000`` and ``--ops
3000`` under callgrind and divide the difference of the totals by 2,000, so that start-up and
import cancel. ``--chain mul`` is ``y = y * w`` (16 float64 elements); ``--chain block`` is
benchmarks/overhead.py's ``[mul w, add b, tanh, mul 0.5]`` in float64.

    python benchmarks/callgrind_chain.py --measure            # dyngrad as imported here
    python benchmarks/callgrind_chain.py --measure --lib torch

``--measure`` needs valgrind; without it the script just runs one chain (the child).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def run_chain(lib_name: str, chain: str, n_ops: int) -> None:
    import numpy as np

    if lib_name == "torch":
        import torch as lib

        lib.set_num_threads(1)
    else:
        import dyngrad as lib
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(16), requires_grad=True)
    # a fixed pool of operands, reused, so that creating them is not counted per op
    ws = [lib.tensor(w) for w in rng.uniform(0.9, 1.1, (8, 16))]
    bs = [lib.tensor(b) for b in rng.uniform(-0.1, 0.1, (8, 16))]
    y = x
    if chain == "mul":
        for i in range(n_ops):
            y = y * ws[i & 7]
    else:
        for i in range(n_ops // 4):
            y = y * ws[i & 7]
            y = y + bs[i & 7]
            y = y.tanh()
            y = y * 0.5
    y.sum().backward()
    assert x.grad is not None


def count(lib_name: str, chain: str, n_ops: int, env: dict | None = None) -> int:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         os.path.abspath(__file__), "--lib", lib_name, "--chain", chain, "--ops", str(n_ops)],
        capture_output=True, text=True, env=env, check=True,
    ).stderr
    m = re.search(r"Collected\s*:\s*(\d+)", out) or re.search(r"refs:\s*([\d,]+)", out)
    assert m, out[-2000:]
    return int(m.group(1).replace(",", ""))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", default="dyngrad", choices=("dyngrad", "torch"))
    p.add_argument("--chain", default="mul", choices=("mul", "block"))
    p.add_argument("--ops", type=int, default=1000)
    p.add_argument("--measure", action="store_true", help="run 1,000 and 3,000 ops under callgrind")
    a = p.parse_args()
    if not a.measure:
        run_chain(a.lib, a.chain, a.ops)
        return
    lo, hi = count(a.lib, a.chain, 1000), count(a.lib, a.chain, 3000)
    per = (hi - lo) / 2000
    extra = ""
    if a.lib == "dyngrad":
        import dyngrad

        extra = f" compiled={list(dyngrad.__compiled__)}"
    print(f"{a.lib} chain={a.chain}: {per / 1e3:.1f}k instr/op{extra}")


if __name__ == "__main__":
    main()
