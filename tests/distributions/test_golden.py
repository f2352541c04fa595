"""Distribution values and their parameter gradients against PyTorch 2.13's (golden data in
tests/golden/distributions.npz, written by tests/golden/gen_distributions.py from the cases
in tests/distributions/cases.py): log_prob, cdf, icdf, entropy, mean, variance, stddev,
mode of every distribution, and the KL divergence of every registered pair."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
from tests.distributions.cases import CASES, KL_CASES, KL_GRAD_RTOL, evaluate, evaluate_kl

PATH = os.path.join(os.path.dirname(__file__), "..", "golden", "distributions.npz")


@pytest.fixture(scope="module")
def golden() -> dict:
    with np.load(PATH) as z:
        return {k: z[k] for k in z.files}


def _compare(ours: dict, golden: dict, prefix: str, rtol: float, grad_rtol: float) -> None:
    theirs = {k[len(prefix) + 1:]: v for k, v in golden.items() if k.startswith(prefix + "|") and "|param|" not in k}
    assert theirs, f"no golden values for {prefix}"
    assert set(ours) == set(theirs), f"{prefix}: computed {sorted(ours)}, golden {sorted(theirs)}"
    for k, want in theirs.items():
        got = ours[k]
        assert got.shape == want.shape, f"{prefix} {k}: shape {got.shape}, PyTorch {want.shape}"
        tol = grad_rtol if "|grad|" in k else rtol
        atol = 1e-13 if tol <= 1e-10 else 1e-9  # PyTorch's trigamma error is absolute too, near zeros
        np.testing.assert_allclose(got, want, rtol=tol, atol=atol, equal_nan=True, err_msg=f"{prefix} {k}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_values_and_parameter_gradients_match_pytorch(case, golden):
    for k, v in case.params.items():
        np.testing.assert_array_equal(v, golden[f"{case.name}|param|{k}"], err_msg="cases.py drifted: regenerate")
    _compare(evaluate(dyngrad, case), golden, case.name, case.rtol, max(case.rtol, case.grad_rtol))


@pytest.mark.parametrize("case", KL_CASES, ids=lambda c: c[0])
def test_kl_divergence_and_its_gradients_match_pytorch(case, golden):
    for k, v in case[3].items():
        np.testing.assert_array_equal(v, golden[f"kl:{case[0]}|param|{k}"], err_msg="cases.py drifted: regenerate")
    _compare(evaluate_kl(dyngrad, case), golden, f"kl:{case[0]}", 1e-12, KL_GRAD_RTOL.get(case[0], 1e-12))


def test_gamma_implicit_gradient_agrees_with_pytorchs_approximation(golden):
    from dyngrad.distributions._standard_gamma import standard_gamma_grad

    ours = standard_gamma_grad(golden["standard_gamma_grad|alpha"], golden["standard_gamma_grad|x"])
    # PyTorch's _standard_gamma_grad is an approximation good to ~1e-4 (see _standard_gamma.py)
    np.testing.assert_allclose(ours, golden["standard_gamma_grad|grad"], rtol=2e-4, atol=1e-12)
