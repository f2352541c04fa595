"""NAdam, RAdam, Adamax, Adadelta and ASGD: 20-step trajectories and final states equal
PyTorch 2.13's (tests/golden/optim2.npz from gen_optim2.py), state-dict round trips that
continue the same trajectory, PyTorch's state keys, and PyTorch's errors for bad settings."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import dyngrad
from dyngrad import optim

GOLD = np.load(Path(__file__).parents[1] / "golden" / "optim2.npz", allow_pickle=False)
OPTIMIZERS = json.loads(str(GOLD["optimizers"]))
IDS = [f"{i}-{n}-{json.dumps(k)}" for i, (n, k) in enumerate(OPTIMIZERS)]


def _loss(W, b):
    X, Y = dyngrad.tensor(GOLD["X"]), dyngrad.tensor(GOLD["Y"])
    return ((dyngrad.tanh(X @ W + b) - Y) ** 2).mean()


def _params():
    return (dyngrad.tensor(GOLD["W0"], requires_grad=True), dyngrad.tensor(GOLD["b0"], requires_grad=True))


def _run(opt, W, b, steps):
    for _ in range(steps):
        opt.zero_grad()
        _loss(W, b).backward()
        opt.step()


@pytest.mark.parametrize("i", range(len(OPTIMIZERS)), ids=IDS)
def test_trajectory_and_final_state_match_pytorch_for_20_steps(i):
    name, kw = OPTIMIZERS[i]
    W, b = _params()
    opt = getattr(optim, name)([W, b], **kw)
    for step in range(20):
        _run(opt, W, b, 1)
        np.testing.assert_allclose(W._data, GOLD[f"opt{i}_W"][step], rtol=1e-10, atol=1e-12, err_msg=f"W, step {step}")
        np.testing.assert_allclose(b._data, GOLD[f"opt{i}_b"][step], rtol=1e-10, atol=1e-12, err_msg=f"b, step {step}")
    keys = json.loads(str(GOLD[f"opt{i}_state_keys"]))
    assert list(opt.state[W]) == keys
    for key in keys:
        got = opt.state[W][key]
        assert isinstance(got, dyngrad.Tensor), key
        want = GOLD[f"opt{i}_state_{key}"]
        assert got._data.dtype == want.dtype, key
        np.testing.assert_allclose(got._data, want, rtol=1e-10, atol=1e-14, err_msg=key)


@pytest.mark.parametrize("i", GOLD["round_trips"].tolist(), ids=[IDS[j] for j in GOLD["round_trips"]])
def test_state_dict_saved_mid_run_continues_the_trajectory_in_a_fresh_optimizer(i):
    name, kw = OPTIMIZERS[i]
    W, b = _params()
    opt = getattr(optim, name)([W, b], **kw)
    _run(opt, W, b, 9)
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0, 1] and set(sd["state"]) == {0, 1}
    W2, b2 = (dyngrad.tensor(t._data.copy(), requires_grad=True) for t in (W, b))
    opt2 = getattr(optim, name)([W2, b2], lr=123.0)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == kw.get("lr", opt.defaults["lr"])
    for k in sd["state"][0]:  # loaded state is a copy, not shared with the first optimizer
        assert opt2.state[W2][k] is not opt.state[W][k]
    _run(opt2, W2, b2, 11)
    # PyTorch's resumed run (loaded float state is cast to the parameter's dtype, as here)
    np.testing.assert_allclose(W2._data, GOLD[f"opt{i}_resumed_W"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b2._data, GOLD[f"opt{i}_resumed_b"], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(W2._data, GOLD[f"opt{i}_W"][-1], rtol=1e-6)  # and close to the uninterrupted one


def test_defaults_and_param_group_keys_are_pytorchs():
    W, b = _params()
    expected = {
        "NAdam": dict(lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, momentum_decay=4e-3,
                      decoupled_weight_decay=False, maximize=False, foreach=None, capturable=False,
                      differentiable=False),
        "RAdam": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled_weight_decay=False,
                      maximize=False, foreach=None, capturable=False, differentiable=False),
        "Adamax": dict(lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, foreach=None, maximize=False,
                       differentiable=False, capturable=False),
        "Adadelta": dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False, capturable=False,
                         foreach=None, differentiable=False),
        "ASGD": dict(lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0, foreach=None, maximize=False,
                     differentiable=False, capturable=False),
    }
    for name, want in expected.items():
        opt = getattr(optim, name)([W, b])
        assert opt.defaults == want, name
        assert set(opt.param_groups[0]) == set(want) | {"params"}, name


def test_float32_parameters_keep_float32_state():
    W, b = (t.float().detach().requires_grad_() for t in _params())
    for name in ("NAdam", "RAdam", "Adamax", "Adadelta", "ASGD"):
        opt = getattr(optim, name)([W, b], lr=0.01)
        for _ in range(3):
            opt.zero_grad()
            _loss(W.double(), b.double()).backward()
            opt.step()
        assert W.dtype == dyngrad.float32, name
        for k, v in opt.state[W].items():
            assert v.dtype == dyngrad.float32, (name, k)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: optim.NAdam(p, lr=-0.1), "Invalid learning rate: -0.1"),
        (lambda p: optim.NAdam(p, eps=-1.0), "Invalid epsilon value: -1.0"),
        (lambda p: optim.NAdam(p, betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
        (lambda p: optim.NAdam(p, weight_decay=-1), "Invalid weight_decay value: -1"),
        (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
        (lambda p: optim.RAdam(p, betas=(-0.1, 0.9)), "Invalid beta parameter at index 0: -0.1"),
        (lambda p: optim.RAdam(p, weight_decay=-0.5), "Invalid weight_decay value: -0.5"),
        (lambda p: optim.Adamax(p, lr=-1e-3), "Invalid learning rate: -0.001"),
        (lambda p: optim.Adamax(p, eps=-1e-8), "Invalid epsilon value: -1e-08"),
        (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
        (lambda p: optim.Adadelta(p, eps=-1.0), "Invalid epsilon value: -1.0"),
        (lambda p: optim.ASGD(p, lr=-1.0), "Invalid learning rate: -1.0"),
        (lambda p: optim.ASGD(p, weight_decay=-1.0), "Invalid weight_decay value: -1.0"),
    ],
)
def test_invalid_hyperparameters_raise_pytorchs_value_error(make, message):
    with pytest.raises(ValueError, match=f"^{message}$".replace("(", r"\(").replace(".", r"\.")):
        make(list(_params()))


def test_parameters_without_grad_are_skipped_and_get_no_state():
    W, b = _params()
    for name in ("NAdam", "RAdam", "Adamax", "Adadelta", "ASGD"):
        opt = getattr(optim, name)([W, b], lr=0.01)
        b0 = b._data.copy()
        opt.zero_grad()
        (W * W).sum().backward()
        opt.step()
        assert np.array_equal(b._data, b0) and b not in opt.state and W in opt.state, name
