"""The transform-rule entries of the op database (once the jvp-rule and vmap-rule tables of
tests/autograd/test_forward_ad.py and tests/func/test_vmap_rules.py, with the old
forward-mode op table merged in): rows ``(name, function of float64 tensors, input shapes,
domain[, the Function whose jvp rule must run])`` with a named input domain ("real", "pos",
"unit", "spd"; see :func:`tests.op_db.info.draw`), moved off the ops' kinks by
:func:`prepare`. Rows whose op variant has a golden entry were merged into it (see the golden
entries' ``formerly``). No golden values (``NO_GOLDEN``); every other check of
tests/test_op_db.py applies."""

from __future__ import annotations

import importlib

import numpy as np

import dyngrad
from dyngrad.ops import activation as _ac
from dyngrad.ops import arithmetic as _ar
from dyngrad.ops import contraction as _cn
from dyngrad.ops import conv as _cv
from dyngrad.ops import copying as _cp
from dyngrad.ops import decomp as _dc
from dyngrad.ops import elementwise as _el
from dyngrad.ops import fused as _fu
from dyngrad.ops import indexing as _ix
from dyngrad.ops import linalg as _la
from dyngrad.ops import pointwise as _pw
from dyngrad.ops import rearrange as _ra
from dyngrad.ops import reduction as _re
from dyngrad.ops import shape as _sh
from dyngrad.ops import sorting as _so
from dyngrad.ops import splitting as _sl
from dyngrad.ops import statistics as _st
from dyngrad.ops import thresholding as _th
from tests.op_db.info import OpInfo, rule_infos

D = dyngrad
_ga = importlib.import_module("dyngrad.ops.gather")  # the name dyngrad.ops.gather is the function


def _setitem(a, index, v):  # noqa: ANN001, ANN202
    a[index] = v
    return a


# (name, function of tensors, input shapes, domain, the Function whose jvp rule must run)
RULE_ROWS = [
    # (name, function, input shapes, domain): ops checked without naming the Function whose rule runs
    ("mul_scalar", lambda a: a * 2.5, [(3,)], "real"),
    ("rdiv_scalar", lambda a: 2.0 / a, [(3,)], "pos"),
    ("norm", lambda a: D.norm(a), [(2, 3)], "real"),
    ("tensordot", lambda a, b: D.tensordot(a, b, dims=1), [(2, 3), (3, 2)], "real"),
    ("squeeze_unsqueeze", lambda a: a.unsqueeze(0).squeeze(1), [(2, 1, 3)], "real"),
    ("pad", lambda a: D.pad(a, (1, 2)), [(2, 3)], "real"),
    # (name, function, input shapes, domain, the Function whose jvp rule must run)
    ("clamp_tensor", lambda a, lo, hi: D.clamp(a * 2, lo - 1.5, hi + 1.5), [(2, 3), (3,), (2, 1)], "unit", _el.ClampTensor),
    ("maximum_scalar_side", lambda a: D.maximum(a, D.zeros(3, dtype=D.float64)), [(3,)], "real", _pw.Maximum),
    ("pow", lambda a, b: a ** b, [(2, 3), (3,)], "pos", _ar.Pow),
    ("pow_scalar_exponent", lambda a: a ** 3, [(3,)], "real", _ar.Pow),
    ("pow_scalar_base", lambda b: 2.0 ** b, [(3,)], "real", _ar.Pow),
    ("softplus_beta", lambda a: D.nn.functional.softplus(a * 8, beta=3.0, threshold=4.0), [(4,)], "real", _ac.Softplus),
    ("sum_dims", lambda a: D.sum(a, (0, 2)), [(2, 3, 2)], "real", _re.Sum),
    ("squeeze", lambda a: a.squeeze(1), [(2, 1, 3)], "real", _sh.SqueezeDim),
    ("getitem_slice", lambda a: a[1:, ::2], [(3, 4)], "real", _ix.Slice),
    ("getitem_int", lambda a: a[1], [(3, 4)], "real", _ix.Select),
    ("getitem_advanced", lambda a: a[D.tensor([2, 0, 2])], [(3, 2)], "real", _ix.Index),
    ("index_put_add", lambda g: _ix.IndexPutAdd.apply(g, (3, 2), (np.array([2, 0, 2]),), False), [(3, 2)], "real",
     _ix.IndexPutAdd),
    ("matmul", lambda a, b: a @ b, [(2, 3), (3, 4)], "real", _la.Matmul),
    ("matmul_batched", lambda a, b: a @ b, [(2, 2, 3), (3, 2)], "real", _la.Matmul),
    ("matmul_vec", lambda a, b: a @ b, [(3,), (3, 2)], "real", _la.Matmul),
    ("rrelu_eval", lambda a: D.nn.functional.rrelu(a, training=False), [(4,)], "real", _th.RreluWithNoise),
    ("to_float32_and_back", lambda a: a.to(D.float32).to(D.float64), [(3,)], "real", _cp.ToDtype),
    ("pad_reflect", lambda a: D.nn.functional.pad(a, (2, 1), mode="reflect"), [(1, 2, 4)], "real", _ra.IndexPad),
    ("pad_circular", lambda a: D.nn.functional.pad(a, (1, 2), mode="circular"), [(1, 2, 4)], "real", _ra.IndexPad),
    ("var", lambda a: D.var(a, 1), [(2, 3)], "real", _st.Var),
    ("var_all_keepdim", lambda a: D.var(a, None, keepdim=True, correction=0), [(2, 3)], "real", _st.Var),
    ("std", lambda a: D.std(a), [(2, 3)], "real", _st.Std),
    ("std_dim", lambda a: D.std(a, 0, keepdim=True), [(2, 3)], "real", _st.Std),
    ("logsumexp", lambda a: D.logsumexp(a, 1), [(2, 3)], "real", _st.Logsumexp),
    ("logsumexp_keepdim", lambda a: D.logsumexp(a, (0, 1), keepdim=True), [(2, 3)], "real", _st.Logsumexp),
    ("cumprod_with_zeros", lambda a: D.cumprod(a * D.tensor([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]],
     dtype=D.float64), 1), [(2, 4)], "real", _st.Cumprod),
    ("amax", lambda a: D.amax(a, 1), [(2, 3)], "real", _re.Amax),
    ("amin_keepdim", lambda a: D.amin(a, 0, keepdim=True), [(2, 3)], "real", _re.Amin),
    ("amax_tie", lambda a: D.amax(D.cat([a, a], 0), 0), [(1, 3)], "real", _re.Amax),
    ("cat_one_constant", lambda a: D.cat([D.ones(1, 3, dtype=D.float64), a], 0), [(2, 3)], "real", _sl.Cat),
    ("stack_one_constant", lambda a: D.stack([a, D.ones(2, 3, dtype=D.float64)], 2), [(2, 3)], "real", _sl.Stack),
    ("split", lambda a: D.split(a, 1, 0)[1] * 2, [(2, 3)], "real", _sl.Split),
    ("einsum", lambda a, b: D.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)], "real", _cn.Einsum),
    ("einsum_three", lambda a, b, c: D.einsum("i,ij,j->", a, b, c), [(2,), (2, 3), (3,)], "real", _cn.Einsum),
    ("max_dim", lambda a: D.max(a, 1)[0], [(2, 3)], "real", _re.MaxDim),
    ("min_dim_keepdim", lambda a: D.min(a, 0, keepdim=True).values, [(2, 3)], "real", _re.MinDim),
    ("sort", lambda a: D.sort(a, 1, descending=True).values, [(2, 4)], "real", _so.Sort),
    ("topk", lambda a: D.topk(a, 2, 0).values, [(3, 2)], "real", _so.Topk),
    ("diag_vector", lambda a: D.diag(a, -1), [(3,)], "real", _la._DiagEmbed),
    ("solve", lambda a, b: D.linalg.solve(a @ a.mT + 3 * D.eye(3, dtype=D.float64), b), [(3, 3), (3, 2)], "real",
     _dc.Solve),
    ("prod", lambda a: D.prod(a, 1), [(2, 3)], "pos", _re.Prod),
    ("prod_with_a_zero", lambda a: D.prod(a * D.tensor([1.0, 0.0, 1.0], dtype=D.float64), 1), [(2, 3)], "real",
     _re.Prod),
    ("var_mean", lambda a: D.stack(D.var_mean(a, 1)), [(2, 3)], "real", _st.VarMean),
    ("std_mean", lambda a: D.stack(D.std_mean(a, 0, keepdim=True)), [(2, 3)], "real", _st.StdMean),
    ("norm_2", lambda a: D.linalg.vector_norm(a, 2, 1), [(2, 3)], "real", _st.VectorNorm),
    ("norm_1", lambda a: D.linalg.vector_norm(a, 1), [(2, 3)], "real", _st.VectorNorm),
    ("norm_3", lambda a: D.linalg.vector_norm(a, 3, 0, keepdim=True), [(2, 3)], "real", _st.VectorNorm),
    ("norm_inf", lambda a: D.linalg.vector_norm(a, float("inf"), 1), [(2, 3)], "real", _st.VectorNorm),
    ("conv2d", lambda x, w, b: D.nn.functional.conv2d(x, w, b, stride=2, padding=1), [(2, 2, 5, 5), (3, 2, 3, 3), (3,)],
     "real", _cv.Conv2dFn),
    ("conv2d_groups_dilation", lambda x, w: D.nn.functional.conv2d(x, w, groups=2, dilation=2), [(1, 4, 6, 6), (2, 2, 2, 2)],
     "real", _cv.Conv2dFn),
    ("conv2d_input_grad", lambda y, w: _cv.Conv2dInputGrad.apply(y, w, _cv._Geom((2, 2), (1, 1, 1, 1), (1, 1), 1), (5, 5)),
     [(2, 3, 3, 3), (3, 2, 3, 3)], "real", _cv.Conv2dInputGrad),
    ("conv2d_weight_grad", lambda x, y: _cv.Conv2dWeightGrad.apply(x, y, _cv._Geom((2, 2), (1, 1, 1, 1), (1, 1), 1), (3, 3)),
     [(2, 2, 5, 5), (2, 3, 3, 3)], "real", _cv.Conv2dWeightGrad),
    ("max_pool2d_overlapping", lambda x: D.nn.functional.max_pool2d(x, 3, 1), [(1, 1, 4, 4)], "real", _cv.TakeFlat),
    ("put_flat", lambda g: _cv.PutFlat.apply(g, np.array([[[0, 3, 3]]]), (1, 1, 2, 2)), [(1, 1, 3)], "real",
     _cv.PutFlat),
    ("conv_constant_pad", lambda a: _cv.ConstantPad.apply(a, (1, -1, 2, 0), 2.0), [(2, 3)], "real", _cv.ConstantPad),
    ("nll_loss_none", lambda a: D.nn.functional.nll_loss(a, D.tensor([0, 2]), reduction="none"), [(2, 3)], "real",
     _fu.NllLoss),
    ("fused_log_sigmoid", lambda a: _fu.log_sigmoid(a), [(4,)], "real", _fu._LogSigmoid),
    ("smooth_l1", lambda a, b: D.nn.functional.smooth_l1_loss(a, b, reduction="none", beta=0.5), [(4,), (4,)],
     "real", _fu.SmoothL1),
    ("bce", lambda a, b: D.nn.functional.binary_cross_entropy(D.sigmoid(a), D.sigmoid(b), reduction="sum"),
     [(4,), (4,)], "real", _fu.BinaryCrossEntropy),
    ("layer_norm", lambda a: D.nn.functional.layer_norm(a, (3,)), [(2, 3)], "real", _fu.NormalizeStats),
    ("fill", lambda a, v: _cp.Fill.apply(a, v), [(2, 3), ()], "real", _cp.Fill),
    ("copy", lambda a, b: _cp.Copy.apply(a, b), [(2, 3), (3,)], "real", _cp.Copy),
    ("remainder", lambda a, b: D.remainder(a, b), [(4,), (4,)], "pos", _ar.Remainder),
    ("fmod_scalar", lambda a: D.fmod(a * 3, 1.5), [(4,)], "pos", _ar.Remainder),
    ("slogdet", lambda a: D.linalg.slogdet(a).logabsdet, [(3, 3)], "spd", _dc.Slogdet),
    ("index_put", lambda a, v: _ix.IndexPut.apply(a, v, _ix.plan_index((D.tensor([0, 2]),), (3, 2))),
     [(3, 2), (2,)], "real", _ix.IndexPut),
    ("index_put_scalar", lambda a: _ix.IndexPut.apply(a, 1.5, _ix.plan_index((slice(1, None), 0), (3, 2))),
     [(3, 2)], "real", _ix.IndexPut),
    ("setitem", lambda a, v: _setitem(a.clone(), (slice(None), 1), v), [(3, 2), (3,)], "real", _ix.IndexPut),
]


VMAP_ARITH_ROWS = [
    ("add", lambda a, b: D.add(a, b, alpha=2), [(3, 4), (4,)], "real", _ar.Add),
    ("add_scalar", lambda a: a + 1.5, [(3,)], "real", _ar.Add),
    ("sub", lambda a, b: a - b, [(3, 4), (3, 1)], "real", _ar.Sub),
    ("rsub_scalar", lambda a: 2.0 - a, [(3,)], "real", _ar.Sub),
    ("mul", lambda a, b: a * b, [(2, 3), (3,)], "real", _ar.Mul),
    ("mul_lower_rank_first", lambda a, b: a * b, [(3,), (2, 3)], "real", _ar.Mul),
    ("div", lambda a, b: a / b, [(2, 3), (3,)], "pos", _ar.Div),
    ("div_floor", lambda a, b: D.div(a, b, rounding_mode="floor"), [(4,), (4,)], "pos", _ar.Div),
    ("pow_tensors", lambda a, b: a ** b, [(3,), (3,)], "pos", _ar.Pow),
    ("zero_dim_times_matrix", lambda a, b: a * b, [(), (2, 3)], "real", _ar.Mul),
]



def _away_from_kinks(name: str, x: np.ndarray) -> np.ndarray:
    """Inputs at least 0.1 away from the points where the op is not differentiable."""
    if name in ("sign", "floor", "ceil", "trunc", "round", "frac", "round_decimals"):
        k = 0.1 if name == "round_decimals" else 1.0
        f = x / k - np.floor(x / k)
        return (np.floor(x / k) + np.clip(f, 0.2, 0.8)) * k
    if name in ("threshold", "softshrink", "hardshrink"):  # kinks at +-0.5
        return np.where(np.abs(np.abs(x) - 0.5) < 0.1, x + 0.3, x)
    if name in ("relu6", "hardswish", "hardsigmoid"):  # kinks at 0, +-3 and 6 of 4 * x
        return np.where(np.min(np.abs(4 * x[..., None] - np.array([-3.0, 0.0, 3.0, 6.0])), -1) < 0.2, 0.1, x)
    if name == "softplus_beta":  # kink where 3 * 8 * x crosses the threshold 4
        return np.where(np.abs(24 * x - 4) < 0.5, 0.0, x)
    if name in ("relu", "abs", "clamp", "where", "where_scalar", "maximum_scalar_side", "hardtanh", "leaky_relu",
                "elu", "selu", "celu", "prelu", "norm_1", "norm_3", "rrelu_eval", "softsign", "masked_fill",
                "masked_fill_tensor_value"):
        return np.where(np.abs(np.abs(x) - 0.5) < 0.1, x + 0.3, x) + np.where(np.abs(x) < 0.1, 0.3, 0.0)
    if name in ("smooth_l1",):  # kink where |x - t| crosses beta: keep x - t small
        return x * 0.1
    if name in ("remainder", "fmod_scalar"):  # kinks where the quotient is an integer
        return np.where(np.abs(x * 2 - np.round(x * 2)) < 0.1, x + 0.15, x)
    if name == "logit_eps":
        return np.where(np.abs(np.abs(x - 0.5) - 0.3) < 0.05, 0.5, x)
    return x


def prepare(name: str, xs: list) -> list:
    """Inputs off the op's kinks (see :func:`_away_from_kinks`) and, for the binary extrema,
    without ties between the operands."""
    xs = [_away_from_kinks(name, x) for x in xs]
    if name in ("maximum", "minimum", "fmax", "fmin") and len(xs) > 1:
        xs[1] = xs[1] + 0.05
    return xs


#: the entries of the old forward-mode op table (``jvp_ops``) each of these rows replaces
RULES_FORMERLY = {
    'pow': ('jvp_ops:pow',),
    'pow_scalar_exponent': ('jvp_ops:pow_scalar',),
    'prod': ('jvp_ops:prod',),
    'var': ('jvp_ops:var',),
    'std': ('jvp_ops:std',),
    'amax': ('jvp_ops:amax',),
    'logsumexp': ('jvp_ops:logsumexp',),
    'matmul': ('jvp_ops:matmul',),
    'einsum': ('jvp_ops:einsum',),
    'getitem_slice': ('jvp_ops:getitem',),
    'split': ('jvp_ops:split',),
    'to_float32_and_back': ('jvp_ops:to_float32',),
    'mul_scalar': ('jvp_ops:mul_scalar',),
    'rdiv_scalar': ('jvp_ops:rdiv_scalar',),
    'norm': ('jvp_ops:norm',),
    'tensordot': ('jvp_ops:tensordot',),
    'squeeze_unsqueeze': ('jvp_ops:squeeze_unsqueeze',),
    'pad': ('jvp_ops:pad',),
}
VMAP_ARITH_FORMERLY = {
    'add': ('jvp_ops:add',),
    'sub': ('jvp_ops:sub',),
    'mul': ('jvp_ops:mul',),
    'div': ('jvp_ops:div',),
}

# a float32 intermediate needs a larger finite-difference step than the default 1e-6
RULES: list[OpInfo] = rule_infos(RULE_ROWS, "jvp_rules", prepare, RULES_FORMERLY,
                                 {"to_float32_and_back": {"eps": 1e-2, "grad_rtol": 1e-4}})
VMAP_ARITH: list[OpInfo] = rule_infos(VMAP_ARITH_ROWS, "vmap_arith", prepare, VMAP_ARITH_FORMERLY)

#: the families of this module (see tests/op_db/__init__.py)
FAMILIES = {"jvp_rules": RULES, "vmap_arith": VMAP_ARITH}
