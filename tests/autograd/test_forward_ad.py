"""Forward-mode AD: dual levels, custom rules (jvp + save_for_forward) and the double-vjp
fallback, composition with reverse mode, in-place ops and views. (Each op's jvp rule against
finite differences and reverse mode is the op database's forward-mode check,
tests/test_op_db.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function
from dyngrad.autograd import forward_ad as fwAD
from tests.op_db.info import draw

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
rng = np.random.default_rng(11)


def _rand(shape: tuple, domain: str = "real") -> np.ndarray:
    return draw(rng, shape, domain)


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
    np.testing.assert_allclose(first._data, np.cos(x) * x + np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(second._data, -np.sin(x) * x + 2 * np.cos(x), rtol=1e-12)


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
        np.testing.assert_array_equal(t._data, [1.0, 1.0])


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
    np.testing.assert_allclose(t._data, [3.0, 6.0])


def test_backward_only_custom_function_supports_forward_mode_by_double_vjp() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 2.0]), T([1.0, 0.5]))
        t = fwAD.unpack_dual(CubeBackwardOnly.apply(d)).tangent
    np.testing.assert_allclose(t._data, [3.0, 6.0])
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
    np.testing.assert_allclose(hv._data, want._data, rtol=1e-12)


def test_reverse_over_forward_differentiates_the_tangent() -> None:
    x0, u = np.array([0.5, -1.0]), np.array([1.0, 2.0])
    xr = T(x0).requires_grad_()
    with fwAD.dual_level():
        y = (fwAD.make_dual(xr, T(u)).sin() ** 2).sum()
        t = fwAD.unpack_dual(y).tangent
    (g,) = dyngrad.autograd.grad(t, xr)
    np.testing.assert_allclose(g._data, 2 * np.cos(2 * x0) * u, rtol=1e-12)


def test_ordinary_backward_inside_a_level_still_reaches_leaves() -> None:
    xr = T([1.0, 2.0]).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(xr, T([1.0, 1.0]))
        (d * d * 3).sum().backward()
    np.testing.assert_allclose(xr.grad._data, [6.0, 12.0])


def test_scalar_operands_and_broadcasting_in_builtin_jvp_rules() -> None:
    a0, b0 = rng.standard_normal((2, 3)), rng.uniform(1, 2, (3,))
    ua, ub = rng.standard_normal((2, 3)), rng.standard_normal((3,))
    with fwAD.dual_level():
        a, b = fwAD.make_dual(T(a0), T(ua)), fwAD.make_dual(T(b0), T(ub))
        t1 = fwAD.unpack_dual(1.5 - a / b * 2 + (-b)).tangent
        t2 = fwAD.unpack_dual(dyngrad.sub(a, b, alpha=3)).tangent
    np.testing.assert_allclose(t1._data, -2 * (ua / b0 - a0 * ub / b0 ** 2) - ub, rtol=1e-12)
    np.testing.assert_allclose(t2._data, ua - 3 * ub)


def test_dual_level_works_as_a_decorator() -> None:
    @fwAD.dual_level()
    def f() -> np.ndarray:
        d = fwAD.make_dual(T([2.0]), T([1.0]))
        return fwAD.unpack_dual(d * d).tangent._data

    np.testing.assert_allclose(f(), [4.0])


def _inplace_wired() -> bool:
    import pathlib

    # the .py beside the module (not inspect.getsource, which cannot read a compiled module's
    # source: docs/how-to/compiled-build.md)
    return "_transfer_tangent" in (pathlib.Path(dyngrad.ops._util.__file__).parent / "_util.py").read_text()


@pytest.mark.skipif(not _inplace_wired(), reason="needs the forward-AD hook in ops._util.inplace (reported to the lead)")
def test_inplace_ops_update_the_tangent() -> None:
    x0, u = np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    with fwAD.dual_level():
        y = fwAD.make_dual(T(x0), T(u)).clone()
        y.mul_(2)
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent._data, 2 * u)
        y.exp_()
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent._data, np.exp(2 * x0) * 2 * u)


def test_detach_drops_the_tangent_as_in_pytorch() -> None:
    x0, u = np.array([0.5, 2.0]), np.array([1.0, 1.0])
    with fwAD.dual_level():
        x = fwAD.make_dual(T(x0), T(u))
        assert fwAD.unpack_dual(x.detach()).tangent is None
        # straight-through pattern: value of x**2, tangent of x
        y = x + (x * x - x).detach()
        p, t = fwAD.unpack_dual(y)
    np.testing.assert_allclose(p._data, x0 ** 2)
    np.testing.assert_allclose(t._data, u)


D = dyngrad


def test_jvp_rule_with_one_tangent_missing_treats_it_as_zero() -> None:
    a, b = _rand((3,), "pos"), _rand((3,), "pos")
    u = rng.standard_normal(3)
    with fwAD.dual_level():
        t = fwAD.unpack_dual(D.atan2(fwAD.make_dual(T(a), T(u)), T(b))).tangent
        t2 = fwAD.unpack_dual(D.where(T(a) > 1, T(b), fwAD.make_dual(T(a), T(u)))).tangent
    np.testing.assert_allclose(t._data, u * b / (a * a + b * b))
    np.testing.assert_allclose(t2._data, np.where(a > 1, 0.0, u))


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
    np.testing.assert_allclose(ta._data, [1.0, 0.0, 1.0])
    np.testing.assert_allclose(tb._data, [0.0, 0.0])
    np.testing.assert_allclose(tc._data, [3.0, 3.0])
    np.testing.assert_allclose(td._data, [[0.0, 5.0], [0.0, 6.0]])


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
        got.append(dyngrad.autograd.grad(H.sum(), x)[0]._data)
    x = T(x0).requires_grad_()
    got.append(dyngrad.autograd.grad(dyngrad.func.jacfwd(dyngrad.func.jacrev(f))(x).sum(), x)[0]._data)
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
    np.testing.assert_allclose(gw._data, -2 * w * np.sin(x0 * w) - w ** 2 * x0 * np.cos(x0 * w), rtol=1e-10)


def _jacfwd_and_jacrev(f, x0):  # noqa: ANN001, ANN202
    return dyngrad.func.jacfwd(f)(T(x0))._data, dyngrad.func.jacrev(f)(T(x0))._data


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
    np.testing.assert_allclose(t._data, [3.0, 3.0, 3.0])  # PyTorch 2.13: tensor([3., 3., 3.])


def test_an_inplace_op_on_a_view_of_a_dual_changes_only_the_views_part_of_the_tangent() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(T([1.0, 1.0, 1.0]), T([1.0, 1.0, 1.0]))
        d[:1].mul_(2)
        np.testing.assert_allclose(fwAD.unpack_dual(d).tangent._data, [2.0, 1.0, 1.0])  # as PyTorch


def test_an_inplace_op_on_a_dual_gives_its_primal_no_tangent() -> None:
    with fwAD.dual_level():
        x = T([1.0, 1.0, 1.0])
        d = fwAD.make_dual(x, T([1.0, 1.0, 1.0]))
        d *= 2
        np.testing.assert_allclose(x._data, [2.0, 2.0, 2.0])  # the values are shared
        assert fwAD.unpack_dual(x * 3).tangent is None  # PyTorch 2.13: None
        np.testing.assert_allclose(fwAD.unpack_dual(d).tangent._data, [2.0, 2.0, 2.0])


# ---------------------------------------------------------------- nested levels at any depth
def test_three_and_four_nested_dual_levels_give_third_and_fourth_derivatives() -> None:
    x = np.array([0.5, -1.2, 2.0])
    with fwAD.dual_level():
        a = fwAD.make_dual(T(x), T(np.ones(3)))
        with fwAD.dual_level():
            b = fwAD.make_dual(a, T(np.ones(3)))
            with fwAD.dual_level():
                c = fwAD.make_dual(b, T(np.ones(3)))
                with fwAD.dual_level() as inner:
                    assert inner == 3
                    d = fwAD.make_dual(c, T(np.ones(3)))
                    t1 = fwAD.unpack_dual(dyngrad.sin(d) * d).tangent
                t2 = fwAD.unpack_dual(t1).tangent
            t3 = fwAD.unpack_dual(t2).tangent
        t4 = fwAD.unpack_dual(t3).tangent
    s, c_ = np.sin(x), np.cos(x)  # f = x sin x: f'' = 2cos x - x sin x, f''' = -3 sin x - x cos x
    np.testing.assert_allclose(t2._data, 2 * c_ - x * s, rtol=1e-12)
    np.testing.assert_allclose(t3._data, -3 * s - x * c_, rtol=1e-12)
    np.testing.assert_allclose(t4._data, -4 * c_ + x * s, rtol=1e-12)


def test_jacfwd_three_deep_equals_the_analytic_third_derivative_tensor() -> None:
    f = lambda v: (v[0] ** 2 * v[1].exp()).sum()  # noqa: E731
    x = T([0.7, -0.3])
    D3 = dyngrad.func.jacfwd(dyngrad.func.jacfwd(dyngrad.func.jacfwd(f)))(x)._data
    a, e = 0.7, np.exp(-0.3)
    want = np.zeros((2, 2, 2))
    want[0, 0, 1] = want[0, 1, 0] = want[1, 0, 0] = 2 * e  # d3/dx0^2 dx1
    want[0, 1, 1] = want[1, 0, 1] = want[1, 1, 0] = 2 * a * e  # d3/dx0 dx1^2
    want[1, 1, 1] = a * a * e
    np.testing.assert_allclose(D3, want, rtol=1e-12)


def test_an_inplace_op_under_two_dual_levels_keeps_the_mixed_term() -> None:
    with fwAD.dual_level():
        a = fwAD.make_dual(T([1.0, 2.0]), T([1.0, 0.0]))
        with fwAD.dual_level():
            b = fwAD.make_dual(a, T([1.0, 0.0]))
            y = b.clone()
            y.mul_(b)  # y = b**2
            first = fwAD.unpack_dual(y).tangent
        second = fwAD.unpack_dual(first).tangent
    np.testing.assert_allclose(first._data, [2.0, 0.0])  # 2 x u
    np.testing.assert_allclose(second._data, [2.0, 0.0])  # 2 u u'
    with fwAD.dual_level():
        a = fwAD.make_dual(T([1.5, 2.0]), T([1.0, 1.0]))
        with fwAD.dual_level():
            b = fwAD.make_dual(a, T([1.0, 1.0]))
            y = b.clone()
            y[1:].mul_(y[1:])  # y = [x0, x1**2]: an in-place op on a view
            first = fwAD.unpack_dual(y).tangent
        second = fwAD.unpack_dual(first).tangent
    np.testing.assert_allclose(first._data, [1.0, 4.0])
    np.testing.assert_allclose(second._data, [0.0, 2.0])


def test_reverse_mode_through_two_dual_levels_gives_the_third_derivative() -> None:
    f = lambda v: dyngrad.exp(v[0]) * v[1]  # noqa: E731
    x = T([0.5, 1.5])
    D3 = dyngrad.func.jacfwd(dyngrad.func.jacrev(dyngrad.func.jacfwd(f)))(x)._data
    e = np.exp(0.5)
    want = np.zeros((2, 2, 2))
    want[0, 0, 0] = e * 1.5
    want[0, 0, 1] = want[0, 1, 0] = want[1, 0, 0] = e
    np.testing.assert_allclose(D3, want, rtol=1e-12)
    w = T([0.5, 1.5]).requires_grad_()  # reverse mode over jacfwd(jacfwd): d/dw of the Hessian's sum
    H = dyngrad.func.jacfwd(dyngrad.func.jacfwd(f))(w)
    assert H.requires_grad
    (g,) = dyngrad.autograd.grad(H.sum(), w)
    np.testing.assert_allclose(g._data, want.sum((0, 1)), rtol=1e-12)


def test_a_backward_only_function_under_two_dual_levels_uses_the_double_vjp_at_each() -> None:
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = T([0.5, -1.5])
    H = dyngrad.func.jacfwd(dyngrad.func.jacfwd(lambda x: Cube.apply(x).sum()))(x)
    np.testing.assert_allclose(H._data, np.diag([3.0, -9.0]))  # d2/dx2 x^3 = 6x
    assert not H.requires_grad
    D3 = dyngrad.func.jacfwd(dyngrad.func.jacfwd(dyngrad.func.jacfwd(lambda x: Cube.apply(x).sum())))(x)
    want = np.zeros((2, 2, 2))
    want[0, 0, 0] = want[1, 1, 1] = 6.0
    np.testing.assert_allclose(D3._data, want)
    H = dyngrad.func.jacfwd(dyngrad.func.jacrev(lambda x: Cube.apply(x).sum()))(x)
    np.testing.assert_allclose(H._data, np.diag([3.0, -9.0]))


def test_an_inplace_op_on_a_detached_alias_keeps_the_duals_tangent() -> None:
    with fwAD.dual_level():
        x = fwAD.make_dual(T([1.0, 2.0]), T([1.0, 1.0]))
        x.detach().add_(0.0)
        np.testing.assert_allclose(fwAD.unpack_dual(x).tangent._data, [1.0, 1.0])  # PyTorch 2.13: [1, 1]
        np.testing.assert_allclose(fwAD.unpack_dual(x * 3).tangent._data, [3.0, 3.0])


def test_a_jvp_rule_may_delete_a_ctx_attribute_as_pytorchs_forward_ad_tutorial_does():
    class Fn(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.result = result
            return result

        @staticmethod
        def backward(ctx, g):
            return g * ctx.result

        @staticmethod
        def jvp(ctx, t):
            r = ctx.result
            del ctx.result  # the tutorial frees it once the tangent is computed
            return t * r

    import dyngrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(dyngrad.tensor([0.0, 1.0]), dyngrad.tensor([1.0, 1.0]))
        y = Fn.apply(x)
        t = fwAD.unpack_dual(y).tangent
    np.testing.assert_allclose(t.numpy(), np.exp([0.0, 1.0]))
