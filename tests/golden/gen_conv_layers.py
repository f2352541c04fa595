"""Generate tests/golden/conv_layers.npz: PyTorch 2.13 reference values for the transposed
convolutions and the padding modes of tests/nn/conv_cases.py.

Run with torch installed::

    python tests/golden/gen_conv_layers.py

Per case: the state dict (``<case>/w/<name>``, drawn with NumPy), the input ``<case>/x``,
the output ``<case>/out`` and the gradients of ``sum(sin(out))`` w.r.t. the input and the
parameters (``<case>/grad/x``, ``<case>/grad/w/<name>``).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.nn.conv_cases import CASES  # noqa: E402

OUT = os.path.join(HERE, "conv_layers.npz")
data: dict[str, np.ndarray] = {}
for seed, (name, cls, args, kw, xshape, fkw) in enumerate(CASES):
    m = getattr(torch.nn, cls)(*args, **kw).double()
    rng = np.random.default_rng(seed)
    w = {k: rng.uniform(-0.5, 0.5, tuple(v.shape)) for k, v in m.state_dict().items()}
    m.load_state_dict({k: torch.tensor(v) for k, v in w.items()})
    for k, v in w.items():
        data[f"{name}/w/{k}"] = v
    x = rng.standard_normal(xshape)
    data[f"{name}/x"] = x
    tx = torch.tensor(x, requires_grad=True)
    out = m(tx, **fkw)
    data[f"{name}/out"] = out.detach().numpy()
    out.sin().sum().backward()
    data[f"{name}/grad/x"] = tx.grad.numpy()
    for k, p in m.named_parameters():
        data[f"{name}/grad/w/{k}"] = p.grad.numpy()
np.savez_compressed(OUT, **data)
print(f"wrote {OUT}: {len(data)} arrays")
