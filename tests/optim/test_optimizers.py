"""Optimizers: 20-step trajectories equal PyTorch 2.13's (tests/golden/optim.npz), plus the
Optimizer base class contract (groups, zero_grad, state dicts, bad parameters)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import dyngrad
from dyngrad import optim

GOLD = np.load(Path(__file__).parents[1] / "golden" / "optim.npz", allow_pickle=False)
OPTIMIZERS = json.loads(str(GOLD["optimizers"]))


def _loss(W, b):
    X, Y = dyngrad.tensor(GOLD["X"]), dyngrad.tensor(GOLD["Y"])
    return ((dyngrad.tanh(X @ W + b) - Y) ** 2).mean()


def _params():
    return (dyngrad.tensor(GOLD["W0"], requires_grad=True), dyngrad.tensor(GOLD["b0"], requires_grad=True))


@pytest.mark.parametrize("i", range(len(OPTIMIZERS)), ids=[f"{n}-{json.dumps(k)}" for n, k in OPTIMIZERS])
def test_trajectory_matches_pytorch_for_20_steps(i):
    name, kw = OPTIMIZERS[i]
    W, b = _params()
    opt = getattr(optim, name)([W, b], **kw)
    for step in range(20):
        opt.zero_grad()
        _loss(W, b).backward()
        opt.step()
        np.testing.assert_allclose(W._data, GOLD[f"opt{i}_W"][step], rtol=1e-10, atol=1e-12, err_msg=f"W at step {step}")
        np.testing.assert_allclose(b._data, GOLD[f"opt{i}_b"][step], rtol=1e-10, atol=1e-12, err_msg=f"b at step {step}")


def test_float32_params_stay_float32_and_track_float64_run():
    W, b = (t.float().detach().requires_grad_() for t in _params())
    opt = optim.Adam([W, b], lr=0.05)
    for _ in range(20):
        opt.zero_grad()
        _loss(W.double(), b.double()).backward()
        opt.step()
    assert W.dtype == dyngrad.float32 and opt.state[W]["exp_avg"].dtype == dyngrad.float32
    np.testing.assert_allclose(W._data, GOLD["opt4_W"][-1], rtol=1e-4, atol=1e-5)


def test_param_groups_use_their_own_hyperparameters():
    W, b = _params()
    opt = optim.SGD([{"params": [W]}, {"params": [b], "lr": 0.0}], lr=0.1)
    b0 = b._data.copy()
    _loss(W, b).backward()
    opt.step()
    assert np.array_equal(b._data, b0)
    np.testing.assert_allclose(W._data, GOLD["opt0_W"][0], rtol=1e-12)
    assert opt.param_groups[1]["momentum"] == 0.0


def test_step_bumps_the_version_counter_so_stale_saved_tensors_are_caught():
    W, b = _params()
    opt = optim.SGD([W, b], lr=0.1)
    out = (W * W).sum()
    v = W._version
    (W.sum()).backward()
    opt.step()
    assert W._version == v + 1
    with pytest.raises(RuntimeError):
        out.backward()


def test_zero_grad_sets_to_none_by_default_or_zeros_in_place():
    W, b = _params()
    opt = optim.SGD([W, b], lr=0.1)
    _loss(W, b).backward()
    g = W.grad
    opt.zero_grad(set_to_none=False)
    assert W.grad is g and not W.grad._data.any()
    opt.zero_grad()
    assert W.grad is None and b.grad is None


def test_step_skips_params_without_grad_and_returns_closure_loss():
    W, b = _params()
    opt = optim.Adam([W, b], lr=0.1)
    b0 = b._data.copy()

    def closure():
        opt.zero_grad()
        loss = (W * 2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert isinstance(loss, dyngrad.Tensor)
    assert np.array_equal(b._data, b0) and b not in opt.state


def test_state_dict_round_trip_continues_the_same_trajectory():
    W, b = _params()
    name, kw = OPTIMIZERS[5]
    opt = getattr(optim, name)([W, b], **kw)
    for _ in range(10):
        opt.zero_grad()
        _loss(W, b).backward()
        opt.step()
    sd = opt.state_dict()
    assert set(sd["state"]) == {0, 1} and sd["param_groups"][0]["params"] == [0, 1]
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    W2, b2 = (dyngrad.tensor(t._data.copy(), requires_grad=True) for t in (W, b))
    opt2 = getattr(optim, name)([W2, b2], lr=123.0)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == kw["lr"]
    for _ in range(10):
        opt2.zero_grad()
        _loss(W2, b2).backward()
        opt2.step()
    np.testing.assert_allclose(W2._data, GOLD["opt5_W"][-1], rtol=1e-10)


def test_load_state_dict_with_wrong_group_size_raises():
    W, b = _params()
    opt = optim.SGD([W, b], lr=0.1)
    other = optim.SGD([W], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match"):
        other.load_state_dict(opt.state_dict())


def test_non_leaf_parameter_is_refused_naming_its_index():
    W, b = _params()
    with pytest.raises(ValueError, match="non-leaf.*parameter 1"):
        optim.SGD([W, b * 2], lr=0.1)


def test_integer_parameter_is_refused_naming_its_index():
    with pytest.raises(TypeError, match="parameter 0 has dtype"):
        optim.Adam([dyngrad.tensor([1, 2])])


def test_single_tensor_empty_list_and_duplicates_are_refused():
    W, b = _params()
    with pytest.raises(TypeError, match="iterable"):
        optim.SGD(W, lr=0.1)
    with pytest.raises(ValueError, match="empty"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="more than one"):
        optim.SGD([{"params": [W]}, {"params": [W, b]}], lr=0.1)


@pytest.mark.parametrize(
    "make",
    [
        lambda p: optim.SGD(p, lr=-1.0),
        lambda p: optim.SGD(p, lr=0.1, nesterov=True),
        lambda p: optim.Adam(p, betas=(1.0, 0.9)),
        lambda p: optim.RMSprop(p, eps=-1.0),
        lambda p: optim.Adagrad(p, lr_decay=-0.1),
    ],
)
def test_invalid_hyperparameters_raise_value_error(make):
    with pytest.raises(ValueError):
        make(list(_params()))


def test_add_param_group_fills_defaults():
    W, b = _params()
    opt = optim.AdamW([W], lr=0.01)
    opt.add_param_group({"params": b, "lr": 0.5})
    assert opt.param_groups[1]["weight_decay"] == 1e-2 and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["params"] == [b] or opt.param_groups[1]["params"][0] is b


def test_named_parameters_are_accepted_and_names_kept():
    W, b = _params()
    opt = optim.SGD([("W", W), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["params"][0] is W and opt.param_groups[0]["param_names"] == ["W", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["W", "b"]


def test_module_parameters_train_with_every_optimizer():
    nn = pytest.importorskip("dyngrad.nn")
    for name, kw in OPTIMIZERS:
        dyngrad.manual_seed(0)
        lin = nn.Linear(4, 3).double()
        opt = getattr(optim, name)(lin.parameters(), **kw)
        X = dyngrad.tensor(GOLD["X"])
        before = ((lin(X) - dyngrad.tensor(GOLD["Y"])) ** 2).mean().item()
        for _ in range(5):
            opt.zero_grad()
            loss = ((lin(X) - dyngrad.tensor(GOLD["Y"])) ** 2).mean()
            loss.backward()
            opt.step()
        after = ((lin(X) - dyngrad.tensor(GOLD["Y"])) ** 2).mean().item()
        assert (after > before) if kw.get("maximize") else (after < before), (name, kw)


def test_plain_sgd_keeps_no_state_like_pytorch():
    W, b = _params()
    opt = optim.SGD([W, b], lr=0.1)
    _loss(W, b).backward()
    opt.step()
    assert opt.state_dict()["state"] == {}


def test_optimizer_state_is_a_defaultdict_as_pytorchs():
    # optimizers written against torch read self.state[p] before it exists
    w = dyngrad.ones(2, requires_grad=True)
    opt = dyngrad.optim.Adam([w], lr=0.1)
    assert opt.state[w] == {}
    (w * w).sum().backward()
    opt.step()  # an empty entry read beforehand is initialised as a new one
    assert set(opt.state[w]) >= {"step", "exp_avg", "exp_avg_sq"}
