"""``conv_transpose1d``, ``conv_transpose2d`` and ``conv_transpose3d`` (PyTorch's
"deconvolution"): the adjoint of ``conv1d``/``conv2d``/``conv3d`` with respect to the input
(``ops/conv_transpose.py``)."""

from __future__ import annotations

from typing import Any

from ..ops.conv_transpose import conv_transpose2d_raw
from ..tensor import Tensor
from ._functional_conv import _ntuple, _single
from ._functional_norm import fused_bias_add

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """2-D transposed convolution (note PyTorch's argument order: ``groups`` before
    ``dilation``).

    Args:
        input (Tensor): ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kH, kW)``.
        bias (Tensor, optional): ``(C_out)``.
        stride, padding, output_padding, dilation: int or pair; ``output_padding`` adds
            rows/columns to one side of the output and must be smaller than the stride or
            the dilation.
        groups (int): ``C_in`` split into groups.

    Returns:
        Tensor: ``(N, C_out, H_out, W_out)``, ``H_out = (H - 1) stride - 2 padding +
        dilation (kH - 1) + output_padding + 1``.

    Raises:
        RuntimeError: wrong ranks, ``C_in`` not the weight's first dim, channels not divisible
            by ``groups``, ``output_padding`` too large, a non-positive output size, dtypes
            that differ.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> list(F.conv_transpose2d(dyngrad.ones(1, 2, 3, 3), dyngrad.ones(2, 4, 3, 3), stride=2).shape)
        [1, 4, 7, 7]
    """
    return _conv_transposend("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """3-D transposed convolution (``groups`` before ``dilation``, as PyTorch).

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or unbatched ``(C_in, D, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out)``.
        stride, padding, output_padding, dilation: int or triple (as
            :func:`conv_transpose2d`).
        groups (int): ``C_in`` split into groups.

    Returns:
        Tensor: ``(N, C_out, D_out, H_out, W_out)``, ``D_out = (D - 1) stride - 2 padding +
        dilation (kD - 1) + output_padding + 1``.

    Raises:
        RuntimeError: as :func:`conv_transpose2d`.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> list(F.conv_transpose3d(dyngrad.ones(1, 2, 3, 3, 3), dyngrad.ones(2, 4, 3, 3, 3), stride=2).shape)
        [1, 4, 7, 7, 7]
    """
    return _conv_transposend("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


_DIMS = {2: ("height", "width"), 3: ("depth", "height", "width")}


def _conv_transposend(op: str, nd: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                      padding: Any, output_padding: Any, groups: int, dilation: Any) -> Tensor:
    """The ``nd``-d transposed convolution behind :func:`conv_transpose2d` and
    :func:`conv_transpose3d`: checks, then the adjoint of the N-d convolution."""
    unbatched = input.ndim == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    if input.ndim != nd + 2 or weight.ndim != nd + 2:
        raise RuntimeError(
            f"{op}: expected a {nd + 1}-D or {nd + 2}-D input and a {nd + 2}-D weight, got input of shape "
            f"{list(input.shape)} and weight of shape {list(weight.shape)}"
        )
    if input.shape[1] != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(input.shape)} "
            f"to have {weight.shape[0]} channels, but got {input.shape[1]} channels instead"
        )
    if groups < 1 or weight.shape[0] % groups:
        raise RuntimeError(
            f"{op}: the input channels ({weight.shape[0]}) must be divisible by groups ({groups})"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"{op}: Input type ({input.dtype.name}) and weight type ({weight.dtype.name}) should be the same"
        )
    s = _ntuple(stride, nd, "stride", op)
    d = _ntuple(dilation, nd, "dilation", op)
    p = _ntuple(padding, nd, "padding", op)
    op_ = _ntuple(output_padding, nd, "output_padding", op)
    if min(s) < 1 or min(d) < 1 or min(p) < 0 or min(op_) < 0:
        raise RuntimeError(
            f"{op}: stride and dilation must be positive and padding non-negative "
            f"(stride={s}, dilation={d}, padding={p}, output_padding={op_})"
        )
    if any(op_[k] >= s[k] and op_[k] >= d[k] for k in range(nd)):
        names = _DIMS[nd]
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            + " ".join(f"output_padding_{n}: {v}" for n, v in zip(names, op_)) + " "
            + " ".join(f"stride_{n}: {v}" for n, v in zip(names, s)) + " "
            + " ".join(f"dilation_{n}: {v}" for n, v in zip(names, d))
        )
    ks = tuple(weight.shape[2:])
    out_sz = tuple((input.shape[2 + k] - 1) * s[k] - 2 * p[k] + d[k] * (ks[k] - 1) + op_[k] + 1 for k in range(nd))
    if min(out_sz) < 1:
        raise RuntimeError(f"{op}: the output size {list(out_sz)} is too small (non-positive)")
    out = conv_transpose2d_raw(input, weight, s, tuple(v for pk in p for v in (pk, pk)), d, groups, out_sz)
    if bias is not None:
        out = fused_bias_add(out, bias.reshape((1, -1) + (1,) * nd))  # (requires grad as PyTorch's)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """1-D transposed convolution (the gradient of :func:`conv1d` with respect to its input), computed
    as :func:`conv_transpose2d` with height 1; note PyTorch's argument order, ``groups`` before
    ``dilation``.

    Derivative: ``grad_input`` is the convolution of ``grad_output`` with ``weight``;
    ``grad_weight`` correlates ``grad_output`` with ``input``; ``grad_bias = grad_output.sum((0,
    2))`` (PyTorch's ``convolution_backward``).

    Args:
        input (Tensor): ``(N, C_in, L)`` or ``(C_in, L)``.
        weight (Tensor): ``(C_in, C_out / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): Default: ``1``.
        padding (int or tuple): ``dilation * (k - 1) - padding`` zeros are added to each side of the
            input. Default: ``0``.
        output_padding (int or tuple): extra size on one side of the output, smaller than the stride
            or the dilation. Default: ``0``.
        groups (int): ``C_in`` split into groups. Default: ``1``.
        dilation (int or tuple): spacing between kernel elements. Default: ``1``.
    Returns:
        Tensor: ``(N, C_out, L_out)`` or ``(C_out, L_out)``, ``L_out = (L - 1) * stride - 2 *
            padding + dilation * (k - 1) + output_padding + 1``.
    Raises:
        RuntimeError: wrong ranks, ``C_in`` not the weight's first dim, channels not divisible by
            ``groups``, ``output_padding`` too large, a non-positive output size.
        ValueError: a string padding (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> list(F.conv_transpose1d(dyngrad.ones(1, 2, 5), dyngrad.ones(2, 3, 3)).shape)
        [1, 3, 7]
        >>> F.conv_transpose1d(dyngrad.ones(1, 2, 5), dyngrad.ones(2, 3, 3), stride=2, output_padding=1).shape
        dyngrad.Size([1, 3, 12])
    """
    if weight.ndim != 3 or input.ndim not in (2, 3):
        raise RuntimeError(
            f"conv_transpose1d: expected a 2-D or 3-D input and a 3-D weight, got input of shape "
            f"{list(input.shape)} and weight of shape {list(weight.shape)}"
        )

    out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(2), bias, (1, _single(stride)), (0, _single(padding)),
                           (0, _single(output_padding)), groups, (1, _single(dilation)))
    return out.squeeze(-2)
