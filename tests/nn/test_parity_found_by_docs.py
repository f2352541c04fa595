"""Differences from PyTorch 2.13 found while writing the nn docstrings (issue 17), each fixed."""

import pytest

import dyngrad
import dyngrad.nn.functional as F


def test_avg_pool_rejects_a_zero_divisor_instead_of_ignoring_it():
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(dyngrad.ones(1, 1, 4, 4), 2, divisor_override=0)


@pytest.mark.parametrize(("pool", "shape"), [(F.avg_pool1d, (1, 1, 1)), (F.avg_pool2d, (1, 1, 1, 1)),
                                             (F.avg_pool3d, (1, 1, 1, 1, 1))])
def test_avg_pool_rejects_an_empty_output_as_pytorch(pool, shape):
    with pytest.raises(RuntimeError, match="Output size is too small"):
        pool(dyngrad.ones(*shape), 2)
    # ceil_mode keeps a partial window, so the same input gives one output (PyTorch: 1.0)
    assert pool(dyngrad.ones(*shape), 2, ceil_mode=True).flatten().tolist() == [1.0]


def test_adaptive_avg_pool2d_rejects_a_triple():
    with pytest.raises(ValueError, match="output_size"):
        F.adaptive_avg_pool2d(dyngrad.ones(1, 4, 4), (2, 2, 2))


def test_unflatten_module_checks_dim_and_sizes():
    m = dyngrad.nn.Unflatten(5, (2, 3))
    with pytest.raises(IndexError, match="Dimension out of range"):
        m(dyngrad.zeros(4, 6))  # was: silently unflattened dim 5 % 2 == 1
    with pytest.raises(RuntimeError, match="don't multiply up"):
        dyngrad.nn.Unflatten(1, (2, 4))(dyngrad.zeros(4, 6))
    with pytest.raises(TypeError, match="unflattened_size must be a tuple"):
        dyngrad.nn.Unflatten(1, 3)
    assert dyngrad.nn.Unflatten(-1, (2, -1))(dyngrad.zeros(4, 6)).shape == (4, 2, 3)


@pytest.mark.parametrize(("p", "want"), [(float("inf"), 4.0), (float("-inf"), 3.0), (0, 2.0), (3, 4.4979)])
def test_pairwise_distance_and_normalize_take_every_p(p, want):
    # PyTorch 2.13's values; p=inf gave 1.0 (x ** inf) and p=0 a ZeroDivisionError before
    d = F.pairwise_distance(dyngrad.tensor([[0.0, 0.0]]), dyngrad.tensor([[3.0, 4.0]]), p=p, eps=0.0)
    assert d.tolist() == pytest.approx([want], abs=1e-4)
    n = F.normalize(dyngrad.tensor([[-5.0, 3.0]]), p=float("inf"))
    assert n.flatten().tolist() == pytest.approx([-1.0, 0.6])


def test_weighted_mse_and_l1_mean_divide_by_the_weights_sum():
    x, y, w = dyngrad.tensor([1.0, -1.0]), dyngrad.tensor([0.0, 1.0]), dyngrad.tensor([1.0, 0.5])
    # PyTorch 2.13: sum(w * loss) / sum(w) (was: / numel, 1.0 and 1.5)
    assert F.l1_loss(x, y, weight=w).item() == pytest.approx(2.0 / 1.5)
    assert F.mse_loss(x, y, weight=w).item() == pytest.approx(3.0 / 1.5)
    # huber_loss keeps the mean over elements, as PyTorch's
    assert F.huber_loss(x, y, weight=w).item() == pytest.approx((0.5 + 0.5 * 1.5) / 2)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        F.l1_loss(x, y, weight=dyngrad.ones(1))


def test_distribution_shapes_are_sizes_as_pytorchs():
    d = dyngrad.distributions.Dirichlet(dyngrad.ones(2, 3))
    assert type(d.event_shape) is dyngrad.Size and type(d.batch_shape) is dyngrad.Size
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    assert repr(d.event_shape) == "dyngrad.Size([3])"


def test_set_detect_anomaly_takes_only_bools():
    for bad in (("yes",), (True, "x")):
        with pytest.raises(TypeError, match="must be bool"):
            dyngrad.autograd.set_detect_anomaly(*bad)  # a string turned anomaly mode on before
    assert not dyngrad.autograd.is_anomaly_enabled()
