"""Nested forward mode without an oracle: every op of the op database differentiated forward
over forward (two dual levels) against reverse over reverse; three-deep compositions of the
Jacobian transforms against pure reverse mode and central differences; custom Functions
(with a jvp rule, without one, ``custom_gradient``) under nested levels against analytic
derivatives. (tests/oracle/test_nested_forward_oracle.py compares with torch.func live.)"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function
from dyngrad.autograd import forward_ad as fwAD
from tests.op_db import OpInfo, params, select
from tests.ops.harness import make_case_inputs, to_dyngrad

F = dyngrad.func
T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
rng = np.random.default_rng(5)

# ---------------------------------------------------------------- every op, forward over forward
_NESTED = [i for i in select("forward_ad") if i.applies("gradgradcheck")]


def _is_float(x: object) -> bool:
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


@pytest.mark.parametrize("info", params("forward_ad", _NESTED))
def test_forward_over_forward_second_derivative_equals_reverse_over_reverse(info: OpInfo) -> None:
    ins = make_case_inputs(info, "base")
    r = np.random.default_rng(info.seed("nested"))
    fl = [i for i, d in enumerate(info.diff_inputs(ins)) if d]  # (not an entry's ``constant`` inputs)
    us = {i: r.standard_normal(ins[i].shape) for i in fl}
    vs = {i: r.standard_normal(ins[i].shape) for i in fl}
    plain = to_dyngrad(ins)
    out0 = info.fn(*plain, **info.kwargs)
    w = dyngrad.from_numpy(r.standard_normal(out0.shape)).to(out0.dtype)
    # forward over forward: <w, d/dv d/du f>
    with fwAD.dual_level():
        outer = [fwAD.make_dual(t, dyngrad.from_numpy(np.array(vs[i]))) if i in vs else t for i, t in enumerate(plain)]
        with fwAD.dual_level():
            inner = [fwAD.make_dual(t, dyngrad.from_numpy(np.array(us[i]))) if i in us else t
                     for i, t in enumerate(outer)]
            t1 = fwAD.unpack_dual(info.fn(*inner, **info.kwargs)).tangent
        t2 = None if t1 is None else fwAD.unpack_dual(t1).tangent
    ff = 0.0 if t2 is None else float(np.nansum(w._data * t2._data))
    # reverse over reverse: <grad_x <grad_x <w, f>, u>, v>
    grads = to_dyngrad(ins, requires_grad=True)
    leaves = [grads[i] if i in vs else t for i, t in enumerate(plain)]  # constants take no gradient
    xs = [leaves[i] for i in fl]
    out = info.fn(*leaves, **info.kwargs)
    g = dyngrad.autograd.grad(out, xs, w, create_graph=True, allow_unused=True)
    s = sum(((gi * dyngrad.from_numpy(us[i]).to(gi.dtype)).sum() for gi, i in zip(g, fl) if gi is not None),
            dyngrad.tensor(0.0, dtype=out.dtype))
    rr = 0.0
    if s.requires_grad:
        h = dyngrad.autograd.grad(s, xs, allow_unused=True)
        rr = sum(float(np.nansum(hi._data * vs[i])) for hi, i in zip(h, fl) if hi is not None)
    assert ff == pytest.approx(rr, rel=1e-6, abs=1e-8), f"{info.name}: forward over forward {ff}, reverse over reverse {rr}"


def test_most_twice_differentiable_ops_take_the_nested_check() -> None:
    assert len(_NESTED) >= 100


# ---------------------------------------------------------------- three deep
_W = rng.standard_normal((3, 3)) * 0.5
FNS = {
    "sin": lambda x: dyngrad.sin(x),
    "mul": lambda x: x * x * x[0],
    "exp": lambda x: dyngrad.exp(x * 0.5),
    "matmul": lambda x: T(_W) @ (x * x),
    "sin_exp_matmul": lambda x: dyngrad.sin(T(_W) @ dyngrad.exp(x)) * x,
    "matmul_sin_sum": lambda x: (dyngrad.sin(T(_W) @ x) * x).sum(),
}
COMPS = ["".join(c) for c in itertools.product("fr", repeat=3)]


def _compose(f, comp):  # noqa: ANN001, ANN202
    for k in comp:
        f = (F.jacfwd if k == "f" else F.jacrev)(f)
    return f


@pytest.mark.parametrize("name", list(FNS))
def test_three_deep_compositions_agree_with_reverse_mode_and_central_differences(name: str) -> None:
    x = rng.standard_normal(3)
    f = FNS[name]
    ref = _compose(f, "rrr")(T(x))._data
    H = F.jacrev(F.jacrev(f))
    h = 1e-5
    fd = np.stack([(H(T(x + h * e))._data - H(T(x - h * e))._data) / (2 * h) for e in np.eye(3)], -1)
    np.testing.assert_allclose(ref, fd, rtol=1e-6, atol=1e-7)
    for comp in COMPS[:-1]:
        got = _compose(f, comp)(T(x))
        assert not got.requires_grad
        np.testing.assert_allclose(got._data, ref, rtol=1e-10, atol=1e-12, err_msg=comp)


def test_jvp_of_jvp_of_jvp_is_the_third_directional_derivative() -> None:
    x, u, v, w = (rng.standard_normal(3) for _ in range(4))
    f = lambda z: (dyngrad.sin(z) * dyngrad.exp(z)).sum()  # noqa: E731 - f''' = -2 e^x (sin x - cos x)... per element
    g1 = lambda z: F.jvp(f, (z,), (T(u),))[1]  # noqa: E731
    g2 = lambda z: F.jvp(g1, (z,), (T(v),))[1]  # noqa: E731
    _, t3 = F.jvp(g2, (T(x),), (T(w),))
    d3 = np.exp(x) * 2 * (np.cos(x) - np.sin(x))  # (e^x sin x)''' = 2 e^x (cos x - sin x)
    np.testing.assert_allclose(float(t3), float((d3 * u * v * w).sum()), rtol=1e-12)


# ---------------------------------------------------------------- custom Functions under nested levels
class _Sin(Function):
    @staticmethod
    def forward(x):  # noqa: ANN001, ANN205
        return dyngrad.sin(x)

    @staticmethod
    def setup_context(ctx, inputs, output):  # noqa: ANN001, ANN205
        ctx.save_for_backward(inputs[0])
        ctx.save_for_forward(inputs[0])

    @staticmethod
    def backward(ctx, g):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return g * dyngrad.cos(x)

    @staticmethod
    def jvp(ctx, u):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return u * dyngrad.cos(x)


class _SinNoJvp(Function):
    @staticmethod
    def forward(ctx, x):  # noqa: ANN001, ANN205
        ctx.save_for_backward(x)
        return dyngrad.sin(x)

    @staticmethod
    def backward(ctx, g):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return g * dyngrad.cos(x)


@dyngrad.custom_gradient
def _cg_sin(x):  # noqa: ANN001, ANN202
    c = dyngrad.cos(x)  # closed over by grad_fn: it must carry every level's tangent
    return dyngrad.sin(x), lambda g: g * c


@pytest.mark.parametrize("sin", [_Sin.apply, _SinNoJvp.apply, _cg_sin], ids=["jvp", "double_vjp", "custom_gradient"])
@pytest.mark.parametrize("comp", ["fff", "ffr", "frf", "rff", "frr"])
def test_custom_functions_nest_three_deep_with_the_analytic_third_derivative(sin, comp) -> None:  # noqa: ANN001
    # (PyTorch 2.13's torch.func gives 0 or other wrong values for the jvp variant at some
    # of these compositions; PyTorch refuses Functions without jvp in forward mode)
    x = np.array([0.3, -0.5, 1.1])
    got = _compose(lambda z: (sin(z) * z).sum(), comp)(T(x))._data
    want = np.zeros((3, 3, 3))
    for i in range(3):  # (x sin x)''' = -3 sin x - x cos x
        want[i, i, i] = -3 * np.sin(x[i]) - x[i] * np.cos(x[i])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


class _Double_(Function):  # noqa: N801 - an in-place Function
    @staticmethod
    def forward(ctx, a):  # noqa: ANN001, ANN205
        a.mul_(2)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, g):  # noqa: ANN001, ANN205
        return g * 2

    @staticmethod
    def jvp(ctx, ta):  # noqa: ANN001, ANN205
        return ta * 2


class _Double_NoJvp(Function):  # noqa: N801
    forward = _Double_.forward
    backward = _Double_.backward


def test_an_in_place_function_with_jvp_nests_three_deep() -> None:
    x = np.array([0.5, -1.0, 2.0])
    D3 = _compose(lambda z: (_Double_.apply(z * 1) ** 3).sum(), "fff")(T(x))._data
    want = np.zeros((3, 3, 3))
    for i in range(3):
        want[i, i, i] = 48.0  # (2x)^3 = 8 x^3: d3 = 48
    np.testing.assert_allclose(D3, want)


def test_an_in_place_function_without_jvp_raises_in_forward_mode_instead_of_a_wrong_tangent() -> None:
    # before: the double-vjp differentiated w.r.t. the modified input and gave tangent u, not 2u
    with pytest.raises(NotImplementedError, match="must implement the jvp.*mark_dirty"):
        F.jacfwd(lambda z: _Double_NoJvp.apply(z * 1))(T([1.0, 2.0]))


def test_in_place_ops_on_views_under_nested_levels_match_central_differences() -> None:
    # (PyTorch 2.13's torch.func.jacfwd differs from central differences here already at one level)
    def f(x):  # noqa: ANN001, ANN202
        y = x.clone()
        v = y[1:3]
        v.mul_(v)
        y[0:2] += x[2:4] * y[3]
        return (y.exp() * x).sum()

    x = rng.standard_normal(4)
    h = 1e-6
    J = F.jacfwd(f)
    fd = np.array([(float(f(T(x + h * e))) - float(f(T(x - h * e)))) / (2 * h) for e in np.eye(4)])
    np.testing.assert_allclose(J(T(x))._data, fd, rtol=1e-6)
    H = F.jacfwd(J)(T(x))._data
    fdH = np.stack([(J(T(x + h * e))._data - J(T(x - h * e))._data) / (2 * h) for e in np.eye(4)], -1)
    np.testing.assert_allclose(H, fdH, rtol=1e-5, atol=1e-6)


def test_layer_norm_forward_over_forward_equals_reverse_over_reverse() -> None:
    # (PyTorch 2.13's jacfwd(jacfwd(f)) and jacrev(jacfwd(f)) differ from its own hessian here:
    # its layer_norm forward-mode formula is not differentiated exactly)
    f = lambda x: dyngrad.nn.functional.layer_norm(x.reshape(2, 2) * x[0], (2,)).pow(2).sum()  # noqa: E731
    x = T(rng.standard_normal(4))
    np.testing.assert_allclose(F.jacfwd(F.jacfwd(f))(x)._data, F.hessian(f)(x)._data, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(F.jacrev(F.jacfwd(f))(x)._data, F.hessian(f)(x)._data, rtol=1e-9, atol=1e-9)


def test_a_tangent_rule_reads_saved_tensors_past_saved_tensor_hooks() -> None:
    # a pack hook that keeps a detached copy must not cut the tangent's history (reverse mode
    # over forward mode) nor its outer tangents: the rule reads what forward saved, as given
    f = lambda z: (z.sin() * z).sum()  # noqa: E731
    x = np.array([0.3, -0.7])
    want = 2 * np.cos(x) - x * np.sin(x)
    w = T(x).requires_grad_()
    with dyngrad.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        (g,) = dyngrad.autograd.grad(F.jacfwd(f)(w).sum(), w)
        H = F.jacfwd(F.jacfwd(f))(T(x))
    np.testing.assert_allclose(g._data, want, rtol=1e-12)
    np.testing.assert_allclose(np.diag(H._data), want, rtol=1e-12)
