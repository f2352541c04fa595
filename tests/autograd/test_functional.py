"""autograd.functional: Jacobians/Hessians vs PyTorch 2.13 golden data, forward vs reverse
strategies, vjp/jvp/vhp/hvp identities, return structures and bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import functional as AF
from tests.autograd.functional_cases import cases, inputs

GOLD = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "functional.npz"))
CASES = cases(dyngrad)
SCALAR = [n for n, c in CASES.items() if c[2] == "scalar"]
T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731


def _args(name: str) -> tuple:
    fn, shapes, _ = CASES[name]
    return fn, tuple(T(x) for x in inputs(name, shapes))


def _pack(x: tuple) -> object:
    return x if len(x) > 1 else x[0]


def _entry(res: object, i: int, j: int, n_out: int, n_in: int) -> np.ndarray:
    if n_out > 1:
        res = res[i]
    if n_in > 1:
        res = res[j]
    return res._data


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
@pytest.mark.parametrize("name", list(CASES))
def test_jacobian_matches_pytorch_golden(name: str, strategy: str) -> None:
    fn, xs = _args(name)
    res = AF.jacobian(fn, _pack(xs), strategy=strategy)
    out = fn(*xs)
    n_out = len(out) if isinstance(out, tuple) else 1
    for i in range(n_out):
        for j in range(len(xs)):
            np.testing.assert_allclose(_entry(res, i, j, n_out, len(xs)), GOLD[f"{name}/jac/{i}/{j}"],
                                       rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
@pytest.mark.parametrize("name", SCALAR)
def test_hessian_matches_pytorch_golden(name: str, strategy: str) -> None:
    fn, xs = _args(name)
    res = AF.hessian(fn, _pack(xs), outer_jacobian_strategy=strategy)
    for i in range(len(xs)):
        for j in range(len(xs)):
            got = res[i][j]._data if len(xs) > 1 else res._data
            np.testing.assert_allclose(got, GOLD[f"{name}/hess/{i}/{j}"], rtol=1e-10, atol=1e-12)


def test_jacobian_single_input_single_output_is_a_tensor_of_out_plus_in_shape() -> None:
    x = T(np.arange(6.0).reshape(2, 3))
    j = AF.jacobian(lambda x: x.sum(0) * 2, x)
    assert isinstance(j, dyngrad.Tensor) and j.shape == (3, 2, 3)
    j2 = AF.jacobian(lambda x: x.sum(0), (x,))
    assert isinstance(j2, tuple) and len(j2) == 1 and j2[0].shape == (3, 2, 3)
    j3 = AF.jacobian(lambda x: (x.sum(), x * 1), x)
    assert isinstance(j3, tuple) and j3[0].shape == (2, 3) and j3[1].shape == (2, 3, 2, 3)


def test_jacobian_of_unused_input_is_zero_or_strict_error() -> None:
    x, y = T([1.0, 2.0]), T([3.0])
    j = AF.jacobian(lambda a, b: a * 2, (x, y))
    np.testing.assert_array_equal(j[1]._data, np.zeros((2, 1)))
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda a, b: a * 2, (x, y), strict=True)


def test_jacobian_results_are_detached_unless_create_graph() -> None:
    x = T([1.0, 2.0]).requires_grad_()
    j = AF.jacobian(lambda a: a ** 3, x)
    assert not j.requires_grad
    jg = AF.jacobian(lambda a: a ** 3, x, create_graph=True)
    assert jg.requires_grad
    (g,) = dyngrad.autograd.grad(jg.sum(), x)
    np.testing.assert_allclose(g._data, 6 * x._data)


def test_jacobian_forward_mode_with_create_graph_is_differentiable() -> None:
    x = T([0.3, -0.7]).requires_grad_()
    jg = AF.jacobian(lambda a: a.exp() * a, x, create_graph=True, strategy="forward-mode")
    (g,) = dyngrad.autograd.grad(jg.sum(), x)
    np.testing.assert_allclose(g._data, np.exp(x._data) * (x._data + 2))


@pytest.mark.parametrize("name", SCALAR)
def test_vhp_and_hvp_equal_hessian_times_v(name: str) -> None:
    fn, xs = _args(name)
    rng = np.random.default_rng(3)
    vs = tuple(T(rng.standard_normal(x.shape)) for x in xs)
    H = AF.hessian(fn, xs)
    want = [sum(np.tensordot(H[i][j]._data, vs[j]._data, axes=vs[j].dim()) for j in range(len(xs)))
            for i in range(len(xs))]
    for f in (AF.vhp, AF.hvp):
        out, res = f(fn, _pack(xs), _pack(vs))
        res = res if isinstance(res, tuple) else (res,)
        np.testing.assert_allclose(out._data, fn(*xs)._data)
        for r, w in zip(res, want):
            np.testing.assert_allclose(r._data, w, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_jvp_and_vjp_satisfy_the_adjoint_identity(name: str) -> None:
    fn, xs = _args(name)
    rng = np.random.default_rng(5)
    us = tuple(T(rng.standard_normal(x.shape)) for x in xs)
    out, jv = AF.jvp(fn, _pack(xs), _pack(us))
    outs = out if isinstance(out, tuple) else (out,)
    jvs = jv if isinstance(jv, tuple) else (jv,)
    vs = tuple(T(rng.standard_normal(o.shape)) for o in outs)
    _, vj = AF.vjp(fn, _pack(xs), _pack(vs))
    vjs = vj if isinstance(vj, tuple) else (vj,)
    lhs = sum(float((v._data * j._data).sum()) for v, j in zip(vs, jvs))
    rhs = sum(float((g._data * u._data).sum()) for g, u in zip(vjs, us))
    assert lhs == pytest.approx(rhs, rel=1e-10, abs=1e-12)


def test_vjp_returns_func_output_and_inputs_structure() -> None:
    x = T([1.0, 2.0])
    out, g = AF.vjp(lambda a: (a * a).sum(), x)
    assert isinstance(g, dyngrad.Tensor)
    np.testing.assert_allclose(g._data, [2.0, 4.0])
    out, g = AF.vjp(lambda a, b: a * b, (x, x), T([1.0, 1.0]))
    assert isinstance(g, tuple) and len(g) == 2


def test_v_none_for_non_scalar_output_raises() -> None:
    with pytest.raises(RuntimeError, match="single element"):
        AF.vjp(lambda a: a * 2, T([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="single element"):
        AF.jvp(lambda a: a * 2, T([1.0, 2.0]))


def test_v_of_wrong_shape_names_the_entry() -> None:
    x = T([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"Entry 0 in v has invalid size: should be \[2\] but got \[3\]"):
        AF.vjp(lambda a: a * 2, x, T([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="Entry 1 in v"):
        AF.jvp(lambda a, b: a * b, (x, x), (x, T([1.0])))
    with pytest.raises(RuntimeError, match="invalid length"):
        AF.hvp(lambda a, b: (a * b).sum(), (x, x), (x,))


def test_hessian_of_non_scalar_function_raises() -> None:
    with pytest.raises(RuntimeError, match="single element"):
        AF.hessian(lambda a: a * a, T([1.0, 2.0]))


def test_non_tensor_inputs_raise_type_error_naming_the_argument() -> None:
    with pytest.raises(TypeError, match=r"inputs\[1\]"):
        AF.jacobian(lambda a, b: a, (T([1.0]), 3.0))


def test_unknown_strategy_raises() -> None:
    with pytest.raises(ValueError, match="strategy"):
        AF.jacobian(lambda a: a, T([1.0]), strategy="sideways")


def test_inputs_keep_their_requires_grad_and_get_no_grad() -> None:
    x = T([1.0, 2.0]).requires_grad_()
    AF.hessian(lambda a: (a ** 3).sum(), x)
    assert x.grad is None and x.requires_grad


def test_vectorize_is_accepted_and_gives_the_same_result() -> None:
    x = T([0.2, -0.4, 1.0])
    f = lambda a: a.exp() * a.sum()  # noqa: E731
    np.testing.assert_allclose(AF.jacobian(f, x, vectorize=True)._data, AF.jacobian(f, x)._data)
    np.testing.assert_allclose(AF.hessian(lambda a: f(a).sum(), x, vectorize=True)._data,
                               AF.hessian(lambda a: f(a).sum(), x)._data)


def test_forward_mode_with_strict_is_refused() -> None:
    with pytest.raises(RuntimeError, match="strict=True and strategy='forward-mode'"):
        AF.jacobian(lambda a: a, T([1.0]), strict=True, strategy="forward-mode")


def test_jvp_with_create_graph_is_differentiable_in_the_inputs() -> None:
    x = T([0.5, 1.5]).requires_grad_()
    _, t = AF.jvp(lambda a: a.sin(), x, T([1.0, 1.0]), create_graph=True)
    (g,) = dyngrad.autograd.grad(t.sum(), x)
    np.testing.assert_allclose(g._data, -np.sin(x._data))
