"""One table of nn.functional cases, shared by the golden generator (run with
``torch.nn.functional``) and the tests (run with ``dyngrad.nn.functional``).

Each case: ``name -> (fn(F, *tensors), inputs, flags)``. ``inputs`` is a list of
``(kind, shape, extra)``: kind 'x' float64 requiring grad, 'c' float64 constant, 'i' int64
indices in ``[0, extra)``, 'p' probabilities in (0.05, 0.95) requiring grad, 'pc' the same
as a constant, 'd' a constant probability distribution along dim 1, 'pos' positive
requiring grad. flags: 'gg' also gradgradcheck, 'nogc' skip gradcheck (non-smooth points).
Inputs are drawn from one seeded NumPy generator in table order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

X, C, I, P, PC, D, POS = "x", "c", "i", "p", "pc", "d", "pos"  # noqa: E741

CASES: dict[str, tuple[Callable, list, set]] = {
    "linear": (
        lambda F, x, w, b: F.linear(x, w, b),
        [(X, (2, 3, 4), None), (X, (5, 4), None), (X, (5,), None)],
        {"gg"},
    ),
    "linear_nobias": (lambda F, x, w: F.linear(x, w), [(X, (3, 4), None), (X, (2, 4), None)], {"gg"}),
    "bilinear": (
        lambda F, a, b, w, bias: F.bilinear(a, b, w, bias),
        [(X, (3, 2), None), (X, (3, 4), None), (X, (5, 2, 4), None), (X, (5,), None)],
        {"gg"},
    ),
    "softmax_dim1": (lambda F, x: F.softmax(x, dim=1), [(X, (3, 4, 2), None)], {"gg"}),
    "softmax_dim_neg": (lambda F, x: F.softmax(x, -1), [(X, (2, 5), None)], {"gg"}),
    "log_softmax": (lambda F, x: F.log_softmax(x, dim=1), [(X, (3, 4), None)], {"gg"}),
    "log_softmax_0": (lambda F, x: F.log_softmax(x, 0), [(X, (4, 3), None)], {"gg"}),
    "cross_entropy": (lambda F, x, t: F.cross_entropy(x, t), [(X, (5, 4), None), (I, (5,), 4)], {"gg"}),
    "cross_entropy_sum": (
        lambda F, x, t: F.cross_entropy(x, t, reduction="sum"),
        [(X, (5, 4), None), (I, (5,), 4)],
        set(),
    ),
    "cross_entropy_none": (
        lambda F, x, t: F.cross_entropy(x, t, reduction="none"),
        [(X, (5, 4), None), (I, (5,), 4)],
        {"gg"},
    ),
    "cross_entropy_weight": (
        lambda F, x, t, w: F.cross_entropy(x, t, weight=w),
        [(X, (6, 3), None), (I, (6,), 3), (POS, (3,), "const")],
        set(),
    ),
    "cross_entropy_ignore": (
        lambda F, x, t: F.cross_entropy(x, t, ignore_index=1),
        [(X, (8, 3), None), (I, (8,), 3)],
        set(),
    ),
    "cross_entropy_smooth": (
        lambda F, x, t: F.cross_entropy(x, t, label_smoothing=0.2),
        [(X, (5, 4), None), (I, (5,), 4)],
        {"gg"},
    ),
    "cross_entropy_smooth_w_ign": (
        lambda F, x, t, w: F.cross_entropy(x, t, weight=w, ignore_index=0, label_smoothing=0.1),
        [(X, (7, 3), None), (I, (7,), 3), (POS, (3,), "const")],
        set(),
    ),
    "cross_entropy_smooth_none": (
        lambda F, x, t: F.cross_entropy(x, t, reduction="none", label_smoothing=0.3, ignore_index=2),
        [(X, (6, 3), None), (I, (6,), 3)],
        set(),
    ),
    "cross_entropy_probs": (
        lambda F, x, t: F.cross_entropy(x, t),
        [(X, (4, 3), None), (D, (4, 3), None)],
        {"gg"},
    ),
    "cross_entropy_probs_smooth_w": (
        lambda F, x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.25),
        [(X, (4, 3), None), (D, (4, 3), None), (POS, (3,), "const")],
        set(),
    ),
    "cross_entropy_probs_none": (
        lambda F, x, t: F.cross_entropy(x, t, reduction="none"),
        [(X, (4, 3), None), (D, (4, 3), None)],
        set(),
    ),
    "cross_entropy_nd": (
        lambda F, x, t: F.cross_entropy(x, t),
        [(X, (2, 3, 2, 2), None), (I, (2, 2, 2), 3)],
        set(),
    ),
    "cross_entropy_1d": (lambda F, x, t: F.cross_entropy(x, t), [(X, (4,), None), (I, (), 4)], set()),
    "nll_loss": (lambda F, x, t: F.nll_loss(x, t), [(X, (5, 4), None), (I, (5,), 4)], {"gg"}),
    "nll_loss_weight_none": (
        lambda F, x, t, w: F.nll_loss(x, t, weight=w, reduction="none"),
        [(X, (5, 4), None), (I, (5,), 4), (POS, (4,), "const")],
        set(),
    ),
    "mse_loss": (lambda F, a, b: F.mse_loss(a, b), [(X, (3, 4), None), (X, (3, 4), None)], {"gg"}),
    "mse_loss_sum": (
        lambda F, a, b: F.mse_loss(a, b, reduction="sum"),
        [(X, (3, 4), None), (C, (3, 4), None)],
        set(),
    ),
    "l1_loss": (lambda F, a, b: F.l1_loss(a, b), [(X, (3, 4), None), (X, (3, 4), None)], set()),
    "smooth_l1_loss": (
        lambda F, a, b: F.smooth_l1_loss(a, b, beta=0.5),
        [(X, (4, 5), None), (X, (4, 5), None)],
        set(),
    ),
    "smooth_l1_loss_none": (
        lambda F, a, b: F.smooth_l1_loss(a, b, reduction="none"),
        [(X, (4, 5), None), (C, (4, 5), None)],
        set(),
    ),
    "huber_loss": (
        lambda F, a, b: F.huber_loss(a, b, delta=0.7),
        [(X, (4, 5), None), (X, (4, 5), None)],
        set(),
    ),
    "bce": (lambda F, p, t: F.binary_cross_entropy(p, t), [(P, (3, 4), None), (PC, (3, 4), None)], {"gg"}),
    "bce_weight_sum": (
        lambda F, p, t, w: F.binary_cross_entropy(p, t, weight=w, reduction="sum"),
        [(P, (3, 4), None), (P, (3, 4), None), (POS, (4,), "const")],
        set(),
    ),
    "bce_logits": (
        lambda F, x, t: F.binary_cross_entropy_with_logits(x, t),
        [(X, (3, 4), None), (P, (3, 4), None)],
        {"gg"},
    ),
    "bce_logits_pos_weight": (
        lambda F, x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, weight=w, pos_weight=pw),
        [(X, (3, 4), None), (PC, (3, 4), None), (POS, (3, 1), "const"), (POS, (4,), "const")],
        set(),
    ),
    "kl_div_batchmean": (
        lambda F, x, t: F.kl_div(x, t, reduction="batchmean"),
        [(X, (3, 4), None), (P, (3, 4), None)],
        {"gg"},
    ),
    "kl_div_log_target_sum": (
        lambda F, x, t: F.kl_div(x, t, reduction="sum", log_target=True),
        [(X, (3, 4), None), (X, (3, 4), None)],
        set(),
    ),
    "cosine_similarity": (
        lambda F, a, b: F.cosine_similarity(a, b),
        [(X, (3, 5), None), (X, (3, 5), None)],
        {"gg"},
    ),
    "cosine_similarity_bcast": (
        lambda F, a, b: F.cosine_similarity(a, b, dim=-1),
        [(X, (2, 3, 4), None), (X, (3, 4), None)],
        set(),
    ),
    "normalize": (lambda F, x: F.normalize(x), [(X, (3, 4), None)], {"gg"}),
    "normalize_p1_dim0": (lambda F, x: F.normalize(x, p=1.0, dim=0), [(X, (3, 4), None)], set()),
    "layer_norm": (
        lambda F, x, w, b: F.layer_norm(x, (4,), w, b),
        [(X, (3, 4), None), (X, (4,), None), (X, (4,), None)],
        {"gg"},
    ),
    "layer_norm_2d": (lambda F, x: F.layer_norm(x, (3, 4), eps=1e-3), [(X, (2, 3, 4), None)], set()),
    "batch_norm_train": (
        lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        [(X, (4, 3, 2), None), (X, (3,), None), (X, (3,), None)],
        {"gg"},
    ),
    "batch_norm_eval": (
        lambda F, x, rm, rv, w, b: F.batch_norm(x, rm, rv, w, b, training=False),
        [(X, (4, 3), None), (C, (3,), None), (POS, (3,), "const"), (X, (3,), None), (X, (3,), None)],
        set(),
    ),
    "group_norm": (
        lambda F, x, w, b: F.group_norm(x, 2, w, b),
        [(X, (2, 4, 3), None), (X, (4,), None), (X, (4,), None)],
        {"gg"},
    ),
    "embedding": (lambda F, i, w: F.embedding(i, w), [(I, (2, 3), 5), (X, (5, 3), None)], {"gg"}),
    "embedding_padding": (
        lambda F, i, w: F.embedding(i, w, padding_idx=1),
        [(I, (7,), 4), (X, (4, 2), None)],
        {"nogc"},
    ),
    "conv2d": (
        lambda F, x, w, b: F.conv2d(x, w, b, stride=1, padding=1),
        [(X, (2, 2, 5, 5), None), (X, (3, 2, 3, 3), None), (X, (3,), None)],
        {"gg"},
    ),
    "conv2d_stride_dil_groups": (
        lambda F, x, w: F.conv2d(x, w, None, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2),
        [(X, (1, 4, 6, 5), None), (X, (4, 2, 2, 3), None)],
        set(),
    ),
    "conv2d_same": (
        lambda F, x, w: F.conv2d(x, w, padding="same", dilation=2),
        [(X, (1, 2, 5, 6), None), (X, (2, 2, 2, 3), None)],
        set(),
    ),
    "conv2d_valid_unbatched": (
        lambda F, x, w: F.conv2d(x, w, padding="valid"),
        [(X, (2, 4, 4), None), (X, (1, 2, 3, 2), None)],
        set(),
    ),
    "conv1d": (
        lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
        [(X, (2, 3, 7), None), (X, (4, 3, 3), None), (X, (4,), None)],
        {"gg"},
    ),
    "conv1d_same": (
        lambda F, x, w: F.conv1d(x, w, padding="same"),
        [(X, (1, 2, 6), None), (X, (2, 2, 4), None)],
        set(),
    ),
    "max_pool2d": (lambda F, x: F.max_pool2d(x, 2), [(X, (2, 2, 4, 5), None)], {"gg"}),
    "max_pool2d_pad_stride": (
        lambda F, x: F.max_pool2d(x, (3, 2), stride=(2, 1), padding=1),
        [(X, (1, 2, 5, 4), None)],
        set(),
    ),
    "max_pool2d_dilation": (
        lambda F, x: F.max_pool2d(x, 2, stride=1, dilation=2),
        [(X, (1, 1, 5, 5), None)],
        set(),
    ),
    "avg_pool2d": (lambda F, x: F.avg_pool2d(x, 2), [(X, (2, 2, 4, 5), None)], {"gg"}),
    "avg_pool2d_pad_nocount": (
        lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
        [(X, (1, 2, 5, 6), None)],
        set(),
    ),
    "avg_pool2d_pad_count": (
        lambda F, x: F.avg_pool2d(x, 3, stride=2, padding=1),
        [(X, (1, 2, 5, 6), None)],
        set(),
    ),
    "adaptive_avg_pool2d": (lambda F, x: F.adaptive_avg_pool2d(x, (3, 2)), [(X, (2, 2, 7, 5), None)], {"gg"}),
    "adaptive_avg_pool2d_1": (lambda F, x: F.adaptive_avg_pool2d(x, 1), [(X, (2, 3, 4, 4), None)], set()),
    "pad_constant": (lambda F, x: F.pad(x, (1, 2, 0, 1), value=0.5), [(X, (2, 3, 4), None)], set()),
    "pad_negative": (lambda F, x: F.pad(x, (-1, 2)), [(X, (2, 4), None)], set()),
    "logsigmoid": (lambda F, x: F.logsigmoid(x * 10), [(X, (3, 4), None)], {"gg"}),
    "softmin": (lambda F, x: F.softmin(x, 1), [(X, (3, 4), None)], set()),
}


def make_inputs(rng: np.random.Generator, spec: list) -> list[tuple[str, np.ndarray]]:
    """Draw the input arrays of one case (same values for torch and dyngrad)."""
    out = []
    for kind, shape, extra in spec:
        if kind == I:
            arr = rng.integers(0, extra, size=shape).astype(np.int64)
        elif kind in (P, PC):
            arr = rng.uniform(0.05, 0.95, size=shape)
        elif kind == D:
            e = np.exp(rng.standard_normal(shape))
            arr = e / e.sum(axis=1, keepdims=True)
        elif kind == POS:
            arr = rng.uniform(0.5, 2.0, size=shape)
            if extra == "const":
                kind = C
        else:
            arr = rng.standard_normal(shape)
        out.append((kind, arr))
    return out


def requires_grad(kind: str) -> bool:
    return kind in (X, P, POS)


def all_inputs(seed: int = 1234) -> dict[str, list[tuple[str, np.ndarray]]]:
    """Inputs of every case, drawn in table order from one generator."""
    rng = np.random.default_rng(seed)
    return {name: make_inputs(rng, spec) for name, (_, spec, _) in CASES.items()}


def cotangent(shape: tuple, seed: int) -> Any:
    return np.random.default_rng(seed).standard_normal(shape)
