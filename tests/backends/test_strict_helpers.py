"""The _backend helpers added for the reduction, shape, sorting and nn.functional ops on
Array API arrays (strictB: broadcast_to, concat, stack, native, xp_for, dtype_for,
zeros_of_dtype), and the gradients those ops compute without a scatter-add on
array-api-strict (reflect/replicate pad, sort/topk, cummax, embedding): each against the
NumPy run of the same op, including the inf/nan gradients a 0/1-mask product would spread."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad import _backend as B

xps = pytest.importorskip("array_api_strict")


def _strict(a: np.ndarray) -> dyngrad.Tensor:
    return dyngrad.tensor(xps.asarray(a)).requires_grad_()


def _is_strict(a: object) -> bool:
    return type(a).__module__.split(".")[0] == "array_api_strict"


def _grads(fn, x: np.ndarray, g: np.ndarray) -> tuple:  # noqa: ANN001
    """(output, grad) of ``fn`` on NumPy and on array-api-strict: the strict ones as NumPy."""
    res = []
    for conv in (lambda a: dyngrad.tensor(a.copy()).requires_grad_(), _strict):
        t = conv(x)
        out = fn(t)
        gt = dyngrad.tensor(g.copy()) if not _is_strict(t._data) else dyngrad.tensor(xps.asarray(g))
        (gx,) = dyngrad.autograd.grad([out], [t], [gt])
        if _is_strict(t._data):
            assert _is_strict(out._data) and _is_strict(gx._data)
        res.append((B.to_host(out.detach()._data), B.to_host(gx._data)))
    return res


def test_native_and_xp_for_keep_numpy_on_numpy_and_subclasses() -> None:
    a = np.ones(3)
    assert B.native(a) and B.native(a.view(type("Sub", (np.ndarray,), {})))
    assert B.xp_for(a, 1.0, None) is np
    s = xps.ones(3)
    assert not B.native(s)
    assert B.xp_for(s) is xps
    with pytest.raises(TypeError, match="array_api_strict and numpy"):
        B.xp_for(s, np.ones(3))


def test_broadcast_concat_stack_follow_the_library() -> None:
    s = xps.asarray([1.0, 2.0])
    assert _is_strict(B.broadcast_to(s, (2, 2))) and B.broadcast_to(np.ones(2), (3, 2)).shape == (3, 2)
    c = B.concat([s, s])
    assert _is_strict(c) and B.to_host(c).tolist() == [1.0, 2.0, 1.0, 2.0]
    st = B.stack([s, s], axis=1)
    assert _is_strict(st) and st.shape == (2, 2)
    assert isinstance(B.concat([np.ones(1), np.zeros(1)]), np.ndarray)
    with pytest.raises(TypeError, match="one array library"):
        B.concat([s, np.ones(2)])


def test_dtype_for_and_zeros_of_dtype() -> None:
    s = xps.ones(2, dtype=xps.float32)
    assert B.dtype_for(s, np.float64) == xps.float64 and B.dtype_for(s, None) is None
    assert B.dtype_for(np.ones(2), "float32") == np.float32
    z = B.zeros_of_dtype((2, 3), s.dtype)
    assert _is_strict(z) and z.dtype == xps.float32 and z.shape == (2, 3)
    assert isinstance(B.zeros_of_dtype((1,), np.dtype(np.int64)), np.ndarray)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_index_pad_gradient_without_scatter_add_equals_numpy(mode: str) -> None:
    x = np.arange(12.0).reshape(1, 3, 4)
    g = np.random.default_rng(0).standard_normal((1, 5, 8))
    g[0, 0, 0] = np.inf  # an inf gradient reaches only the elements it was copied from
    (o_np, g_np), (o_s, g_s) = _grads(lambda t: dyngrad.nn.functional.pad(t, (2, 2, 1, 1), mode=mode), x, g)
    np.testing.assert_array_equal(o_s, o_np)
    np.testing.assert_allclose(g_s, g_np, rtol=1e-15, atol=0)
    assert np.isfinite(g_s).sum() == np.isfinite(g_np).sum()


@pytest.mark.parametrize("k", [None, 2])
def test_sort_and_topk_gradient_by_the_inverse_permutation(k: int | None) -> None:
    x = np.array([[3.0, 1.0, 2.0, 1.0], [0.0, -1.0, 5.0, 5.0]])
    g = np.array([[1.0, 2.0, np.nan, 4.0], [5.0, 6.0, 7.0, 8.0]])[:, : (k or 4)]
    fn = (lambda t: t.sort(1, descending=True).values) if k is None else (lambda t: t.topk(k, 1).values)
    (o_np, g_np), (o_s, g_s) = _grads(fn, x, g)
    np.testing.assert_array_equal(o_s, o_np)
    np.testing.assert_array_equal(g_s, g_np)


def test_cummax_gradient_sums_the_copies_in_order() -> None:
    x = np.array([[1.0, 3.0, 2.0, 3.0, 0.5]])
    g = np.array([[1e16, 1.0, -1e16, 1.0, np.inf]])
    (o_np, g_np), (o_s, g_s) = _grads(lambda t: dyngrad.cummax(t, 1).values, x, g)
    np.testing.assert_array_equal(o_s, o_np)
    np.testing.assert_array_equal(g_s, g_np)


def test_embedding_gradient_adds_repeated_rows() -> None:
    w = np.arange(8.0).reshape(4, 2)
    idx = np.array([[0, 2, 0], [3, 3, 1]])
    g = np.random.default_rng(1).standard_normal((2, 3, 2))
    res = []
    for conv in (lambda a: a, xps.asarray):
        wt = dyngrad.tensor(conv(w.copy())).requires_grad_()
        out = dyngrad.nn.functional.embedding(dyngrad.tensor(conv(idx)), wt, padding_idx=1)
        (gw,) = dyngrad.autograd.grad([out], [wt], [dyngrad.tensor(conv(g.copy()))])
        res.append((B.to_host(out.detach()._data), B.to_host(gw._data), type(gw._data)))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-15)
    assert res[1][1][1].tolist() == [0.0, 0.0]  # the padding row gets no gradient
    assert res[1][2].__module__.split(".")[0] == "array_api_strict"


def test_nll_loss_all_ignored_gives_nan_and_no_gradient_spread() -> None:
    x = np.log(np.full((2, 3), 1 / 3))
    t = np.array([1, 1])
    res = []
    for conv in (lambda a: a, xps.asarray):
        xt = dyngrad.tensor(conv(x.copy())).requires_grad_()
        loss = dyngrad.nn.functional.nll_loss(xt, dyngrad.tensor(conv(t)), ignore_index=1)
        (gx,) = dyngrad.autograd.grad([loss], [xt])
        res.append((float(B.to_host(loss.detach()._data)), B.to_host(gx._data)))
    assert np.isnan(res[0][0]) and np.isnan(res[1][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])
    assert (res[1][1] == 0).all()
