"""Generate tests/golden/functional.npz: PyTorch 2.13 Jacobians and Hessians of the test
functions in tests/autograd/functional_cases.py.

Run with torch installed::

    python tests/golden/gen_functional.py

Keys: ``<case>/in<j>`` (inputs), ``<case>/jac/<i>/<j>`` (output ``i`` w.r.t. input ``j``,
``torch.autograd.functional.jacobian``) and, for scalar cases, ``<case>/hess/<i>/<j>``
(``torch.autograd.functional.hessian``).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from tests.autograd.functional_cases import cases, inputs  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "functional.npz")


def main() -> None:
    data: dict[str, np.ndarray] = {}
    for name, (fn, shapes, kind) in cases(torch).items():
        xs = inputs(name, shapes)
        for j, x in enumerate(xs):
            data[f"{name}/in{j}"] = x
        tx = tuple(torch.tensor(x) for x in xs)
        jac = torch.autograd.functional.jacobian(fn, tx)
        outs = fn(*tx)
        n_out = len(outs) if isinstance(outs, tuple) else 1
        for i in range(n_out):
            for j in range(len(xs)):
                data[f"{name}/jac/{i}/{j}"] = (jac[i][j] if n_out > 1 else jac[j]).numpy()
        if kind == "scalar":
            hess = torch.autograd.functional.hessian(fn, tx)
            for i in range(len(xs)):
                for j in range(len(xs)):
                    data[f"{name}/hess/{i}/{j}"] = hess[i][j].numpy()
    np.savez_compressed(OUT, **data)
    print(f"wrote {OUT} ({len(data)} arrays, torch {torch.__version__})")


if __name__ == "__main__":
    main()
