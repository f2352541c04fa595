"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, spectral_norm,
orthogonal): PyTorch 2.13's values over SGD steps from PyTorch's state dicts (golden, from
tests/golden/gen_parametrize.py), what right_inverse makes of a weight, the module class
swap and state-dict keys, removal, caching, assignment, gradcheck in float64, and misuse
errors with PyTorch's types."""

from __future__ import annotations

import copy
import os
import pickle

import numpy as np
import pytest

import dyngrad
from dyngrad import nn
from dyngrad.autograd import gradcheck
from dyngrad.nn.utils import parametrizations as PZ
from dyngrad.nn.utils import parametrize as P
from tests.nn.parametrize_cases import (
    CASES,
    HOOK_CASES,
    random_keys,
    registration_state,
    run,
    run_hooks,
    weight_shape,
)

GOLD = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "parametrize.npz"))
IDS = [c[0] for c in CASES]


def _sub(prefix: str) -> dict:
    return {k[len(prefix):]: GOLD[k] for k in GOLD.files if k.startswith(prefix)}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_parametrized_layers_match_pytorch_over_sgd_steps_from_its_state_dict(case) -> None:
    ref = _sub(f"{case[0]}/run/")
    state = {k[len("init/"):]: v for k, v in ref.items() if k.startswith("init/")}
    got = run(dyngrad, case, state)
    assert sorted(got) == sorted(ref)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_registration_makes_pytorchs_originals_from_a_weight(case) -> None:
    ref = _sub(f"{case[0]}/reg/state/")
    got = registration_state(dyngrad, case, GOLD[f"{case[0]}/reg/weight"])
    assert list(got) == list(ref)  # PyTorch's keys, in its order
    rnd = random_keys(case, weight_shape(case[1]))
    for k in ref:
        assert got[k].shape == ref[k].shape, k
        if k.startswith("parametrizations.") and k not in rnd:  # (the bias is the layer's random init)
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-5, atol=1e-6, err_msg=k)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A):
        return A.triu()


class Double(nn.Module):
    def forward(self, X):
        return 2 * X


def test_registering_swaps_the_class_and_moves_the_tensor_under_parametrizations() -> None:
    m = nn.Linear(3, 3)
    w0 = m.weight
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert type(nn.Linear(2, 2)).__name__ == "Linear"  # the shared class is untouched
    assert m.parametrizations.weight.original is w0  # the same Parameter, holding triu(W)
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    W = m.weight.detach().numpy()
    np.testing.assert_array_equal(W, W.T)
    assert "(parametrizations): ModuleDict" in repr(m) and "(0): Symmetric()" in repr(m)


def test_gradients_reach_the_original_through_the_parametrization() -> None:
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Symmetric())
    x = dyngrad.randn(4, 3)
    m(x).sum().backward()
    g = m.parametrizations.weight.original.grad.numpy()
    gw = np.repeat(x.numpy().sum(0, keepdims=True), 3, 0)  # d sum(x W^T) / dW
    np.testing.assert_allclose(g, np.triu(gw + gw.T - np.diag(np.diag(gw))), rtol=1e-5, atol=1e-6)


def test_assigning_the_tensor_calls_right_inverse_and_keeps_the_original_object() -> None:
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Symmetric())
    orig = m.parametrizations.weight.original
    S = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    S = S + S.T
    m.weight = dyngrad.tensor(S)
    assert m.parametrizations.weight.original is orig
    np.testing.assert_array_equal(m.weight.detach().numpy(), S)


def test_a_parametrization_without_right_inverse_cannot_be_assigned_to() -> None:
    m = nn.Linear(2, 2)
    P.register_parametrization(m, "weight", Double())
    with pytest.raises(RuntimeError, match="Double does not implement right_inverse"):
        m.weight = dyngrad.zeros(2, 2)


def test_chained_parametrizations_apply_in_order_and_remove_leaves_the_value() -> None:
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Double())
    orig = m.parametrizations.weight.original
    expect = 2 * (np.triu(orig.detach().numpy()) + np.triu(orig.detach().numpy(), 1).T)
    np.testing.assert_allclose(m.weight.detach().numpy(), expect)
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is orig and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().numpy(), expect)
    assert list(m.state_dict()) == ["bias", "weight"]


def test_remove_with_leave_parametrized_false_restores_the_original_values() -> None:
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Double())
    before = m.parametrizations.weight.original.detach().numpy().copy()
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_array_equal(m.weight.detach().numpy(), before)


def test_remove_keeps_the_class_while_another_tensor_stays_parametrized() -> None:
    m = nn.Linear(3, 3)
    P.register_parametrization(m, "weight", Double())
    P.register_parametrization(m, "bias", Double())
    P.remove_parametrizations(m, "weight")
    assert type(m).__name__ == "ParametrizedLinear" and P.is_parametrized(m, "bias")
    assert not P.is_parametrized(m, "weight") and isinstance(m._parameters["weight"], nn.Parameter)


def test_weight_norm_removal_needs_leave_parametrized() -> None:
    m = PZ.weight_norm(nn.Linear(3, 4))
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    w = m.weight.detach().numpy()
    P.remove_parametrizations(m, "weight")
    np.testing.assert_allclose(m.weight.detach().numpy(), w)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad


def test_cached_computes_each_parametrized_tensor_once_per_context() -> None:
    calls = []

    class Counting(nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1.0

    m = nn.Linear(2, 2)
    P.register_parametrization(m, "weight", Counting())
    calls.clear()
    with P.cached():
        a, b = m.weight, m.weight
        with P.cached():
            c = m.weight
    assert len(calls) == 1 and a is b is c
    m.weight  # noqa: B018 - outside the context: computed again
    assert len(calls) == 2


def test_a_buffer_can_be_parametrized_and_stays_a_buffer() -> None:
    m = nn.BatchNorm1d(3)
    P.register_parametrization(m, "running_var", Double())
    assert "parametrizations.running_var.original" in m.state_dict()
    assert [n for n, _ in m.named_buffers()][-1] == "parametrizations.running_var.original"
    np.testing.assert_array_equal(m.running_var.numpy(), 2 * np.ones(3, np.float32))


def test_parametrized_modules_deepcopy_but_refuse_pickling() -> None:
    m = PZ.weight_norm(nn.Linear(3, 2))
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear"
    np.testing.assert_array_equal(c.weight.detach().numpy(), m.weight.detach().numpy())
    with dyngrad.no_grad():
        c.parametrizations.weight.original0.mul_(2)
    assert not np.allclose(c.weight.detach().numpy(), m.weight.detach().numpy())
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        pickle.dumps(m)


def test_state_dict_round_trips_between_parametrized_modules() -> None:
    a = PZ.spectral_norm(nn.Linear(4, 3))
    b = PZ.spectral_norm(nn.Linear(4, 3))
    b.load_state_dict(a.state_dict())
    a.eval()
    b.eval()
    x = dyngrad.randn(2, 4)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())


def test_transfer_parametrizations_shares_the_originals() -> None:
    a = PZ.weight_norm(nn.Linear(3, 2))
    b = nn.Linear(3, 2)
    P.transfer_parametrizations_and_params(a, b)
    assert b.parametrizations.weight.original0 is a.parametrizations.weight.original0
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())


def test_weight_norm_originals_are_magnitude_and_direction() -> None:
    m = nn.Linear(3, 4)
    W = m.weight.detach().numpy().copy()
    PZ.weight_norm(m, dim=0)
    g = m.parametrizations.weight.original0.detach().numpy()
    np.testing.assert_allclose(g, np.linalg.norm(W, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(m.weight.detach().numpy(), W, rtol=1e-5, atol=1e-7)
    m.weight = dyngrad.tensor(3 * W)  # assignment: right_inverse gives (g, v) of 3W
    np.testing.assert_allclose(m.parametrizations.weight.original0.detach().numpy(), 3 * g, rtol=1e-6)


def test_spectral_norm_updates_u_and_v_in_training_only() -> None:
    m = PZ.spectral_norm(nn.Linear(5, 4))
    u = m.parametrizations.weight[0]._u
    before = u.numpy().copy()
    with dyngrad.no_grad():
        m.parametrizations.weight.original.add_(dyngrad.randn(4, 5))
    m.eval()
    m.weight  # noqa: B018
    np.testing.assert_array_equal(u.numpy(), before)
    m.train()
    m.weight  # noqa: B018
    assert m.parametrizations.weight[0]._u is u and not np.array_equal(u.numpy(), before)
    # after many steps sigma is the largest singular value: the weight's spectral norm is 1
    for _ in range(50):
        w = m.weight.detach().numpy()
    assert abs(np.linalg.norm(w, 2) - 1) < 1e-4


def test_spectral_norm_of_a_vector_is_plain_normalization() -> None:
    m = nn.Module()
    m.w = nn.Parameter(dyngrad.tensor([3.0, 4.0]))
    PZ.spectral_norm(m, "w")
    np.testing.assert_allclose(m.w.detach().numpy(), [0.6, 0.8], rtol=1e-6)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3)])
def test_orthogonal_gives_orthonormal_columns_or_rows_and_takes_assignment(orthogonal_map, shape) -> None:
    m = nn.Module()
    m.weight = nn.Parameter(dyngrad.randn(*shape))
    PZ.orthogonal(m, orthogonal_map=orthogonal_map)
    W = m.weight.detach().numpy()
    Wt = W if shape[-2] >= shape[-1] else np.swapaxes(W, -1, -2)
    k = Wt.shape[-1]
    np.testing.assert_allclose(np.swapaxes(Wt, -1, -2) @ Wt, np.broadcast_to(np.eye(k), Wt.shape[:-2] + (k, k)),
                               atol=1e-5)
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal(shape[:-2] + (max(shape[-2:]),) * 2))[0]
    Q = Q[..., : shape[-2], : shape[-1]].astype(np.float32)
    m.weight = dyngrad.tensor(Q)
    np.testing.assert_allclose(m.weight.detach().numpy(), Q, atol=1e-5)


def test_gradcheck_through_each_parametrization_in_float64() -> None:
    rng = np.random.default_rng(0)
    x = dyngrad.tensor(rng.standard_normal((2, 3)))

    def check(m, originals):
        names = list(originals)

        def f(*ts):
            pl = m.parametrizations.weight
            for n, t in zip(names, ts):
                pl._parameters[n] = t
            return m(x)

        ins = []
        for n in names:  # a random point (the householder map truncates the diagonal: keep it off +-1)
            a = rng.standard_normal(tuple(getattr(m.parametrizations.weight, n).shape))
            if a.ndim == 2:
                np.fill_diagonal(a, np.where(rng.random(min(a.shape)) < 0.5, -1.5, 1.5))
            ins.append(dyngrad.tensor(a, requires_grad=True))
        assert gradcheck(f, tuple(ins))

    check(PZ.weight_norm(nn.Linear(3, 4).double()), ["original0", "original1"])
    for mp, shape in (("matrix_exp", (3, 3)), ("cayley", (4, 3)), ("householder", (4, 3))):
        check(PZ.orthogonal(nn.Linear(3, shape[0]).double(), orthogonal_map=mp), ["original"])
    check(PZ.orthogonal(nn.Linear(3, 4).double(), orthogonal_map="householder", use_trivialization=False),
          ["original"])
    check(PZ.spectral_norm(nn.Linear(3, 4).double()).eval(), ["original"])  # eval: u, v fixed


# ------------------------------------------------------------------ misuse
def test_registering_on_a_missing_tensor_raises_value_error() -> None:
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element with name 'w'"):
        P.register_parametrization(nn.Linear(2, 2), "w", Double())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(nn.Linear(2, 2), "weight")


def test_a_shape_or_dtype_changing_parametrization_needs_unsafe() -> None:
    class Flat(nn.Module):
        def forward(self, X):
            return X.reshape(-1)

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(nn.Linear(2, 2), "weight", Flat())
    with pytest.raises(ValueError, match="may not change the dtype"):
        P.register_parametrization(nn.Linear(2, 2), "weight", ToDouble())
    m = nn.Linear(2, 2)
    P.register_parametrization(m, "weight", Flat(), unsafe=True)
    assert m.weight.shape == (4,)
    m2 = nn.Linear(2, 2)
    P.register_parametrization(m2, "weight", Double())
    with pytest.raises(ValueError, match="may not change the shape"):
        P.register_parametrization(m2, "weight", Flat())


def test_a_right_inverse_returning_a_non_tensor_raises_value_error() -> None:
    class Bad(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return 3

    with pytest.raises(ValueError, match="'right_inverse' must return a Tensor or a Sequence"):
        P.register_parametrization(nn.Linear(2, 2), "weight", Bad())


def test_assigning_a_parameter_to_a_parametrized_name_raises_key_error() -> None:
    m = PZ.weight_norm(nn.Linear(2, 2))
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.weight = nn.Parameter(dyngrad.zeros(2, 2))


def test_parametrization_arguments_are_checked_as_pytorch() -> None:
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        PZ.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        PZ.spectral_norm(nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
        PZ.spectral_norm(nn.Linear(2, 2), "w")
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor of 1 dimensions"):
        PZ.orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        PZ.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    m = PZ.orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        m.weight = dyngrad.eye(3)
    m = PZ.orthogonal(nn.Linear(3, 3))
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices of shape"):
        m.weight = dyngrad.eye(2)


def test_matrix_functions_reject_bad_inputs_as_pytorch() -> None:
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        dyngrad.matrix_exp(dyngrad.ones(3))
    with pytest.raises(RuntimeError, match="square matrices"):
        dyngrad.linalg.matrix_exp(dyngrad.ones(2, 3))
    with pytest.raises(RuntimeError, match=r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]"):
        dyngrad.linalg.householder_product(dyngrad.ones(2, 3), dyngrad.ones(2))
    with pytest.raises(RuntimeError, match=r"input.shape\[-1\] must be greater than or equal to tau.shape\[-1\]"):
        dyngrad.linalg.householder_product(dyngrad.ones(3, 2), dyngrad.ones(3))


def test_matrix_exp_of_a_skew_matrix_is_a_rotation() -> None:
    t = 0.7
    R = dyngrad.matrix_exp(dyngrad.tensor([[0.0, -t], [t, 0.0]], dtype=dyngrad.float64)).numpy()
    np.testing.assert_allclose(R, [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], rtol=1e-14, atol=1e-15)
    big = dyngrad.matrix_exp(dyngrad.tensor([[50.0]], dtype=dyngrad.float64)).numpy()  # scaling and squaring
    np.testing.assert_allclose(big, [[np.exp(50.0)]], rtol=1e-13)


# ------------------------------------------------------------------ the older hook versions
@pytest.mark.parametrize("case", HOOK_CASES, ids=[c[0] for c in HOOK_CASES])
def test_hook_weight_and_spectral_norm_match_pytorch_over_sgd_steps_and_removal(case) -> None:
    ref = _sub(f"{case[0]}/run/")
    state = {k[len("init/"):]: v for k, v in ref.items() if k.startswith("init/")}
    got = run_hooks(dyngrad, case, state)
    assert sorted(got) == sorted(ref)
    assert list(got["keys"]) == list(ref["keys"])  # bias, weight: a Parameter again
    for k in ref:
        if k != "keys":
            scale = np.abs(ref[k]).max() + 1
            np.testing.assert_allclose(got[k], ref[k], rtol=1e-4, atol=1e-5 * scale, err_msg=k)


def test_hook_weight_norm_warns_it_is_deprecated_and_refuses_a_second_hook() -> None:
    m = nn.Linear(3, 2)
    with pytest.warns(FutureWarning, match="deprecated in favor of `nn.utils.parametrizations.weight_norm`"):
        nn.utils.weight_norm(m)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_g", "weight_v"]
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"), pytest.warns(FutureWarning):
        nn.utils.weight_norm(m)
    with pytest.raises(ValueError, match="weight_norm of 'bias' not found"):
        nn.utils.remove_weight_norm(m, "bias")


def test_hook_spectral_norm_refuses_a_second_hook_and_a_missing_one() -> None:
    m = nn.utils.spectral_norm(nn.Linear(3, 2))
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(m)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        nn.utils.spectral_norm(nn.Linear(3, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        nn.utils.remove_spectral_norm(nn.Linear(3, 2))


def test_a_parametrized_state_dict_saved_by_pytorch_loads_and_gives_its_outputs() -> None:
    path = os.path.join(os.path.dirname(__file__), "..", "golden", "torch_checkpoints", "parametrized.pt")
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(8, 4), nn.Tanh(), nn.Linear(4, 4))
    PZ.spectral_norm(model[0])
    PZ.weight_norm(model[2])
    PZ.orthogonal(model[4])
    sd = dyngrad.load(path)
    assert list(sd) == list(model.state_dict())
    model.load_state_dict(sd)
    model.eval()
    out = model(dyngrad.tensor(GOLD["ckpt/x"]))
    np.testing.assert_allclose(out.detach().numpy(), GOLD["ckpt/out"], rtol=1e-5, atol=1e-6)
