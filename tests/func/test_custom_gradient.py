"""dyngrad.custom_gradient: TensorFlow-style custom gradients built on Function."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import forward_ad as fwAD
from dyngrad.custom_gradient import custom_gradient

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731


@custom_gradient
def log1pexp(x):  # noqa: ANN001, ANN201
    e = x.exp()

    def grad_fn(upstream):  # noqa: ANN001, ANN202
        return upstream * (1 - 1 / (1 + e))

    return (1 + e).log(), grad_fn


@custom_gradient
def clip_grad_mul(x, y):  # noqa: ANN001, ANN201
    """Forward x * y; gradient of x clipped to [-1, 1], none for y."""

    def grad_fn(g):  # noqa: ANN001, ANN202
        return (g * y).clamp(-1.0, 1.0), None

    return x * y, grad_fn


def test_custom_gradient_is_used_by_backward_and_names_the_node() -> None:
    x = T([0.5, 100.0, -3.0]).requires_grad_()
    y = log1pexp(x)
    assert type(y.grad_fn).__name__ == "log1pexpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad._data, 1 / (1 + np.exp(-x._data)))
    assert np.isfinite(x.grad._data).all()


def test_grad_fn_can_return_none_and_change_the_gradient() -> None:
    x, y = T([1.0, 2.0]).requires_grad_(), T([5.0, 0.5]).requires_grad_()
    clip_grad_mul(x, y).sum().backward()
    np.testing.assert_allclose(x.grad._data, [1.0, 0.5])
    assert y.grad is None


def test_custom_gradient_passes_gradcheck_and_gradgradcheck() -> None:
    x = T([0.3, -1.2, 2.0]).requires_grad_()
    assert dyngrad.autograd.gradcheck(log1pexp, (x,))
    assert dyngrad.autograd.gradgradcheck(log1pexp, (x,))


def test_custom_gradient_in_forward_mode_and_transforms() -> None:
    x0 = np.array([0.3, -1.2])
    assert fwAD.check_forward_ad(log1pexp, (T(x0),))
    s = 1 / (1 + np.exp(-x0))
    np.testing.assert_allclose(dyngrad.func.jacfwd(log1pexp)(x0), np.diag(s))
    h = dyngrad.func.hessian(lambda x: log1pexp(x).sum())(x0)
    np.testing.assert_allclose(h, np.diag(s * (1 - s)), rtol=1e-12)


def test_grad_fn_returning_the_wrong_count_raises_naming_the_function() -> None:
    @custom_gradient
    def bad(x, y):  # noqa: ANN001, ANN202
        return x * y, lambda g: g

    x = T([1.0]).requires_grad_()
    with pytest.raises(RuntimeError, match="grad_fn of bad returned 1 gradient.*2 positional"):
        bad(x, T([2.0])).sum().backward()


def test_function_not_returning_a_grad_fn_raises() -> None:
    @custom_gradient
    def nograd(x):  # noqa: ANN001, ANN202
        return x * 2

    with pytest.raises(TypeError, match="must return \\(output, grad_fn\\)"):
        nograd(T([1.0]).requires_grad_())


@custom_gradient
def gradient_clipping_layer(x):  # noqa: ANN001, ANN201
    """The seed's tf.custom_gradient example: identity forward, L2-norm-clipped gradient."""

    def grad(dy):  # noqa: ANN001, ANN202
        return dy / dyngrad.clamp(dyngrad.norm(dy), min=1.0)  # tf.clip_by_norm(dy, 1.0)

    return x, grad


def test_seed_gradient_clipping_layer_returns_its_input_and_clips_the_gradient() -> None:
    x = T([1.0, 2.0, 2.0]).requires_grad_()
    y = gradient_clipping_layer(x)
    assert y is not x and np.array_equal(y._data, x._data)
    (y * 3).sum().backward()
    np.testing.assert_allclose(x.grad._data, np.full(3, 3.0) / np.linalg.norm(np.full(3, 3.0)))
    assert np.linalg.norm(x.grad._data) == pytest.approx(1.0)
    x.grad = None
    (y * 0.1).sum().backward()
    np.testing.assert_allclose(x.grad._data, np.full(3, 0.1))
