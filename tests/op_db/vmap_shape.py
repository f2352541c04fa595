"""The shape vmap-rule entries of the op database (moved from the table of
tests/func/test_vmap_shape.py): rows ``(name, function of float64 tensors, per-example input
shapes[, domain], the Function whose batching rule the row was written for)``, as op-db entries
(``VMAP_SHAPE``). Rows whose op variant has a golden entry were merged into it. No golden
values (``NO_GOLDEN``); every other check of tests/test_op_db.py applies: the named Function's
jvp rule must run in forward mode, and vmap must run without a loop fallback."""

from __future__ import annotations

import importlib

import numpy as np

import dyngrad
from dyngrad.ops import indexing as _ix
from dyngrad.ops import rearrange as _ra
from dyngrad.ops import shape as _sh
from dyngrad.ops import splitting as _sl
from tests.op_db.info import OpInfo, rule_infos

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
D = dyngrad
_ga = importlib.import_module("dyngrad.ops.gather")  # the name dyngrad.ops.gather is the function
F64 = D.float64
def _c(*shape: int) -> dyngrad.Tensor:
    """A constant (unbatched) tensor with distinct values."""
    return T(np.arange(float(np.prod(shape))).reshape(shape) / 7 - 0.5)


TABLE_ROWS = [
    # shape.py
    ("squeeze_dims", lambda a: D.squeeze(a, (0, 2)), [(1, 3, 1)], _sh.SqueezeDims),
    ("t_1d", lambda a: a.t(), [(3,)], _sh.T),
    ("expand_new_dims", lambda a: a.expand(2, 3, 4), [(4,)], _sh.Expand),
    ("expand_0d", lambda a: a.expand(3), [()], _sh.Expand),
    ("expand_as_mul", lambda a, b: a.expand_as(b) * b, [(3, 1), (3, 2)], _sh.Expand),
    # indexing.py
    ("getitem_ellipsis", lambda a: a[...], [(2, 3)], _ix.Alias),
    ("getitem_none", lambda a: a[:, None], [(2, 3)], _ix.UnsqueezeIndex),
    ("getitem_ellipsis_int", lambda a: a[..., 1], [(2, 3, 2)], _ix.Select),
    ("getitem_to_0d", lambda a: a[1, 2], [(2, 3)], _ix.Select),
    ("getitem_bool_mask", lambda a: a[D.tensor([True, False, True])], [(3, 2)], _ix.Index),
    ("getitem_two_adjacent", lambda a: a[:, D.tensor([0, 2]), D.tensor([1, 0])], [(2, 3, 2)], _ix.Index),
    ("getitem_separated", lambda a: a[D.tensor([1, 0]), :, D.tensor([0, 1])], [(2, 3, 2)], _ix.Index),
    ("getitem_separated_2d", lambda a: a[D.tensor([[1], [0]]), :, D.tensor([0, 1, 1])], [(2, 3, 2)], _ix.Index),
    ("getitem_int_and_index", lambda a: a[1, :, D.tensor([0, 1, 0])], [(2, 3, 2)], _ix.Index),
    ("getitem_bool_scalar", lambda a: a[True], [(2,)], _ix.Index),
    ("index_put_add_separated",
     lambda g: _ix.IndexPutAdd.apply(g, (2, 3, 2), (np.array([1, 0, 1]), slice(None), np.array([0, 1, 1])), False),
     [(3, 3)], _ix.IndexPutAdd),
    ("index_put_add_broadcast_g",
     lambda g: _ix.IndexPutAdd.apply(g, (3, 2), (slice(1, None), Ellipsis), True), [(2,)], _ix.IndexPutAdd),
    ("index_put_separated",
     lambda a, v: _ix.IndexPut.apply(a, v, _ix.plan_index((D.tensor([1, 0]), slice(None), D.tensor([0, 1])), (2, 3, 2))),
     [(2, 3, 2), (3,)], _ix.IndexPut),
    ("index_put_separated_full_value",
     lambda a, v: _ix.IndexPut.apply(a, v, _ix.plan_index((D.tensor([1, 0]), slice(None), D.tensor([0, 1])), (2, 3, 2))),
     [(2, 3, 2), (2, 3)], _ix.IndexPut),
    ("index_put_basic_and_advanced",
     lambda a, v: _ix.IndexPut.apply(a, v, _ix.plan_index((1, D.tensor([2, 0])), (2, 3, 2))), [(2, 3, 2), (2, 1)],
     _ix.IndexPut),
    ("index_put_everything", lambda a, v: _ix.IndexPut.apply(a, v, (None, None)), [(2, 3), (3,)], _ix.IndexPut),
    # gather.py
    ("gather_dim0", lambda a: D.gather(a, 0, D.tensor([[1, 0, 1]])), [(2, 3)], _ga.Gather),
    ("scatter_add_unbatched_src", lambda a: D.scatter_add(a, 0, D.tensor([[1, 0, 1]]), _c(1, 3)), [(2, 3)],
     _ga.ScatterAdd),
    ("scatter_add_unbatched_self", lambda s, a: D.scatter_add(_c(2, 3) + 0 * a, 0, D.tensor([[1, 0, 1]]), s),
     [(1, 3), (2, 3)], _ga.ScatterAdd),
    ("scatter_into_constant", lambda s: D.scatter(_c(2, 3), 1, D.tensor([[0], [2]]), s), [(2, 2)], _ga.Scatter),
    ("scatter_reduce_add", lambda a: D.scatter(a, 1, D.tensor([[0], [2]]), 2.5, reduce="add"), [(2, 3)],
     _ga.ScatterAdd),
    ("index_select_last", lambda a: D.index_select(a, -1, D.tensor([1, 1, 0])), [(2, 3)], _ga.IndexSelect),
    # rearrange.py
    ("flip_two", lambda a: a.flip(0, -1), [(2, 3)], _ra.Flip),
    ("roll_negative_dim", lambda a: D.roll(a, -1, -1), [(2, 3)], _ra.Roll),
    ("pad_two_dims", lambda a: D.nn.functional.pad(a, (1, 0, 0, 2), value=-1.0), [(2, 3)], _ra.ConstantPad),
    ("pad_replicate_2d", lambda a: D.nn.functional.pad(a, (1, 1, 2, 0), mode="replicate"), [(1, 2, 3)],
     _ra.IndexPad),
    ("pad_reflect_2d", lambda a: D.nn.functional.pad(a, (1, 1, 1, 0), mode="reflect"), [(1, 1, 2, 3)],
     _ra.IndexPad),
    ("pad_circular_3d", lambda a: D.nn.functional.pad(a, (1, 0, 0, 1, 1, 1), mode="circular"), [(1, 2, 2, 2)],
     _ra.IndexPad),
    # splitting.py
    ("cat_three_mixed", lambda a, b: D.cat([b, _c(2, 1), a], -1), [(2, 3), (2, 2)], _sl.Cat),
    ("cat_promotes", lambda a: D.cat([a, D.ones(1, 3, dtype=D.float32)]), [(2, 3)], _sl.Cat),
    ("stack_last", lambda a, b: D.stack([a, b], -1), [(2, 3), (2, 3)], _sl.Stack),
    ("unbind_all", lambda a: D.stack(D.unbind(a, 0)[::-1], 1), [(3, 2)], _sl.Unbind),
    ("split_sizes_all", lambda a: D.cat(D.split(a, [2, 1], 0)[::-1], 0), [(3, 2)], _sl.SplitWithSizes),
]

VMAP_SHAPE: list[OpInfo] = rule_infos(TABLE_ROWS, "vmap_shape")

#: the families of this module (see tests/op_db/__init__.py)
FAMILIES = {"vmap_shape": VMAP_SHAPE}
