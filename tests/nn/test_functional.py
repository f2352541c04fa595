"""nn.functional beyond the op database's per-op checks (the entries of
tests/op_db/nn_functional.py take golden values, gradcheck, gradgradcheck, forward mode and
vmap in tests/test_op_db.py): float32 results, stability, dropout, running statistics,
one_hot, pooling indices and the bias gradient under create_graph."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F


def test_float32_inputs_give_float32_results() -> None:
    x = dyngrad.randn(4, 3, requires_grad=True)
    t = dyngrad.tensor([0, 2, 1, 1])
    for out in (
        F.softmax(x, 1),
        F.log_softmax(x, 1),
        F.cross_entropy(x, t),
        F.layer_norm(x, (3,)),
        F.mse_loss(x, x.detach() * 2),
        F.conv2d(x.reshape(1, 1, 4, 3), dyngrad.ones(2, 1, 2, 2)),
    ):
        assert out.dtype == dyngrad.float32
        out.sum().backward()
    assert x.grad.dtype == dyngrad.float32


def test_activations_of_the_op_library_are_reexported() -> None:
    from dyngrad.ops import activation

    for name in activation.__all__:
        assert getattr(F, name) is getattr(activation, name)
        assert name in F.__all__
    for name in ("relu", "sigmoid", "tanh", "softmax", "log_softmax", "conv2d", "cross_entropy"):
        assert name in F.__all__


def test_softmax_is_stable_for_huge_logits() -> None:
    x = dyngrad.tensor([[1000.0, 0.0, -1000.0]], requires_grad=True)
    s = F.softmax(x, 1)
    ls = F.log_softmax(x, 1)
    assert np.isfinite(s.detach().numpy()).all() and np.isfinite(ls.detach().numpy()).all()
    np.testing.assert_allclose(ls.detach().numpy(), [[0.0, -1000.0, -2000.0]])
    F.cross_entropy(x, dyngrad.tensor([2])).backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_binary_cross_entropy_with_logits_is_stable_for_large_logits() -> None:
    x = dyngrad.tensor([100.0, -100.0], dtype=dyngrad.float64, requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, dyngrad.tensor([0.0, 1.0], dtype=dyngrad.float64))
    np.testing.assert_allclose(loss.item(), 100.0)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, -0.5])


def test_cross_entropy_with_every_target_ignored_is_nan() -> None:
    loss = F.cross_entropy(dyngrad.randn(2, 3), dyngrad.tensor([-100, -100]))
    assert np.isnan(loss.item())


def test_dropout_in_training_zeroes_and_rescales_with_the_generator() -> None:
    g = dyngrad.Generator().manual_seed(0)
    x = dyngrad.ones(1000, requires_grad=True)
    y = F.dropout(x, 0.25, generator=g)
    np.testing.assert_allclose(np.unique(y.detach().numpy()), [0.0, 1 / 0.75], rtol=1e-6)
    assert 0.18 < (y.detach().numpy() == 0).mean() < 0.32
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy() == 0, y.detach().numpy() == 0)
    y2 = F.dropout(x, 0.25, generator=dyngrad.Generator().manual_seed(0))
    np.testing.assert_array_equal(y.detach().numpy(), y2.detach().numpy())


def test_dropout_is_identity_when_not_training_and_zero_with_p_one() -> None:
    x = dyngrad.randn(5)
    assert F.dropout(x, 0.9, training=False) is x
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), np.zeros(5))


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_rejects_probability_outside_unit_interval(p: float) -> None:
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
        F.dropout(dyngrad.ones(3), p)


def test_batch_norm_updates_running_stats_in_training_only() -> None:
    x = dyngrad.tensor(np.random.default_rng(0).standard_normal((6, 2)))
    rm, rv = dyngrad.zeros(2, dtype=dyngrad.float64), dyngrad.ones(2, dtype=dyngrad.float64)
    F.batch_norm(x, rm, rv, training=True, momentum=0.3)
    np.testing.assert_allclose(rm.numpy(), 0.3 * x.numpy().mean(0))
    np.testing.assert_allclose(rv.numpy(), 0.7 + 0.3 * x.numpy().var(0, ddof=1))
    before = rm.numpy().copy()
    F.batch_norm(x, rm, rv, training=False)
    np.testing.assert_array_equal(rm.numpy(), before)


def test_one_hot() -> None:
    out = F.one_hot(dyngrad.tensor([0, 2, 1]))
    assert out.dtype == dyngrad.int64
    np.testing.assert_array_equal(out.numpy(), np.eye(3, dtype=np.int64)[[0, 2, 1]])
    assert F.one_hot(dyngrad.tensor([[1]]), num_classes=4).shape == (1, 1, 4)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(dyngrad.tensor([3]), 2)
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(dyngrad.tensor([1.0]))


def test_max_pool2d_return_indices_match_pytorch_layout() -> None:
    x = dyngrad.tensor([[[[1.0, 5.0, 2.0, 0.0], [3.0, 4.0, 9.0, 1.0]]]])
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), [[[[5.0, 9.0]]]])
    np.testing.assert_array_equal(idx.numpy(), [[[[1, 6]]]])
    assert idx.dtype == dyngrad.int64


def test_pad_is_the_op_library_pad_when_there_is_one_and_the_fallback_pads_constant() -> None:
    from dyngrad import ops
    from dyngrad.nn.functional import _constant_pad

    if hasattr(ops, "pad"):
        assert F.pad is ops.pad
    x = dyngrad.tensor([[1.0, 2.0]], requires_grad=True)
    y = _constant_pad(x, (1, 0, 0, 1), value=7.0)
    np.testing.assert_array_equal(y.detach().numpy(), [[7, 1, 2], [7, 7, 7]])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 1]])
    with pytest.raises(ValueError, match="divisible by 2"):
        _constant_pad(x, (1,))
    with pytest.raises(NotImplementedError):
        _constant_pad(x, (1, 1), mode="reflect")


def test_nll_loss_gradient_for_weight_raises_as_in_pytorch():
    import numpy as np

    logits = dyngrad.tensor(np.random.default_rng(0).standard_normal((4, 3)))
    w = dyngrad.tensor([0.5, 1.0, 2.0], dtype=dyngrad.float64).requires_grad_()
    loss = dyngrad.nn.functional.cross_entropy(logits, dyngrad.tensor([0, 1, 2, 1]), weight=w)
    with pytest.raises(RuntimeError, match="derivative for 'weight' is not implemented"):
        loss.backward()


def _rg(*shape, seed=0):
    return dyngrad.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


# Ops whose PyTorch backward computes the bias gradient together with the input's (one
# fused backward): under create_graph it requires grad even for a loss linear in the output.
FUSED_BIAS = {
    "conv1d": lambda: (_rg(2, 3, 5), _rg(4, 3, 3, seed=1), _rg(4, seed=2), F.conv1d),
    "conv2d": lambda: (_rg(2, 3, 4, 4), _rg(2, 3, 3, 3, seed=1), _rg(2, seed=2), F.conv2d),
    "layer_norm": lambda: (_rg(2, 3, 4), _rg(4, seed=1), _rg(4, seed=2), lambda x, w, b: F.layer_norm(x, (4,), w, b)),
    "batch_norm": lambda: (_rg(2, 3, 4), _rg(3, seed=1), _rg(3, seed=2),
                           lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True)),
    "batch_norm_eval": lambda: (_rg(2, 3, 4), _rg(3, seed=1), _rg(3, seed=2),
                                lambda x, w, b: F.batch_norm(x, dyngrad.zeros(3, dtype=dyngrad.float64),
                                                             dyngrad.ones(3, dtype=dyngrad.float64), w, b)),
}


@pytest.mark.parametrize("name", list(FUSED_BIAS))
def test_bias_gradient_of_a_fused_op_requires_grad_under_create_graph_and_differentiates_to_zero(name):
    x, w, b, f = FUSED_BIAS[name]()
    grads = dyngrad.autograd.grad(f(x, w, b).sum(), (x, w, b), create_graph=True)
    assert [g.requires_grad for g in grads] == [True, True, True]  # torch 2.13: the same
    (gx,) = dyngrad.autograd.grad(grads[2].sum(), x, allow_unused=True, materialize_grads=True)
    np.testing.assert_array_equal(gx.numpy(), np.zeros(x.shape))


def test_bias_gradient_of_group_norm_stays_constant_under_create_graph_as_in_pytorch():
    x, w, b = _rg(2, 4, 3), _rg(4, seed=1), _rg(4, seed=2)
    grads = dyngrad.autograd.grad(F.group_norm(x, 2, w, b).sum(), (x, w, b), create_graph=True)
    assert [g.requires_grad for g in grads] == [True, True, False]  # torch 2.13: the same


def test_bias_gradient_of_conv2d_without_other_inputs_requiring_grad_stays_constant():
    x = dyngrad.tensor(np.ones((1, 1, 3, 3)))
    w = dyngrad.tensor(np.ones((1, 1, 2, 2)))
    b = _rg(1)
    (gb,) = dyngrad.autograd.grad(F.conv2d(x, w, b).sum(), b, create_graph=True)
    assert not gb.requires_grad  # torch 2.13: False
    np.testing.assert_array_equal(gb.numpy(), [4.0])
