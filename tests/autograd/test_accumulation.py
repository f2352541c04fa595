"""Gradient accumulation into existing ``.grad`` happens in place as each leaf finishes
(engine invariant 4): no second copy of the gradients, PyTorch's hook timing, and the
all-or-nothing commit as an opt-in (``autograd.atomic_accumulation``)."""

import gc
import tracemalloc

import numpy as np
import pytest

import dyngrad
from dyngrad import nn


def _net(seed=0, layers=6, width=128):
    dyngrad.manual_seed(seed)
    mods = []
    for _ in range(layers):
        mods += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*mods)


def _backward_peak(net, x, atomic=False):
    loss = net(x).pow(2).mean()
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    if atomic:
        with dyngrad.autograd.atomic_accumulation():
            loss.backward()
    else:
        loss.backward()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak - base


def test_accumulating_backward_peaks_below_half_of_the_first_backward():
    net, x = _net(), dyngrad.randn(16, 128)
    first = _backward_peak(net, x)
    acc = _backward_peak(net, x)
    grad_bytes = sum(p.grad.numpy().nbytes for p in net.parameters())
    assert first >= grad_bytes  # the first pass must hold every new gradient
    assert acc < 0.5 * first, (acc, first)


def test_atomic_accumulation_holds_the_second_copy_it_documents():
    net, x = _net(), dyngrad.randn(16, 128)
    first = _backward_peak(net, x, atomic=True)
    acc = _backward_peak(net, x, atomic=True)
    assert acc >= 0.9 * first


@pytest.mark.parametrize("atomic", [False, True])
def test_both_modes_accumulate_the_same_gradients_as_one_backward_of_the_sum(atomic):
    net, x1, x2 = _net(), dyngrad.randn(8, 128), dyngrad.randn(8, 128)
    for x in (x1, x2):
        _backward_peak(net, x, atomic)
    acc = [p.grad.numpy().copy() for p in net.parameters()]
    net.zero_grad(set_to_none=True)
    (net(x1).pow(2).mean() + net(x2).pow(2).mean()).backward()
    for a, p in zip(acc, net.parameters()):
        np.testing.assert_allclose(a, p.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_existing_grad_is_updated_in_place_keeping_its_object_and_array():
    w = dyngrad.ones(3, requires_grad=True)
    w.grad = dyngrad.zeros(3)
    g, arr = w.grad, w.grad.numpy()
    (w * 2).sum().backward()
    assert w.grad is g and w.grad.numpy() is arr
    np.testing.assert_array_equal(arr, [2.0, 2.0, 2.0])


def test_post_accumulate_hook_of_an_existing_grad_runs_before_the_pass_ends():
    # the hook sees its own accumulated gradient while later nodes have yet to run
    a = dyngrad.ones(2, requires_grad=True)
    b = dyngrad.ones(2, requires_grad=True)
    a.grad = dyngrad.zeros(2)
    seen = []
    a.register_post_accumulate_grad_hook(lambda t: seen.append(("a", t.grad.tolist(), b.grad)))

    class Late(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen.append(("late",))
            return g

    (Late.apply(b) + (a * 3).exp().log()).sum().backward()
    assert seen[0] == ("a", [3.0, 3.0], None)
    assert ("late",) in seen


def test_retained_grad_of_a_non_leaf_accumulates_over_two_passes():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(h.grad.numpy(), 2 * 2 * h.detach().numpy())


def test_backward_with_inputs_accumulates_into_the_named_non_leaf():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.grad = dyngrad.ones(2)
    (h * h).sum().backward(inputs=[h])
    np.testing.assert_allclose(h.grad.numpy(), 1 + 2 * h.detach().numpy())
    assert x.grad is None


def test_create_graph_accumulation_into_an_existing_grad_stays_differentiable():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    (gx,) = dyngrad.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(gx.numpy(), 2 * 6 * x.detach().numpy())
