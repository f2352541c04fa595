"""Convolution and pooling layers: Conv1d, Conv2d, Conv3d (``padding_mode`` zeros, reflect,
replicate, circular), ConvTranspose1d/2d/3d, MaxPool1d/2d/3d, AvgPool1d/2d/3d,
AdaptiveAvgPool2d/3d."""

from __future__ import annotations

import math
from typing import Any

from ..tensor import Tensor
from . import functional as F
from . import init
from .layers import _empty
from .module import Module

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool2d",
           "Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d"]


def _ntuple(v: Any, n: int) -> tuple:
    if isinstance(v, (tuple, list)):
        return tuple(v)
    return (v,) * n


class _ConvNd(Module):
    _nd = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
        output_padding: Any = 0,
    ) -> None:
        super().__init__()
        n = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                f"padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                f"padding_mode='{padding_mode}'"
            )
        if self._transposed and padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.groups, self.padding_mode = groups, padding_mode
        self.output_padding = _ntuple(output_padding, n)
        self.transposed = self._transposed
        wshape = (in_channels, out_channels // groups) if self._transposed else (out_channels, in_channels // groups)
        self.weight = _empty(wshape + self.kernel_size, dtype)
        if bias:
            self.bias = _empty((out_channels,), dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: weight kaiming_uniform_(a=sqrt(5)), bias U(+-1/sqrt(fan_in))."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        n = self._nd
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _padded(self, input: Tensor) -> tuple[Tensor, Any]:
        """``input`` padded by ``padding_mode`` (then the convolution pads nothing), or as is."""
        if self.padding_mode == "zeros":
            return input, self.padding
        n = self._nd
        if self.padding == "valid":
            return input, 0
        if self.padding == "same":
            pads = []
            for k in range(n):
                total = self.dilation[k] * (self.kernel_size[k] - 1)
                pads.append((total // 2, total - total // 2))
        else:
            pads = [(p, p) for p in self.padding]
        flat = [v for pair in reversed(pads) for v in pair]  # F.pad: last dim first
        return F.pad(input, flat, mode=self.padding_mode), 0


_DIMS = {1: ("L",), 2: ("H", "W"), 3: ("D", "H", "W")}
_KERNEL = {1: "a 1-tuple", 2: "a pair", 3: "a triple"}


def _conv_doc(nd: int, example: str, transposed: bool = False) -> str:
    """The docstring of ``Conv{nd}d`` (``ConvTranspose{nd}d`` when ``transposed``): the six
    layers share their Derivative, Args and Raises and differ in the dims they name."""
    dims = _DIMS[nd]
    spatial, spatial_out = ", ".join(dims), ", ".join(f"{d}_out" for d in dims)
    kernel = ", ".join(f"k{d}" for d in dims)
    d = dims[0]
    if transposed:
        fn = f"conv_transpose{nd}d"
        what = (f"{nd}-D transposed convolution (the gradient of a convolution with respect to its input;\n"
                f"    \"deconvolution\") over a batch of {nd}-D signals with learnable ``weight`` and ``bias``; see\n"
                f"    :func:`dyngrad.nn.functional.{fn}`.\n\n"
                "    ``forward(input, output_size=None)``: ``output_size`` (the spatial sizes, or with ``N, C``)\n"
                "    picks ``output_padding``.")
        grad_input = "the convolution"
        padding = ("        padding (int or tuple): ``dilation * (kernel_size - 1) - padding`` zeros are added to each\n"
                   "            side of the input (so the output shrinks by ``2 * padding``); strings are not accepted.\n"
                   "            Default: ``0``.\n"
                   "        output_padding (int or tuple): extra size on one side of the output, below ``stride`` or\n"
                   "            ``dilation``; ``forward(input, output_size=...)`` computes it for you. Default: ``0``.\n"
                   "        groups (int): split the channels into this many independent convolutions. Default: ``1``.\n"
                   "        bias (bool): add a learnable ``(C_out,)`` bias. Default: ``True``.\n"
                   "        dilation (int or tuple): spacing between kernel elements. Default: ``1``.\n"
                   "        padding_mode (str): only ``'zeros'``, as PyTorch. Default: ``'zeros'``.\n")
        raises = ("        ValueError: when ``groups`` does not divide both channel counts, for a string\n"
                  "            ``padding`` or a ``padding_mode`` other than ``'zeros'``, and (at call time) for an\n"
                  "            ``output_size`` outside the reachable range.\n"
                  "        RuntimeError: (at call time) for an input of the wrong rank or channel count.\n")
        out = f"({d} - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding +\n              1"
        weight = f"(C_in, C_out / groups, {kernel})"
    else:
        fn = f"conv{nd}d"
        what = (f"{nd}-D convolution (cross-correlation, as PyTorch) over a batch of {nd}-D signals with learnable\n"
                f"    ``weight`` and ``bias``; see :func:`dyngrad.nn.functional.{fn}`.")
        grad_input = "the transposed convolution"
        padding = ("        padding (int, tuple or str): zeros (or ``padding_mode``) added to both sides, or ``'valid'``\n"
                   "            (none) or ``'same'`` (output size = input size, stride 1 only). Default: ``0``.\n"
                   "        dilation (int or tuple): spacing between kernel elements. Default: ``1``.\n"
                   "        groups (int): split the channels into this many independent convolutions. Default: ``1``.\n"
                   "        bias (bool): add a learnable ``(C_out,)`` bias. Default: ``True``.\n"
                   "        padding_mode (str): ``'zeros'``, ``'reflect'``, ``'replicate'`` or ``'circular'``. Default:\n"
                   "            ``'zeros'``.\n")
        raises = ("        ValueError: when ``groups`` is not positive or does not divide both channel counts, for\n"
                  "            an unknown ``padding`` string or ``padding_mode``, or ``padding='same'`` with a stride.\n"
                  "        RuntimeError: (at call time) for an input of the wrong rank or channel count, or one\n"
                  "            smaller than the (dilated) kernel.\n")
        out = f"floor(({d} + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1"
        weight = f"(C_out, C_in / groups, {kernel})"
    return f"""{what}

    Derivative: ``grad_input`` is {grad_input} of ``grad_output`` with the same
    weight; ``grad_weight`` correlates input and ``grad_output``; ``grad_bias = grad_output.sum``
    over all but the channel dim (PyTorch's ``convolution_backward``). Parameters start as
    PyTorch's: ``kaiming_uniform_(a=sqrt(5))`` weight, ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` bias.

    Args:
        in_channels (int): ``C_in``, divisible by ``groups``.
        out_channels (int): ``C_out``, divisible by ``groups``.
        kernel_size (int or tuple): the window, an int or {_KERNEL[nd]}.
        stride (int or tuple): the step. Default: ``1``.
{padding}        device: accepted for PyTorch compatibility (CPU only). Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default dtype.
    Raises:
{raises}    Shape:
        - Input: ``(N, C_in, {spatial})`` or ``(C_in, {spatial})``.
        - Output: ``(N, C_out, {spatial_out})`` or ``(C_out, {spatial_out})``, with
          ``{d}_out = {out}`` (per dimension).
        - weight: ``{weight}``; bias: ``(C_out,)``.

    Example:
{example}
    """


class Conv1d(_ConvNd):
    """1-D convolution over a batch of 1-D signals (docstring: :func:`_conv_doc`)."""

    _nd = 1

    def forward(self, input: Tensor) -> Tensor:
        x, pad = self._padded(input)
        return F.conv1d(x, self.weight, self.bias, self.stride, pad, self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over a batch of 2-D signals (docstring: :func:`_conv_doc`)."""

    _nd = 2

    def forward(self, input: Tensor) -> Tensor:
        x, pad = self._padded(input)
        return F.conv2d(x, self.weight, self.bias, self.stride, pad, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over a batch of 3-D signals (docstring: :func:`_conv_doc`)."""

    _nd = 3

    def forward(self, input: Tensor) -> Tensor:
        x, pad = self._padded(input)
        return F.conv3d(x, self.weight, self.bias, self.stride, pad, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolution layers: weight ``(C_in, C_out / groups, *kernel)``, PyTorch's
    initialisation (kaiming_uniform_ over that weight); ``forward(input, output_size=None)``."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        if isinstance(padding, str):
            raise ValueError(f"padding={padding!r} is not supported for {type(self).__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:
        """The output padding that gives ``output_size`` (PyTorch's rule and errors)."""
        n = self._nd
        if output_size is None:
            return self.output_padding
        size = [int(v) for v in output_size]
        if len(size) == n + 2 or len(size) == n + 1:
            size = size[-n:]
        if len(size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {n + 2} "
                             f"elements (got {len(output_size)})")
        res = []
        for k in range(n):
            dim = input.shape[input.dim() - n + k]
            lo = (dim - 1) * self.stride[k] - 2 * self.padding[k] + self.dilation[k] * (self.kernel_size[k] - 1) + 1
            hi = lo + self.stride[k] - 1
            if not lo <= size[k] <= hi:
                raise ValueError(
                    f"requested an output size of {size}, but valid sizes range from {lo} to {hi} (for an input of "
                    f"{list(input.shape[2:])})"
                )
            res.append(size[k] - lo)
        return tuple(res)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over a batch of 1-D signals (docstring: :func:`_conv_doc`)."""

    _nd = 1

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        op = self._output_padding(input, output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution over a batch of 2-D signals (docstring: :func:`_conv_doc`)."""

    _nd = 2

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        op = self._output_padding(input, output_size)
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over a batch of 3-D signals (docstring: :func:`_conv_doc`)."""

    _nd = 3

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        op = self._output_padding(input, output_size)
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                                  self.dilation)


Conv1d.__doc__ = _conv_doc(1, """\
        >>> import dyngrad
        >>> m = dyngrad.nn.Conv1d(2, 4, 3, padding=1)
        >>> m(dyngrad.ones(1, 2, 5)).shape
        dyngrad.Size([1, 4, 5])
        >>> m.weight.shape
        dyngrad.Size([4, 2, 3])""")
Conv2d.__doc__ = _conv_doc(2, """\
        >>> import dyngrad
        >>> m = dyngrad.nn.Conv2d(2, 4, 3, padding="same", padding_mode="circular")
        >>> m(dyngrad.ones(1, 2, 5, 6)).shape
        dyngrad.Size([1, 4, 5, 6])""")
Conv3d.__doc__ = _conv_doc(3, """\
        >>> import dyngrad
        >>> m = dyngrad.nn.Conv3d(2, 3, 3, padding=1, padding_mode="reflect")
        >>> list(m(dyngrad.randn(1, 2, 4, 5, 6)).shape)
        [1, 3, 4, 5, 6]""")
ConvTranspose1d.__doc__ = _conv_doc(1, """\
        >>> import dyngrad
        >>> m = dyngrad.nn.ConvTranspose1d(2, 3, 3, stride=2)
        >>> list(m(dyngrad.randn(1, 2, 5)).shape)
        [1, 3, 11]
        >>> m.weight.shape
        dyngrad.Size([2, 3, 3])""", transposed=True)
ConvTranspose2d.__doc__ = _conv_doc(2, """\
        >>> import dyngrad
        >>> m = dyngrad.nn.ConvTranspose2d(2, 3, 3, stride=2)
        >>> list(m(dyngrad.randn(1, 2, 4, 4), output_size=(10, 10)).shape)
        [1, 3, 10, 10]""", transposed=True)
ConvTranspose3d.__doc__ = _conv_doc(3, """\
        >>> import dyngrad
        >>> m = dyngrad.nn.ConvTranspose3d(2, 3, 3, stride=2)
        >>> list(m(dyngrad.randn(1, 2, 3, 3, 3), output_size=(8, 8, 8)).shape)
        [1, 3, 8, 8, 8]""", transposed=True)


class MaxPool2d(Module):
    """2-D max pooling: the maximum of each window; padding counts as ``-inf``. See
    :func:`dyngrad.nn.functional.max_pool2d`.

    Derivative: ``grad_input`` gets each output's gradient at the (first) maximal element of its
    window, 0 elsewhere (PyTorch's ``max_pool2d_with_indices_backward``).

    Args:
        kernel_size (int or tuple): the window, an int or a pair.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both sides, at most half the kernel.
            Default: ``0``.
        dilation (int or tuple): spacing between window elements. Default: ``1``.
        return_indices (bool): also return the int64 flat index (into the spatial dims) of each
            maximum, for :class:`dyngrad.nn.MaxUnpool2d`-style use. Default: ``False``.
        ceil_mode (bool): round the output size up (keep a last, partial window). Default:
            ``False``.
    Raises:
        RuntimeError: (at call time) for an input of the wrong rank, ``padding`` above half the
            kernel, a non-positive kernel or stride, or an empty output (input smaller than the
            kernel).
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, with
          ``H_out = floor((H + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1``
          per dimension (``ceil`` with ``ceil_mode``; a last window must start inside the input).

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.MaxPool2d(2)(dyngrad.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    _pool = staticmethod(F.max_pool2d)  # the functional; the 1-d and 3-d subclasses swap it

    def forward(self, input: Tensor) -> Any:
        return self._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(MaxPool2d):
    """1-D max pooling: the maximum of each window; padding counts as ``-inf``. See
    :func:`dyngrad.nn.functional.max_pool1d`.

    Derivative: ``grad_input`` gets each output's gradient at the (first) maximal element of its
    window, 0 elsewhere (PyTorch's ``max_pool1d_with_indices_backward``).

    Args:
        kernel_size (int or tuple): the window, an int.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both sides, at most half the kernel.
            Default: ``0``.
        dilation (int or tuple): spacing between window elements. Default: ``1``.
        return_indices (bool): also return the int64 flat index (into the spatial dims) of each
            maximum, for :class:`dyngrad.nn.MaxUnpool1d`-style use. Default: ``False``.
        ceil_mode (bool): round the output size up (keep a last, partial window). Default:
            ``False``.
    Raises:
        RuntimeError: (at call time) for an input of the wrong rank, ``padding`` above half the
            kernel, a non-positive kernel or stride, or an empty output (input smaller than the
            kernel).
    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``, with
          ``L_out = floor((L + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1``
          per dimension (``ceil`` with ``ceil_mode``; a last window must start inside the input).

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.MaxPool1d(2, return_indices=True)(dyngrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
        (tensor([[[3., 2.]]]), tensor([[[1, 2]]]))
    """

    _pool = staticmethod(F.max_pool1d)


class AvgPool2d(Module):
    """2-D average pooling: the mean of each window. See :func:`dyngrad.nn.functional.avg_pool2d`.

    Derivative: ``grad_input`` spreads each output's gradient evenly over its window (divided by the
    same divisor; PyTorch's ``avg_pool2d_backward``).

    Args:
        kernel_size (int or tuple): the window, an int or a pair.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding on both sides, at most half the kernel.
            Default: ``0``.
        ceil_mode (bool): round the output size up (keep a last, partial window, whose divisor
            counts only positions inside the padded input). Default: ``False``.
        count_include_pad (bool): count the padding zeros in each window's divisor. Default:
            ``True``.
        divisor_override (int, optional): divide every window's sum by this instead. Default:
            ``None``.
    Raises:
        RuntimeError: (at call time) for an input of the wrong rank, ``padding`` above half the
            kernel, a non-positive kernel or stride, or an empty output (input smaller than the
            kernel), or ``divisor_override == 0``.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, with
          ``H_out = floor((H + 2 * padding - kernel_size) / stride) + 1``
          per dimension (``ceil`` with ``ceil_mode``; a last window must start inside the input).

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.AvgPool2d(2)(dyngrad.arange(16.0).reshape(1, 1, 4, 4))
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    _pool = staticmethod(F.avg_pool2d)  # AvgPool3d swaps it

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(Module):
    """1-D average pooling: the mean of each window. See :func:`dyngrad.nn.functional.avg_pool1d`.

    Derivative: ``grad_input`` spreads each output's gradient evenly over its window (divided by the
    same divisor; PyTorch's ``avg_pool1d_backward``).

    Args:
        kernel_size (int or tuple): the window, an int.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding on both sides, at most half the kernel.
            Default: ``0``.
        ceil_mode (bool): round the output size up (keep a last, partial window, whose divisor
            counts only positions inside the padded input). Default: ``False``.
        count_include_pad (bool): count the padding zeros in each window's divisor. Default:
            ``True``.
    Raises:
        RuntimeError: (at call time) for an input of the wrong rank, ``padding`` above half the
            kernel, a non-positive kernel or stride, or an empty output (input smaller than the
            kernel).
    Shape:
        - Input: ``(N, C, L)`` or ``(C, L)``.
        - Output: ``(N, C, L_out)`` or ``(C, L_out)``, with
          ``L_out = floor((L + 2 * padding - kernel_size) / stride) + 1``
          per dimension (``ceil`` with ``ceil_mode``; a last window must start inside the input).

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.AvgPool1d(2)(dyngrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
        tensor([[[2., 1.]]])
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """2-D average pooling to a fixed ``output_size`` whatever the input size: output ``i`` averages
    rows ``[floor(i * H / H_out), ceil((i + 1) * H / H_out))`` (PyTorch's bins), likewise columns.
    See :func:`dyngrad.nn.functional.adaptive_avg_pool2d`.

    Derivative: linear (``A_h @ x @ A_w^T`` with constant averaging matrices), so ``grad_input =
    A_h^T @ grad_output @ A_w``.

    Args:
        output_size (int or tuple): ``H_out`` and ``W_out``, an int (both) or a pair; ``None`` in
            the pair keeps that size.
    Raises:
        RuntimeError: (at call time) for an input that is not 3-d or 4-d, or a non-positive output
            size (PyTorch returns an empty tensor for 0).
        ValueError: (at call time) when ``output_size`` is neither an int nor a pair.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.AdaptiveAvgPool2d((1, 2))(dyngrad.arange(8.0).reshape(1, 2, 4))
        tensor([[[2.5000, 4.5000]]])
    """

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    _pool = staticmethod(F.adaptive_avg_pool2d)  # AdaptiveAvgPool3d swaps it

    def forward(self, input: Tensor) -> Tensor:
        return self._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool3d(MaxPool2d):
    """3-D max pooling: the maximum of each window; padding counts as ``-inf``. See
    :func:`dyngrad.nn.functional.max_pool3d`.

    Derivative: ``grad_input`` gets each output's gradient at the (first) maximal element of its
    window, 0 elsewhere (PyTorch's ``max_pool3d_with_indices_backward``).

    Args:
        kernel_size (int or tuple): the window, an int or a triple.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both sides, at most half the kernel.
            Default: ``0``.
        dilation (int or tuple): spacing between window elements. Default: ``1``.
        return_indices (bool): also return the int64 flat index (into the spatial dims) of each
            maximum, for :class:`dyngrad.nn.MaxUnpool3d`-style use. Default: ``False``.
        ceil_mode (bool): round the output size up (keep a last, partial window). Default:
            ``False``.
    Raises:
        RuntimeError: (at call time) for an input of the wrong rank, ``padding`` above half the
            kernel, a non-positive kernel or stride, or an empty output (input smaller than the
            kernel).
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, with
          ``D_out = floor((D + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1``
          per dimension (``ceil`` with ``ceil_mode``; a last window must start inside the input).

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.MaxPool3d(2)(dyngrad.randn(1, 2, 4, 4, 4)).shape
        dyngrad.Size([1, 2, 2, 2, 2])
    """

    _pool = staticmethod(F.max_pool3d)


class AvgPool3d(AvgPool2d):
    """3-D average pooling: the mean of each window. See :func:`dyngrad.nn.functional.avg_pool3d`.

    Derivative: ``grad_input`` spreads each output's gradient evenly over its window (divided by the
    same divisor; PyTorch's ``avg_pool3d_backward``).

    Args:
        kernel_size (int or tuple): the window, an int or a triple.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding on both sides, at most half the kernel.
            Default: ``0``.
        ceil_mode (bool): round the output size up (keep a last, partial window, whose divisor
            counts only positions inside the padded input). Default: ``False``.
        count_include_pad (bool): count the padding zeros in each window's divisor. Default:
            ``True``.
        divisor_override (int, optional): divide every window's sum by this instead. Default:
            ``None``.
    Raises:
        RuntimeError: (at call time) for an input of the wrong rank, ``padding`` above half the
            kernel, a non-positive kernel or stride, or an empty output (input smaller than the
            kernel), or ``divisor_override == 0``.
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``, with
          ``D_out = floor((D + 2 * padding - kernel_size) / stride) + 1``
          per dimension (``ceil`` with ``ceil_mode``; a last window must start inside the input).

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.AvgPool3d(2, stride=1)(dyngrad.ones(1, 1, 3, 3, 3)).shape
        dyngrad.Size([1, 1, 2, 2, 2])
    """

    _pool = staticmethod(F.avg_pool3d)


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """3-D average pooling to a fixed ``output_size`` (PyTorch's adaptive bins in ``D``, ``H`` and
    ``W``; see :class:`AdaptiveAvgPool2d`).

    Derivative: linear (three constant averaging matrices), so ``grad_input`` is their transposes
    applied to ``grad_output``.

    Args:
        output_size (int or tuple): an int or a triple ``(D_out, H_out, W_out)``; ``None`` keeps
            that dim's size.
    Raises:
        RuntimeError: (at call time) for an input that is not 4-d or 5-d, or a non-positive output
            size.
    Shape:
        - Input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        - Output: ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.AdaptiveAvgPool3d(1)(dyngrad.randn(2, 3, 4, 5, 6)).shape
        dyngrad.Size([2, 3, 1, 1, 1])
    """

    _pool = staticmethod(F.adaptive_avg_pool3d)
