"""The nn.functional family of the op database (moved from tests/nn/cases.py): losses,
normalisations, convolutions, pooling, embedding, padding. Golden values in
tests/golden/nn_functional.npz (tests/golden/gen_nn_functional.py). The entry type is
tests/op_db/info.py.

Each entry is written once for both libraries, ``f(F, *inputs)`` with ``F`` the library's
``nn.functional``, and declares its inputs as ``(kind, shape[, extra])``: kind ``X`` float64
(differentiated), ``C`` a float64 constant, ``I`` int64 indices in ``[0, extra)``, ``P``
probabilities in (0.05, 0.95) (differentiated), ``PC`` the same as a constant, ``D`` a constant
probability distribution along dim 1, ``POS`` in (0.5, 2) (a constant when ``extra`` is
``"const"``). Constants take no gradient, no tangent and are not batched by vmap.
"""

from __future__ import annotations

import os

import numpy as np

import dyngrad.nn.functional as _F
from dyngrad.ops import conv as _conv
from dyngrad.ops import fused as _fused
from dyngrad.ops import linalg as _la
from tests.op_db.info import OpInfo, skip

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "nn_functional.npz")
X, C, I, P, PC, D, POS = "x", "c", "i", "p", "pc", "d", "pos"  # noqa: E741
_CONSTANT = (C, PC, D)
#: the entries that take the full gradgradcheck (the old table's); the others take fast mode
FULL_GRADGRAD = frozenset({'adaptive_avg_pool2d', 'avg_pool2d', 'batch_norm_train', 'bce', 'bce_logits', 'bilinear', 'conv1d', 'conv2d', 'cosine_similarity', 'cross_entropy', 'cross_entropy_none', 'cross_entropy_probs', 'cross_entropy_smooth', 'embedding', 'group_norm', 'kl_div_batchmean', 'layer_norm', 'linear', 'linear_nobias', 'log_softmax', 'log_softmax_0', 'logsigmoid', 'max_pool2d', 'mse_loss', 'nll_loss', 'normalize', 'softmax_dim1', 'softmax_dim_neg'})


def _draw(rng: np.random.Generator, kind: str, shape: tuple, extra: object) -> np.ndarray:
    if kind == I:
        return rng.integers(0, extra, size=shape).astype(np.int64)
    if kind in (P, PC):
        return rng.uniform(0.05, 0.95, size=shape)
    if kind == D:
        e = np.exp(rng.standard_normal(shape))
        return e / e.sum(axis=1, keepdims=True)
    if kind == POS:
        return rng.uniform(0.5, 2.0, size=shape)
    return rng.standard_normal(shape)


def N(name: str, f, inputs: list, nogc: bool = False, **kw) -> OpInfo:  # noqa: ANN001
    """An entry ``f(F, *inputs)`` whose inputs are ``(kind, shape[, extra])``; ``nogc``: the
    padding row of an embedding (no numerical derivative checks). Entries outside
    ``FULL_GRADGRAD`` take gradgradcheck in fast mode."""
    kinds = [(i[0], tuple(i[1]), i[2] if len(i) > 2 else None) for i in inputs]
    constant = tuple(k for k, (kind, _, extra) in enumerate(kinds) if kind in _CONSTANT or extra == "const")
    kw.setdefault("skips", {})
    if nogc:
        kw["skips"].update({c: "padding_idx's row gets no gradient by definition (as in PyTorch) though the "
                               "output depends on it: numerical derivatives disagree on that row"
                            for c in ("gradcheck", "gradgradcheck", "forward_ad")})
    return OpInfo(name, lambda *a: f(_F, *a), lambda torch, *a: f(torch.nn.functional, *a),
                  shapes=tuple(s for _, s, _ in kinds),
                  make_inputs=lambda rng, shapes: tuple(_draw(rng, kind, s, extra)
                                                        for (kind, _, extra), s in zip(kinds, shapes)),
                  constant=constant, rtol=1e-7, atol=1e-10, grad_rtol=1e-4, grad_atol=1e-5, zero_dim=False,
                  zero_size=False, int_result=None, gradgrad_fast=name not in FULL_GRADGRAD, **kw)


SPECS = [
    N("linear", lambda F, x, w, b: F.linear(x, w, b),
      [(X, (2, 3, 4)), (X, (5, 4)), (X, (5,))], function=_F.Addmm, formerly=('jvp_rules:linear',)),
    N("linear_nobias", lambda F, x, w: F.linear(x, w),
      [(X, (3, 4)), (X, (2, 4))], function=_la.Mm, formerly=('jvp_rules:linear_no_bias',)),
    N("bilinear", lambda F, a, b, w, bias: F.bilinear(a, b, w, bias),
      [(X, (3, 2)), (X, (3, 4)), (X, (5, 2, 4)), (X, (5,))]),
    N("softmax_dim1", lambda F, x: F.softmax(x, dim=1),
      [(X, (3, 4, 2))], function=_fused.Softmax, formerly=('jvp_rules:softmax', 'jvp_ops:softmax')),
    N("softmax_dim_neg", lambda F, x: F.softmax(x, -1),
      [(X, (2, 5))]),
    N("log_softmax", lambda F, x: F.log_softmax(x, dim=1),
      [(X, (3, 4))]),
    N("log_softmax_0", lambda F, x: F.log_softmax(x, 0),
      [(X, (4, 3))], function=_fused.LogSoftmax, formerly=('jvp_rules:log_softmax', 'jvp_ops:log_softmax')),
    N("cross_entropy", lambda F, x, t: F.cross_entropy(x, t),
      [(X, (5, 4)), (I, (5,), 4)], function=_fused.NllLoss, formerly=('jvp_rules:cross_entropy',)),
    N("cross_entropy_sum", lambda F, x, t: F.cross_entropy(x, t, reduction="sum"),
      [(X, (5, 4)), (I, (5,), 4)]),
    N("cross_entropy_none", lambda F, x, t: F.cross_entropy(x, t, reduction="none"),
      [(X, (5, 4)), (I, (5,), 4)]),
    N("cross_entropy_weight", lambda F, x, t, w: F.cross_entropy(x, t, weight=w),
      [(X, (6, 3)), (I, (6,), 3), (POS, (3,), "const")]),
    N("cross_entropy_ignore", lambda F, x, t: F.cross_entropy(x, t, ignore_index=1),
      [(X, (8, 3)), (I, (8,), 3)]),
    N("cross_entropy_smooth", lambda F, x, t: F.cross_entropy(x, t, label_smoothing=0.2),
      [(X, (5, 4)), (I, (5,), 4)]),
    N("cross_entropy_smooth_w_ign", lambda F, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=0, label_smoothing=0.1),
      [(X, (7, 3)), (I, (7,), 3), (POS, (3,), "const")]),
    N("cross_entropy_smooth_none", lambda F, x, t: F.cross_entropy(x, t, reduction="none", label_smoothing=0.3, ignore_index=2),
      [(X, (6, 3)), (I, (6,), 3)]),
    N("cross_entropy_probs", lambda F, x, t: F.cross_entropy(x, t),
      [(X, (4, 3)), (D, (4, 3))]),
    N("cross_entropy_probs_smooth_w", lambda F, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.25),
      [(X, (4, 3)), (D, (4, 3)), (POS, (3,), "const")]),
    N("cross_entropy_probs_none", lambda F, x, t: F.cross_entropy(x, t, reduction="none"),
      [(X, (4, 3)), (D, (4, 3))]),
    N("cross_entropy_nd", lambda F, x, t: F.cross_entropy(x, t),
      [(X, (2, 3, 2, 2)), (I, (2, 2, 2), 3)]),
    N("cross_entropy_1d", lambda F, x, t: F.cross_entropy(x, t),
      [(X, (4,)), (I, (), 4)]),
    N("nll_loss", lambda F, x, t: F.nll_loss(x, t),
      [(X, (5, 4)), (I, (5,), 4)], function=_fused.NllLoss, formerly=('jvp_rules:nll_loss_mean',)),
    N("nll_loss_weight_none", lambda F, x, t, w: F.nll_loss(x, t, weight=w, reduction="none"),
      [(X, (5, 4)), (I, (5,), 4), (POS, (4,), "const")]),
    N("mse_loss", lambda F, a, b: F.mse_loss(a, b),
      [(X, (3, 4)), (X, (3, 4))]),
    N("mse_loss_sum", lambda F, a, b: F.mse_loss(a, b, reduction="sum"),
      [(X, (3, 4)), (C, (3, 4))]),
    N("l1_loss", lambda F, a, b: F.l1_loss(a, b),
      [(X, (3, 4)), (X, (3, 4))]),
    N("smooth_l1_loss", lambda F, a, b: F.smooth_l1_loss(a, b, beta=0.5),
      [(X, (4, 5)), (X, (4, 5))]),
    N("smooth_l1_loss_none", lambda F, a, b: F.smooth_l1_loss(a, b, reduction="none"),
      [(X, (4, 5)), (C, (4, 5))]),
    N("huber_loss", lambda F, a, b: F.huber_loss(a, b, delta=0.7),
      [(X, (4, 5)), (X, (4, 5))]),
    N("bce", lambda F, p, t: F.binary_cross_entropy(p, t),
      [(P, (3, 4)), (PC, (3, 4))]),
    N("bce_weight_sum", lambda F, p, t, w: F.binary_cross_entropy(p, t, weight=w, reduction="sum"),
      [(P, (3, 4)), (P, (3, 4)), (POS, (4,), "const")]),
    N("bce_logits", lambda F, x, t: F.binary_cross_entropy_with_logits(x, t),
      [(X, (3, 4)), (P, (3, 4))]),
    N("bce_logits_pos_weight", lambda F, x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw),
      [(X, (3, 4)), (PC, (3, 4)), (POS, (3, 1), "const"), (POS, (4,), "const")]),
    N("kl_div_batchmean", lambda F, x, t: F.kl_div(x, t, reduction="batchmean"),
      [(X, (3, 4)), (P, (3, 4))]),
    N("kl_div_log_target_sum", lambda F, x, t: F.kl_div(x, t, reduction="sum", log_target=True),
      [(X, (3, 4)), (X, (3, 4))]),
    N("cosine_similarity", lambda F, a, b: F.cosine_similarity(a, b),
      [(X, (3, 5)), (X, (3, 5))]),
    N("cosine_similarity_bcast", lambda F, a, b: F.cosine_similarity(a, b, dim=-1),
      [(X, (2, 3, 4)), (X, (3, 4))]),
    N("normalize", lambda F, x: F.normalize(x),
      [(X, (3, 4))]),
    N("normalize_p1_dim0", lambda F, x: F.normalize(x, p=1.0, dim=0),
      [(X, (3, 4))]),
    N("layer_norm", lambda F, x, w, b: F.layer_norm(x, (4,), w, b),
      [(X, (3, 4)), (X, (4,)), (X, (4,))]),
    N("layer_norm_2d", lambda F, x: F.layer_norm(x, (3, 4), eps=1e-3),
      [(X, (2, 3, 4))]),
    N("batch_norm_train", lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
      [(X, (4, 3, 2)), (X, (3,)), (X, (3,))]),
    N("batch_norm_eval", lambda F, x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=False),
      [(X, (4, 3)), (C, (3,)), (POS, (3,), "const"), (X, (3,)), (X, (3,))]),
    N("group_norm", lambda F, x, w, b: F.group_norm(x, 2, w, b),
      [(X, (2, 4, 3)), (X, (4,)), (X, (4,))]),
    N("embedding", lambda F, i, w: F.embedding(i, w),
      [(I, (2, 3), 5), (X, (5, 3))]),
    N("embedding_padding", lambda F, i, w: F.embedding(i, w, padding_idx=1),
      [(I, (7,), 4), (X, (4, 2))], nogc=True),
    N("conv2d", lambda F, x, w, b: F.conv2d(x, w, b, stride=1, padding=1),
      [(X, (2, 2, 5, 5)), (X, (3, 2, 3, 3)), (X, (3,))]),
    N("conv2d_stride_dil_groups", lambda F, x, w: F.conv2d(x, w, None, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
      [(X, (1, 4, 6, 5)), (X, (4, 2, 2, 3))]),
    N("conv2d_same", lambda F, x, w: F.conv2d(x, w, padding="same", dilation=2),
      [(X, (1, 2, 5, 6)), (X, (2, 2, 2, 3))]),
    N("conv2d_valid_unbatched", lambda F, x, w: F.conv2d(x, w, padding="valid"),
      [(X, (2, 4, 4)), (X, (1, 2, 3, 2))]),
    N("conv1d", lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
      [(X, (2, 3, 7)), (X, (4, 3, 3)), (X, (4,))]),
    N("conv1d_same", lambda F, x, w: F.conv1d(x, w, padding="same"),
      [(X, (1, 2, 6)), (X, (2, 2, 4))]),
    N("max_pool2d", lambda F, x: F.max_pool2d(x, 2),
      [(X, (2, 2, 4, 5))], function=_conv.TakeFlat, formerly=('jvp_rules:max_pool2d',)),
    N("max_pool2d_pad_stride", lambda F, x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=1),
      [(X, (1, 2, 5, 4))]),
    N("max_pool2d_dilation", lambda F, x: F.max_pool2d(x, 2, stride=1, dilation=2),
      [(X, (1, 1, 5, 5))]),
    N("avg_pool2d", lambda F, x: F.avg_pool2d(x, 2),
      [(X, (2, 2, 4, 5))]),
    N("avg_pool2d_pad_nocount", lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
      [(X, (1, 2, 5, 6))]),
    N("avg_pool2d_pad_count", lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1),
      [(X, (1, 2, 5, 6))]),
    N("adaptive_avg_pool2d", lambda F, x: F.adaptive_avg_pool2d(x, (3, 2)),
      [(X, (2, 2, 7, 5))]),
    N("adaptive_avg_pool2d_1", lambda F, x: F.adaptive_avg_pool2d(x, 1),
      [(X, (2, 3, 4, 4))]),
    N("pad_constant", lambda F, x: F.pad(x, (1, 2, 0, 1), value=0.5),
      [(X, (2, 3, 4))]),
    N("pad_negative", lambda F, x: F.pad(x, (-1, 2)),
      [(X, (2, 4))]),
    N("logsigmoid", lambda F, x: F.logsigmoid(x * 10),
      [(X, (3, 4))]),
    N("softmin", lambda F, x: F.softmin(x, 1),
      [(X, (3, 4))]),
]

skip(SPECS, ("mse_loss", "mse_loss_sum", "smooth_l1_loss", "huber_loss", "bce", "bce_weight_sum", "bce_logits",
             "bce_logits_pos_weight"), "PyTorch records one fused loss node (MseLossBackward0, ...); dyngrad "
     "composes the loss and its reduction, so its last node is the reduction's", "node_name")
skip(SPECS, ("batch_norm_train", "batch_norm_eval", "layer_norm", "group_norm", "conv1d", "conv1d_same", "conv2d",
             "avg_pool2d", "avg_pool2d_pad_nocount", "avg_pool2d_pad_count", "adaptive_avg_pool2d",
             "adaptive_avg_pool2d_1"), "PyTorch records one native node (NativeBatchNormBackward0, "
     "ConvolutionBackward0, AvgPool2DBackward0, ...); dyngrad's functional composes the op, so the affine add, "
     "squeeze, division or reshape comes last", "node_name")
skip(SPECS, ("bilinear",), "PyTorch's bilinear is a composite whose last node "
     "depends on the shapes (ViewBackward0, AddBackward0)", "node_name")
skip(SPECS, ("cross_entropy_nd",), "PyTorch switches to its NllLoss2d kernel for 4-d input (NllLoss2DBackward0); "
     "dyngrad has one NllLoss node", "node_name")
skip(SPECS, ("cross_entropy_probs", "cross_entropy_probs_smooth_w"), "PyTorch divides by a Python number "
     "(DivBackward1); dyngrad's division node is the tensor one (DivBackward0)", "node_name")
