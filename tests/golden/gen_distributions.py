"""Generate tests/golden/distributions.npz: PyTorch 2.13's values and parameter gradients of
log_prob / cdf / icdf / entropy / mean / variance / ... for every case in
tests/distributions/cases.py, KL divergences of every pair in ``KL_CASES``, and the
implicit reparameterisation gradient of Gamma samples (``torch._standard_gamma_grad``).
The parameters are stored too (the tests check that cases.py still builds the same ones).

Run from the repository root with torch installed::

    python tests/golden/gen_distributions.py
"""

from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from tests.distributions.cases import CASES, KL_CASES, evaluate, evaluate_kl  # noqa: E402

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributions.npz")

if __name__ == "__main__":
    assert torch.__version__.startswith("2.13"), f"golden values come from torch 2.13, found {torch.__version__}"
    torch.set_num_threads(1)
    data: dict[str, np.ndarray] = {}
    for case in CASES:
        for k, v in case.params.items():
            data[f"{case.name}|param|{k}"] = v
        for k, v in evaluate(torch, case).items():
            data[f"{case.name}|{k}"] = v
    for kl_case in KL_CASES:
        for k, v in kl_case[3].items():
            data[f"kl:{kl_case[0]}|param|{k}"] = v
        for k, v in evaluate_kl(torch, kl_case).items():
            data[f"kl:{kl_case[0]}|{k}"] = v
    rng = np.random.default_rng(7)
    alpha = np.repeat(np.array([0.05, 0.3, 1.0, 2.5, 8.0, 30.0, 200.0]), 6)
    x = rng.standard_gamma(alpha)
    data["standard_gamma_grad|alpha"] = alpha
    data["standard_gamma_grad|x"] = x
    data["standard_gamma_grad|grad"] = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    np.savez_compressed(PATH, **data)
    print(f"wrote {PATH} ({os.path.getsize(PATH)} bytes, {len(CASES)} cases, {len(KL_CASES)} KL pairs)")
