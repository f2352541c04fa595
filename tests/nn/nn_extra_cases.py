"""Cases shared by tests/nn/test_nn_extra.py and tests/golden/gen_nn_extra.py: the issue-13
norms, sliding blocks, pooling and losses. Each case is (name, function name in
nn.functional, inputs, kwargs); an input is (kind, shape[, arg]) drawn in NumPy by
``draw``: 'n' normal and 'p' positive (both differentiable), 's' signs +-1, 'u' uniform
[0, 1), 'c' Poisson counts, 'q' positive constants (not differentiable), 'i' int64
classes below ``arg``, 'm' multi-label targets (labels then -1)."""

from __future__ import annotations

import numpy as np

DIFF = ("n", "p")


def draw(rng: np.random.Generator, kind: str, shape: tuple, arg: int = 0) -> np.ndarray:
    if kind == "n":
        return rng.standard_normal(shape)
    if kind in ("p", "q"):
        return rng.uniform(0.5, 2.0, shape)
    if kind == "s":
        return np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    if kind == "u":
        return rng.random(shape)
    if kind == "c":
        return rng.poisson(2.0, shape).astype(np.float64)
    if kind == "i":
        return rng.integers(0, arg, shape).astype(np.int64)
    if kind == "m":
        n, c = shape
        out = np.full(shape, -1, np.int64)
        for r in range(n):
            k = int(rng.integers(0, c + 1))
            out[r, :k] = rng.permutation(c)[:k]
        return out
    raise ValueError(kind)


CASES = [
    ("instance_norm_1d", "instance_norm", [("n", (2, 3, 5))], {}),
    ("instance_norm_2d_affine", "instance_norm", [("n", (2, 3, 4, 5)), ("q", (3,)), ("q", (3,)), ("n", (3,)),
                                                  ("n", (3,))], {"use_input_stats": True, "eps": 1e-3}),
    ("instance_norm_3d_eval", "instance_norm", [("n", (2, 2, 3, 2, 3)), ("u", (2,)), ("q", (2,)), ("n", (2,)),
                                                ("n", (2,))], {"use_input_stats": False}),
    ("rms_norm_last", "rms_norm", [("n", (3, 4))], {"normalized_shape": [4], "weight": ("n", (4,)), "eps": 1e-6}),
    ("rms_norm_two_dims_default_eps", "rms_norm", [("n", (2, 3, 4))], {"normalized_shape": (3, 4)}),
    ("local_response_norm_3d", "local_response_norm", [("n", (2, 5, 4))], {"size": 3}),
    ("local_response_norm_4d_even", "local_response_norm", [("n", (2, 6, 3, 2))],
     {"size": 4, "alpha": 0.1, "beta": 0.6, "k": 2.0}),
    ("unfold_basic", "unfold", [("n", (2, 3, 4, 5))], {"kernel_size": 2}),
    ("unfold_all_args", "unfold", [("n", (2, 2, 6, 7))],
     {"kernel_size": (2, 3), "dilation": (2, 1), "padding": (1, 2), "stride": (2, 3)}),
    ("unfold_unbatched", "unfold", [("n", (2, 4, 4))], {"kernel_size": 3, "padding": 1}),
    ("fold_basic", "fold", [("n", (2, 12, 12))], {"output_size": (4, 5), "kernel_size": 2}),
    ("fold_all_args", "fold", [("n", (1, 12, 6))],
     {"output_size": (5, 6), "kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": 2}),
    ("adaptive_max_pool2d_uneven", "adaptive_max_pool2d", [("n", (2, 3, 7, 5))], {"output_size": (3, 4)}),
    ("adaptive_max_pool2d_none", "adaptive_max_pool2d", [("n", (3, 5, 6))], {"output_size": (2, None)}),
    ("adaptive_max_pool1d", "adaptive_max_pool1d", [("n", (2, 3, 10))], {"output_size": 4}),
    ("adaptive_avg_pool1d", "adaptive_avg_pool1d", [("n", (2, 3, 10))], {"output_size": 3}),
    ("lp_pool2d", "lp_pool2d", [("p", (2, 3, 5, 6))], {"norm_type": 2, "kernel_size": 2}),
    ("lp_pool2d_stride_ceil", "lp_pool2d", [("p", (1, 2, 5, 5))],
     {"norm_type": 3.0, "kernel_size": (2, 3), "stride": 2, "ceil_mode": True}),
    ("lp_pool1d", "lp_pool1d", [("p", (2, 3, 7))], {"norm_type": 1.5, "kernel_size": 3, "stride": 2}),
    ("channel_shuffle", "channel_shuffle", [("n", (2, 6, 3))], {"groups": 3}),
    ("margin_ranking_loss", "margin_ranking_loss", [("n", (6,)), ("n", (6,)), ("s", (6,))], {"margin": 0.3}),
    ("margin_ranking_loss_none", "margin_ranking_loss", [("n", (6,)), ("n", (6,)), ("s", (6,))],
     {"reduction": "none"}),
    ("hinge_embedding_loss", "hinge_embedding_loss", [("n", (4, 5)), ("s", (4, 5))], {"margin": 0.7}),
    ("hinge_embedding_loss_sum", "hinge_embedding_loss", [("n", (4, 5)), ("s", (4, 5))], {"reduction": "sum"}),
    ("soft_margin_loss", "soft_margin_loss", [("n", (4, 5)), ("s", (4, 5))], {}),
    ("cosine_embedding_loss", "cosine_embedding_loss", [("n", (5, 4)), ("n", (5, 4)), ("s", (5,))],
     {"margin": 0.2}),
    ("cosine_embedding_loss_1d_none", "cosine_embedding_loss", [("n", (4,)), ("n", (4,)), ("s", ())],
     {"reduction": "none"}),
    ("triplet_margin_loss", "triplet_margin_loss", [("n", (5, 4)), ("n", (5, 4)), ("n", (5, 4))], {}),
    ("triplet_margin_loss_p1_swap", "triplet_margin_loss", [("n", (5, 4)), ("n", (5, 4)), ("n", (5, 4))],
     {"p": 1, "swap": True, "margin": 2.0, "reduction": "sum"}),
    ("poisson_nll_loss", "poisson_nll_loss", [("n", (4, 3)), ("c", (4, 3))], {}),
    ("poisson_nll_loss_full_nolog", "poisson_nll_loss", [("p", (4, 3)), ("c", (4, 3))],
     {"log_input": False, "full": True, "reduction": "none"}),
    ("gaussian_nll_loss", "gaussian_nll_loss", [("n", (4, 3)), ("n", (4, 3)), ("p", (4, 3))], {}),
    ("gaussian_nll_loss_homoscedastic_full", "gaussian_nll_loss", [("n", (4, 3)), ("n", (4, 3)), ("p", (4,))],
     {"full": True, "reduction": "sum"}),
    ("gaussian_nll_loss_clamped", "gaussian_nll_loss", [("n", (4, 3)), ("n", (4, 3)), ("p", (4, 1))],
     {"eps": 1.0, "reduction": "none"}),
    ("multi_margin_loss", "multi_margin_loss", [("n", (5, 4)), ("i", (5,), 4)], {}),
    ("multi_margin_loss_p2_weight", "multi_margin_loss", [("n", (5, 4)), ("i", (5,), 4)],
     {"p": 2, "margin": 0.5, "reduction": "none", "weight": ("q", (4,))}),
    ("multilabel_margin_loss", "multilabel_margin_loss", [("n", (5, 4)), ("m", (5, 4))], {}),
    ("multilabel_margin_loss_none", "multilabel_margin_loss", [("n", (5, 4)), ("m", (5, 4))],
     {"reduction": "none"}),
    ("multilabel_soft_margin_loss", "multilabel_soft_margin_loss", [("n", (5, 4)), ("u", (5, 4))], {}),
    ("multilabel_soft_margin_loss_weight", "multilabel_soft_margin_loss", [("n", (5, 4)), ("u", (5, 4))],
     {"weight": ("q", (4,)), "reduction": "none"}),
    ("lp_pool2d_inf", "lp_pool2d", [("n", (1, 2, 4, 5))], {"norm_type": float("inf"), "kernel_size": 2}),
    ("lp_pool1d_minus_inf", "lp_pool1d", [("n", (2, 7))], {"norm_type": -float("inf"), "kernel_size": 3}),
]


def materialise(rng: np.random.Generator, inputs: list, kw: dict) -> tuple[list, dict]:
    """The NumPy arrays of a case's inputs, and its kwargs with drawn tensors (a kwarg given
    as a (kind, shape) pair) as arrays."""
    arrays = [draw(rng, *spec) for spec in inputs]
    kwargs = {k: (draw(rng, *v) if isinstance(v, tuple) and v and isinstance(v[0], str) else v)
              for k, v in kw.items()}
    return arrays, kwargs


# (name, nn layer, constructor kwargs, input shape): stepped twice in training, then once in
# eval (tests/golden/gen_nn_extra.py records outputs and the final state dict).
STATEFUL = [
    ("in1d_tracked", "InstanceNorm1d", {"num_features": 3, "affine": True, "track_running_stats": True}, (4, 3, 6)),
    ("in2d_cumulative", "InstanceNorm2d", {"num_features": 2, "track_running_stats": True, "momentum": None},
     (3, 2, 4, 3)),
    ("in3d_unbatched", "InstanceNorm3d", {"num_features": 2, "affine": True, "bias": False}, (2, 3, 2, 4)),
    ("bn3d", "BatchNorm3d", {"num_features": 3, "momentum": 0.3}, (2, 3, 2, 3, 2)),
    ("bn3d_cumulative_nobias", "BatchNorm3d", {"num_features": 2, "momentum": None, "bias": False}, (3, 2, 2, 2, 3)),
    ("rmsnorm", "RMSNorm", {"normalized_shape": [3, 4]}, (2, 3, 4)),
    ("lrn", "LocalResponseNorm", {"size": 2}, (2, 4, 3)),
]
