"""The linalg vmap-rule entries of the op database (moved from the table of
tests/func/test_vmap_linalg.py): rows ``(name, function of float64 tensors, per-example input
shapes[, domain], the Function whose batching rule the row was written for)``, as op-db entries
(``VMAP_LINALG``). Rows whose op variant has a golden entry were merged into it. No golden
values (``NO_GOLDEN``); every other check of tests/test_op_db.py applies: the named Function's
jvp rule must run in forward mode, and vmap must run without a loop fallback."""

from __future__ import annotations

import numpy as np

import dyngrad
from dyngrad.nn import _functional_norm as _nn
from dyngrad.nn import functional as F
from dyngrad.nn import functional as _nf
from dyngrad.ops import contraction as _cn
from dyngrad.ops import conv as _cv
from dyngrad.ops import linalg as _la
from tests.op_db.info import OpInfo, rule_infos

D = dyngrad
_G = _cv._Geom((2, 2), (1, 1, 1, 1), (1, 1), 1)
_IDX = D.tensor([[1, 4], [0, 1]])
TABLE_ROWS = [
    ("matmul_vec_vec", lambda a, b: a @ b, [(3,), (3,)], "real", _la.Dot),
    ("matmul_matrix_vector_swapped", lambda b, a: a @ b, [(3,), (2, 3)], "real", _la.Mv),
    ("matmul_vector_matrix_swapped", lambda b, a: a @ b, [(3, 2), (3,)], "real", _la.Mm),
    ("matmul_vec_3d", lambda a, b: a @ b, [(3,), (2, 3, 4)], "real", _la.Matmul),
    ("matmul_3d_vec", lambda a, b: a @ b, [(2, 4, 3), (3,)], "real", _la.Matmul),
    ("matmul_vec_3d_swapped", lambda b, a: a @ b, [(2, 3, 4), (3,)], "real", _la.Matmul),
    ("matmul_broadcast", lambda a, b: a @ b, [(2, 3), (4, 3, 2)], "real", _la.Matmul),
    ("matmul_broadcast_swapped", lambda b, a: a @ b, [(4, 3, 2), (2, 3)], "real", _la.Matmul),
    ("matmul_4d_3d", lambda a, b: a @ b, [(2, 1, 2, 3), (4, 3, 2)], "real", _la.Matmul),
    ("bmm_swapped", lambda b, a: D.bmm(a, b), [(2, 3, 2), (2, 2, 3)], "real", _la.Bmm),
    ("linear_1d_input", F.linear, [(3,), (2, 3), (2,)], "real", _nf.Addmm),
    ("linear_3d_input", F.linear, [(2, 4, 3), (2, 3), (2,)], "real", _nf.Addmm),
    ("linear_weight_vector", lambda x, w: F.linear(x, w), [(4, 3), (3,)], "real", _la.Mv),
    ("linear_weight_only_swapped", lambda w, x, b: F.linear(x, w, b), [(2, 3), (4, 3), (2,)], "real", _nf.Addmm),
    ("linear_bias_only_swapped", lambda b, x, w: F.linear(x, w, b), [(2,), (4, 3), (2, 3)], "real", _nf.Addmm),
    ("einsum_ellipsis", lambda a, b: D.einsum("...ij,jk->...ik", a, b), [(2, 2, 3), (3, 2)], "real", _cn.Einsum),
    ("einsum_implicit_trace", lambda a: D.einsum("ii", a), [(3, 3)], "real", _cn.Einsum),
    ("einsum_swapped", lambda b, a: D.einsum("ij,jk->ik", a, b), [(3, 2), (2, 3)], "real", _cn.Einsum),
    ("tensordot", lambda a, b: D.tensordot(a, b, dims=([1], [0])), [(2, 3), (3, 4)], "real", _cn.Einsum),
    ("diagonal_last_dims", lambda a: D.diagonal(a, -1, 1, 2), [(2, 3, 3)], "real", _la.Diagonal),
    ("diagonal_scatter", lambda g: _la.DiagonalScatter.apply(g, (3, 2, 3), 0, 0, 2), [(2, 3)], "real",
     _la.DiagonalScatter),
    ("diag_matrix", lambda a: D.diag(a, 1), [(3, 4)], "real", _la.Diagonal),
    ("tril_3d", lambda a: D.tril(a, -1), [(2, 3, 3)], "real", _la.Tril),
    ("triu_3d", lambda a: D.triu(a, 1), [(2, 3, 4)], "real", _la.Triu),
    ("trace_times", lambda a, b: D.trace(a @ b), [(3, 2), (2, 3)], "real", _la.Trace),
    ("conv2d_unbatched_image", lambda x, w: F.conv2d(x, w, padding=1), [(2, 5, 5), (3, 2, 3, 3)], "real",
     _cv.Conv2dFn),
    ("conv2d_weight_only_swapped", lambda w, x, b: F.conv2d(x, w, b, stride=2), [(3, 2, 3, 3), (2, 2, 5, 5), (3,)],
     "real", _cv.Conv2dFn),
    ("conv2d_groups_swapped", lambda w, x: F.conv2d(x, w, groups=2), [(4, 1, 2, 2), (1, 2, 4, 4)], "real",
     _cv.Conv2dFn),
    ("conv2d_input_grad_swapped", lambda w, y: _cv.Conv2dInputGrad.apply(y, w, _G, (5, 5)),
     [(3, 2, 3, 3), (2, 3, 3, 3)], "real", _cv.Conv2dInputGrad),
    ("conv2d_weight_grad_swapped", lambda y, x: _cv.Conv2dWeightGrad.apply(x, y, _G, (3, 3)),
     [(2, 3, 3, 3), (2, 2, 5, 5)], "real", _cv.Conv2dWeightGrad),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 2), [(1, 2, 4, 4)], "real", _cv.Conv2dFn),
    ("max_pool_spec", lambda x: _cv.max_pool(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), True)[0], [(1, 2, 4, 4)],
     "real", _cv.TakeFlat),
    ("max_pool_spec_padded", lambda x: _cv.max_pool(x, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), False)[0],
     [(2, 1, 4, 4)], "real", _cv.TakeFlat),
    ("max_pool_indices", lambda x: _cv.max_pool(x, (2, 2), (1, 1), (0, 0, 0, 0), (1, 1), False, True)[1],
     [(1, 2, 3, 3)], "real", _cv.MaxPoolIndices),
    ("take_flat", lambda x: _cv.TakeFlat.apply(x, np.array([[[0, 5, 5]], [[3, 1, 2]]])), [(2, 1, 2, 3)], "real",
     _cv.TakeFlat),
    ("constant_pad_3d", lambda a: _cv.ConstantPad.apply(a, (1, 1, 0, 2, 1, 0), 0.5), [(2, 3, 2)], "real",
     _cv.ConstantPad),
    ("embedding_table", lambda w: F.embedding(_IDX, w, padding_idx=1), [(5, 3)], "real", _nn.Embedding),
]

VMAP_LINALG: list[OpInfo] = rule_infos(TABLE_ROWS, "vmap_linalg", overrides={
    "max_pool_indices": {"differentiable": False},  # the indices, made float: no gradient
    # the batching rule named is Mm's; forward mode goes through Matmul's own jvp
    "matmul_vector_matrix_swapped": {"function": None},
    "embedding_table": {"skips": {c: "padding_idx's row gets no gradient by definition (as in PyTorch) though the "
                                     "output depends on it: numerical derivatives disagree on that row"
                                  for c in ("gradcheck", "gradgradcheck", "forward_ad")}},
})

#: the families of this module (see tests/op_db/__init__.py)
FAMILIES = {"vmap_linalg": VMAP_LINALG}
