"""No reference cycles: graphs, saved tensors and ctx objects die by reference counting.

With the cyclic garbage collector disabled, 10,000 training-like iterations must keep
memory flat and leave no graph object for ``gc`` to find.
"""

import gc
import os
import resource
import tracemalloc
import weakref

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function
from dyngrad.autograd.graph import Node


class SavesOutput(Function):
    """exp, saving its output (the case that would make a cycle if stored naively)."""

    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


def _params(rng):
    def p(*shape):
        return dyngrad.tensor(rng.standard_normal(shape) * 0.3, requires_grad=True)

    return [p(8, 16), p(16), p(16, 1), p(1)]


def _step(params, x, y, lr=0.01):
    w1, b1, w2, b2 = params
    h = SavesOutput.apply((x @ w1 + b1).tanh())
    loss = ((h @ w2 + b2 - y) ** 2).mean()
    loss.backward()
    with dyngrad.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss


def _graph_objects():
    # type(o), not isinstance: a proxy object's __class__ property may run code (and warn)
    return [o for o in gc.get_objects() if issubclass(type(o), Node)]


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _rss_kib():
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, AttributeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


@pytest.mark.slow  # over 2 s: runs in .ci/run's slow step, not by default
def test_ten_thousand_training_steps_keep_memory_flat_and_leave_no_cycles(no_gc):
    # 10,000 steps with the cyclic collector off. Memory: the resident size over all of
    # them (a leaked graph per step would be tens of MB), and tracemalloc over the last 500
    # (tracing every allocation is ~6x slower, so not over all 10,000).
    rng = np.random.default_rng(0)
    params = _params(rng)
    x = dyngrad.tensor(rng.standard_normal((4, 8)))
    y = dyngrad.tensor(rng.standard_normal((4, 1)))
    for _ in range(200):  # warm caches (lru_cache, free lists) before measuring
        _step(params, x, y)
    rss0 = _rss_kib()
    refs = []
    for i in range(9_500):
        loss = _step(params, x, y)
        if i % 1000 == 0:
            refs.append(weakref.ref(loss.grad_fn))
        del loss
    tracemalloc.start()
    try:
        for i in range(500):
            _step(params, x, y)
            if i == 100:
                mid, _ = tracemalloc.get_traced_memory()
        end, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rss1 = _rss_kib()
    assert all(r() is None for r in refs), "a graph outlived its loss"
    assert end - mid < 16 * 1024, f"traced memory grew by {end - mid} bytes over 400 steps"
    assert rss1 - rss0 < 8 * 1024, f"resident memory grew by {rss1 - rss0} KiB over 10,000 steps"
    assert _graph_objects() == []
    assert gc.collect() == 0, "the training loop created reference cycles"
    assert np.isfinite(_step(params, x, y).item())


def test_graph_dies_when_its_output_is_dropped_without_backward(no_gc):
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = SavesOutput.apply(x * 2).tanh().sum()
    nodes = [weakref.ref(y.grad_fn)]
    n = y.grad_fn
    while n.next_functions and n.next_functions[0][0] is not None:
        n = n.next_functions[0][0]
        nodes.append(weakref.ref(n))
    assert len(nodes) >= 4
    del n, y
    alive = [r() for r in nodes if r() is not None]
    # only the leaf's AccumulateGrad might be kept by nothing: it dies too
    assert alive == []
    assert gc.collect() == 0


def test_saved_output_does_not_refer_back_to_its_node(no_gc):
    x = dyngrad.tensor([1.0], requires_grad=True)
    y = SavesOutput.apply(x)
    node = weakref.ref(y.grad_fn)
    z = y * 2
    del y
    assert node() is not None  # kept by z's graph
    del z
    assert node() is None
    assert gc.collect() == 0


def test_retained_graph_is_freed_with_its_output(no_gc):
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    node = weakref.ref(y.grad_fn)
    del y
    assert node() is None
    x.grad = None
    assert gc.collect() == 0


def test_create_graph_grads_and_hooks_do_not_leak(no_gc):
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(50):
        y = (x**3).sum()
        h = x * 1
        h.register_hook(lambda g: g * 1)
        h.retain_grad()
        (g,) = dyngrad.autograd.grad(y + h.sum(), x, create_graph=True)
        g.sum().backward()
        node = weakref.ref(g.grad_fn)
        del y, g, h
        assert node() is None
        x.grad = None
    assert _graph_objects() == []
    assert gc.collect() == 0


def test_leaf_accumulate_grad_node_is_shared_while_alive_and_freed_after(no_gc):
    x = dyngrad.tensor([1.0], requires_grad=True)
    a, b = x * 2, x * 3
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
    acc = weakref.ref(a.grad_fn.next_functions[0][0])
    del a, b
    assert acc() is None
    assert gc.collect() == 0
