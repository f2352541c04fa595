"""Run one benchmark script alternately against two source trees (before / after a change),
in separate processes, and print each run's ratio lines: "before" and "after" then meet the
same machine load, and each run's ratio is against its own in-process reference (PyTorch or
hand-written NumPy), measured round-robin inside that run.

Usage: ``python benchmarks/ab_trees.py BEFORE_SRC AFTER_SRC --runs 5 -- conv_step.py --threads 1 --clock cpu``
(the script name is relative to this folder; its arguments follow it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--grep", default="ratio", help="print the output lines containing this")
    argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("give the benchmark script after --")
    cut = argv.index("--")
    a = ap.parse_args(argv[:cut])
    script = argv[cut + 1 :]
    here = Path(__file__).resolve().parent
    for run in range(a.runs):
        order = [("before", a.before), ("after", a.after)]
        if run % 2:  # alternate which goes first
            order.reverse()
        for name, src in order:
            env = dict(os.environ, PYTHONPATH=str(Path(src).resolve()), OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
            out = subprocess.run([sys.executable, str(here / script[0]), *script[1:]], env=env, cwd=here,
                                 capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                if a.grep in line:
                    print(f"run {run} {name:6s} {line.strip()}", flush=True)


if __name__ == "__main__":
    main()
