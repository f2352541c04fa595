"""The transposed convolution as a public op: ``conv_transpose2d`` is the adjoint of
``conv2d`` with respect to its input (``ops/conv.py``'s ``Conv2dInputGrad``), under
PyTorch's node name. Its backward and forward-mode rules are ``Conv2dInputGrad``'s::

    out = conv_t(x, w)            (x: (N, C_in, *S), w: (C_in, C_out / G, *K); 1-d, 2-d, 3-d)
    grad_x = conv(grad, w),   grad_w = conv_w(grad, x)
"""

from __future__ import annotations

from ..tensor import Tensor
from .conv import Conv2dInputGrad, _Geom

__all__: list[str] = []
TENSOR_METHODS: set[str] = set()


class ConvTranspose2dFn(Conv2dInputGrad):
    """``conv_transpose2d`` and ``conv_transpose3d`` (see the module docstring); ``(N, C_in,
    *S) -> (N, C_out, *S_out)``, ``S_out = (S - 1) s - 2 p + d (k - 1) + output_padding + 1``
    per dim."""

    _node_name = "ConvolutionBackward0"


def conv_transpose2d_raw(x: Tensor, w: Tensor, stride: tuple, pad: tuple, dil: tuple, groups: int,
                         out_hw: tuple) -> Tensor:
    """The transposed convolution without bias, arguments normalised (see nn.functional)."""
    return ConvTranspose2dFn.apply(x, w, _Geom(stride, pad, dil, groups), out_hw)
