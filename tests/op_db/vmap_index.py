"""Index tensors that differ per example (moved from the tables of tests/func/test_vmap_shape.py):
``x[i]``, take, gather, scatter, index_select / index_add / index_copy and ``x[i] = v`` with an
integer index input that vmap batches too (``vmap_batch_ints``), so each example has its own
indices; the reads also run with only the index batched (``x`` shared). Written with
dyngrad calls only, so no golden values (``NO_GOLDEN``); every other check applies."""

from __future__ import annotations

import numpy as np

import dyngrad as D
from tests.op_db.info import NO_GOLDEN, OpInfo


def _index(name: str, fn, xshape: tuple, ishape: tuple, lim: tuple, formerly: str,  # noqa: ANN001
           vshape: tuple | None = None) -> OpInfo:
    """``fn(x, i[, v])`` with ``x`` standard normal, ``i`` int64 in ``[lo, hi)`` and ``v`` (when
    ``vshape``) standard normal. Reads (no ``v``, not a setitem) also run with only ``i``
    batched (``x`` shared by the examples); a write ``x[i] = v`` with ``x`` shared would write
    a batched value into an unbatched tensor, which vmap runs as a loop by design."""
    shapes = (xshape, ishape) + (() if vshape is None else (vshape,))

    write = name.startswith("setitem")
    n = int(np.prod(ishape))
    unique = write and n <= lim[1] - lim[0]

    def make(rng: np.random.Generator, shapes: tuple) -> tuple:
        if unique:  # a write to distinct positions (duplicates: see below)
            idx = rng.choice(np.arange(*lim), size=n, replace=False).reshape(shapes[1])
        else:
            idx = rng.integers(*lim, size=shapes[1])
        return (rng.standard_normal(shapes[0]), idx) + tuple(rng.standard_normal(s) for s in shapes[2:])

    skips = {c: NO_GOLDEN for c in ("golden_forward", "golden_backward", "node_name", "dtype")}
    if write and not unique and vshape is not None:
        skips.update({c: f"{n} indices drawn from {lim[1] - lim[0]} values repeat: x[i] = v keeps one write per "
                         "position (which one is undefined in PyTorch too), while the gradient of v reaches every "
                         "duplicate (as PyTorch's), so numerical derivatives disagree at the overwritten ones"
                      for c in ("gradcheck", "gradgradcheck", "forward_ad")})

    return OpInfo(name, fn, shapes=shapes, make_inputs=make, zero_dim=False, zero_size=False, int_result=None,
                  grad_rtol=1e-5, grad_atol=1e-7, gradgrad_fast=True, vmap_batch_ints=True,
                  vmap_only_last=not write, family="vmap_index", formerly=(formerly,),
                  skips=skips)


def _setitem(index):  # noqa: ANN001, ANN202
    def f(a, i, *v):  # noqa: ANN001, ANN202
        a = a * 1
        a[index(i)] = v[0] if v else 2.5
        return a

    return f


_G = "batched_index"
_S = "batched_setitem"
VMAP_INDEX: list[OpInfo] = [
    _index("getitem", lambda a, i: a[i], (4, 5, 2), (2,), (0, 4), f"{_G}:getitem"),
    _index("getitem_0d", lambda a, i: a[i], (4, 5, 2), (), (-4, 4), f"{_G}:getitem_0d"),
    _index("getitem_after_slice", lambda a, i: a[:, i], (4, 5, 2), (2, 3), (-5, 5), f"{_G}:getitem_after_slice"),
    _index("getitem_after_int", lambda a, i: a[1, i], (4, 5, 2), (3,), (0, 5), f"{_G}:getitem_after_int"),
    _index("getitem_with_shared_separated", lambda a, i: a[i, :, D.tensor([1, 0])], (4, 5, 2), (2,), (0, 4),
           f"{_G}:getitem_with_shared_separated"),
    _index("getitem_with_shared_after_slice", lambda a, i: a[:, D.tensor([[1], [0]]), i], (4, 5, 2), (3,), (0, 2),
           f"{_G}:getitem_with_shared_after_slice"),
    _index("getitem_ellipsis", lambda a, i: a[..., i], (4, 5, 2), (4,), (0, 2), f"{_G}:getitem_ellipsis"),
    _index("take", lambda a, i: D.take(a, i), (4, 5), (2, 2), (-20, 20), f"{_G}:take"),
    _index("gather", lambda a, i: D.gather(a, 1, i), (4, 5), (4, 2), (0, 5), f"{_G}:gather"),
    _index("take_along_dim", lambda a, i: D.take_along_dim(a, i, 0), (4, 5), (2, 1), (0, 4), f"{_G}:take_along_dim"),
    _index("scatter_value", lambda a, i: D.scatter(a, 1, i, 2.5), (4, 5), (4, 1), (0, 5), f"{_G}:scatter_value"),
    _index("scatter_add", lambda a, i: D.scatter_add(a, 1, i, a ** 2), (4, 5), (4, 3), (0, 5), f"{_G}:scatter_add"),
    _index("index_select", lambda a, i: D.index_select(a, 1, i), (4, 5), (7,), (0, 5), f"{_G}:index_select"),
    _index("index_select_0d_index", lambda a, i: D.index_select(a, 0, i), (4, 5), (), (0, 4),
           f"{_G}:index_select_0d_index"),
    _index("index_add", lambda a, i: D.index_add(a, 1, i, a[:, :3] ** 2, alpha=2), (4, 5), (3,), (0, 5),
           f"{_G}:index_add"),
    _index("index_add_dim0", lambda a, i: D.index_add(a, 0, i, a[:2] * 3), (4, 5), (2,), (0, 4), f"{_G}:index_add_dim0"),
    _index("index_copy", lambda a, i: D.index_copy(a, 1, i % 2 + 2 * D.arange(2), a[:, 3:] * 3), (4, 5), (2,), (0, 2),
           f"{_G}:index_copy"),
    # x[index(i)] = v (or 2.5)
    _index("setitem_rows", _setitem(lambda i: i), (4, 5, 2), (2,), (0, 4), f"{_S}:rows", (2, 5, 2)),
    _index("setitem_rows_scalar", _setitem(lambda i: i), (4, 5, 2), (2,), (-4, 4), f"{_S}:rows_scalar"),
    _index("setitem_row_broadcast_value", _setitem(lambda i: i), (4, 5, 2), (), (0, 4), f"{_S}:row_broadcast_value",
           (2,)),
    _index("setitem_after_slice", _setitem(lambda i: (slice(None), i)), (4, 5, 2), (2, 3), (0, 5),
           f"{_S}:after_slice", (4, 2, 3, 2)),
    _index("setitem_after_slice_low_rank_value", _setitem(lambda i: (slice(None), i)), (4, 5, 2), (2, 3), (0, 5),
           f"{_S}:after_slice_low_rank_value", (3, 1)),
    _index("setitem_after_int_and_slice", _setitem(lambda i: (1, slice(None), i)), (4, 5, 2), (3,), (0, 2),
           f"{_S}:after_int_and_slice", (5, 3)),
    _index("setitem_separated_by_a_slice", _setitem(lambda i: (i, slice(None), D.tensor([1, 0]))), (4, 5, 2), (2,),
           (0, 4), f"{_S}:separated_by_a_slice", (2, 5)),
    _index("setitem_with_a_shared_index", _setitem(lambda i: (slice(None), D.tensor([[1], [0]]), i)), (4, 5, 2), (3,),
           (0, 2), f"{_S}:with_a_shared_index", (4, 2, 3)),
]

#: the families of this module (see tests/op_db/__init__.py)
FAMILIES = {"vmap_index": VMAP_INDEX}
