"""The optional compiled build (docs/compiled-build.md) against pure Python and PyTorch:
instructions per recorded op (forward + backward) of a chain of small float64 ops under
``valgrind --tool=callgrind`` (repeatable on a shared, noisy machine where timings are not),
and benchmarks/overhead.py's chain ratio to PyTorch.

The instruction measure (as in RESULTS.md, issue 10): the chain run with 1,000 and 3,000
ops, the difference of the totals divided by 2,000, so that start-up and imports cancel.
``--chain mul`` is ``y = y * w`` (16 float64 elements, a pool of 8 operands reused);
``--chain block`` is overhead.py's ``[mul w, add b, tanh, mul 0.5]`` in float64.

Run it with the interpreter of an environment holding the compiled build; "pure" is the
same interpreter with this checkout's ``src/`` first on ``PYTHONPATH``::

    DYNGRAD_COMPILE=1 .venv-compiled/bin/pip install . torch==2.13.0
    .venv-compiled/bin/python benchmarks/compiled_build.py --compare [--chain mul] [--rounds 3]

``--measure`` counts one library as imported here (``--lib dyngrad|torch``); without either
flag the script runs one chain (the measured child).
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


def _per_op(lib_name: str, chain: str, env: dict | None = None) -> float:
    return (count(lib_name, chain, 3000, env) - count(lib_name, chain, 1000, env)) / 2000


def _overhead_chain(env: dict | None) -> str:
    """benchmarks/overhead.py's "dyngrad / torch" line of its chain."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, os.path.join(here, "overhead.py"), "--repeats", "7"],
                         capture_output=True, text=True, env=env, check=True).stdout
    chain = out[out.index("== chain"):]
    return next(line.strip() for line in chain.splitlines() if "dyngrad / torch" in line)


def compare(chain: str, rounds: int) -> None:
    import dyngrad

    if not dyngrad.__compiled__:
        raise SystemExit("run this with the interpreter of a compiled build (docs/compiled-build.md)")
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    pure = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    compiled = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    envs = {"pure": pure, "compiled": compiled}
    print(f"compiled modules: {', '.join(dyngrad.__compiled__)}")
    for name, env in envs.items():
        print(f"  {name:9s} chain={chain}: {_per_op('dyngrad', chain, env) / 1e3:6.1f}k instr/op")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("  torch not installed: no PyTorch reference")
        return
    print(f"  torch     chain={chain}: {_per_op('torch', chain, compiled) / 1e3:6.1f}k instr/op")
    for r in range(rounds):  # alternated, so that the machine's load falls on both alike
        for name, env in envs.items():
            print(f"  overhead.py round {r + 1} {name:9s}: {_overhead_chain(env)}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lib", default="dyngrad", choices=("dyngrad", "torch"))
    p.add_argument("--chain", default="mul", choices=("mul", "block"))
    p.add_argument("--ops", type=int, default=1000)
    p.add_argument("--measure", action="store_true", help="count --lib's instructions per op")
    p.add_argument("--compare", action="store_true", help="pure vs compiled vs torch")
    p.add_argument("--rounds", type=int, default=3, help="overhead.py runs of each (--compare)")
    a = p.parse_args()
    if a.compare:
        compare(a.chain, a.rounds)
        return
    if not a.measure:
        run_chain(a.lib, a.chain, a.ops)
        return
    extra = ""
    if a.lib == "dyngrad":
        import dyngrad

        extra = f" compiled={list(dyngrad.__compiled__)}"
    print(f"{a.lib} chain={a.chain}: {_per_op(a.lib, a.chain) / 1e3:.1f}k instr/op{extra}")


if __name__ == "__main__":
    main()
