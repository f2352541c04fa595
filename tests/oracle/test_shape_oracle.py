"""Live comparison with PyTorch: hypothesis draws shapes, dims, indices and values for the
shape, indexing and sorting ops and checks outputs and input gradients (float64, rtol 1e-6).
Skipped when torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def _run(m, f, a, gout_seed=0):
    x = m.tensor(a.copy(), dtype=m.float64, requires_grad=True)
    out = f(m, x)
    if isinstance(out, (tuple, list)):
        out = m.cat([o.reshape(-1) for o in out])
    g = np.random.default_rng(gout_seed).standard_normal(tuple(out.shape))
    (grad,) = m.autograd.grad(out, x, m.tensor(g, dtype=m.float64), allow_unused=True)
    o = out.detach().numpy()
    return o, (np.zeros_like(a) if grad is None else grad.detach().numpy())


def check(f, a):
    """``f(module, x)`` with dyngrad and with torch: same values, shapes and gradients, or
    the same exception type from both."""
    try:
        o2, g2 = _run(torch, f, a)
    except (IndexError, RuntimeError, ValueError) as e:
        with pytest.raises(type(e)):
            _run(dg, f, a)
        return
    o1, g1 = _run(dg, f, a)
    assert o1.shape == o2.shape
    np.testing.assert_allclose(o1, o2, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(g1, g2, rtol=1e-6, atol=1e-12)


def _values(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, data=st.data())
def test_view_ops_match_torch(shape, data):
    a = _values(shape)
    nd = len(shape)
    perm = data.draw(st.permutations(range(nd)))
    d0, d1 = data.draw(st.integers(-nd, nd - 1)), data.draw(st.integers(-nd, nd - 1))
    check(lambda m, x: x.permute(*perm) * 1, a)
    check(lambda m, x: x.transpose(d0, d1) * 1, a)
    check(lambda m, x: x.reshape(-1, shape[-1]).flatten(), a)
    check(lambda m, x: m.movedim(x, d0, d1), a)
    check(lambda m, x: x.unsqueeze(d0).squeeze(), a)
    check(lambda m, x: x.unflatten(d0, (1, shape[d0], 1)), a)
    reps = data.draw(st.lists(st.integers(0, 2), min_size=nd, max_size=nd + 1))
    check(lambda m, x: x.repeat(*reps), a)
    check(lambda m, x: x.flip(d0), a)
    shifts = data.draw(st.integers(-5, 5))
    check(lambda m, x: x.roll(shifts, d1), a)
    check(lambda m, x: x.roll(shifts), a)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, data=st.data())
def test_join_and_split_match_torch(shape, data):
    a = _values(shape)
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1))
    k = data.draw(st.integers(1, 4))
    check(lambda m, x: m.cat([x, x * 2, x[:0] if d in (0, -nd) else x], d), a)
    sd = data.draw(st.integers(-nd - 1, nd))
    check(lambda m, x: m.stack([x, x.flip(0)], sd), a)
    check(lambda m, x: x.split(k, d), a)
    check(lambda m, x: x.chunk(k, d), a)
    check(lambda m, x: x.unbind(d), a)
    check(lambda m, x: x.split(k, d)[-1] * 3, a)


@st.composite
def index(draw, shape):
    """Index items for the first ``j`` dims, then (with an Ellipsis) for the last ``k - j``."""
    k = draw(st.integers(0, len(shape)))
    ell = draw(st.booleans())
    j = draw(st.integers(0, k)) if ell else k
    items = []
    for pos, n in enumerate(list(shape[:j]) + (list(shape[len(shape) - (k - j) :]) if k > j else [])):
        if ell and pos == j:
            items.append(Ellipsis)
        kind = draw(st.sampled_from(["int", "slice", "list", "none", "tensor2d"]))
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            items.append(slice(draw(st.none() | st.integers(-n, n)), draw(st.none() | st.integers(-n, n)),
                               draw(st.none() | st.integers(1, 3))))
        elif kind == "list":
            items.append(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)))
        elif kind == "tensor2d":
            items.append(np.array(draw(st.lists(st.integers(-n, n - 1), min_size=2, max_size=2))).reshape(2, 1))
        else:
            items.append(None)
            items.append(slice(None))
    if ell and not any(i is Ellipsis for i in items):
        items.append(Ellipsis)
    return items


def _materialize(m, items):
    return tuple(m.tensor(i) if isinstance(i, np.ndarray) else i for i in items)


@settings(max_examples=40, deadline=None)
@given(shape=shapes, data=st.data())
def test_getitem_and_setitem_match_torch(shape, data):
    a = _values(shape)
    items = data.draw(index(shape))
    check(lambda m, x: x[_materialize(m, items)], a)

    def put(m, x):
        y = x * 1
        idx = _materialize(m, items)
        y[idx] = x[idx] * 2 + 1
        return y

    check(put, a)
    mask = np.random.default_rng(1).random(shape) > 0.5
    check(lambda m, x: x[m.tensor(mask)], a)
    check(lambda m, x: x.masked_fill(m.tensor(mask), 0.5), a)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, data=st.data())
def test_gather_scatter_sort_topk_match_torch(shape, data):
    a = _values(shape)
    nd = len(shape)
    d = data.draw(st.integers(-nd, nd - 1))
    n = shape[d]
    ishape = list(shape)
    ishape[d] = data.draw(st.integers(1, 5))
    idx = np.random.default_rng(2).integers(0, n, size=ishape)
    check(lambda m, x: x.gather(d, m.tensor(idx)), a)
    check(lambda m, x: m.take_along_dim(x, m.tensor(idx), d), a)
    check(lambda m, x: x.index_select(d, m.tensor(idx.reshape(-1)[:3])), a)
    src_shape = tuple(ishape)
    check(lambda m, x: m.zeros(shape, dtype=m.float64).scatter_add(d, m.tensor(idx), x.sum() + m.ones(src_shape, dtype=m.float64)), a)
    desc = data.draw(st.booleans())
    check(lambda m, x: x.sort(d, descending=desc).values, a)
    assert (dg.tensor(a).sort(d, descending=desc).indices.numpy()
            == torch.tensor(a).sort(d, descending=desc).indices.numpy()).all()
    k = data.draw(st.integers(0, n))
    check(lambda m, x: x.topk(k, d, largest=desc).values, a)


@settings(max_examples=25, deadline=None)
@given(
    mode=st.sampled_from(["constant", "reflect", "replicate", "circular"]),
    k=st.integers(1, 3),
    extra=st.integers(1, 2),
    data=st.data(),
)
def test_pad_matches_torch(mode, k, extra, data):
    shape = tuple(data.draw(st.integers(2, 4)) for _ in range(k + extra))
    a = _values(shape)
    widths = []
    for j in range(k):
        n = shape[-1 - j]
        lim = n - 1 if mode == "reflect" else n
        lo = -1 if mode == "constant" else 0
        widths += [data.draw(st.integers(lo, lim)), data.draw(st.integers(lo, lim))]
    check(lambda m, x: (m.nn.functional.pad if m is torch else dg.pad)(x, tuple(widths), mode=mode), a)
