"""The indexing family of the op database (moved from tests/ops/test_indexing.py); golden values
in tests/golden/indexing.npz. The entry type is tests/op_db/info.py."""

from __future__ import annotations

import importlib
import os

import numpy as np

import dyngrad as dg
from dyngrad.ops import indexing as _indexing
from dyngrad.ops import masking as _masking
from tests.op_db.info import OpInfo as OpSpec
from tests.op_db.info import skip, update

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "indexing.npz")


def S(name: str, f, **kw) -> OpSpec:
    """A spec whose op is written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("int_result", "same")
    kw.setdefault("zero_dim", False)
    kw.setdefault("zero_size", False)
    kw.setdefault("shapes", ((3, 4, 5),))
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), **kw)


def L(m, v):
    return m.tensor(v)


def _set(idx, value=None):
    """``y = x * 1; y[idx] = v`` (v: an input or a constant) for both libraries."""

    def f(m, x, *v):
        y = x * 1
        y[idx(m) if callable(idx) else idx] = v[0] if v else value
        return y

    return f


def _chained_set(m, x, w):
    y = x * 2
    y[0][1] = w[0] * 5  # y[0] is a view: the assignment rebases y's history
    return y


def _augmented_set(m, x, w):
    y = x * 1
    y[:, 0] += w[:2]  # getitem view, add_ on the view, setitem of the same values
    return y


def _inplace_on_transposed_view(m, x, w):
    y = x.sin() * 2
    y.t()[1:].mul_(w[1])
    return y


def _view_used_after_inplace(m, x, w):
    y = x * 1
    v = y[1]
    v.exp_()
    return y + v.sum()


def _copy_into_view_of_plain_buffer(m, x, w):
    buf = m.zeros(2, 3, dtype=x.dtype)
    buf[1].copy_(w)  # buf had no history; it gets one through its view
    return buf * x


def _strided_view_set(m, x, w):
    y = x * 1
    y.view(-1)[::2] = w
    return y


def _two_inplace_ops_on_view(m, x, w):
    y = x * 1
    v = y[0]
    v *= w
    v.sin_()
    return y * v


def _mask(m, shape, seed=0):
    return m.tensor(np.random.default_rng(seed).random(shape) > 0.5)


_gather = importlib.import_module("dyngrad.ops.gather")  # the name dyngrad.ops.gather is the function

SPECS = [
    # ---- basic indexing (views)
    S("int", lambda m, x: x[1]),
    S("neg_int", lambda m, x: x[-1, -2]),
    S("int_0d_result", lambda m, x: x[1, 2, 3]),
    S("slices", lambda m, x: x[1:, ::2, -3:-1]),
    S("empty_slice", lambda m, x: x[1:1]),
    S("none_ellipsis", lambda m, x: x[None, ..., None, 1]),
    S("ellipsis_only", lambda m, x: x[...], zero_dim=True, zero_size=True),
    S("bool_true", lambda m, x: x[True]),
    S("bool_false", lambda m, x: x[False]),
    S("bool_in_tuple", lambda m, x: x[1, True]),
    # ---- advanced indexing (copies; repeated indices accumulate)
    S("list", lambda m, x: x[[2, 0, 2, 2]]),
    S("neg_tensor", lambda m, x: x[:, L(m, [-1, 0, -4])]),
    S("tensor_2d", lambda m, x: x[L(m, [[0, 1], [2, 0]])]),
    S("two_adjacent", lambda m, x: x[:, [0, 1, 1], [4, 0, 4]]),
    S("separated_by_slice", lambda m, x: x[[0, 1], :, [1, 2]]),
    S("int_then_slice_then_list", lambda m, x: x[0, :, [1, 2]]),  # NumPy: (2, 4); PyTorch: (4, 2)
    S("tensor0d_then_list", lambda m, x: x[L(m, 1), [0, 2]]),
    S("none_between", lambda m, x: x[:, [0, 1], None, [1, 2]]),
    S("ellipsis_list", lambda m, x: x[..., [3, 0, 3]]),
    S("broadcast_indices", lambda m, x: x[L(m, [[0], [2]]), :, L(m, [1, 4, 4])]),
    S("list_and_bool_scalar", lambda m, x: x[[0, 1], True]),
    S("bool_mask_full", lambda m, x: x[_mask(m, (3, 4, 5))]),
    S("bool_mask_leading", lambda m, x: x[_mask(m, (3, 4), 1)]),
    S("bool_mask_middle", lambda m, x: x[:, _mask(m, (4,), 2), 1:3]),
    S("empty_list", lambda m, x: x[L(m, np.zeros(0, dtype=np.int64))]),
    S("zero_size_input", lambda m, x: x[:, [0, 0]], shapes=((0, 3),)),
    S("scalar_input", lambda m, x: x[None, ..., None], shapes=((),)),
    # ---- __setitem__ (value broadcast, grads to the untouched part and to the value)
    S("set_int", _set(1), shapes=((3, 4), (4,))),
    S("set_slice_bcast", _set((slice(None), slice(1, 3))), shapes=((3, 4), (3, 1))),
    S("set_scalar_value", _set((0, slice(None)), 2.5), shapes=((3, 4),)),
    S("set_list", _set(([2, 0],)), shapes=((3, 4), (2, 4))),
    S("set_mixed", _set((0, slice(None), [1, 2])), shapes=((3, 4, 5), (4, 2))),
    S("set_separated", _set(([0, 1], slice(None), [1, 2])), shapes=((3, 4, 5), (2, 4))),
    S("set_mask", _set(lambda m: _mask(m, (3, 4), 3)), shapes=((3, 4), ())),
    S("set_ellipsis_none", _set((Ellipsis, None, 1)), shapes=((3, 4), (3, 1))),
    S("set_neg_tensor", _set(lambda m: (L(m, [-1, 0]), L(m, [-1, 1]))), shapes=((3, 4), (2,))),
    # ---- in-place ops on views while recording (the base's history is rebased)
    S("view_chained_set", _chained_set, shapes=((2, 3), (3,))),
    S("view_augmented_set", _augmented_set, shapes=((2, 3), (3,))),
    S("view_transposed_mul_", _inplace_on_transposed_view, shapes=((2, 3), (3,)), int_result=None),
    S("view_used_after_exp_", _view_used_after_inplace, shapes=((2, 3), (3,)), int_result=None),
    S("view_copy_into_buffer", _copy_into_view_of_plain_buffer, shapes=((2, 3), (3,))),
    S("view_strided_set", _strided_view_set, shapes=((2, 3), (3,))),
    S("view_two_inplace_ops", _two_inplace_ops_on_view, shapes=((2, 3), (3,)), int_result=None),
    # ---- named ops
    S("index_select", lambda m, x: x.index_select(1, L(m, [3, 0, 3])), zero_size=True, function=_gather.IndexSelect, formerly=('jvp_rules:index_select', 'jvp_ops:index_select')),
    S("index_select_0d_index", lambda m, x: m.index_select(x, -1, L(m, 2))),
    S("gather", lambda m, x: x.gather(1, L(m, [[[0, 3], [3, 3]], [[1, 0], [2, 1]]])), function=_gather.Gather, formerly=('jvp_rules:gather', 'jvp_ops:gather')),
    S("gather_dim0_dup", lambda m, x: m.gather(x, 0, L(m, [[1, 1, 0, 2], [0, 0, 0, 0]])), shapes=((3, 4),)),
    S("scatter_add", lambda m, x, s: x.scatter_add(1, L(m, [[0, 0, 2], [1, 1, 1]]), s), shapes=((2, 3), (2, 3)), function=_gather.ScatterAdd, formerly=('jvp_rules:scatter_add',)),
    S("scatter_src", lambda m, x, s: x.scatter(0, L(m, [[2, 0, 1]]), s), shapes=((3, 3), (1, 3)), function=_gather.Scatter, formerly=('jvp_rules:scatter_src',)),
    S("scatter_value", lambda m, x: x.scatter(1, L(m, [[0], [2]]), -1.5), shapes=((2, 3),), function=_gather.Scatter, formerly=('jvp_rules:scatter_value',)),
    S("index_add", lambda m, x, s: x.index_add(1, L(m, [3, 0, 3]), s, alpha=2), shapes=((3, 4, 5), (3, 3, 5)), function=_indexing.IndexPutAdd, formerly=('vmap_shape:index_add',)),
    S("index_copy", lambda m, x, s: x.index_copy(0, L(m, [2, 0]), s), shapes=((3, 4), (2, 4)), function=_indexing.IndexPut, formerly=('vmap_shape:index_copy',)),
    S("index_fill", lambda m, x: x.index_fill(-1, L(m, [1, 4]), -3.0)),
    S("index_fill_tensor_value", lambda m, x, v: x.index_fill(0, L(m, [1]), v), shapes=((3, 4), ())),
    S("take", lambda m, x: m.take(x, L(m, [[0, -1], [7, 7]])), function=_indexing.Index, formerly=('vmap_shape:take',)),
    S("take_along_dim", lambda m, x: m.take_along_dim(x, L(m, [[[0], [3]]]), 1), function=_gather.Gather, formerly=('vmap_shape:take_along_dim',)),
    S("take_along_dim_flat", lambda m, x: m.take_along_dim(x, L(m, [59, 0, 7, 7]))),
    S("take_along_dim_bcast", lambda m, x: m.take_along_dim(x, L(m, [[[1, 0]]]), -1), shapes=((2, 1, 3),)),
    S("masked_fill", lambda m, x: x.masked_fill(_mask(m, (4, 5), 4), 0.25), zero_size=False, function=_masking.MaskedFill, formerly=('jvp_rules:masked_fill', 'jvp_ops:masked_fill')),
    S("masked_fill_bcast_mask", lambda m, x: x.masked_fill(_mask(m, (5,), 5), -2.0)),
    S("masked_fill_tensor_value", lambda m, x, v: x.masked_fill(_mask(m, (3, 4), 6), v), shapes=((3, 4), ()), function=_masking.MaskedFill, formerly=('jvp_rules:masked_fill_tensor_value',)),
    S("masked_select", lambda m, x: x.masked_select(_mask(m, (4, 5), 7))),
    S("masked_select_bcast", lambda m, x: m.masked_select(x, _mask(m, (2, 3), 8)), shapes=((3,),)),
    S("masked_select_0d", lambda m, x: x.masked_select(L(m, True)), shapes=((),)),
    S("gather_0d", lambda m, x: x.gather(0, L(m, 0)), shapes=((),)),
    S("index_select_0d", lambda m, x: x.index_select(0, L(m, [0])), shapes=((),), function=_gather.IndexSelect, formerly=('vmap_shape:index_select_0d',)),
    S("narrow", lambda m, x: x.narrow(-1, 1, 3), zero_size=True),
    S("select", lambda m, x: x.select(1, -1), zero_size=True),
    S("nonzero", lambda m, x: m.nonzero(x > 0), differentiable=False),
    S("nonzero_0d", lambda m, x: m.nonzero(x > -5), shapes=((),), differentiable=False),
    S("argwhere", lambda m, x: m.argwhere(x < 0), differentiable=False),
]

# gradcheck cannot perturb zero-size inputs, and gradgradcheck cannot perturb zero-size
# outputs' gradients; their backward is covered by the golden backward test.
skip(SPECS, ("zero_size_input",), "a zero-size input: gradcheck has nothing to perturb (the golden backward "
     "covers it)", "gradcheck", "gradgradcheck")
skip(SPECS, ("empty_slice", "bool_false", "empty_list"), "a zero-size output: gradgradcheck has no output "
     "gradient to perturb", "gradgradcheck")
skip(SPECS, ("nonzero", "nonzero_0d", "argwhere"), "an integer (index) result: the float dtype rule does not "
     "apply", "dtype")
skip(SPECS, ("nonzero", "argwhere"), "the output shape depends on the values: no vmap (dyngrad and PyTorch "
     "raise)", "vmap")

skip(SPECS, ("set_int", "set_slice_bcast", "set_scalar_value", "set_mixed", "set_ellipsis_none", "view_chained_set",
             "view_augmented_set", "view_transposed_mul_", "view_strided_set"), "an in-place write into (a view "
     "of) a clone: PyTorch records CopySlices on the base, dyngrad the write's own node (IndexPutBackward0) or "
     "the view's", "node_name")
skip(SPECS, ("scatter_value",), "the scalar-value overload: PyTorch 2.13 names it ScatterBackward1, dyngrad "
     "ScatterBackward0", "node_name")
skip(SPECS, ("index_add", "index_copy", "index_fill", "index_fill_tensor_value", "take", "masked_fill_tensor_value",
             "masked_select", "masked_select_bcast", "masked_select_0d"), "dyngrad implements the op through "
     "another one (add of index_put, index_put, masked_fill, index), so the node is that op's; PyTorch has a "
     "dedicated node (IndexAddBackward0, TakeBackward0, ...)", "node_name")
update(SPECS, ("nonzero_0d",), vmap_fallback="nonzero's output shape depends on the values: vmap loops "
       "(PyTorch's vmap refuses it)")
update(SPECS, ("view_copy_into_buffer",), vmap_fallback="an in-place copy of a batched value into an unbatched "
       "buffer: only a loop gives each example its own buffer")
