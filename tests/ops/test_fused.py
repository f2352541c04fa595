"""Fused Functions of ops/fused.py: softmax/log_softmax (also dyngrad.* and Tensor methods),
nll, smooth-L1, BCE, the shared normalisation core; property tests against NumPy
references over random shapes and dims."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
from dyngrad.autograd import gradcheck, gradgradcheck
from dyngrad.ops import fused


@st.composite
def shape_and_dim(draw):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return shape, dim


@settings(max_examples=25, deadline=None)
@given(shape_and_dim(), st.integers(0, 2**31))
def test_softmax_and_log_softmax_match_numpy_over_shapes_and_dims(sd, seed) -> None:
    shape, dim = sd
    x = np.random.default_rng(seed).standard_normal(shape) * 5
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    ref = e / e.sum(axis=dim, keepdims=True)
    t = dyngrad.tensor(x)
    np.testing.assert_allclose(dyngrad.softmax(t, dim).numpy(), ref, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(t.log_softmax(dim).numpy(), np.log(ref), rtol=1e-10, atol=1e-12)


@settings(max_examples=8, deadline=None)
@given(shape_and_dim(), st.integers(0, 2**31))
def test_softmax_gradients_are_checked_twice(sd, seed) -> None:
    shape, dim = sd
    x = dyngrad.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)
    assert gradgradcheck(lambda a: fused.softmax(a, dim), (x,))
    assert gradgradcheck(lambda a: fused.log_softmax(a, dim), (x,))


def test_softmax_dtype_argument_casts_first() -> None:
    x = dyngrad.randn(2, 3)
    assert dyngrad.softmax(x, 1, dtype=dyngrad.float64).dtype == dyngrad.float64
    assert dyngrad.softmax(dyngrad.tensor([1, 2, 3]), 0, dtype=dyngrad.float32).dtype == dyngrad.float32
    with pytest.raises(NotImplementedError, match="softmax"):  # PyTorch 2.13: no integer kernel
        dyngrad.softmax(dyngrad.tensor([1, 2, 3]), 0)


def test_softmax_bad_dim_raises_index_error() -> None:
    with pytest.raises(IndexError, match="Dimension out of range"):
        dyngrad.softmax(dyngrad.ones(2, 3), 2)


def test_softmax_grad_fn_names_match_pytorch() -> None:
    x = dyngrad.randn(2, 3, requires_grad=True)
    assert type(dyngrad.softmax(x, 1).grad_fn).__name__ == "SoftmaxBackward0"
    assert type(x.log_softmax(1).grad_fn).__name__ == "LogSoftmaxBackward0"


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(1, 4), st.sampled_from(["mean", "sum", "none"]), st.integers(0, 2**31))
def test_nll_loss_matches_a_numpy_reference_with_weights_and_ignore_index(n, c, reduction, seed) -> None:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c))
    t = rng.integers(-1, c, n)  # -1 is ignored
    w = rng.uniform(0.5, 2, c)
    keep = t != -1
    tt = np.where(keep, t, 0)
    per = np.where(keep, -w[tt] * x[np.arange(n), tt], 0.0)
    ref = {
        "none": per,
        "sum": per.sum(),
        "mean": per.sum() / np.where(keep, w[tt], 0).sum() if keep.any() else np.nan,
    }[reduction]
    xt = dyngrad.tensor(x, requires_grad=True)
    out = fused.NllLoss.apply(xt, dyngrad.tensor(t), dyngrad.tensor(w), -1, reduction)
    np.testing.assert_allclose(out.detach().numpy(), ref, rtol=1e-12)
    if keep.any():
        assert gradcheck(
            lambda a: fused.NllLoss.apply(a, dyngrad.tensor(t), dyngrad.tensor(w), -1, reduction), (xt,)
        )


def test_smooth_l1_gradient_is_clamped_difference() -> None:
    x = dyngrad.tensor([-3.0, -0.2, 0.0, 0.3, 2.0], dtype=dyngrad.float64, requires_grad=True)
    y = fused.SmoothL1.apply(x, dyngrad.zeros(5, dtype=dyngrad.float64), 0.5)
    np.testing.assert_allclose(y.detach().numpy(), [2.75, 0.04, 0.0, 0.09, 1.75])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-1.0, -0.4, 0.0, 0.6, 1.0])


def test_binary_cross_entropy_clamps_log_at_minus_100() -> None:
    x = dyngrad.tensor([0.0, 1.0], dtype=dyngrad.float64)
    out = fused.BinaryCrossEntropy.apply(x, dyngrad.tensor([1.0, 0.0], dtype=dyngrad.float64))
    np.testing.assert_allclose(out.numpy(), [100.0, 100.0])


@settings(max_examples=6, deadline=None)
@given(st.integers(2, 4), st.integers(1, 3), st.integers(0, 2**31))
def test_normalize_stats_gives_zero_mean_unit_variance_and_is_twice_differentiable(n, c, seed) -> None:
    x = dyngrad.tensor(np.random.default_rng(seed).standard_normal((n, c, 3)) * 3 + 2, requires_grad=True)
    y = fused.normalize_stats(x, (0, 2), 0.0).detach().numpy()
    np.testing.assert_allclose(y.mean(axis=(0, 2)), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(0, 2)), 1, rtol=1e-9)
    assert gradgradcheck(lambda a: fused.normalize_stats(a, (0, 2), 1e-5), (x,))


def test_log_sigmoid_is_finite_for_large_inputs() -> None:
    x = dyngrad.tensor([-800.0, 0.0, 800.0], dtype=dyngrad.float64, requires_grad=True)
    y = fused.log_sigmoid(x)
    np.testing.assert_allclose(y.detach().numpy(), [-800.0, -np.log(2), 0.0])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 0.5, 0.0])


def test_softmax_without_dim_warns_and_uses_pytorchs_implicit_dim() -> None:
    x = dyngrad.randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        y = dyngrad.softmax(x)
    np.testing.assert_allclose(y.numpy().sum(1), 1, rtol=1e-6)


# ------------------- every target ignored: loss nan, gradient all zeros (torch 2.13, also with smoothing)
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_with_every_target_ignored_has_nan_loss_and_zero_grad(smoothing, weighted) -> None:
    import warnings

    x = dyngrad.tensor(np.arange(12.0).reshape(3, 4) / 7, requires_grad=True)
    w = dyngrad.tensor([0.5, 1.0, 2.0, 1.0]) if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        loss = dyngrad.nn.functional.cross_entropy(
            x, dyngrad.tensor([-100, -100, -100]), weight=w, label_smoothing=smoothing
        )
        loss.backward()
    assert np.isnan(loss.item())
    assert x.grad.tolist() == [[0.0] * 4] * 3
    assert not np.signbit(x.grad._data).any()


def test_nll_loss_with_every_target_ignored_has_zero_grad_but_zero_weight_sum_gives_nan() -> None:
    import warnings

    x = dyngrad.tensor(np.arange(12.0).reshape(3, 4) / 7, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        dyngrad.nn.functional.nll_loss(x, dyngrad.tensor([2, 2, 2]), ignore_index=2).backward()
        assert x.grad.tolist() == [[0.0] * 4] * 3
        x.grad = None
        # kept targets whose weights sum to zero: torch gives nan gradients there
        w = dyngrad.tensor([0.0, 1.0, 1.0, 1.0], dtype=dyngrad.float64)
        dyngrad.nn.functional.nll_loss(x, dyngrad.tensor([0, 0, 0]), weight=w).backward()
    assert np.isnan(x.grad._data[:, 0]).all() and (x.grad._data[:, 1:] == 0).all()


def test_masked_fill_backward_does_not_leak_inf_gradient_into_filled_positions() -> None:
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.masked_fill(dyngrad.tensor([True, False]), 0.0)
    with np.errstate(invalid="ignore"):  # 0 * inf in the forward
        (y * dyngrad.tensor([float("inf"), 1.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]
