"""mse_loss and binary_cross_entropy_with_logits (no weights) are one node each, as in PyTorch
(MseLossBackward0, BinaryCrossEntropyWithLogitsBackward0), with gradients, double backward,
forward mode and a batching rule checked here; live PyTorch values in
tests/oracle/test_api12_leftovers_oracle.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad.autograd import gradcheck, gradgradcheck
from dyngrad.func import vmap

rng = np.random.default_rng(12)
T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64, requires_grad=True)  # noqa: E731


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize(("xs", "ts"), [((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (2, 4)), ((), ())])
def test_mse_loss_is_one_node_with_checked_gradients(reduction, xs, ts) -> None:
    x, t = T(rng.standard_normal(xs)), T(rng.standard_normal(ts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the broadcasting warning of differing sizes)
        out = F.mse_loss(x, t, reduction=reduction)
        d = (x.detach() - t.detach()).numpy()
        expect = {"none": d ** 2, "sum": (d ** 2).sum(), "mean": (d ** 2).mean()}[reduction]
        np.testing.assert_allclose(out.detach().numpy(), expect, rtol=1e-12)
        assert type(out.grad_fn).__name__ == "MseLossBackward0" and out.grad_fn._saved_self is x
        fn = lambda a, b: F.mse_loss(a, b, reduction=reduction)  # noqa: E731
        assert gradcheck(fn, (x, t), check_forward_ad=True, check_batched_grad=True)
        assert gradgradcheck(fn, (x, t))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0), (1, 0)])
def test_mse_loss_under_vmap_equals_the_loop(reduction, in_dims) -> None:
    X = rng.standard_normal((5, 3, 4)) if in_dims[0] != 1 else rng.standard_normal((3, 5, 4))
    Tg = rng.standard_normal((5, 4))
    x = dyngrad.tensor(X if in_dims[0] is not None else X[0])
    t = dyngrad.tensor(Tg if in_dims[1] is not None else Tg[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(lambda a, b: F.mse_loss(a, b, reduction=reduction), in_dims=in_dims)(x, t)
    xs = [x.select(in_dims[0], i) if in_dims[0] is not None else x for i in range(5)]
    ts = [t[i] if in_dims[1] is not None else t for i in range(5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loop = dyngrad.stack([F.mse_loss(a, b, reduction=reduction) for a, b in zip(xs, ts)])
    np.testing.assert_allclose(got.numpy(), loop.numpy(), rtol=1e-12)


def test_mse_loss_promotes_an_integer_target_and_refuses_a_bad_reduction() -> None:
    out = F.mse_loss(dyngrad.ones(3, requires_grad=True), dyngrad.arange(3))
    assert out.dtype == dyngrad.float32 and out.item() == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.mse_loss(dyngrad.ones(3), dyngrad.ones(3), reduction="avg")
    empty = F.mse_loss(dyngrad.ones(0), dyngrad.ones(0))
    assert np.isnan(empty.item())


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_bce_with_logits_without_weights_is_one_node_with_checked_gradients(reduction) -> None:
    x = T(rng.standard_normal((3, 4)) * 4)
    t = T(rng.random((3, 4)))
    out = F.binary_cross_entropy_with_logits(x, t, reduction=reduction)
    xd, td = x.detach().numpy(), t.detach().numpy()
    per = -(td * np.log(1 / (1 + np.exp(-xd))) + (1 - td) * np.log(1 - 1 / (1 + np.exp(-xd))))
    np.testing.assert_allclose(out.detach().numpy(), {"none": per, "sum": per.sum(), "mean": per.mean()}[reduction],
                               rtol=1e-10)
    assert type(out.grad_fn).__name__ == "BinaryCrossEntropyWithLogitsBackward0"
    fn = lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction)  # noqa: E731
    assert gradcheck(fn, (x, t), check_forward_ad=True, check_batched_grad=True)
    assert gradgradcheck(fn, (x, t))
    xs, ts = rng.standard_normal((5, 3)), rng.random((5, 3))
    got = vmap(fn)(dyngrad.tensor(xs), dyngrad.tensor(ts))
    loop = dyngrad.stack([fn(dyngrad.tensor(a), dyngrad.tensor(b)) for a, b in zip(xs, ts)])
    np.testing.assert_allclose(got.numpy(), loop.numpy(), rtol=1e-12)
    # extreme logits stay finite (the stable softplus form)
    big = F.binary_cross_entropy_with_logits(dyngrad.tensor([80.0, -80.0]), dyngrad.tensor([0.0, 1.0]), reduction="none")
    np.testing.assert_allclose(big.numpy(), [80.0, 80.0])
