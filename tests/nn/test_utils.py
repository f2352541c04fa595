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
