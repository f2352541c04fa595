"""Generate tests/golden/resample.npz: PyTorch 2.13 reference values for interpolate,
pixel_(un)shuffle and ceil-mode pooling (tests/nn/resample_cases.py).

Run with torch installed::

    python tests/golden/gen_resample.py

Per case: the input ``<case>/x`` (NumPy), the output ``<case>/out``, a cotangent
``<case>/cot`` and the input gradient ``<case>/grad`` of ``sum(out * cot)``.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.nn.resample_cases import CASES  # noqa: E402

OUT = os.path.join(HERE, "resample.npz")
data: dict[str, np.ndarray] = {}
for seed, (name, fn, shape, kw) in enumerate(CASES):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    tx = torch.tensor(x, requires_grad=True)
    out = getattr(torch.nn.functional, fn)(tx, **kw)
    cot = rng.standard_normal(tuple(out.shape))
    out.backward(torch.tensor(cot))
    data[f"{name}/x"], data[f"{name}/out"], data[f"{name}/cot"], data[f"{name}/grad"] = x, out.detach().numpy(), cot, tx.grad.numpy()
np.savez_compressed(OUT, **data)
print(f"wrote {OUT}: {len(data)} arrays")
