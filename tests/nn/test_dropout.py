"""``nn.functional.dropout`` as ``input * mask`` with a random mask Function: PyTorch's
gradient ``grad * mask / (1 - p)`` (gradcheck and gradgradcheck in float64 with the mask
fixed by a seed), forward mode, in-place dropout, and the mask's statistics."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad.autograd import forward_ad as fwd
from dyngrad.autograd import gradcheck, gradgradcheck


def _seeded_dropout(p: float):  # noqa: ANN202
    def f(x):  # noqa: ANN001, ANN202
        dyngrad.manual_seed(11)  # the same mask at every evaluation
        return F.dropout(x, p)

    return f


@pytest.mark.parametrize("p", [0.2, 0.5, 0.9])
def test_dropout_passes_gradcheck_and_gradgradcheck_with_a_seeded_mask(p: float) -> None:
    x = dyngrad.randn(4, 5, dtype=dyngrad.float64, requires_grad=True)
    f = _seeded_dropout(p)
    assert gradcheck(f, (x,), check_forward_ad=True)
    assert gradgradcheck(f, (x,))


def test_dropout_gradient_is_grad_times_mask_over_keep_probability() -> None:
    x = dyngrad.randn(1000, dtype=dyngrad.float64, requires_grad=True)
    dyngrad.manual_seed(3)
    y = F.dropout(x, 0.4)
    assert y.grad_fn.name() == "MulBackward0"  # as PyTorch 2.13 on CPU
    g = dyngrad.randn(1000, dtype=dyngrad.float64)
    y.backward(g)
    mask = (y.detach().numpy() != 0).astype(np.float64)
    np.testing.assert_allclose(x.grad.numpy(), g.numpy() * mask / 0.6, rtol=1e-15)
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() * mask / 0.6, rtol=1e-15)
    assert abs(mask.mean() - 0.6) < 0.06


def test_dropout_forward_mode_tangent_uses_the_same_mask() -> None:
    x = dyngrad.randn(50, dtype=dyngrad.float64)
    u = dyngrad.randn(50, dtype=dyngrad.float64)
    with fwd.dual_level():
        y = F.dropout(fwd.make_dual(x, u), 0.5)
        p, t = fwd.unpack_dual(y)
    scale = p.numpy() / x.numpy()
    np.testing.assert_allclose(t.numpy(), u.numpy() * scale, rtol=1e-12)


def test_in_place_dropout_writes_its_input_and_records_the_gradient() -> None:
    x = dyngrad.ones(200, requires_grad=True)
    h = x * 1
    v = h._version
    out = F.dropout(h, 0.5, inplace=True)
    assert out is h and h._version > v
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), h.detach().numpy())  # mask / (1 - p)


def test_dropout_mask_does_not_require_grad_and_keeps_the_dtype() -> None:
    from dyngrad.ops.random import dropout_mask

    x = dyngrad.ones(10, dtype=dyngrad.float64, requires_grad=True)
    m = dropout_mask(x, 0.5)
    assert m.dtype == dyngrad.float64 and not m.requires_grad
    assert set(np.unique(m.numpy())) <= {0.0, 2.0}
    assert np.array_equal(dropout_mask(x, 1.0).numpy(), np.zeros(10))
