"""Generate tests/golden/parametrize.npz: PyTorch 2.13 reference values for the scenarios of
tests/nn/parametrize_cases.py (nn.utils.parametrize and nn.utils.parametrizations).

Run with torch installed::

    python tests/golden/gen_parametrize.py

For each case ``<case>/run/...``: the initial state dict (``init/<key>``), per SGD step the
output, the parametrized weight and the gradient of every original, the final state dict
and an eval-mode output; ``<case>/reg/weight`` (a weight drawn with NumPy) and
``<case>/reg/state/<key>`` (the state dict after registering on that weight). The hook
cases (``nn.utils.weight_norm`` / ``spectral_norm``) have ``<case>/run/...`` only. Also
``torch_checkpoints/parametrized.pt`` (see the end of this script).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.nn.parametrize_cases import CASES, HOOK_CASES, registration_state, run, run_hooks, weight_shape  # noqa: E402

data: dict[str, np.ndarray] = {}
rng = np.random.default_rng(3)
for case in CASES:
    for k, v in run(torch, case).items():
        data[f"{case[0]}/run/{k}"] = v
    w = rng.standard_normal(weight_shape(case[1])).astype(np.float32)
    data[f"{case[0]}/reg/weight"] = w
    for k, v in registration_state(torch, case, w).items():
        data[f"{case[0]}/reg/state/{k}"] = v
for case in HOOK_CASES:
    for k, v in run_hooks(torch, case).items():
        data[f"{case[0]}/run/{k}"] = v

# A state dict of a parametrized model written by torch.save, for dyngrad.load: a Linear with
# weight_norm, a Conv2d with spectral_norm and a square Linear with orthogonal; the input and
# PyTorch's eval-mode output go to parametrize.npz (``ckpt/x``, ``ckpt/out``).
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.Flatten(), torch.nn.Linear(8, 4), torch.nn.Tanh(),
                            torch.nn.Linear(4, 4))
torch.nn.utils.parametrizations.spectral_norm(model[0])
torch.nn.utils.parametrizations.weight_norm(model[2])
torch.nn.utils.parametrizations.orthogonal(model[4])
model(torch.randn(2, 1, 4, 4))  # train mode: the power iteration moves u, v
model.eval()
x = torch.randn(3, 1, 4, 4)
data["ckpt/x"], data["ckpt/out"] = x.numpy(), model(x).detach().numpy()
torch.save(model.state_dict(), os.path.join(HERE, "torch_checkpoints", "parametrized.pt"))
out = os.path.join(HERE, "parametrize.npz")
np.savez_compressed(out, **data)
print(f"wrote {out} ({os.path.getsize(out)} bytes)")
