"""The op base classes derive rules from one statement (ops/_bases.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import gradcheck, gradgradcheck
from dyngrad.func import jacfwd, vmap
from dyngrad.ops._bases import Elementwise, Linear, Op
from dyngrad.ops._util import wrap

rng = np.random.default_rng(0)
T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731


class Cube(Elementwise):
    """``out = x**3``; ``grad_x = grad * 3 x**2``."""

    @staticmethod
    def forward(ctx: Any, x: dyngrad.Tensor) -> dyngrad.Tensor:
        ctx.save_for_backward(x)
        return wrap(x._data ** 3)

    @staticmethod
    def derivative(ctx: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x * x


class MulAdd(Elementwise):
    """``out = a * b + c`` (``c`` a number)."""

    @staticmethod
    def forward(ctx: Any, a: dyngrad.Tensor, b: dyngrad.Tensor, c: float) -> dyngrad.Tensor:
        ctx.save_for_backward(a, b)
        return wrap(a._data * b._data + c)

    @staticmethod
    def derivative(ctx: Any) -> tuple:
        a, b = ctx.saved_tensors
        return b, a, None


class Double(Linear):
    """``out = 2 * x``, shape ``(*)``."""

    vmap = staticmethod(lambda info, in_dims, x: (Double.apply(x), in_dims[0]))

    @staticmethod
    def forward(ctx: Any, x: dyngrad.Tensor) -> dyngrad.Tensor:
        return wrap(x._data * 2)

    @staticmethod
    def backward(ctx: Any, g: dyngrad.Tensor) -> dyngrad.Tensor:
        return g * 2


def test_an_elementwise_op_gets_backward_and_jvp_from_its_derivative() -> None:
    x = T(rng.standard_normal(5)).requires_grad_()
    assert gradcheck(Cube.apply, (x,), check_forward_ad=True)
    assert gradgradcheck(Cube.apply, (x,))
    np.testing.assert_allclose(jacfwd(Cube.apply)(x.detach()).numpy(), np.diag(3 * x.detach().numpy() ** 2))


def test_an_elementwise_op_of_several_inputs_gets_a_gradient_per_input() -> None:
    a, b = T(rng.standard_normal((2, 3))).requires_grad_(), T(rng.standard_normal(3)).requires_grad_()
    assert gradcheck(lambda p, q: MulAdd.apply(p, q, 1.5), (a, b), check_forward_ad=True)
    ga, gb = dyngrad.autograd.grad(MulAdd.apply(a, b, 1.5).sum(), (a, b))
    np.testing.assert_allclose(ga.numpy(), np.broadcast_to(b.detach().numpy(), (2, 3)))
    np.testing.assert_allclose(gb.numpy(), a.detach().numpy().sum(0))


@pytest.mark.parametrize("in_dims", [0, 1])
def test_an_elementwise_op_is_batched_by_its_derived_vmap_rule(in_dims) -> None:  # noqa: ANN001
    a, b = T(rng.standard_normal((4, 3))), T(rng.standard_normal((4, 3)))
    q = b[0] if in_dims == 0 else b[:, 0]  # one example's shape
    got = vmap(lambda p, r: MulAdd.apply(p, r, 1.0), in_dims=(in_dims, None))(a, q)
    want = a * q + 1.0 if in_dims == 0 else (a.T * q + 1.0)
    np.testing.assert_allclose(got.numpy(), want.numpy())
    np.testing.assert_allclose(vmap(Cube.apply, in_dims=in_dims)(a).numpy(), (a ** 3).numpy() if in_dims == 0 else (a.T ** 3).numpy())


def test_a_linear_op_gets_its_jvp_by_applying_the_op_to_the_tangent() -> None:
    x = T(rng.standard_normal(4)).requires_grad_()
    assert gradcheck(Double.apply, (x,), check_forward_ad=True)
    assert "jvp" not in Double.__dict__


def test_ops_are_built_in_and_named_like_pytorch_nodes_by_default() -> None:
    assert Cube.trusted and issubclass(Cube, Op)
    x = T([1.0]).requires_grad_()
    assert Cube.apply(x).grad_fn.name() == "CubeBackward0"
    assert dyngrad.exp(x).grad_fn.name() == "ExpBackward0"
    assert dyngrad.log1p(x).grad_fn.name() == "Log1PBackward0"  # a name that differs is stated
    assert not Elementwise.trusted and not Linear.trusted  # the bases themselves are abstract
