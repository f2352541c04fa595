"""Generate tests/golden/nn_extra.npz: PyTorch 2.13 reference values for the issue-13
norms, sliding blocks, pooling and losses (tests/nn/nn_extra_cases.py).

Run with torch installed::

    python tests/golden/gen_nn_extra.py

Per case (inputs drawn in NumPy, seeded by the case's position): the inputs ``<case>/in<i>``
and drawn kwargs ``<case>/kw_<name>``, the output ``<case>/out``, a cotangent
``<case>/cot``, the gradient ``<case>/grad<i>`` (``<case>/grad_<name>``) of
``sum(out * cot)`` for each differentiable input (kwarg), and ``<case>/after<i>`` for each other float input after the call
(running statistics updated in place).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.nn.nn_extra_cases import CASES, DIFF, STATEFUL, materialise  # noqa: E402

OUT = os.path.join(HERE, "nn_extra.npz")
data: dict[str, np.ndarray] = {}
for seed, (name, fn, inputs, kw) in enumerate(CASES):
    rng = np.random.default_rng(seed)
    arrays, kwargs = materialise(rng, inputs, kw)
    ts = [torch.tensor(a, requires_grad=spec[0] in DIFF) for a, spec in zip(arrays, inputs)]
    tkw = {k: torch.tensor(v, requires_grad=kw[k][0] in DIFF) if isinstance(v, np.ndarray) else v
           for k, v in kwargs.items()}
    out = getattr(torch.nn.functional, fn)(*ts, **tkw)
    cot = rng.standard_normal(tuple(out.shape))
    out.backward(torch.tensor(cot))
    for i, (a, spec, t) in enumerate(zip(arrays, inputs, ts)):
        data[f"{name}/in{i}"] = a
        if spec[0] in DIFF:
            data[f"{name}/grad{i}"] = t.grad.numpy()
        elif a.dtype.kind == "f":
            data[f"{name}/after{i}"] = t.detach().numpy()
    for k, v in kwargs.items():
        if isinstance(v, np.ndarray):
            data[f"{name}/kw_{k}"] = v
            if kw[k][0] in DIFF:
                data[f"{name}/grad_{k}"] = tkw[k].grad.numpy()
    data[f"{name}/out"], data[f"{name}/cot"] = out.detach().numpy(), cot

# Stateful layers: two training steps (running stats updated), then eval; and indices.
for seed, (name, ctor, kw, shape) in enumerate(STATEFUL, start=1000):
    rng = np.random.default_rng(seed)
    m = getattr(torch.nn, ctor)(**kw).double()
    for step in range(2):
        x = rng.standard_normal(shape)
        data[f"{name}/x{step}"], data[f"{name}/y{step}"] = x, m(torch.tensor(x)).detach().numpy()
    m.eval()
    x = rng.standard_normal(shape)
    data[f"{name}/x_eval"], data[f"{name}/y_eval"] = x, m(torch.tensor(x)).detach().numpy()
    for k, v in m.state_dict().items():
        data[f"{name}/state_{k}"] = v.numpy()
x = np.random.default_rng(7).standard_normal((2, 3, 7, 5))
x[0, 0, :2, :2] = 1.0  # ties: the first maximum wins
for nd, fn, shp, size in (("2", "adaptive_max_pool2d", (2, 3, 7, 5), (3, 2)), ("1", "adaptive_max_pool1d", (2, 3, 7), 3)):
    xx = x.reshape(-1)[: int(np.prod(shp))].reshape(shp)
    o, i = getattr(torch.nn.functional, fn)(torch.tensor(xx), size, return_indices=True)
    data[f"indices{nd}/x"], data[f"indices{nd}/out"], data[f"indices{nd}/idx"] = xx, o.numpy(), i.numpy()
np.savez_compressed(OUT, **data)
print(f"wrote {OUT}: {len(data)} arrays")
