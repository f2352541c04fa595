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


# ------------------------------------------------------------------ feature and alpha dropout
@pytest.mark.parametrize("fn, shape, channel_dims", [
    (F.dropout1d, (8, 6, 5), 2), (F.dropout1d, (6, 5), 1), (F.dropout2d, (4, 6, 3, 3), 2),
    (F.dropout3d, (2, 6, 2, 2, 2), 2), (F.dropout3d, (6, 2, 2, 2), 1),
])
def test_feature_dropout_zeroes_whole_channels(fn, shape, channel_dims) -> None:  # noqa: ANN001
    y = fn(dyngrad.ones(*shape, dtype=dyngrad.float64), 0.5).numpy()
    per_channel = y.reshape(int(np.prod(shape[:channel_dims])), -1)
    for row in per_channel:
        assert set(np.unique(row)) <= {0.0, 2.0} and len(np.unique(row)) == 1
    assert 0 < (per_channel[:, 0] == 0).sum() < len(per_channel)


def test_feature_dropout_refuses_ranks_as_pytorch() -> None:
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(dyngrad.ones(1, 2, 3, 4))
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        F.feature_alpha_dropout(dyngrad.ones(3), 0.5, True)
    with pytest.warns(UserWarning, match="interpreted as shape \\(N, C, L\\)"):
        F.dropout2d(dyngrad.ones(2, 3, 4))
    with pytest.raises(ValueError, match="dropout probability"):
        F.dropout2d(dyngrad.ones(2, 3, 4, 4), -0.1)


def test_alpha_dropout_keeps_mean_and_variance_of_a_standard_normal_input() -> None:
    x = dyngrad.randn(200_000, dtype=dyngrad.float64)
    y = F.alpha_dropout(x, 0.3, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1) < 0.02
    assert F.alpha_dropout(x, 0.3) is x  # training defaults to False, as PyTorch
    np.testing.assert_array_equal(F.alpha_dropout(x, 1.0, True).numpy(), np.zeros(200_000))


def test_alpha_dropout_values_are_pytorchs_two_levels() -> None:
    y = F.alpha_dropout(dyngrad.ones(1000, dtype=dyngrad.float64), 0.5, training=True).numpy()
    k, p = 1.7580993408473766, 0.5
    a = 1 / np.sqrt((k * k * p + 1) * (1 - p))
    np.testing.assert_allclose(np.unique(y), sorted([a + k * a * p, -k * a + k * a * p]), rtol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda x: F.alpha_dropout(x, 0.4, True), lambda x: F.feature_alpha_dropout(x, 0.4, True),
    lambda x: F.dropout1d(x, 0.4), lambda x: F.dropout2d(x.unsqueeze(-1), 0.4),
])
def test_feature_and_alpha_dropout_pass_gradcheck_with_a_seeded_mask(fn) -> None:  # noqa: ANN001
    def f(x):  # noqa: ANN001, ANN202
        dyngrad.manual_seed(5)
        return fn(x)

    x = dyngrad.randn(3, 4, 2, dtype=dyngrad.float64, requires_grad=True)
    assert gradcheck(f, (x,), check_forward_ad=True)
    assert gradgradcheck(f, (x,))


def test_in_place_feature_dropout_of_an_unbatched_input_writes_the_input() -> None:
    x = dyngrad.ones(6, 5)
    out = F.dropout1d(x, 0.5, inplace=True)
    assert out is x
    assert set(np.unique(x.numpy())) <= {0.0, 2.0}


@pytest.mark.parametrize(
    "name, shape",
    [("Dropout1d", (4, 6, 5)), ("Dropout2d", (4, 6, 5, 3)), ("Dropout3d", (2, 6, 3, 3, 2))],
)
def test_channel_dropout_modules_zero_whole_channels_in_training_only(name, shape):
    m = getattr(dyngrad.nn, name)(0.3)
    assert repr(m) == f"{name}(p=0.3, inplace=False)"
    dyngrad.manual_seed(0)
    x = dyngrad.ones(*shape)
    y = m(x).numpy().reshape(shape[0], shape[1], -1)
    kept = np.isclose(y, 1 / 0.7).all(-1)
    assert ((y == 0).all(-1) | kept).all() and kept.any() and not kept.all()
    m.eval()
    assert (m(x) == x).all()
    with pytest.raises(ValueError, match="between 0 and 1"):
        getattr(dyngrad.nn, name)(1.5)


@pytest.mark.parametrize("name", ["AlphaDropout", "FeatureAlphaDropout"])
def test_alpha_dropout_modules_forward_to_their_functionals(name):
    fn = {"AlphaDropout": F.alpha_dropout, "FeatureAlphaDropout": F.feature_alpha_dropout}[name]
    m = getattr(dyngrad.nn, name)(0.2)
    x = dyngrad.randn(8, 4, 3)
    dyngrad.manual_seed(3)
    a = m(x)
    dyngrad.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), fn(x, 0.2, True).numpy())
    m.eval()
    assert (m(x) == x).all()
