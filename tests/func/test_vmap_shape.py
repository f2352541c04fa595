"""Batching rules of the structural ops (shape, indexing, gather, rearrange, splitting) beyond
the op database's per-op vmap checks (tests/test_op_db.py over tests/op_db/, including
tests/op_db/vmap_shape.py and the per-example index tensors of tests/op_db/vmap_index.py): every
structural Function declares a rule, nested vmap with index tensors that differ per example or
over a reshape/permute/getitem/cat chain, a batched bool mask through the loop.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.func import vmap
from dyngrad.ops import indexing as _ix
from dyngrad.ops import rearrange as _ra
from dyngrad.ops import shape as _sh
from dyngrad.ops import splitting as _sl
from tests.func.vmap_checks import T, _fallbacks

D = dyngrad
_ga = importlib.import_module("dyngrad.ops.gather")  # the name dyngrad.ops.gather is the function
F64 = D.float64


def test_the_rule_of_each_entry_ran_for_its_function_class() -> None:
    """Every class of the five modules that has forward also declares a rule (own or
    inherited), so no structural op falls back to the per-op loop."""
    mods = (_sh, _ix, _ga, _ra, _sl)
    classes = [c for m in mods for c in vars(m).values()
               if isinstance(c, type) and issubclass(c, D.autograd.Function) and c.__module__ == m.__name__]
    classes += list(_ra._PAD_CLS.values())
    missing = [c.__name__ for c in classes if getattr(c, "vmap", None) is None]
    assert len(classes) >= 30
    assert not missing


def _chain(x: dyngrad.Tensor, w: dyngrad.Tensor) -> dyngrad.Tensor:
    y = x.reshape(3, 2).permute(1, 0)  # (2, 3)
    y = D.cat([y, w[None, :]], 0)  # (3, 3)
    z = y[D.tensor([2, 0])] * y[1:2, ::2][:, 1:]  # (2, 3) * (1, 1)
    z = D.stack([z, z.flip(1)], -1).expand(2, 2, 3, 2)
    return D.gather(z.flatten(0, 1), 1, D.tensor([[0, 2, 1, 0]]).expand(4, 4)[..., None].expand(4, 4, 2).clone())


def test_nested_vmap_equals_the_double_loop_and_runs_no_loop() -> None:
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((4, 5, 2, 3))  # outer batch 4 (dim 0), inner batch 5 (dim 0)
    ws = rng.standard_normal((3, 4))  # per outer example (outer in_dim 1), shared by the inner
    want = np.stack([np.stack([_chain(T(xs[i, j]), T(ws[:, i]))._data for j in range(5)]) for i in range(4)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = vmap(vmap(_chain, in_dims=(0, None)), in_dims=(0, 1))(T(xs), T(ws))
    np.testing.assert_allclose(out._data, want, rtol=1e-12)
    assert not _fallbacks([str(w.message) for w in caught])


def test_nested_vmap_gradients_equal_the_double_loop() -> None:
    rng = np.random.default_rng(1)
    xs, ws = rng.standard_normal((3, 2, 2, 3)), rng.standard_normal((3, 3))
    v = rng.standard_normal((3, 2, 4, 4, 2))
    x, w = T(xs).requires_grad_(), T(ws).requires_grad_()
    out = vmap(vmap(_chain, in_dims=(0, None)), in_dims=(0, 1))(x, w)
    gx, gw = dyngrad.autograd.grad(out, [x, w], T(v))
    wgx, wgw = np.zeros_like(xs), np.zeros_like(ws)
    for i in range(3):
        for j in range(2):
            a, b = T(xs[i, j]).requires_grad_(), T(ws[:, i]).requires_grad_()
            ga, gb = dyngrad.autograd.grad(_chain(a, b), [a, b], T(v[i, j]))
            wgx[i, j] = ga._data
            wgw[:, i] += gb._data
    np.testing.assert_allclose(gx._data, wgx, rtol=1e-10)
    np.testing.assert_allclose(gw._data, wgw, rtol=1e-10)


def test_nested_vmap_with_the_inner_batch_dim_last() -> None:
    xs = np.random.default_rng(2).standard_normal((2, 3, 4, 3))  # inner batch (size 3) last

    def f(x: dyngrad.Tensor) -> dyngrad.Tensor:
        return D.cat([x.t()[:, 1:], x.unsqueeze(0).expand(2, 3, 4)[1].t()], 1).unbind(0)[1]

    want = np.stack([np.stack([f(T(xs[i, ..., j]))._data for j in range(3)]) for i in range(2)])
    out = vmap(vmap(f, in_dims=-1))(T(xs))
    np.testing.assert_allclose(out._data, want)


def test_an_out_of_range_batched_index_raises_index_error() -> None:
    with pytest.raises(IndexError, match="out of bounds"):
        vmap(lambda a, i: a[i])(T(np.zeros((2, 3))), D.tensor([[0, 3], [1, 1]]))


def test_a_batched_bool_mask_is_correct_through_the_fallback_loop() -> None:
    """A mask's result shape depends on its values: vmap runs the function once per
    example (with a warning) and the results stay exact."""
    x = np.random.default_rng(4).standard_normal((3, 4))
    m = np.array([[0, 0, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]], bool)  # 2 per example: the results stack
    with pytest.warns(UserWarning):
        out = vmap(lambda a, k: a[k] * 2)(T(x), D.tensor(m))
    np.testing.assert_allclose(out._data, np.stack([x[k][m[k]] * 2 for k in range(3)]))


def _put_row(a: dyngrad.Tensor, i: dyngrad.Tensor) -> dyngrad.Tensor:
    b = a * 1
    b[i] = a[0, 0, 0] * 3
    return b


NESTED_INDEX = [
    ("getitem", lambda a, i: a[i]),
    ("getitem_separated", lambda a, i: a[i, :, D.tensor([1, 0])]),
    ("getitem_after_slice", lambda a, i: a[:, i % 5]),
    ("gather", lambda a, i: D.gather(a, 0, i.reshape(2, 1, 1).expand(2, 5, 2))),
    ("index_select", lambda a, i: D.index_select(a, 0, i)),
    ("setitem", _put_row),
]


@pytest.mark.parametrize("inner_shares_index", [False, True])
@pytest.mark.parametrize("name,fn", NESTED_INDEX, ids=[r[0] for r in NESTED_INDEX])
def test_nested_vmap_with_index_tensors_that_differ_per_example(name, fn, inner_shares_index) -> None:  # noqa: ANN001
    """Index tensors batched at both levels, or at the outer level only (shared by the
    inner examples): equal to the double loop, with no loop."""
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((2, 3, 4, 5, 2))
    idx = rng.integers(0, 4, (2, 2) if inner_shares_index else (2, 3, 2))
    want = np.stack([np.stack([fn(T(xs[o, k]), D.tensor(idx[o] if inner_shares_index else idx[o, k]))._data
                               for k in range(3)]) for o in range(2)])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        inner = vmap(fn, in_dims=(0, None if inner_shares_index else 0))
        out = vmap(inner)(T(xs), D.tensor(idx))
    assert not _fallbacks([str(w.message) for w in caught])
    np.testing.assert_allclose(out._data, want)
