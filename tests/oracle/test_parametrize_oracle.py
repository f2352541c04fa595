"""Live comparison of nn.utils.parametrizations with PyTorch (skipped without torch):
hypothesis draws the parametrization (weight_norm with its dim, spectral_norm with its
iterations and dim, orthogonal with its map and trivialization), the weight's shape (tall,
wide, square, batched) and the values; after loading PyTorch's state dict, outputs, the
parametrized weight, the gradients of the originals and the buffers over Adam steps (train
mode, then eval) must agree in float64. Also the scenarios of tests/nn/parametrize_cases.py
and the error types of misuse."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
from tests.nn.parametrize_cases import (
    CASES,
    HOOK_CASES,
    random_keys,
    registration_state,
    run,
    run_hooks,
    weight_shape,
)

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_the_golden_scenarios_match_live_pytorch(case) -> None:
    ref = run(torch, case)
    got = run(dyngrad, case, {k[5:]: v for k, v in ref.items() if k.startswith("init/")})
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)
    w = np.random.default_rng(1).standard_normal(weight_shape(case[1])).astype(np.float32)
    ref, got = registration_state(torch, case, w), registration_state(dyngrad, case, w)
    for k in ref:
        if k.startswith("parametrizations.") and k not in random_keys(case, w.shape):
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("case", HOOK_CASES, ids=[c[0] for c in HOOK_CASES])
def test_the_hook_versions_match_live_pytorch(case) -> None:
    ref = run_hooks(torch, case)
    got = run_hooks(dyngrad, case, {k[5:]: v for k, v in ref.items() if k.startswith("init/")})
    assert list(got["keys"]) == list(ref["keys"])
    for k in ref:
        if k != "keys":
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5 * (np.abs(ref[k]).max() + 1), err_msg=k)


def _holder(lib, w: np.ndarray):
    class Holder(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = lib.nn.Parameter(lib.tensor(w))

        def forward(self, x):
            return (self.weight * x).sum()

    return Holder()


@st.composite
def configs(draw):
    how = draw(st.sampled_from(["weight_norm", "spectral_norm", "orthogonal"]))
    nd = draw(st.integers(2, 3))
    shape = tuple(draw(st.integers(1 if how != "orthogonal" else 2, 4)) for _ in range(nd))
    kw: dict = {}
    if how == "weight_norm":
        kw["dim"] = draw(st.sampled_from([None, *range(-1, nd)]))
    elif how == "spectral_norm":
        kw["dim"] = draw(st.integers(-nd, nd - 1))
        kw["n_power_iterations"] = draw(st.integers(1, 3))
    else:
        kw["orthogonal_map"] = draw(st.sampled_from([None, "matrix_exp", "cayley", "householder"]))
        kw["use_trivialization"] = draw(st.booleans())
    return how, shape, kw, draw(st.integers(0, 2 ** 16))


def _scenario(lib, how, w, kw, x, state=None):
    m = _holder(lib, w)
    getattr(lib.nn.utils.parametrizations, how)(m, **kw)
    if state is not None:
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    rec = {f"init/{k}": v.detach().numpy().copy() for k, v in m.state_dict().items()}
    opt = lib.optim.Adam(m.parameters(), lr=0.01)
    xt = lib.tensor(x)
    for step in range(3):
        opt.zero_grad()
        loss = m(xt)
        loss.backward()
        rec[f"{step}/loss"] = loss.detach().numpy().copy()
        rec[f"{step}/weight"] = m.weight.detach().numpy().copy()
        for n, p in m.named_parameters():
            rec[f"{step}/grad/{n}"] = p.grad.numpy().copy()
        opt.step()
    for k, v in m.state_dict().items():
        rec[f"final/{k}"] = v.detach().numpy().copy()
    m.eval()
    rec["eval/weight"] = m.weight.detach().numpy().copy()
    return rec


@settings(max_examples=60, deadline=None)
@given(configs())
def test_parametrizations_match_pytorch_over_adam_steps_in_float64(cfg) -> None:
    how, shape, kw, seed = cfg
    rng = np.random.default_rng(seed)
    w, x = rng.standard_normal(shape), rng.standard_normal(shape)
    torch.manual_seed(seed)
    ref = _scenario(torch, how, w, kw, x)
    got = _scenario(dyngrad, how, w, kw, x, {k[5:]: v for k, v in ref.items() if k.startswith("init/")})
    assert sorted(got) == sorted(ref)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-7, atol=1e-9, err_msg=f"{cfg} {k}")


def _raises_same(fn):
    errs = []
    for lib in (torch, dyngrad):
        try:
            fn(lib)
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            errs.append(type(e))
        else:
            errs.append(None)
    assert errs[0] is not None and errs[0] is errs[1], errs


@pytest.mark.parametrize("misuse", [
    lambda L: L.nn.utils.parametrize.register_parametrization(L.nn.Linear(2, 2), "nope", L.nn.Identity()),
    lambda L: L.nn.utils.parametrize.remove_parametrizations(L.nn.Linear(2, 2), "weight"),
    lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), n_power_iterations=0),
    lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), dim=3),
    lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), "bias"),
    lambda L: L.nn.utils.parametrizations.orthogonal(L.nn.Linear(2, 2), orthogonal_map="qr"),
    lambda L: L.nn.utils.parametrize.remove_parametrizations(
        L.nn.utils.parametrizations.weight_norm(L.nn.Linear(2, 2)), "weight", leave_parametrized=False),
    lambda L: setattr(L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3), use_trivialization=False),
                      "weight", L.eye(3)),
    lambda L: setattr(L.nn.utils.parametrizations.orthogonal(L.nn.Linear(3, 3)), "weight", L.eye(2)),
    lambda L: setattr(L.nn.utils.parametrizations.weight_norm(L.nn.Linear(2, 2)), "weight",
                      L.nn.Parameter(L.zeros(2, 2))),
    lambda L: L.matrix_exp(L.ones(2, 3)),
    lambda L: L.linalg.householder_product(L.ones(2, 3), L.ones(2)),
], ids=["missing_tensor", "remove_unparametrized", "zero_iterations", "bad_dim", "orthogonal_vector", "unknown_map",
        "weight_norm_leave_unparametrized", "assign_without_trivialization", "assign_wrong_shape",
        "assign_parameter", "matrix_exp_non_square", "householder_wide"])
def test_misuse_raises_pytorchs_error_type(misuse) -> None:
    _raises_same(misuse)
