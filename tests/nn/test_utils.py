"""nn.utils.clip_grad_norm_ / clip_grad_value_ against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad
import dyngrad.nn as nn


def _params_with_grads():
    a = nn.Parameter(dyngrad.zeros(2))
    b = nn.Parameter(dyngrad.zeros(2, 2))
    a.grad = dyngrad.tensor([3.0, 0.0])
    b.grad = dyngrad.tensor([[0.0, 4.0], [0.0, 0.0]])
    return a, b


def test_clip_grad_norm_returns_total_norm_and_scales() -> None:
    a, b = _params_with_grads()
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(a.grad.numpy(), [3 / 5, 0], rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy()[0, 1], 4 / 5, rtol=1e-5)


def test_clip_grad_norm_leaves_small_gradients_alone_and_supports_inf_norm() -> None:
    a, b = _params_with_grads()
    nn.utils.clip_grad_norm_([a, b], max_norm=10.0)
    np.testing.assert_allclose(a.grad.numpy(), [3, 0])
    total = nn.utils.clip_grad_norm_([a, b], max_norm=2.0, norm_type=math.inf)
    assert total.item() == pytest.approx(4.0)
    np.testing.assert_allclose(b.grad.numpy()[0, 1], 2.0, rtol=1e-5)


def test_clip_grad_norm_error_if_nonfinite() -> None:
    a, _ = _params_with_grads()
    a.grad = dyngrad.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_(a, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_clamps_in_place() -> None:
    a, b = _params_with_grads()
    nn.utils.clip_grad_value_([a, b], 1.5)
    np.testing.assert_array_equal(a.grad.numpy(), [1.5, 0])
    np.testing.assert_array_equal(b.grad.numpy(), [[0, 1.5], [0, 0]])


def test_clip_grad_norm_on_a_model_after_backward() -> None:
    model = nn.Linear(3, 2)
    model(dyngrad.randn(4, 3) * 100).sum().backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    total = math.sqrt(sum(float((p.grad.numpy() ** 2).sum()) for p in model.parameters()))
    assert total == pytest.approx(0.5, rel=1e-4)


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0, 0.0, math.inf, -math.inf])
def test_get_total_norm_is_the_norm_of_the_concatenation(norm_type) -> None:
    rng = np.random.default_rng(5)
    arrs = [rng.standard_normal((3, 4)), rng.standard_normal(5), rng.standard_normal((2, 1, 2))]
    arrs[1][2] = 0.0
    total = nn.utils.get_total_norm([dyngrad.tensor(a) for a in arrs], norm_type, foreach=True)
    flat = np.concatenate([a.ravel() for a in arrs])
    assert total.shape == () and total.dtype == dyngrad.float64 and total.grad_fn is None
    if norm_type == 0.0:  # PyTorch's rule: the 0-"norm" of the per-tensor norms
        assert total.item() == 3.0
    else:
        assert total.item() == pytest.approx(float(np.linalg.norm(flat, ord=norm_type)), rel=1e-12)
    assert nn.utils.get_total_norm(dyngrad.tensor(arrs[0])).item() == pytest.approx(np.linalg.norm(arrs[0]))
    empty = nn.utils.get_total_norm([])
    assert empty.item() == 0.0 and empty.dtype == dyngrad.float32
    mixed = nn.utils.get_total_norm([dyngrad.ones(3), dyngrad.ones(4, dtype=dyngrad.float64)])
    assert mixed.dtype == dyngrad.float64 and mixed.item() == pytest.approx(math.sqrt(7))
    with pytest.raises(RuntimeError, match="Expected a floating point"):
        nn.utils.get_total_norm([dyngrad.ones(3, dtype=dyngrad.int64)])


def test_get_total_norm_error_if_nonfinite() -> None:
    t = dyngrad.tensor([1.0, math.inf])
    assert nn.utils.get_total_norm([t]).item() == math.inf
    with pytest.raises(RuntimeError, match="non-finite, so it cannot be clipped"):
        nn.utils.get_total_norm([t], error_if_nonfinite=True)


def test_clip_grads_with_norm_scales_by_the_given_total_and_equals_clip_grad_norm() -> None:
    a, b = _params_with_grads()
    c = nn.Parameter(dyngrad.zeros(3))  # no grad: skipped
    total = nn.utils.get_total_norm([a.grad, b.grad])
    assert nn.utils.clip_grads_with_norm_([a, b, c], 1.0, total, foreach=False) is None
    np.testing.assert_allclose(a.grad.numpy(), [3 / (5 + 1e-6), 0], rtol=1e-6)
    assert c.grad is None
    a2, b2 = _params_with_grads()
    nn.utils.clip_grad_norm_([a2, b2], 1.0)
    np.testing.assert_array_equal(a.grad.numpy(), a2.grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), b2.grad.numpy())
    # a total below max_norm never amplifies; a total given as a larger number shrinks more
    a3, b3 = _params_with_grads()
    nn.utils.clip_grads_with_norm_([a3, b3], 100.0, total)
    np.testing.assert_array_equal(a3.grad.numpy(), [3.0, 0.0])
    nn.utils.clip_grads_with_norm_([a3, b3], 1.0, dyngrad.tensor(10.0))
    np.testing.assert_allclose(a3.grad.numpy(), [0.3, 0.0], rtol=1e-6)


def test_clip_grad_norm_deprecated_name_and_empty_generator_warn() -> None:
    a, b = _params_with_grads()
    with pytest.warns(FutureWarning, match="`torch.nn.utils.clip_grad_norm` is now deprecated"):
        total = nn.utils.clip_grad_norm([a, b], 1.0)
    assert total.item() == pytest.approx(5.0)
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        nn.utils.clip_grad_norm_((p for p in []), 1.0)
