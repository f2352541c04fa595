"""The reduction vmap-rule entries of the op database (moved from the table of
tests/func/test_vmap_reduction.py): rows ``(name, function of float64 tensors, per-example input
shapes[, domain], the Function whose batching rule the row was written for)``, as op-db entries
(``VMAP_REDUCTION``). Rows whose op variant has a golden entry were merged into it. No golden
values (``NO_GOLDEN``); every other check of tests/test_op_db.py applies: the named Function's
jvp rule must run in forward mode, and vmap must run without a loop fallback."""

from __future__ import annotations

import dyngrad
from dyngrad.ops import arg_reduce as _ar_re
from dyngrad.ops import fused as _fu
from dyngrad.ops import reduction as _re
from dyngrad.ops import sorting as _so
from dyngrad.ops import statistics as _st
from tests.op_db.info import OpInfo, rule_infos

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
D = dyngrad
F = dyngrad.nn.functional
I = lambda *a: D.tensor(list(a))  # noqa: E731, E741 - int64 class indices
TABLE_ROWS = [
    ("sum_0d", lambda a: a.sum(), [()], "real", _re.SumAll),
    ("sum_neg_dim", lambda a: a.sum(-1), [(2, 3)], "real", _re.Sum),
    ("sum_all_keepdim", lambda a: a.sum(None, keepdim=True), [(2, 3)], "real", _re.SumAll),
    ("mean_all_keepdim", lambda a: a.mean(None, keepdim=True), [(2, 3, 2)], "real", _re.MeanAll),
    ("mean_0d", lambda a: a.mean(), [()], "real", _re.MeanAll),
    ("prod_0d", lambda a: D.prod(a), [()], "real", _re.ProdAll),
    ("prod_keepdim_zero", lambda a: D.prod(a * T([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]), 1, keepdim=True), [(3, 2)],
     "real", _re.Prod),
    ("prod_all_zero", lambda a: D.prod(a * T([1.0, 0.0, 1.0])), [(3,)], "real", _re.ProdAll),
    ("amax_dims", lambda a: D.amax(a, (0, 2)), [(2, 3, 2)], "real", _re.Amax),
    ("amax_all_keepdim", lambda a: D.amax(a, (), keepdim=True), [(2, 3)], "real", _re.Amax),
    ("amin_0d", lambda a: D.amin(a), [()], "real", _re.Amin),
    ("max_all_0d", lambda a: D.max(a), [()], "real", _re.MaxAll),
    ("min_dim_neg_keepdim", lambda a: D.min(a, -1, keepdim=True).values, [(2, 3)], "real", _re.MinDim),
    ("max_dim_0d", lambda a: D.max(a, 0).values, [()], "real", _re.MaxDim),
    ("min_dim_0d_keepdim", lambda a: D.min(a, 0, keepdim=True).values, [()], "real", _re.MinDim),
    ("var_dims_correction0", lambda a: D.var(a, (0, 2), correction=0), [(2, 3, 2)], "real", _st.Var),
    ("std_all_keepdim", lambda a: D.std(a, None, keepdim=True), [(2, 3)], "real", _st.Std),
    ("var_mean_all", lambda a: D.stack(D.var_mean(a)), [(2, 3)], "real", _st.VarMean),
    ("std_mean_neg", lambda a: D.stack(D.std_mean(a, -1)), [(3, 4)], "real", _st.StdMean),
    ("logsumexp_all", lambda a: D.logsumexp(a, ()), [(2, 3)], "real", _st.Logsumexp),
    ("logsumexp_0d", lambda a: D.logsumexp(a, 0), [()], "real", _st.Logsumexp),
    ("norm_fro", lambda a: D.norm(a), [(2, 3)], "real", _st.VectorNorm),
    ("norm_neg_inf_keepdim", lambda a: D.linalg.vector_norm(a, float("-inf"), 0, keepdim=True), [(3, 2)], "real",
     _st.VectorNorm),
    ("cumsum_neg", lambda a: D.cumsum(a, -2), [(3, 2)], "real", _st.Cumsum),
    ("cumprod_dim0", lambda a: D.cumprod(a, 0), [(3, 2)], "real", _st.Cumprod),
    ("cumprod_zero", lambda a: D.cumprod(a * T([1.0, 0.0, 1.0, 0.0]), 0), [(4,)], "real", _st.Cumprod),
    ("cumprod_0d", lambda a: D.cumprod(a, 0), [()], "real", _st.Cumprod),
    ("sort_ascending_dim0", lambda a: D.sort(a, 0).values, [(3, 2)], "real", _so.Sort),
    ("sort_0d", lambda a: D.sort(a).values, [()], "real", _so.Sort),
    ("topk_smallest_neg", lambda a: D.topk(a, 2, -1, largest=False).values, [(2, 4)], "real", _so.Topk),
    ("argmax_all", lambda a: D.argmax(a) * 1.0, [(2, 3)], "real", _ar_re.NoGradReduce),
    ("argmax_all_keepdim", lambda a: D.argmax(a, keepdim=True) * 1.0, [(2, 3)], "real", _ar_re.NoGradReduce),
    ("argmax_0d", lambda a: D.argmax(a, 0) * 1.0, [()], "real", _ar_re.NoGradReduce),
    ("all_any_count_nonzero", lambda a: D.all(D.relu(a), 1, keepdim=True) * 1.0 + D.any(D.relu(a), 0, keepdim=True) * 2.0
     + D.count_nonzero(D.relu(a)) * 4.0, [(3, 4)], "real", _ar_re.NoGradReduce),
    ("softmax_0d", lambda a: D.softmax(a, 0), [()], "real", _fu.Softmax),
    ("softmax_neg_3d", lambda a: D.softmax(a, -1), [(2, 2, 3)], "real", _fu.Softmax),
    ("log_softmax_dtype", lambda a: D.log_softmax(a, 1, dtype=D.float64), [(2, 3)], "real", _fu.LogSoftmax),
    ("nll_loss_sum", lambda a: F.nll_loss(a, I(0, 2, 1), reduction="sum"), [(3, 4)], "real", _fu.NllLoss),
    ("nll_loss_1d", lambda a: F.nll_loss(a, D.tensor(2)), [(4,)], "real", _fu.NllLoss),
    ("nll_loss_1d_none", lambda a: F.nll_loss(a, D.tensor(1), reduction="none"), [(3,)], "real", _fu.NllLoss),
    ("nll_loss_spatial_none", lambda a: F.nll_loss(a, I([0, 2], [1, 1]), reduction="none"), [(2, 3, 2)], "real",
     _fu.NllLoss),
    ("nll_loss_spatial_mean", lambda a: F.nll_loss(a, I([[0, 2], [1, 1]], [[2, 2], [0, 1]])), [(2, 3, 2, 2)],
     "real", _fu.NllLoss),
    ("nll_loss_weight_ignore", lambda a: F.nll_loss(a, I(0, 2, 1, 2), weight=T([0.5, 2.0, 1.5]), ignore_index=1),
     [(4, 3)], "real", _fu.NllLoss),
    ("nll_loss_all_ignored", lambda a: F.nll_loss(a, I(1, 1), ignore_index=1), [(2, 3)], "real", _fu.NllLoss),
    ("cross_entropy_spatial", lambda a: F.cross_entropy(a, I([0, 2], [1, 0])), [(2, 3, 2)], "real", _fu.NllLoss),
    ("cross_entropy_1d_smoothing", lambda a: F.cross_entropy(a, D.tensor(1), label_smoothing=0.1), [(3,)], "real",
     _fu.NllLoss),
    ("log_sigmoid_0d", lambda a: _fu.log_sigmoid(a), [()], "real", _fu._LogSigmoid),
    ("smooth_l1_broadcast", lambda a, b: _fu.SmoothL1.apply(a, b, 0.5), [(2, 3), (3,)], "real", _fu.SmoothL1),
    ("smooth_l1_mean", lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), [(2, 3), (2, 3)], "real", _fu.SmoothL1),
    ("huber", lambda a, b: F.huber_loss(a, b, delta=0.7), [(4,), (4,)], "real", _fu.SmoothL1),
    ("bce_weighted_mean", lambda a, b, w: F.binary_cross_entropy(D.sigmoid(a), D.sigmoid(b), weight=w.abs()),
     [(2, 3), (2, 3), (3,)], "real", _fu.BinaryCrossEntropy),
    ("layer_norm_affine_2d", lambda a, w, b: F.layer_norm(a, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)], "real",
     _fu.NormalizeStats),
    ("batch_norm_training", lambda a: F.batch_norm(a, None, None, training=True), [(4, 3)], "real",
     _fu.NormalizeStats),
    ("group_norm", lambda a: F.group_norm(a, 2), [(2, 4, 3)], "real", _fu.NormalizeStats),
]

VMAP_REDUCTION: list[OpInfo] = rule_infos(TABLE_ROWS, "vmap_reduction", overrides={
    **{n: {"differentiable": False} for n in ("argmax_all", "argmax_all_keepdim", "argmax_0d", "all_any_count_nonzero")},
    "nll_loss_all_ignored": {"skips": {c: "every target is ignored: the loss is nan (0/0, as PyTorch's), so numerical "
                                          "derivatives are nan" for c in ("gradcheck", "gradgradcheck", "forward_ad")}},
})

#: the families of this module (see tests/op_db/__init__.py)
FAMILIES = {"vmap_reduction": VMAP_REDUCTION}
