"""Activations: one OpSpec per activation (and per notable argument setting) drives golden
values (tests/golden/activation.npz), gradcheck, gradgradcheck, 0-d/zero-size cases and
dtypes; hand-written tests cover kinks, in-place forms and misuse."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg
import dyngrad.ops.activation as A


# ------------------------------------------------------------------ hand-written cases
def _grad(fn, values, **kw):
    x = dg.tensor(values, dtype=dg.float64, requires_grad=True)
    (g,) = dg.autograd.grad(fn(x, **kw).sum(), x)
    return g.tolist()


def test_gradients_at_kinks_match_pytorch_conventions():
    assert _grad(A.relu6, [0.0, 6.0, 3.0]) == [0.0, 0.0, 1.0]
    assert _grad(A.hardtanh, [-1.0, 1.0, 0.0]) == [0.0, 0.0, 1.0]
    assert _grad(A.leaky_relu, [0.0, 1.0], negative_slope=0.1) == [0.1, 1.0]
    # PyTorch >= 2.7 (pytorch/pytorch#148049): 0 at -3 and 1 at 3, the outer pieces' slopes
    assert _grad(A.hardswish, [-3.0, 3.0, -4.0, 4.0, 2.0]) == pytest.approx([0.0, 1.0, 0.0, 1.0, 7 / 6])
    assert _grad(A.hardsigmoid, [-3.0, 3.0, 0.0]) == pytest.approx([0.0, 0.0, 1 / 6])
    assert _grad(A.elu, [0.0]) == [1.0]


def test_saturating_activations_do_not_overflow():
    x = dg.tensor([-1000.0, 1000.0], dtype=dg.float64, requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert A.softplus(x).tolist() == [0.0, 1000.0]
        assert A.logsigmoid(x).tolist() == [-1000.0, 0.0]
        assert A.silu(x).tolist() == [-0.0, 1000.0]
        assert A.mish(x).tolist() == [-0.0, 1000.0]
        assert A.elu(x).tolist() == [-1.0, 1000.0]
    (g,) = dg.autograd.grad(A.logsigmoid(x).sum(), x)
    assert g.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("name,kw", [("relu6", {}), ("hardtanh", {}), ("leaky_relu", {"negative_slope": 0.2}),
                                     ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 2.0}),
                                     ("silu", {}), ("mish", {}), ("hardswish", {}), ("hardsigmoid", {})])
def test_inplace_flag_writes_into_input(name, kw):
    x = dg.tensor([-1.5, -0.2, 0.3, 2.0], dtype=dg.float64)
    want = getattr(A, name)(x, **kw).numpy()
    y = x.clone()
    out = getattr(A, name)(y, inplace=True, **kw)
    assert out is y
    np.testing.assert_allclose(y.numpy(), want)


def test_trailing_underscore_forms_are_inplace():
    for name in ("elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_"):
        y = dg.tensor([-1.0, 1.0], dtype=dg.float64)
        assert getattr(A, name)(y) is y
        np.testing.assert_allclose(y.numpy(), getattr(A, name[:-1])(dg.tensor([-1.0, 1.0], dtype=dg.float64)).numpy())


def test_inplace_activation_on_leaf_requiring_grad_raises():
    x = dg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        A.elu(x, inplace=True)


def test_gelu_with_unknown_approximation_raises():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        A.gelu(dg.ones(2), approximate="sigmoid")


def test_hardtanh_with_min_above_max_raises():
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        A.hardtanh(dg.ones(2), min_val=1.0, max_val=-1.0)


def test_celu_with_zero_alpha_raises():
    with pytest.raises(RuntimeError, match="alpha"):
        A.celu(dg.ones(2), alpha=0.0)


def test_activation_of_non_tensor_raises_type_error():
    with pytest.raises(TypeError, match="gelu.*Tensor"):
        A.gelu([1.0, 2.0])


def test_activations_are_exported_at_top_level():
    import inspect

    for name in A.__all__:  # (ops with a dim are wrapped once to accept axis=/keepdims=)
        assert inspect.unwrap(getattr(dg, name)) is getattr(A, name)


def test_softshrink_with_negative_lambda_raises():
    with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0"):
        A.softshrink(dg.ones(2), -0.5)


def test_prelu_with_wrong_number_of_slopes_raises():
    with pytest.raises(RuntimeError, match="parameter numbers = 3 and channel size = 4"):
        A.prelu(dg.ones(2, 4, 3), dg.ones(3))


def test_prelu_weight_gradient_sums_over_batch_and_space():
    x = dg.tensor([[[-1.0, 2.0]], [[-3.0, -4.0]]], dtype=dg.float64)  # (N=2, C=1, L=2)
    w = dg.tensor([0.25], dtype=dg.float64, requires_grad=True)
    A.prelu(x, w).sum().backward()
    assert w.grad.tolist() == [-8.0]


def test_glu_with_odd_dimension_raises():
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        A.glu(dg.ones(2, 3))


def test_rrelu_in_training_draws_slopes_in_range_from_the_generator():
    x = dg.full((2000,), -1.0, dtype=dg.float64, requires_grad=True)
    dg.manual_seed(0)
    out = A.rrelu(x, lower=0.1, upper=0.3, training=True)
    slopes = -out.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes)
    dg.manual_seed(0)
    again = A.rrelu(x.detach(), lower=0.1, upper=0.3, training=True)
    np.testing.assert_array_equal(again.numpy(), out.detach().numpy())


def test_threshold_inplace_writes_into_input():
    y = dg.tensor([-1.0, 0.5, 2.0])
    assert A.threshold(y, 0.6, -5.0, inplace=True) is y
    assert y.tolist() == [-5.0, -5.0, 2.0]
