"""Forward-mode AD: dual levels, jvp of every representative op against its vjp, custom
rules (jvp + save_for_forward) and the double-vjp fallback, composition with reverse mode."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function
from dyngrad.autograd import forward_ad as fwAD

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
rng = np.random.default_rng(11)


def _rand(shape: tuple, domain: str = "real") -> np.ndarray:
    x = rng.standard_normal(shape)
    if domain == "pos":
        return np.abs(x) + 0.5
    if domain == "unit":
        return np.tanh(x) * 0.8
    if domain == "spd":
        a = rng.standard_normal(shape)
        return a @ a.T + shape[0] * np.eye(shape[0])
    return x


# (name, function of tensors, input shapes, domain); skipped when the op does not exist
OPS = [
    ("add", lambda a, b: dyngrad.add(a, b, alpha=2), [(3, 4), (4,)], "real"),
    ("sub", lambda a, b: a - b, [(3, 4), (3, 1)], "real"),
    ("mul", lambda a, b: a * b, [(2, 3), (3,)], "real"),
    ("mul_scalar", lambda a: a * 2.5, [(3,)], "real"),
    ("div", lambda a, b: a / b, [(2, 3), (3,)], "pos"),
    ("rdiv_scalar", lambda a: 2.0 / a, [(3,)], "pos"),
    ("neg", lambda a: -a, [(4,)], "real"),
    ("pow", lambda a, b: a ** b, [(3,), (3,)], "pos"),
    ("pow_scalar", lambda a: a ** 3, [(3,)], "real"),
    ("exp", lambda a: a.exp(), [(2, 3)], "real"),
    ("log", lambda a: a.log(), [(2, 3)], "pos"),
    ("log1p", lambda a: dyngrad.log1p(a), [(3,)], "pos"),
    ("sqrt", lambda a: dyngrad.sqrt(a), [(3,)], "pos"),
    ("rsqrt", lambda a: dyngrad.rsqrt(a), [(3,)], "pos"),
    ("sin", lambda a: dyngrad.sin(a), [(3,)], "real"),
    ("cos", lambda a: dyngrad.cos(a), [(3,)], "real"),
    ("tan", lambda a: dyngrad.tan(a), [(3,)], "unit"),
    ("tanh", lambda a: dyngrad.tanh(a), [(3,)], "real"),
    ("sigmoid", lambda a: dyngrad.sigmoid(a), [(3,)], "real"),
    ("asin", lambda a: dyngrad.asin(a), [(3,)], "unit"),
    ("atan", lambda a: dyngrad.atan(a), [(3,)], "real"),
    ("sinh", lambda a: dyngrad.sinh(a), [(3,)], "real"),
    ("erf", lambda a: dyngrad.erf(a), [(3,)], "real"),
    ("abs", lambda a: dyngrad.abs(a), [(3,)], "pos"),
    ("square", lambda a: dyngrad.square(a), [(3,)], "real"),
    ("reciprocal", lambda a: dyngrad.reciprocal(a), [(3,)], "pos"),
    ("softplus", lambda a: dyngrad.softplus(a), [(3,)], "real"),
    ("silu", lambda a: dyngrad.silu(a), [(3,)], "real"),
    ("gelu", lambda a: dyngrad.gelu(a), [(3,)], "real"),
    ("elu", lambda a: dyngrad.elu(a), [(3,)], "pos"),
    ("relu", lambda a: dyngrad.relu(a), [(3,)], "pos"),
    ("atan2", lambda a, b: dyngrad.atan2(a, b), [(3,), (3,)], "pos"),
    ("hypot", lambda a, b: dyngrad.hypot(a, b), [(3,), (3,)], "pos"),
    ("maximum", lambda a, b: dyngrad.maximum(a, b), [(3,), (3,)], "real"),
    ("lerp", lambda a, b: dyngrad.lerp(a, b, 0.3), [(3,), (3,)], "real"),
    ("addcmul", lambda a, b, c: dyngrad.addcmul(a, b, c, value=0.5), [(3,), (3,), (3,)], "real"),
    ("where", lambda a, b: dyngrad.where(a > 0, a, b), [(4,), (4,)], "real"),
    ("clamp", lambda a: dyngrad.clamp(a, -0.5, 0.5), [(5,)], "real"),
    ("sum", lambda a: a.sum(), [(2, 3)], "real"),
    ("sum_dim", lambda a: a.sum(1, keepdim=True), [(2, 3)], "real"),
    ("mean", lambda a: a.mean(0), [(2, 3)], "real"),
    ("prod", lambda a: dyngrad.prod(a, 1), [(2, 3)], "pos"),
    ("var", lambda a: dyngrad.var(a, 1), [(2, 3)], "real"),
    ("std", lambda a: dyngrad.std(a), [(2, 3)], "real"),
    ("norm", lambda a: dyngrad.norm(a), [(2, 3)], "real"),
    ("amax", lambda a: dyngrad.amax(a, 1), [(2, 3)], "real"),
    ("logsumexp", lambda a: dyngrad.logsumexp(a, 1), [(2, 3)], "real"),
    ("softmax", lambda a: dyngrad.softmax(a, -1), [(2, 3)], "real"),
    ("log_softmax", lambda a: dyngrad.log_softmax(a, -1), [(2, 3)], "real"),
    ("cumsum", lambda a: dyngrad.cumsum(a, 1), [(2, 3)], "real"),
    ("cumprod", lambda a: dyngrad.cumprod(a, 1), [(2, 3)], "pos"),
    ("matmul", lambda a, b: a @ b, [(2, 3), (3, 4)], "real"),
    ("bmm", lambda a, b: dyngrad.bmm(a, b), [(2, 2, 3), (2, 3, 2)], "real"),
    ("mv", lambda a, b: dyngrad.mv(a, b), [(2, 3), (3,)], "real"),
    ("dot", lambda a, b: dyngrad.dot(a, b), [(3,), (3,)], "real"),
    ("outer", lambda a, b: dyngrad.outer(a, b), [(3,), (2,)], "real"),
    ("einsum", lambda a, b: dyngrad.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)], "real"),
    ("tensordot", lambda a, b: dyngrad.tensordot(a, b, dims=1), [(2, 3), (3, 2)], "real"),
    ("trace", lambda a: dyngrad.trace(a), [(3, 3)], "real"),
    ("det", lambda a: dyngrad.det(a), [(3, 3)], "spd"),
    ("inverse", lambda a: dyngrad.inverse(a), [(3, 3)], "spd"),
    ("logdet", lambda a: dyngrad.logdet(a), [(3, 3)], "spd"),
    ("reshape", lambda a: a.reshape(3, 2), [(2, 3)], "real"),
    ("transpose", lambda a: a.transpose(0, 1), [(2, 3)], "real"),
    ("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 2)], "real"),
    ("expand", lambda a: a.expand(3, 4), [(1, 4)], "real"),
    ("squeeze_unsqueeze", lambda a: a.unsqueeze(0).squeeze(1), [(2, 1, 3)], "real"),
    ("flip", lambda a: dyngrad.flip(a, (0,)), [(3, 2)], "real"),
    ("roll", lambda a: dyngrad.roll(a, 1, 0), [(3, 2)], "real"),
    ("cat", lambda a, b: dyngrad.cat([a, b], 0), [(2, 3), (1, 3)], "real"),
    ("stack", lambda a, b: dyngrad.stack([a, b], 1), [(2, 3), (2, 3)], "real"),
    ("getitem", lambda a: a[1:, ::2], [(3, 4)], "real"),
    ("index_select", lambda a: dyngrad.index_select(a, 0, dyngrad.tensor([2, 0, 2])), [(3, 2)], "real"),
    ("gather", lambda a: dyngrad.gather(a, 1, dyngrad.tensor([[0, 0], [1, 0]])), [(2, 3)], "real"),
    ("masked_fill", lambda a: dyngrad.masked_fill(a, a > 0, 0.0), [(2, 3)], "real"),
    ("tril", lambda a: dyngrad.tril(a), [(3, 3)], "real"),
    ("diagonal", lambda a: dyngrad.diagonal(a), [(3, 3)], "real"),
    ("pad", lambda a: dyngrad.pad(a, (1, 2)), [(2, 3)], "real"),
    ("repeat", lambda a: a.repeat(2, 1), [(2, 3)], "real"),
    ("split", lambda a: dyngrad.split(a, 1, 0)[1] * 2, [(2, 3)], "real"),
    ("clone", lambda a: a.clone(), [(3,)], "real"),
    ("to_float32", lambda a: a.to(dyngrad.float32).to(dyngrad.float64), [(3,)], "real"),
]


def _available(fn, shapes, domain):  # noqa: ANN001, ANN202
    try:
        fn(*[T(_rand(s, domain)) for s in shapes])
    except (AttributeError, NotImplementedError, TypeError):
        return False
    return True


@pytest.mark.parametrize("name,fn,shapes,domain", OPS, ids=[o[0] for o in OPS])
def test_jvp_agrees_with_vjp_on_random_inputs(name, fn, shapes, domain) -> None:  # noqa: ANN001
    if not _available(fn, shapes, domain):
        pytest.skip(f"{name} is not available (yet) in dyngrad")
    xs = [_rand(s, domain) for s in shapes]
    us = [rng.standard_normal(s) for s in shapes]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(T(x), T(u)) for x, u in zip(xs, us)]
        out = fn(*duals)
        p, t = fwAD.unpack_dual(out)
    assert t is not None, f"{name}: the output has no tangent"
    assert t.shape == out.shape and t.dtype == out.dtype
    v = rng.standard_normal(out.shape)
    leaves = [T(x).requires_grad_() for x in xs]
    grads = dyngrad.autograd.grad(fn(*leaves), leaves, T(v), allow_unused=True)
    lhs = float((v * t.data).sum())
    rhs = sum(float((g.data * u).sum()) for g, u in zip(grads, us) if g is not None)
    assert lhs == pytest.approx(rhs, rel=1e-6 if "float32" in name else 1e-8, abs=1e-10)
    np.testing.assert_allclose(p.data, fn(*[T(x) for x in xs]).data)


def test_make_dual_outside_a_level_raises() -> None:
    with pytest.raises(RuntimeError, match="dual_level"):
        fwAD.make_dual(T([1.0]), T([1.0]))


def test_tangent_of_wrong_shape_names_the_argument() -> None:
    with fwAD.dual_level(), pytest.raises(RuntimeError, match=r"'tangent' has shape \[2\].*\[3\]"):
        fwAD.make_dual(T([1.0, 2.0, 3.0]), T([1.0, 2.0]))


def test_integer_primal_or_tangent_is_a_type_error() -> None:
    with fwAD.dual_level():
        with pytest.raises(TypeError, match="'tensor'"):
            fwAD.make_dual(dyngrad.tensor([1, 2]), T([1.0, 2.0]))
        with pytest.raises(TypeError, match="'tangent'"):
            fwAD.make_dual(T([1.0, 2.0]), dyngrad.tensor([1, 2]))


def test_nested_dual_levels_give_second_derivatives() -> None:
    # dyngrad nests dual levels (PyTorch 2.13's forward_ad refuses; torch.func nests):
    # the inner level's tangent is itself differentiated by the outer level
    x = np.array([0.5, -1.2, 2.0])
    with fwAD.dual_level() as outer:
        a = fwAD.make_dual(T(x), T(np.ones(3)))
        with fwAD.dual_level() as inner:
            assert (outer, inner) == (0, 1)
            b = fwAD.make_dual(a, T(np.ones(3)))
            y = dyngrad.sin(b) * b
            first = fwAD.unpack_dual(y).tangent
            assert fwAD.unpack_dual(y, level=0).tangent is not None  # y carries both levels
        second = fwAD.unpack_dual(first).tangent
    np.testing.assert_allclose(first.data, np.cos(x) * x + np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(second.data, -np.sin(x) * x + 2 * np.cos(x), rtol=1e-12)


def test_exiting_an_outer_dual_level_before_the_inner_one_raises() -> None:
    with fwAD.dual_level():
        fwAD.enter_dual_level()
        with pytest.raises(RuntimeError, match="not the innermost"):
            fwAD.exit_dual_level(level=0)
        fwAD.exit_dual_level(level=1)


def test_make_dual_at_an_inactive_level_raises() -> None:
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="dual level 3 is not active"):
            fwAD.make_dual(T([1.0]), T([1.0]), level=3)


def test_tangents_are_dropped_when_the_level_exits() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 2.0]), T([1.0, 1.0]))
        y = d * 3
        assert fwAD.unpack_dual(y).tangent is not None
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y).tangent is None


def test_the_primal_itself_carries_no_tangent() -> None:
    x = T([1.0, 2.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, T([1.0, 1.0]))
        assert fwAD.unpack_dual(x).tangent is None
        p, t = fwAD.unpack_dual(d)
        assert fwAD.unpack_dual(p).tangent is None
        np.testing.assert_array_equal(t.data, [1.0, 1.0])


def test_ops_on_non_dual_tensors_inside_a_level_have_no_tangent() -> None:
    with fwAD.dual_level():
        y = T([1.0, 2.0]).exp()
        assert fwAD.unpack_dual(y).tangent is None


def test_integer_outputs_inside_a_level_get_no_tangent() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 3.0, 2.0]), T([1.0, 1.0, 1.0]))
        i = dyngrad.argmax(d)
        assert fwAD.unpack_dual(i).tangent is None
        assert int(i) == 1


class CubeJvp(Function):
    calls = {"jvp": 0}

    @staticmethod
    def forward(ctx, x):  # noqa: ANN001, ANN205
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return 3 * x * x * g

    @staticmethod
    def jvp(ctx, u):  # noqa: ANN001, ANN205
        CubeJvp.calls["jvp"] += 1
        (x,) = ctx.saved_tensors
        return 3 * x * x * u


class CubeBackwardOnly(Function):
    @staticmethod
    def forward(ctx, x):  # noqa: ANN001, ANN205
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return 3 * x * x * g


class WrongJvp(CubeBackwardOnly):
    @staticmethod
    def jvp(ctx, u):  # noqa: ANN001, ANN205
        return u  # deliberately wrong: the derivative of x**3 is not 1


def test_custom_jvp_rule_is_used_with_save_for_forward() -> None:
    before = CubeJvp.calls["jvp"]
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 2.0]), T([1.0, 0.5]))
        t = fwAD.unpack_dual(CubeJvp.apply(d)).tangent
    assert CubeJvp.calls["jvp"] == before + 1
    np.testing.assert_allclose(t.data, [3.0, 6.0])


def test_backward_only_custom_function_supports_forward_mode_by_double_vjp() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 2.0]), T([1.0, 0.5]))
        t = fwAD.unpack_dual(CubeBackwardOnly.apply(d)).tangent
    np.testing.assert_allclose(t.data, [3.0, 6.0])
    h = dyngrad.func.jacfwd(dyngrad.func.jacrev(lambda x: CubeBackwardOnly.apply(x).sum()))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(h, np.diag([6.0, 12.0]))


def test_check_forward_ad_passes_for_correct_rules_and_catches_a_wrong_one() -> None:
    x = (T([0.3, 1.2]),)
    assert fwAD.check_forward_ad(CubeJvp.apply, x)
    assert fwAD.check_forward_ad(CubeBackwardOnly.apply, x)
    assert fwAD.check_forward_ad(lambda a, b: (a * b / (1 + b * b), -a), (T([0.3, 1.2]), T([0.7, -0.4])))
    with pytest.raises(RuntimeError, match="Jacobian mismatch.*forward"):
        fwAD.check_forward_ad(WrongJvp.apply, x)
    assert fwAD.check_forward_ad(WrongJvp.apply, x, raise_exception=False) is False


def test_forward_over_reverse_gives_hessian_vector_product() -> None:
    x0, u = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, -1.0])
    with fwAD.dual_level():
        x = fwAD.make_dual(T(x0).requires_grad_(), T(u))
        y = (x.exp() * x).sum() + (x[0] * x[1]) ** 2
        (g,) = dyngrad.autograd.grad(y, x, create_graph=True)
        hv = fwAD.unpack_dual(g).tangent
    xr = T(x0).requires_grad_()
    y = (xr.exp() * xr).sum() + (xr[0] * xr[1]) ** 2
    (g,) = dyngrad.autograd.grad(y, xr, create_graph=True)
    (want,) = dyngrad.autograd.grad(g, xr, T(u))
    np.testing.assert_allclose(hv.data, want.data, rtol=1e-12)


def test_reverse_over_forward_differentiates_the_tangent() -> None:
    x0, u = np.array([0.5, -1.0]), np.array([1.0, 2.0])
    xr = T(x0).requires_grad_()
    with fwAD.dual_level():
        y = (fwAD.make_dual(xr, T(u)).sin() ** 2).sum()
        t = fwAD.unpack_dual(y).tangent
    (g,) = dyngrad.autograd.grad(t, xr)
    np.testing.assert_allclose(g.data, 2 * np.cos(2 * x0) * u, rtol=1e-12)


def test_ordinary_backward_inside_a_level_still_reaches_leaves() -> None:
    xr = T([1.0, 2.0]).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(xr, T([1.0, 1.0]))
        (d * d * 3).sum().backward()
    np.testing.assert_allclose(xr.grad.data, [6.0, 12.0])


def test_scalar_operands_and_broadcasting_in_builtin_jvp_rules() -> None:
    a0, b0 = rng.standard_normal((2, 3)), rng.uniform(1, 2, (3,))
    ua, ub = rng.standard_normal((2, 3)), rng.standard_normal((3,))
    with fwAD.dual_level():
        a, b = fwAD.make_dual(T(a0), T(ua)), fwAD.make_dual(T(b0), T(ub))
        t1 = fwAD.unpack_dual(1.5 - a / b * 2 + (-b)).tangent
        t2 = fwAD.unpack_dual(dyngrad.sub(a, b, alpha=3)).tangent
    np.testing.assert_allclose(t1.data, -2 * (ua / b0 - a0 * ub / b0 ** 2) - ub, rtol=1e-12)
    np.testing.assert_allclose(t2.data, ua - 3 * ub)


def test_dual_level_works_as_a_decorator() -> None:
    @fwAD.dual_level()
    def f() -> np.ndarray:
        d = fwAD.make_dual(T([2.0]), T([1.0]))
        return fwAD.unpack_dual(d * d).tangent.data

    np.testing.assert_allclose(f(), [4.0])


def _inplace_wired() -> bool:
    import inspect

    return "_transfer_tangent" in inspect.getsource(dyngrad.ops._util)


@pytest.mark.skipif(not _inplace_wired(), reason="needs the forward-AD hook in ops._util.inplace (reported to the lead)")
def test_inplace_ops_update_the_tangent() -> None:
    x0, u = np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    with fwAD.dual_level():
        y = fwAD.make_dual(T(x0), T(u)).clone()
        y.mul_(2)
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.data, 2 * u)
        y.exp_()
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.data, np.exp(2 * x0) * 2 * u)


def test_detach_drops_the_tangent_as_in_pytorch() -> None:
    x0, u = np.array([0.5, 2.0]), np.array([1.0, 1.0])
    with fwAD.dual_level():
        x = fwAD.make_dual(T(x0), T(u))
        assert fwAD.unpack_dual(x.detach()).tangent is None
        # straight-through pattern: value of x**2, tangent of x
        y = x + (x * x - x).detach()
        p, t = fwAD.unpack_dual(y)
    np.testing.assert_allclose(p.data, x0 ** 2)
    np.testing.assert_allclose(t.data, u)


# ---------------------------------------------------------------- explicit jvp rules
import importlib  # noqa: E402

from dyngrad.nn import functional as _nf  # noqa: E402
from dyngrad.ops import activation as _ac  # noqa: E402
from dyngrad.ops import arithmetic as _ar  # noqa: E402
from dyngrad.ops import contraction as _cn  # noqa: E402
from dyngrad.ops import conv as _cv  # noqa: E402
from dyngrad.ops import copying as _cp  # noqa: E402
from dyngrad.ops import decomp as _dc  # noqa: E402
from dyngrad.ops import elementwise as _el  # noqa: E402
from dyngrad.ops import fused as _fu  # noqa: E402
from dyngrad.ops import indexing as _ix  # noqa: E402
from dyngrad.ops import linalg as _la  # noqa: E402
from dyngrad.ops import masking as _mk  # noqa: E402
from dyngrad.ops import pointwise as _pw  # noqa: E402
from dyngrad.ops import rearrange as _ra  # noqa: E402
from dyngrad.ops import reduction as _re  # noqa: E402
from dyngrad.ops import rounding as _rd  # noqa: E402
from dyngrad.ops import shape as _sh  # noqa: E402
from dyngrad.ops import sorting as _so  # noqa: E402
from dyngrad.ops import special as _sp  # noqa: E402
from dyngrad.ops import splitting as _sl  # noqa: E402
from dyngrad.ops import statistics as _st  # noqa: E402
from dyngrad.ops import thresholding as _th  # noqa: E402
from dyngrad.ops import trig as _tr  # noqa: E402

D = dyngrad
_ga = importlib.import_module("dyngrad.ops.gather")  # the name dyngrad.ops.gather is the function
# (name, function of tensors, input shapes, domain, the Function whose jvp rule must run)
RULES = [
    ("exp", D.exp, [(2, 3)], "real", _el.Exp),
    ("log", D.log, [(2, 3)], "pos", _el.Log),
    ("sin", D.sin, [(3,)], "real", _el.Sin),
    ("cos", D.cos, [(3,)], "real", _el.Cos),
    ("tanh", D.tanh, [(3,)], "real", _el.Tanh),
    ("sigmoid", D.sigmoid, [(3,)], "real", _el.Sigmoid),
    ("relu", D.relu, [(4,)], "real", _el.Relu),
    ("abs", D.abs, [(4,)], "real", _el.Abs),
    ("sqrt", D.sqrt, [(3,)], "pos", _el.Sqrt),
    ("clamp", lambda a: D.clamp(a, -0.5, 0.5), [(5,)], "real", _el.Clamp),
    ("clamp_tensor", lambda a, lo, hi: D.clamp(a * 2, lo - 1.5, hi + 1.5), [(2, 3), (3,), (2, 1)], "unit", _el.ClampTensor),
    ("exp2", D.exp2, [(3,)], "real", _sp.Exp2),
    ("expm1", D.expm1, [(3,)], "real", _sp.Expm1),
    ("log2", D.log2, [(3,)], "pos", _sp.Log2),
    ("log10", D.log10, [(3,)], "pos", _sp.Log10),
    ("log1p", D.log1p, [(3,)], "pos", _sp.Log1p),
    ("rsqrt", D.rsqrt, [(3,)], "pos", _sp.Rsqrt),
    ("square", D.square, [(3,)], "real", _sp.Square),
    ("reciprocal", D.reciprocal, [(3,)], "pos", _sp.Reciprocal),
    ("logit", lambda a: D.logit(a * 0.3 + 0.5), [(3,)], "unit", _sp.Logit),
    ("logit_eps", lambda a: D.logit(a, 0.2), [(4,)], "unit", _sp.Logit),
    ("erf", D.erf, [(3,)], "real", _sp.Erf),
    ("erfc", D.erfc, [(3,)], "real", _sp.Erfc),
    ("tan", D.tan, [(3,)], "unit", _tr.Tan),
    ("asin", D.asin, [(3,)], "unit", _tr.Asin),
    ("acos", D.acos, [(3,)], "unit", _tr.Acos),
    ("atan", D.atan, [(3,)], "real", _tr.Atan),
    ("sinh", D.sinh, [(3,)], "real", _tr.Sinh),
    ("cosh", D.cosh, [(3,)], "real", _tr.Cosh),
    ("asinh", D.asinh, [(3,)], "real", _tr.Asinh),
    ("acosh", lambda a: D.acosh(a + 1), [(3,)], "pos", _tr.Acosh),
    ("atanh", D.atanh, [(3,)], "unit", _tr.Atanh),
    ("sign", D.sign, [(3,)], "real", _rd.Sign),
    ("floor", D.floor, [(3,)], "real", _rd.Floor),
    ("ceil", D.ceil, [(3,)], "real", _rd.Ceil),
    ("trunc", D.trunc, [(3,)], "real", _rd.Trunc),
    ("round", D.round, [(3,)], "real", _rd.Round),
    ("round_decimals", lambda a: D.round(a, decimals=1), [(3,)], "real", _rd.RoundDecimals),
    ("frac", D.frac, [(3,)], "real", _rd.Frac),
    ("nan_to_num", D.nan_to_num, [(3,)], "real", _rd.NanToNum),
    ("maximum", D.maximum, [(2, 3), (3,)], "real", _pw.Maximum),
    ("minimum", D.minimum, [(3,), (2, 3)], "real", _pw.Minimum),
    ("maximum_scalar_side", lambda a: D.maximum(a, D.zeros(3, dtype=D.float64)), [(3,)], "real", _pw.Maximum),
    ("fmax", D.fmax, [(3,), (3,)], "real", _pw.Fmax),
    ("fmin", D.fmin, [(3,), (3,)], "real", _pw.Fmin),
    ("where", lambda a, b: D.where(a > 0, a, b), [(4,), (4,)], "real", _pw.Where),
    ("where_scalar", lambda a: D.where(a > 0, a, 0.0), [(4,)], "real", _pw.Where),
    ("lerp", lambda a, b, w: D.lerp(a, b, w), [(3,), (3,), (3,)], "real", _pw.Lerp),
    ("lerp_scalar", lambda a, b: D.lerp(a, b, 0.3), [(2, 3), (3,)], "real", _pw.LerpScalar),
    ("addcmul", lambda a, b, c: D.addcmul(a, b, c, value=0.5), [(3,), (2, 3), (3,)], "real", _pw.Addcmul),
    ("addcdiv", lambda a, b, c: D.addcdiv(a, b, c, value=0.5), [(3,), (3,), (3,)], "pos", _pw.Addcdiv),
    ("hypot", D.hypot, [(3,), (3,)], "pos", _pw.Hypot),
    ("atan2", D.atan2, [(2, 3), (3,)], "pos", _pw.Atan2),
    ("logaddexp", D.logaddexp, [(3,), (3,)], "real", _pw.Logaddexp),
    ("pow", lambda a, b: a ** b, [(2, 3), (3,)], "pos", _ar.Pow),
    ("pow_scalar_exponent", lambda a: a ** 3, [(3,)], "real", _ar.Pow),
    ("pow_scalar_base", lambda b: 2.0 ** b, [(3,)], "real", _ar.Pow),
    ("softplus", D.nn.functional.softplus, [(3,)], "real", _ac.Softplus),
    ("softplus_beta", lambda a: D.nn.functional.softplus(a * 8, beta=3.0, threshold=4.0), [(4,)], "real", _ac.Softplus),
    ("hardtanh", D.nn.functional.hardtanh, [(4,)], "real", _ac.Hardtanh),
    ("relu6", lambda a: D.nn.functional.relu6(a * 4), [(4,)], "real", _ac.Hardtanh),
    ("leaky_relu", lambda a: D.nn.functional.leaky_relu(a, 0.2), [(4,)], "real", _ac.LeakyRelu),
    ("elu", D.nn.functional.elu, [(4,)], "real", _ac.Elu),
    ("selu", D.nn.functional.selu, [(4,)], "real", _ac.Elu),
    ("celu", lambda a: D.nn.functional.celu(a, 0.5), [(4,)], "real", _ac.Celu),
    ("gelu", D.nn.functional.gelu, [(4,)], "real", _ac.Gelu),
    ("gelu_tanh", lambda a: D.nn.functional.gelu(a, approximate="tanh"), [(4,)], "real", _ac.Gelu),
    ("silu", D.nn.functional.silu, [(4,)], "real", _ac.Silu),
    ("mish", D.nn.functional.mish, [(4,)], "real", _ac.Mish),
    ("hardswish", lambda a: D.nn.functional.hardswish(a * 4), [(4,)], "real", _ac.Hardswish),
    ("hardsigmoid", lambda a: D.nn.functional.hardsigmoid(a * 4), [(4,)], "real", _ac.Hardsigmoid),
    ("softmax", lambda a: D.softmax(a, 1), [(2, 3)], "real", _fu.Softmax),
    ("log_softmax", lambda a: D.log_softmax(a, 0), [(2, 3)], "real", _fu.LogSoftmax),
    ("sum_all", lambda a: a.sum(), [(2, 3)], "real", _re.SumAll),
    ("sum_dim", lambda a: a.sum(1, keepdim=True), [(2, 3)], "real", _re.Sum),
    ("sum_dims", lambda a: D.sum(a, (0, 2)), [(2, 3, 2)], "real", _re.Sum),
    ("mean_all", lambda a: a.mean(), [(2, 3)], "real", _re.MeanAll),
    ("mean_dim", lambda a: a.mean(0), [(2, 3)], "real", _re.Mean),
    ("reshape", lambda a: a.reshape(3, 2), [(2, 3)], "real", _sh.Reshape),
    ("view", lambda a: a.view(-1), [(2, 3)], "real", _sh.Reshape),
    ("squeeze", lambda a: a.squeeze(1), [(2, 1, 3)], "real", _sh.SqueezeDim),
    ("unsqueeze", lambda a: a.unsqueeze(0), [(2, 3)], "real", _sh.Unsqueeze),
    ("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 2)], "real", _sh.Permute),
    ("transpose", lambda a: a.transpose(0, 1), [(2, 3)], "real", _sh.Transpose),
    ("t", lambda a: a.t(), [(2, 3)], "real", _sh.T),
    ("expand", lambda a: a.expand(3, 4), [(1, 4)], "real", _sh.Expand),
    ("getitem_slice", lambda a: a[1:, ::2], [(3, 4)], "real", _ix.Slice),
    ("getitem_int", lambda a: a[1], [(3, 4)], "real", _ix.Select),
    ("getitem_advanced", lambda a: a[D.tensor([2, 0, 2])], [(3, 2)], "real", _ix.Index),
    ("index_put_add", lambda g: _ix.IndexPutAdd.apply(g, (3, 2), (np.array([2, 0, 2]),), False), [(3, 2)], "real",
     _ix.IndexPutAdd),
    ("matmul", lambda a, b: a @ b, [(2, 3), (3, 4)], "real", _la.Matmul),
    ("matmul_batched", lambda a, b: a @ b, [(2, 2, 3), (3, 2)], "real", _la.Matmul),
    ("matmul_vec", lambda a, b: a @ b, [(3,), (3, 2)], "real", _la.Matmul),
    ("mm", D.mm, [(2, 3), (3, 2)], "real", _la.Mm),
    ("bmm", D.bmm, [(2, 2, 3), (2, 3, 2)], "real", _la.Bmm),
    ("mv", D.mv, [(2, 3), (3,)], "real", _la.Mv),
    ("dot", D.dot, [(3,), (3,)], "real", _la.Dot),
    ("linear", D.nn.functional.linear, [(4, 3), (2, 3), (2,)], "real", _nf.Linear),
    ("linear_no_bias", D.nn.functional.linear, [(2, 4, 3), (2, 3)], "real", _nf.Linear),
    ("threshold", lambda a: D.nn.functional.threshold(a, 0.5, -2.0), [(4,)], "real", _th.Threshold),
    ("softshrink", lambda a: D.nn.functional.softshrink(a, 0.5), [(4,)], "real", _th.Softshrink),
    ("hardshrink", lambda a: D.nn.functional.hardshrink(a, 0.5), [(4,)], "real", _th.Shrink),
    ("prelu", lambda a, w: D.nn.functional.prelu(a, w), [(2, 3, 2), (3,)], "real", _th.Prelu),
    ("rrelu_eval", lambda a: D.nn.functional.rrelu(a, training=False), [(4,)], "real", _th.RreluWithNoise),
    ("softsign", D.nn.functional.softsign, [(4,)], "real", _th.Softsign),
    ("logsigmoid", D.nn.functional.logsigmoid, [(4,)], "real", _th.LogSigmoid),
    ("tanhshrink", D.nn.functional.tanhshrink, [(4,)], "real", _th.Tanhshrink),
    ("glu", lambda a: D.nn.functional.glu(a, 1), [(2, 4)], "real", _th.Glu),
    ("clone", lambda a: a.clone(), [(3,)], "real", _cp.Clone),
    ("to_float32_and_back", lambda a: a.to(D.float32).to(D.float64), [(3,)], "real", _cp.ToDtype),
    ("repeat", lambda a: a.repeat(2, 1, 2), [(2, 3)], "real", _ra.Repeat),
    ("flip", lambda a: D.flip(a, (0,)), [(3, 2)], "real", _ra.Flip),
    ("roll", lambda a: D.roll(a, (1, -1), (0, 1)), [(3, 2)], "real", _ra.Roll),
    ("pad_constant", lambda a: D.nn.functional.pad(a, (1, 2), value=3.0), [(2, 3)], "real", _ra.ConstantPad),
    ("pad_crop", lambda a: D.nn.functional.pad(a, (-1, 0, 1, 1)), [(2, 3)], "real", _ra.ConstantPad),
    ("pad_reflect", lambda a: D.nn.functional.pad(a, (2, 1), mode="reflect"), [(1, 2, 4)], "real", _ra.IndexPad),
    ("pad_circular", lambda a: D.nn.functional.pad(a, (1, 2), mode="circular"), [(1, 2, 4)], "real", _ra.IndexPad),
    ("masked_fill", lambda a: D.masked_fill(a, a > 0, 0.5), [(2, 3)], "real", _mk.MaskedFill),
    ("masked_fill_tensor_value", lambda a, v: D.masked_fill(a, a > 0, v), [(2, 3), ()], "real", _mk.MaskedFill),
    ("var", lambda a: D.var(a, 1), [(2, 3)], "real", _st.Var),
    ("var_all_keepdim", lambda a: D.var(a, None, keepdim=True, correction=0), [(2, 3)], "real", _st.Var),
    ("std", lambda a: D.std(a), [(2, 3)], "real", _st.Std),
    ("std_dim", lambda a: D.std(a, 0, keepdim=True), [(2, 3)], "real", _st.Std),
    ("logsumexp", lambda a: D.logsumexp(a, 1), [(2, 3)], "real", _st.Logsumexp),
    ("logsumexp_keepdim", lambda a: D.logsumexp(a, (0, 1), keepdim=True), [(2, 3)], "real", _st.Logsumexp),
    ("cumsum", lambda a: D.cumsum(a, 1), [(2, 3)], "real", _st.Cumsum),
    ("cumprod", lambda a: D.cumprod(a, 1), [(2, 3)], "real", _st.Cumprod),
    ("cumprod_with_zeros", lambda a: D.cumprod(a * D.tensor([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]],
     dtype=D.float64), 1), [(2, 4)], "real", _st.Cumprod),
    ("amax", lambda a: D.amax(a, 1), [(2, 3)], "real", _re.Amax),
    ("amin_keepdim", lambda a: D.amin(a, 0, keepdim=True), [(2, 3)], "real", _re.Amin),
    ("max_all", lambda a: D.max(a), [(2, 3)], "real", _re.MaxAll),
    ("min_all", lambda a: D.min(a), [(2, 3)], "real", _re.MinAll),
    ("amax_tie", lambda a: D.amax(D.cat([a, a], 0), 0), [(1, 3)], "real", _re.Amax),
    ("unbind", lambda a: D.unbind(a, 1)[2], [(2, 3)], "real", _sl.Unbind),
    ("cat", lambda a, b: D.cat([a, b], 0), [(2, 3), (1, 3)], "real", _sl.Cat),
    ("cat_one_constant", lambda a: D.cat([D.ones(1, 3, dtype=D.float64), a], 0), [(2, 3)], "real", _sl.Cat),
    ("stack", lambda a, b: D.stack([a, b], 1), [(2, 3), (2, 3)], "real", _sl.Stack),
    ("stack_one_constant", lambda a: D.stack([a, D.ones(2, 3, dtype=D.float64)], 2), [(2, 3)], "real", _sl.Stack),
    ("split", lambda a: D.split(a, 1, 0)[1] * 2, [(2, 3)], "real", _sl.Split),
    ("split_sizes", lambda a: D.split(a, [1, 2], 1)[1], [(2, 3)], "real", _sl.SplitWithSizes),
    ("gather", lambda a: D.gather(a, 1, D.tensor([[0, 0], [1, 0]])), [(2, 3)], "real", _ga.Gather),
    ("scatter_add", lambda a, b: D.scatter_add(a, 1, D.tensor([[0, 0], [2, 0]]), b), [(2, 3), (2, 2)], "real",
     _ga.ScatterAdd),
    ("scatter_src", lambda a, b: D.scatter(a, 1, D.tensor([[0, 1], [2, 0]]), b), [(2, 3), (2, 2)], "real",
     _ga.Scatter),
    ("scatter_value", lambda a: D.scatter(a, 1, D.tensor([[0, 1], [2, 0]]), 1.5), [(2, 3)], "real", _ga.Scatter),
    ("index_select", lambda a: D.index_select(a, 0, D.tensor([2, 0, 2])), [(3, 2)], "real", _ga.IndexSelect),
    ("einsum", lambda a, b: D.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)], "real", _cn.Einsum),
    ("einsum_three", lambda a, b, c: D.einsum("i,ij,j->", a, b, c), [(2,), (2, 3), (3,)], "real", _cn.Einsum),
    ("max_dim", lambda a: D.max(a, 1)[0], [(2, 3)], "real", _re.MaxDim),
    ("min_dim_keepdim", lambda a: D.min(a, 0, keepdim=True).values, [(2, 3)], "real", _re.MinDim),
    ("sort", lambda a: D.sort(a, 1, descending=True).values, [(2, 4)], "real", _so.Sort),
    ("topk", lambda a: D.topk(a, 2, 0).values, [(3, 2)], "real", _so.Topk),
    ("trace", D.trace, [(3, 3)], "real", _la.Trace),
    ("diagonal", lambda a: D.diagonal(a, 1), [(3, 4)], "real", _la.Diagonal),
    ("diag_embed", lambda a: D.diag_embed(a), [(2, 3)], "real", _la._DiagEmbed),
    ("diag_vector", lambda a: D.diag(a, -1), [(3,)], "real", _la._DiagEmbed),
    ("tril", lambda a: D.tril(a), [(3, 3)], "real", _la.Tril),
    ("triu", lambda a: D.triu(a, 1), [(3, 4)], "real", _la.Triu),
    ("inverse", D.inverse, [(3, 3)], "spd", _dc.Inv),
    ("det", D.det, [(3, 3)], "spd", _dc.Det),
    ("solve", lambda a, b: D.linalg.solve(a @ a.mT + 3 * D.eye(3, dtype=D.float64), b), [(3, 3), (3, 2)], "real",
     _dc.Solve),
    ("solve_vector", lambda a, b: D.linalg.solve(a @ a.mT + 3 * D.eye(3, dtype=D.float64), b), [(3, 3), (3,)],
     "real", _dc.Solve),
    ("prod", lambda a: D.prod(a, 1), [(2, 3)], "pos", _re.Prod),
    ("prod_all", lambda a: D.prod(a), [(2, 3)], "real", _re.ProdAll),
    ("prod_with_a_zero", lambda a: D.prod(a * D.tensor([1.0, 0.0, 1.0], dtype=D.float64), 1), [(2, 3)], "real",
     _re.Prod),
    ("var_mean", lambda a: D.stack(D.var_mean(a, 1)), [(2, 3)], "real", _st.VarMean),
    ("std_mean", lambda a: D.stack(D.std_mean(a, 0, keepdim=True)), [(2, 3)], "real", _st.StdMean),
    ("norm_2", lambda a: D.linalg.vector_norm(a, 2, 1), [(2, 3)], "real", _st.VectorNorm),
    ("norm_1", lambda a: D.linalg.vector_norm(a, 1), [(2, 3)], "real", _st.VectorNorm),
    ("norm_3", lambda a: D.linalg.vector_norm(a, 3, 0, keepdim=True), [(2, 3)], "real", _st.VectorNorm),
    ("norm_inf", lambda a: D.linalg.vector_norm(a, float("inf"), 1), [(2, 3)], "real", _st.VectorNorm),
    ("conv2d", lambda x, w, b: D.nn.functional.conv2d(x, w, b, stride=2, padding=1), [(2, 2, 5, 5), (3, 2, 3, 3), (3,)],
     "real", _cv.Conv2dFn),
    ("conv2d_groups_dilation", lambda x, w: D.nn.functional.conv2d(x, w, groups=2, dilation=2), [(1, 4, 6, 6), (2, 2, 2, 2)],
     "real", _cv.Conv2dFn),
    ("conv2d_input_grad", lambda y, w: _cv.Conv2dInputGrad.apply(y, w, _cv._Geom((2, 2), (1, 1, 1, 1), (1, 1), 1), (5, 5)),
     [(2, 3, 3, 3), (3, 2, 3, 3)], "real", _cv.Conv2dInputGrad),
    ("conv2d_weight_grad", lambda x, y: _cv.Conv2dWeightGrad.apply(x, y, _cv._Geom((2, 2), (1, 1, 1, 1), (1, 1), 1), (3, 3)),
     [(2, 2, 5, 5), (2, 3, 3, 3)], "real", _cv.Conv2dWeightGrad),
    ("max_pool2d", lambda x: D.nn.functional.max_pool2d(x, 2), [(1, 2, 4, 4)], "real", _cv.TakeFlat),
    ("max_pool2d_overlapping", lambda x: D.nn.functional.max_pool2d(x, 3, 1), [(1, 1, 4, 4)], "real", _cv.TakeFlat),
    ("put_flat", lambda g: _cv.PutFlat.apply(g, np.array([[[0, 3, 3]]]), (1, 1, 2, 2)), [(1, 1, 3)], "real",
     _cv.PutFlat),
    ("conv_constant_pad", lambda a: _cv.ConstantPad.apply(a, (1, -1, 2, 0), 2.0), [(2, 3)], "real", _cv.ConstantPad),
    ("nll_loss_mean", lambda a: D.nn.functional.nll_loss(a, D.tensor([0, 2, 1])), [(3, 4)], "real", _fu.NllLoss),
    ("nll_loss_none", lambda a: D.nn.functional.nll_loss(a, D.tensor([0, 2]), reduction="none"), [(2, 3)], "real",
     _fu.NllLoss),
    ("cross_entropy", lambda a: D.nn.functional.cross_entropy(a, D.tensor([1, 0])), [(2, 3)], "real", _fu.NllLoss),
    ("fused_log_sigmoid", lambda a: _fu.log_sigmoid(a), [(4,)], "real", _fu._LogSigmoid),
    ("smooth_l1", lambda a, b: D.nn.functional.smooth_l1_loss(a, b, reduction="none", beta=0.5), [(4,), (4,)],
     "real", _fu.SmoothL1),
    ("bce", lambda a, b: D.nn.functional.binary_cross_entropy(D.sigmoid(a), D.sigmoid(b), reduction="sum"),
     [(4,), (4,)], "real", _fu.BinaryCrossEntropy),
    ("layer_norm", lambda a: D.nn.functional.layer_norm(a, (3,)), [(2, 3)], "real", _fu.NormalizeStats),
    ("fill", lambda a, v: _cp.Fill.apply(a, v), [(2, 3), ()], "real", _cp.Fill),
    ("copy", lambda a, b: _cp.Copy.apply(a, b), [(2, 3), (3,)], "real", _cp.Copy),
    ("remainder", lambda a, b: D.remainder(a, b), [(4,), (4,)], "pos", _ar.Remainder),
    ("fmod_scalar", lambda a: D.fmod(a * 3, 1.5), [(4,)], "pos", _ar.Remainder),
    ("slogdet", lambda a: D.linalg.slogdet(a).logabsdet, [(3, 3)], "spd", _dc.Slogdet),
    ("cholesky", lambda a: D.linalg.cholesky(a @ a.mT + 3 * D.eye(3, dtype=D.float64)), [(3, 3)], "real",
     _dc.Cholesky),
    ("index_put", lambda a, v: _ix.IndexPut.apply(a, v, _ix.plan_index((D.tensor([0, 2]),), (3, 2))),
     [(3, 2), (2,)], "real", _ix.IndexPut),
    ("index_put_scalar", lambda a: _ix.IndexPut.apply(a, 1.5, _ix.plan_index((slice(1, None), 0), (3, 2))),
     [(3, 2)], "real", _ix.IndexPut),
    ("setitem", lambda a, v: _setitem(a.clone(), (slice(None), 1), v), [(3, 2), (3,)], "real", _ix.IndexPut),
]


def _setitem(a, index, v):  # noqa: ANN001, ANN202
    a[index] = v
    return a


# a float32 intermediate needs a larger finite-difference step than the default 1e-6
FD_STEP = {"to_float32_and_back": 1e-2}


def _double_vjp_jvp(fn, xs: list, us: list) -> np.ndarray:  # noqa: ANN001
    """``J u`` by differentiating the vjp ``v -> J^T v`` with respect to ``v`` (reverse mode
    only, no forward AD involved)."""
    leaves = [T(x).requires_grad_() for x in xs]
    out = fn(*leaves)
    v = T(np.zeros(out.shape)).requires_grad_()
    gs = dyngrad.autograd.grad(out, leaves, v, create_graph=True, allow_unused=True)
    pairs = [(g, T(u)) for g, u in zip(gs, us) if g is not None and g.requires_grad]
    if not pairs:
        return np.zeros(out.shape)
    (jv,) = dyngrad.autograd.grad([g for g, _ in pairs], [v], [u for _, u in pairs], allow_unused=True)
    return np.zeros(out.shape) if jv is None else jv.data


def _fd_jvp(fn, xs: list, us: list, h: float = 1e-6) -> np.ndarray:  # noqa: ANN001
    plus = fn(*[T(x + h * u) for x, u in zip(xs, us)]).data
    minus = fn(*[T(x - h * u) for x, u in zip(xs, us)]).data
    return (plus - minus) / (2 * h)


def _away_from_kinks(name: str, x: np.ndarray) -> np.ndarray:
    """Inputs at least 0.1 away from the points where the op is not differentiable."""
    if name in ("sign", "floor", "ceil", "trunc", "round", "frac", "round_decimals"):
        k = 0.1 if name == "round_decimals" else 1.0
        f = x / k - np.floor(x / k)
        return (np.floor(x / k) + np.clip(f, 0.2, 0.8)) * k
    if name in ("threshold", "softshrink", "hardshrink"):  # kinks at +-0.5
        return np.where(np.abs(np.abs(x) - 0.5) < 0.1, x + 0.3, x)
    if name in ("relu6", "hardswish", "hardsigmoid"):  # kinks at 0, +-3 and 6 of 4 * x
        return np.where(np.min(np.abs(4 * x[..., None] - np.array([-3.0, 0.0, 3.0, 6.0])), -1) < 0.2, 0.1, x)
    if name == "softplus_beta":  # kink where 3 * 8 * x crosses the threshold 4
        return np.where(np.abs(24 * x - 4) < 0.5, 0.0, x)
    if name in ("relu", "abs", "clamp", "where", "where_scalar", "maximum_scalar_side", "hardtanh", "leaky_relu",
                "elu", "selu", "celu", "prelu", "norm_1", "norm_3", "rrelu_eval", "softsign", "masked_fill",
                "masked_fill_tensor_value"):
        return np.where(np.abs(np.abs(x) - 0.5) < 0.1, x + 0.3, x) + np.where(np.abs(x) < 0.1, 0.3, 0.0)
    if name in ("smooth_l1",):  # kink where |x - t| crosses beta: keep x - t small
        return x * 0.1
    if name in ("remainder", "fmod_scalar"):  # kinks where the quotient is an integer
        return np.where(np.abs(x * 2 - np.round(x * 2)) < 0.1, x + 0.15, x)
    if name == "logit_eps":
        return np.where(np.abs(np.abs(x - 0.5) - 0.3) < 0.05, 0.5, x)
    return x


@pytest.mark.parametrize("name,fn,shapes,domain,cls", RULES, ids=[r[0] for r in RULES])
def test_explicit_jvp_rule_is_used_and_matches_double_vjp_and_finite_differences(
    name, fn, shapes, domain, cls, monkeypatch  # noqa: ANN001
) -> None:
    assert "jvp" in cls.__dict__ or any("jvp" in k.__dict__ for k in cls.__mro__[1:] if k is not Function)
    xs = [_away_from_kinks(name, _rand(s, domain)) for s in shapes]
    if name in ("maximum", "minimum", "fmax", "fmin"):
        xs[1] = xs[1] + 0.05  # no ties between the operands
    us = [rng.standard_normal(s) for s in shapes]
    calls = []
    rule = cls.jvp

    def counting(ctx, *tangents):  # noqa: ANN001, ANN202
        calls.append(len(tangents))
        return rule(ctx, *tangents)

    monkeypatch.setattr(cls, "jvp", staticmethod(counting))
    with fwAD.dual_level():
        out = fn(*[fwAD.make_dual(T(x), T(u)) for x, u in zip(xs, us)])
        t = fwAD.unpack_dual(out).tangent
    assert calls, f"{name}: {cls.__name__}.jvp was not called (the double-vjp fallback ran instead)"
    assert t is not None and t.shape == out.shape and t.dtype == out.dtype
    np.testing.assert_allclose(t.data, _double_vjp_jvp(fn, xs, us), rtol=1e-10, atol=1e-12)
    h = FD_STEP.get(name, 1e-6)
    np.testing.assert_allclose(t.data, _fd_jvp(fn, xs, us, h), rtol=1e-5 if h < 1e-3 else 1e-4, atol=1e-7)


@pytest.mark.parametrize("name,fn,shapes,domain,cls", RULES, ids=[r[0] for r in RULES])
def test_gradcheck_with_forward_ad_passes_for_explicit_jvp_rules(name, fn, shapes, domain, cls) -> None:  # noqa: ANN001
    xs = tuple(T(_away_from_kinks(name, _rand(s, domain))).requires_grad_() for s in shapes)
    if name in ("maximum", "minimum", "fmax", "fmin"):
        xs = (xs[0], T(xs[1].data + 0.05).requires_grad_())
    assert dyngrad.autograd.gradcheck(fn, xs, eps=FD_STEP.get(name, 1e-6), check_forward_ad=True)


def test_jvp_rule_with_one_tangent_missing_treats_it_as_zero() -> None:
    a, b = _rand((3,), "pos"), _rand((3,), "pos")
    u = rng.standard_normal(3)
    with fwAD.dual_level():
        t = fwAD.unpack_dual(D.atan2(fwAD.make_dual(T(a), T(u)), T(b))).tangent
        t2 = fwAD.unpack_dual(D.where(T(a) > 1, T(b), fwAD.make_dual(T(a), T(u)))).tangent
    np.testing.assert_allclose(t.data, u * b / (a * a + b * b))
    np.testing.assert_allclose(t2.data, np.where(a > 1, 0.0, u))


def test_inplace_fill_masked_fill_and_setitem_update_the_tangent_without_grad() -> None:
    with fwAD.dual_level():
        a = fwAD.make_dual(T([1.0, -1.0, 2.0]), T([1.0, 1.0, 1.0])).clone()
        a.masked_fill_(a < 0, 0.0)
        b = fwAD.make_dual(T([0.0, 0.0]), T([1.0, 1.0])).clone()
        b.fill_(2.0)
        c = T([0.0, 0.0])
        c.fill_(fwAD.make_dual(T(1.0), T(3.0)))
        d = T(np.zeros((2, 2)))
        d[:, 1] = fwAD.make_dual(T([1.0, 2.0]), T([5.0, 6.0]))
        ta, tb, tc, td = (fwAD.unpack_dual(x).tangent for x in (a, b, c, d))
    np.testing.assert_allclose(ta.data, [1.0, 0.0, 1.0])
    np.testing.assert_allclose(tb.data, [0.0, 0.0])
    np.testing.assert_allclose(tc.data, [3.0, 3.0])
    np.testing.assert_allclose(td.data, [[0.0, 5.0], [0.0, 6.0]])


def test_forward_mode_through_a_numpy_backward_raises_instead_of_zero_tangents() -> None:
    class NpSin(Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            ctx.save_for_backward(x)
            return dyngrad.tensor(np.sin(x.detach().numpy()))

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            (x,) = ctx.saved_tensors
            return dyngrad.tensor(np.cos(x.detach().numpy()) * g.detach().numpy())

    with pytest.raises(RuntimeError, match="NpSin: it has no jvp rule, and its backward is not differentiable"):
        dyngrad.func.jacfwd(NpSin.apply)(T(np.array([0.1, 0.2])))


def test_third_derivatives_through_forward_over_reverse_equal_reverse_over_reverse() -> None:
    AF = dyngrad.autograd.functional
    x0 = np.random.default_rng(4).random(3)
    f = lambda a: (a.sin() * a.sum()).sum()  # noqa: E731
    got = []
    for strategy in ("reverse-mode", "forward-mode"):
        x = T(x0).requires_grad_()
        H = AF.hessian(f, x, create_graph=True, outer_jacobian_strategy=strategy)
        got.append(dyngrad.autograd.grad(H.sum(), x)[0].data)
    x = T(x0).requires_grad_()
    got.append(dyngrad.autograd.grad(dyngrad.func.jacfwd(dyngrad.func.jacrev(f))(x).sum(), x)[0].data)
    for g in got[1:]:
        np.testing.assert_allclose(g, got[0], rtol=1e-10)
    # a closure variable through forward-over-reverse: d/dW of the tangent of grad f
    w = np.random.default_rng(5).random(3)
    W = T(w).requires_grad_()
    with fwAD.dual_level():
        a = fwAD.make_dual(T(x0).requires_grad_(), T(np.ones(3)))
        (g,) = dyngrad.autograd.grad((a * W).sin().sum(), a, create_graph=True)
        t = fwAD.unpack_dual(g).tangent
    (gw,) = dyngrad.autograd.grad(t.sum(), W)
    np.testing.assert_allclose(gw.data, -2 * w * np.sin(x0 * w) - w ** 2 * x0 * np.cos(x0 * w), rtol=1e-10)


def _jacfwd_and_jacrev(f, x0):  # noqa: ANN001, ANN202
    return dyngrad.func.jacfwd(f)(T(x0)).data, dyngrad.func.jacrev(f)(T(x0)).data


@pytest.mark.parametrize("case", ["slice_mul_", "row_add_into_zeros", "narrow_copy_", "view_after_base_mul_",
                                  "reshaped_row_mul_", "slice_clamp_"])
def test_in_place_ops_on_views_update_tangents_like_reverse_mode(case) -> None:  # noqa: ANN001
    def f(x):  # noqa: ANN001, ANN202
        o = x.clone()
        if case == "slice_mul_":
            o[1:].mul_(x[1:])
        elif case == "row_add_into_zeros":
            b = dyngrad.zeros(2, 4, dtype=dyngrad.float64)
            b[0].add_(x)
            return (b ** 2).sum(0)
        elif case == "narrow_copy_":
            o.narrow(0, 1, 2).copy_(x[:2] * 3)
        elif case == "view_after_base_mul_":
            v = o[2:]
            o.mul_(3)
            return v * 1
        elif case == "reshaped_row_mul_":
            o.view(2, 2)[0].mul_(x[:2])
        else:
            o[1:].clamp_(-1, 1)
            return o * x
        return o

    fw, rv = _jacfwd_and_jacrev(f, np.array([0.5, 1.5, -2.0, 3.0]))
    np.testing.assert_allclose(fw, rv)  # reverse mode is right (checked against torch.func)
    if case == "slice_mul_":
        np.testing.assert_allclose(fw, np.diag([1.0, 3.0, -4.0, 6.0]))


def test_a_custom_jvp_of_the_wrong_shape_raises() -> None:
    class BadJvp(Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            return x * 2

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            return g * 2

        @staticmethod
        def jvp(ctx, u):  # noqa: ANN001, ANN205
            return u.sum()

    with pytest.raises(RuntimeError, match=r"BadJvp.jvp returned a tangent of shape \[\] for output 0"):
        dyngrad.func.jvp(BadJvp.apply, (T(np.ones(3)),), (T(np.ones(3)),))


# ---------------------------------------------------------------- in-place ops update the tangent object
def test_an_inplace_op_on_a_dual_updates_the_callers_tangent_object() -> None:
    t = T([1.0, 1.0, 1.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 1.0, 1.0]), t)
        d.mul_(3)
        assert fwAD.unpack_dual(d).tangent is t
    np.testing.assert_allclose(t.data, [3.0, 3.0, 3.0])  # PyTorch 2.13: tensor([3., 3., 3.])


def test_an_inplace_op_on_a_view_of_a_dual_changes_only_the_views_part_of_the_tangent() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 1.0, 1.0]), T([1.0, 1.0, 1.0]))
        d[:1].mul_(2)
        np.testing.assert_allclose(fwAD.unpack_dual(d).tangent.data, [2.0, 1.0, 1.0])  # as PyTorch


def test_an_inplace_op_on_a_dual_gives_its_primal_no_tangent() -> None:
    with fwAD.dual_level():
        x = T([1.0, 1.0, 1.0])
        d = fwAD.make_dual(x, T([1.0, 1.0, 1.0]))
        d *= 2
        np.testing.assert_allclose(x.data, [2.0, 2.0, 2.0])  # the values are shared
        assert fwAD.unpack_dual(x * 3).tangent is None  # PyTorch 2.13: None
        np.testing.assert_allclose(fwAD.unpack_dual(d).tangent.data, [2.0, 2.0, 2.0])
