"""The 3-d convolution, 3-d pooling and spatial-transformer family of the op database:
``conv3d``, ``conv_transpose3d``, ``max_pool3d``, ``avg_pool3d``, ``adaptive_avg_pool3d``,
``grid_sample`` (every mode, padding mode and align_corners setting PyTorch has, 4-d and
5-d) and ``affine_grid``. Golden values in tests/golden/nn_conv3d.npz
(tests/golden/gen_nn_conv3d.py). The entry type is tests/op_db/info.py.

Entries are written once for both libraries, ``f(F, *inputs)`` with ``F`` the library's
``nn.functional``. Inputs are ``(kind, shape)``: ``X`` standard normal, ``G`` a sampling grid
uniform in (-1.2, 1.2) (so some points fall outside the input and exercise the padding
modes), ``T`` affine matrices near the identity; all float64 and differentiated.
"""

from __future__ import annotations

import os

import numpy as np

import dyngrad.nn.functional as _F
from dyngrad.ops import conv as _conv
from dyngrad.ops import grid_sample as _gs
from tests.op_db.info import OpInfo, skip

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "nn_conv3d.npz")
X, G, T = "x", "g", "t"


def _draw(rng: np.random.Generator, kind: str, shape: tuple) -> np.ndarray:
    if kind == G:
        return rng.uniform(-1.2, 1.2, size=shape)
    if kind == T:
        n, r, c = shape
        return np.concatenate([np.eye(r), np.zeros((r, 1))], axis=1)[None] + 0.3 * rng.standard_normal(shape)
    return rng.standard_normal(shape)


def N(name: str, f, inputs: list, **kw) -> OpInfo:  # noqa: ANN001
    """An entry ``f(F, *inputs)`` whose inputs are ``(kind, shape)``; gradgradcheck in fast
    mode unless ``gradgrad_fast=False``."""
    kinds = [(i[0], tuple(i[1])) for i in inputs]
    kw.setdefault("gradgrad_fast", True)
    return OpInfo(name, lambda *a: f(_F, *a), lambda torch, *a: f(torch.nn.functional, *a),
                  shapes=tuple(s for _, s in kinds),
                  make_inputs=lambda rng, shapes: tuple(_draw(rng, kind, s) for (kind, _), s in zip(kinds, shapes)),
                  rtol=1e-7, atol=1e-10, grad_rtol=1e-4, grad_atol=1e-5, zero_dim=False, zero_size=False,
                  int_result=None, **kw)


def _gs_entry(name: str, mode: str, pad: str, align: bool, nd: int, own_jvp: bool = False, **kw) -> OpInfo:
    """A grid_sample entry; ``own_jvp``: name the Function (gradcheck then also checks the
    forward-mode Jacobian, and forward_ad asserts its jvp ran); off for most to keep the
    default suite fast (the full matrix is in tests/oracle/test_conv3d_oracle.py, slow)."""
    xs, gs = ((1, 2, 3, 3), (1, 2, 2, 2)) if nd == 2 else ((1, 1, 2, 3, 3), (1, 1, 2, 2, 3))
    return N(name, lambda F, x, g: F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=align),
             [(X, xs), (G, gs)], function=(_gs.GridSampler2d if nd == 2 else _gs.GridSampler3d) if own_jvp else None,
             **kw)


SPECS = [
    N("conv3d", lambda F, x, w, b: F.conv3d(x, w, b, stride=1, padding=1),
      [(X, (1, 2, 2, 3, 2)), (X, (2, 2, 2, 2, 1)), (X, (2,))], function=_conv.Conv2dFn),
    N("conv3d_stride_dil_groups", lambda F, x, w: F.conv3d(x, w, None, stride=(2, 1, 1), padding=(1, 0, 1),
                                                           dilation=(1, 2, 1), groups=2),
      [(X, (1, 4, 3, 3, 2)), (X, (2, 2, 1, 2, 2))]),
    N("conv3d_same_unbatched", lambda F, x, w: F.conv3d(x, w, padding="same", dilation=(1, 1, 2)),
      [(X, (2, 2, 3, 3)), (X, (1, 2, 1, 2, 2))]),
    N("conv_transpose3d", lambda F, x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1),
      [(X, (1, 2, 2, 2, 1)), (X, (2, 2, 2, 2, 2)), (X, (2,))]),
    N("conv_transpose3d_groups_dilation", lambda F, x, w: F.conv_transpose3d(x, w, None, stride=(1, 2, 1),
                                                                            output_padding=(1, 0, 0), groups=2,
                                                                            dilation=(2, 1, 1)),
      [(X, (1, 2, 2, 1, 2)), (X, (2, 1, 2, 2, 1))]),
    N("max_pool3d", lambda F, x: F.max_pool3d(x, 2),
      [(X, (1, 2, 2, 4, 3))], function=_conv.TakeFlat3d),
    N("max_pool3d_pad_stride_ceil", lambda F, x: F.max_pool3d(x, (3, 2, 2), stride=(2, 1, 2), padding=1,
                                                              ceil_mode=True),
      [(X, (1, 1, 4, 3, 3))]),
    N("avg_pool3d", lambda F, x: F.avg_pool3d(x, 2),
      [(X, (1, 2, 2, 4, 3))]),
    N("avg_pool3d_pad_nocount_ceil", lambda F, x: F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                               count_include_pad=False),
      [(X, (1, 1, 3, 3, 4))]),
    N("adaptive_avg_pool3d", lambda F, x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
      [(X, (1, 2, 5, 4, 3))]),
    _gs_entry("grid_sample_bilinear_zeros", "bilinear", "zeros", False, 2, own_jvp=True),
    _gs_entry("grid_sample_bilinear_border_aligned", "bilinear", "border", True, 2),
    _gs_entry("grid_sample_nearest_reflection_aligned", "nearest", "reflection", True, 2),
    _gs_entry("grid_sample_bicubic_zeros_aligned", "bicubic", "zeros", True, 2, own_jvp=True),
    _gs_entry("grid_sample_bicubic_reflection", "bicubic", "reflection", False, 2),
    _gs_entry("grid_sample_3d_bilinear_zeros", "bilinear", "zeros", False, 3, own_jvp=True),
    _gs_entry("grid_sample_3d_nearest_border", "nearest", "border", False, 3),
    # (reflection with bilinear, 4-d and 5-d, is in tests/oracle/test_conv3d_oracle.py's live matrix and
    # tests/nn/test_conv3d_grid.py)
    N("affine_grid", lambda F, t: F.affine_grid(t, (2, 1, 2, 3), align_corners=False),
      [(T, (2, 2, 3))]),
    N("affine_grid_3d_aligned", lambda F, t: F.affine_grid(t, (1, 1, 2, 2, 3), align_corners=True),
      [(T, (1, 3, 4))]),
]

skip(SPECS, ("conv3d", "conv_transpose3d", "avg_pool3d", "avg_pool3d_pad_nocount_ceil", "adaptive_avg_pool3d",
             "affine_grid", "affine_grid_3d_aligned"),
     "PyTorch records one native node (ConvolutionBackward0, AvgPool3DBackward0, AdaptiveAvgPool3DBackward0, "
     "AffineGridGeneratorBackward0); dyngrad's functional composes the op, so the bias add, division, reshape or "
     "matmul comes last", "node_name")
