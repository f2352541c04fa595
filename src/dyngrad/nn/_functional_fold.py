"""Sliding blocks and more pooling for :mod:`dyngrad.nn.functional` (re-exported there):
unfold (im2col) and fold (col2im), adaptive max pooling, 1-D adaptive average pooling,
power-average pooling and channel_shuffle.

unfold is one gather from the zero-padded input at a constant index table; fold is its
adjoint, one scatter-add at the same table (``Index`` / ``IndexPutAdd``, each the other's
backward), so both are exact (no multiplications: an inf stays where it was) and twice
differentiable."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..ops.gather import gather
from ..ops.indexing import Index, IndexPutAdd
from ..tensor import Tensor
from ._functional_pool import _adaptive_matrix, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

__all__ = [
    "unfold", "fold", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_avg_pool1d",
    "lp_pool1d", "lp_pool2d", "channel_shuffle",
]


def _two(v: Any) -> tuple[int, int]:
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    t = tuple(int(e) for e in v)
    return (t[0], t[0]) if len(t) == 1 else (t[0], t[1])


def _blocks(size: tuple, k: tuple, d: tuple, p: tuple, s: tuple) -> tuple[int, int]:
    return tuple((size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2))  # type: ignore[return-value]


def _table(hp_wp: tuple, k: tuple, d: tuple, s: tuple, blocks: tuple) -> np.ndarray:
    """``idx[c_k, l]``: the flat index into the padded ``(Hp, Wp)`` plane of kernel offset
    ``c_k = ki * kw + kj`` in block ``l = bi * Lw + bj`` (PyTorch's im2col layout)."""
    ki = np.arange(k[0]) * d[0]
    kj = np.arange(k[1]) * d[1]
    bi = np.arange(blocks[0]) * s[0]
    bj = np.arange(blocks[1]) * s[1]
    rows = ki[:, None, None, None] + bi[None, None, :, None]
    cols = kj[None, :, None, None] + bj[None, None, None, :]
    return (rows * hp_wp[1] + cols).reshape(k[0] * k[1], blocks[0] * blocks[1])


def _check_geometry(op: str, k: tuple, d: tuple, p: tuple, s: tuple) -> None:
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} kernel_width: {k[1]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} dilation_width: {d[1]}")
    if min(p) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """Extract sliding local blocks (im2col): ``(N, C, H, W) -> (N, C * kh * kw, L)`` with
    ``L`` the number of blocks; row ``c * kh * kw + i * kw + j`` holds offset ``(i, j)`` of
    channel ``c``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or unbatched ``(C, H, W)``.
        kernel_size, dilation, padding, stride (int or (int, int)): the block geometry
            (zero padding).

    Returns:
        Tensor: ``(N, C * kh * kw, L)`` (``(C * kh * kw, L)`` unbatched).

    Raises:
        RuntimeError: a rank other than 3 or 4, non-positive sizes, or no whole block.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.unfold(dyngrad.arange(9.0).reshape(1, 1, 3, 3), 2).tolist()
        [[[0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0]]]
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    k, d, p, s = _two(kernel_size), _two(dilation), _two(padding), _two(stride)
    _check_geometry("unfold", k, d, p, s)
    x = input if input.ndim == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    blocks = _blocks((h, w), k, d, p, s)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, padding={p}, "
            f"calculated shape of the array of sliding blocks as {blocks}, but its components must be at least one."
        )
    if any(p):
        x = _zero_pad(x, p)
    hp, wp = h + 2 * p[0], w + 2 * p[1]
    idx = _table((hp, wp), k, d, s, blocks)
    cols = Index.apply(x.reshape(n, c, hp * wp), (slice(None), slice(None), idx), False)
    out = cols.reshape(n, c * k[0] * k[1], blocks[0] * blocks[1])
    return out if input.ndim == 4 else out.squeeze(0)


def _zero_pad(x: Tensor, p: tuple) -> Tensor:
    from ..ops import pad

    return pad(x, (p[1], p[1], p[0], p[0]))


def fold(
    input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """Sum sliding local blocks into a tensor (col2im), the adjoint of :func:`unfold`:
    ``(N, C * kh * kw, L) -> (N, C, H, W)``; overlapping values add up.

    Args:
        input (Tensor): ``(N, C * kh * kw, L)`` or unbatched ``(C * kh * kw, L)``.
        output_size (int or (int, int)): ``(H, W)``.
        kernel_size, dilation, padding, stride: as :func:`unfold`.

    Returns:
        Tensor: ``(N, C, H, W)`` (``(C, H, W)`` unbatched).

    Raises:
        RuntimeError: a rank other than 2 or 3, a dim 1 not divisible by ``kh * kw``, or
            ``L`` not the number of blocks of ``output_size``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.fold(dyngrad.ones(1, 4, 4), (3, 3), 2)[0, 0].tolist()
        [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
            f"dimensions for input, but got: {list(input.shape)}"
        )
    o, k, d, p, s = _two(output_size), _two(kernel_size), _two(dilation), _two(padding), _two(stride)
    _check_geometry("fold", k, d, p, s)
    x = input if input.ndim == 3 else input.unsqueeze(0)
    n, ckk, L = x.shape
    if ckk % (k[0] * k[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={ckk} and kernel_size={k}."
        )
    blocks = _blocks(o, k, d, p, s)
    if min(blocks) < 1 or blocks[0] * blocks[1] != L:
        raise RuntimeError(
            f"Given output_size={o}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, expected size "
            f"of input's dimension 2 to match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} "
            f"= {blocks[0] * blocks[1]}, but got input.size(2)={L}."
        )
    c = ckk // (k[0] * k[1])
    hp, wp = o[0] + 2 * p[0], o[1] + 2 * p[1]
    idx = _table((hp, wp), k, d, s, blocks)
    planes = IndexPutAdd.apply(x.reshape(n, c, k[0] * k[1], L), (n, c, hp * wp), (slice(None), slice(None), idx), False)
    out = planes.reshape(n, c, hp, wp)
    if any(p):
        out = out[:, :, p[0]:p[0] + o[0], p[1]:p[1] + o[1]]
    return out if input.ndim == 3 else out.squeeze(0)


def _bins(n_in: int, n_out: int) -> tuple[np.ndarray, int]:
    """PyTorch's adaptive bins ``[floor(i n / o), ceil((i + 1) n / o))`` as an index table
    ``(o, kmax)``, short bins padded with their last index (a repeat changes no maximum)."""
    lo = (np.arange(n_out) * n_in) // n_out
    hi = -((-(np.arange(n_out) + 1) * n_in) // n_out)
    kmax = int((hi - lo).max())
    tab = np.minimum(lo[:, None] + np.arange(kmax)[None, :], (hi - 1)[:, None])
    return tab, kmax


def _out_size(output_size: Any, h: int, w: int) -> tuple[int, int]:
    if output_size is None or isinstance(output_size, (int, np.integer)):
        output_size = (output_size, output_size)
    return (h if output_size[0] is None else int(output_size[0]), w if output_size[1] is None else int(output_size[1]))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over PyTorch's adaptive bins (see :func:`adaptive_avg_pool2d`); the gradient
    goes to the first maximum of each bin (a NaN counts as the maximum).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size (int or (int or None, int or None)): None keeps that dim.
        return_indices (bool): also return int64 flat indices into ``H * W``.

    Returns:
        Tensor ``(N, C, Ho, Wo)`` (or ``(C, Ho, Wo)``), and the indices with
        ``return_indices``.

    Raises:
        RuntimeError: a rank other than 3 or 4, or a non-positive output size.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.adaptive_max_pool2d(dyngrad.arange(16.0).reshape(1, 4, 4), 2).tolist()
        [[[5.0, 7.0], [13.0, 15.0]]]
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    h, w = input.shape[-2:]
    oh, ow = _out_size(output_size, h, w)
    if oh < 0 or ow < 0 or (oh == 0 or ow == 0) and h * w:
        raise RuntimeError(f"adaptive_max_pool2d(): output_size must be positive, got {[oh, ow]}")
    th, kh = _bins(h, oh)
    tw, kw = _bins(w, ow)
    lead = tuple(input.shape[:-2])
    d = input._data.reshape((-1, h * w))
    flat = (th[:, None, :, None] * w + tw[None, :, None, :]).reshape(oh * ow, kh * kw)  # (bins, window)
    win = d[:, flat]  # (M, bins, window)
    pick = np.argmax(np.where(np.isnan(win), np.inf, win), axis=-1) if B.kind(win) == "f" else np.argmax(win, -1)
    ind = np.take_along_axis(np.broadcast_to(flat, win.shape), pick[..., None], -1)[..., 0]
    ind = ind.reshape(lead + (oh * ow,)).astype(np.int64)
    out = gather(input.reshape(lead + (h * w,)), -1, Tensor._make(ind)).reshape(lead + (oh, ow))
    if return_indices:
        return out, Tensor._make(ind.reshape(lead + (oh, ow)))
    return out


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """1-D adaptive max pooling: output ``i`` is the maximum over PyTorch's bin ``[floor(i * L /
    L_out), ceil((i + 1) * L / L_out))``; see :func:`adaptive_max_pool2d`.

    Derivative: each output's gradient goes to its bin's (first) maximal element (PyTorch's
    ``adaptive_max_pool2d_backward``).

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): ``L_out``.
        return_indices (bool): also return the int64 index of each maximum. Default: ``False``.
    Returns:
        Tensor: ``(N, C, L_out)`` or ``(C, L_out)``; with ``return_indices`` a pair ``(values,
            indices)`` of that shape.
    Raises:
        RuntimeError: a rank other than 2 or 3, or a non-positive output size.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.adaptive_max_pool1d(dyngrad.tensor([[1.0, 3.0, 2.0, 0.0, 5.0]]), 2)
        tensor([[3., 5.]])
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_max_pool1d)"
        )
    lo = int(output_size if isinstance(output_size, (int, np.integer)) else tuple(output_size)[0])
    r = adaptive_max_pool2d(input.unsqueeze(-2), (1, lo), return_indices)
    if return_indices:
        return r[0].squeeze(-2), r[1].squeeze(-2)
    return r.squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive bins of the last dim: output ``i`` averages ``[floor(i * L /
    L_out), ceil((i + 1) * L / L_out))``, computed as ``input @ A^T`` with a constant averaging
    matrix ``A``.

    Derivative: linear, ``grad_input = grad_output @ A``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): ``L_out``.
    Returns:
        Tensor: ``(N, C, L_out)`` or ``(C, L_out)``.
    Raises:
        RuntimeError: a rank other than 2 or 3, or a non-positive output size (PyTorch returns an
            empty tensor for 0).

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.adaptive_avg_pool1d(dyngrad.arange(5.0).reshape(1, 5), 2).tolist()
        [[1.0, 3.0]]
    """
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_avg_pool1d)"
        )
    lo = int(output_size if isinstance(output_size, (int, np.integer)) else tuple(output_size)[0])
    if lo < 1:
        raise RuntimeError(f"adaptive_avg_pool1d: output_size must be positive, got {lo}")
    d = input._data
    dt = B.np_dtype_of(d) if input.is_floating_point() else B.get_default_dtype().np
    a = Tensor._make(B.like(np.ascontiguousarray(_adaptive_matrix(input.shape[-1], lo, dt).T), d))  # (host constant)
    return input @ a


def _lp_finish(out: Tensor, norm_type: float, area: int) -> Tensor:
    """PyTorch's ``(sign(out) * relu(|out|)) * area) ** (1 / p)``."""
    return ((out.sign() * out.abs().relu()) * area) ** (1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``; ``p = inf`` is max
    pooling of ``|x|`` (as PyTorch). Computed as PyTorch's, from :func:`avg_pool2d` of ``x ** p``.

    Derivative: composed of ``pow``, :func:`avg_pool2d`, ``sign``/``relu`` and ``pow(1 / p)``
    (PyTorch's ``lp_pool2d``).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        norm_type (float): ``p``.
        kernel_size (int or tuple): the window, an int or a pair.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): keep partial windows at the end. Default: ``False``.
    Returns:
        Tensor: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.
    Raises:
        RuntimeError: an input that is not 3-d or 4-d (PyTorch: IndexError for 2-d), or one smaller
            than the kernel.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.lp_pool2d(dyngrad.full((1, 2, 2), 2.0), 2, 2).tolist()
        [[[4.0]]]
    """
    kh, kw = _two(kernel_size)
    if norm_type == float("inf"):
        return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool2d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kh * kw)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride: Any = None, ceil_mode: bool = False) -> Tensor:
    """1-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``; ``p = inf`` is max
    pooling of ``|x|``; see :func:`lp_pool2d`.

    Derivative: composed of ``pow``, :func:`avg_pool1d`, ``sign``/``relu`` and ``pow(1 / p)``, as
    PyTorch's ``lp_pool1d``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        norm_type (float): ``p``.
        kernel_size (int): the window.
        stride (int, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): keep a last, partial window. Default: ``False``.
    Returns:
        Tensor: ``(N, C, L_out)`` or ``(C, L_out)``, ``L_out = floor((L - kernel_size) / stride) +
            1``.
    Raises:
        RuntimeError: an input that is not 2-d or 3-d, or one shorter than the kernel.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.lp_pool1d(dyngrad.tensor([[3.0, 4.0, 0.0, 1.0]]), 2, 2)
        tensor([[5., 1.]])
    """
    if norm_type == float("inf"):
        return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if norm_type == -float("inf"):
        return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    k = int(kernel_size if isinstance(kernel_size, (int, np.integer)) else tuple(kernel_size)[0])
    return _lp_finish(out, norm_type, k)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of ``groups`` groups: ``(N, C, *)`` viewed as ``(N, g, C/g, *)``, dims 1
    and 2 swapped, flattened back (ShuffleNet, Zhang et al. 2017).

    Derivative: a permutation, so ``grad_input`` is ``grad_output`` with the inverse permutation.

    Args:
        input (Tensor): ``(N, C, *)``, at least 3 dims.
        groups (int): ``g``, dividing ``C``.
    Returns:
        Tensor: ``(N, C, *)``, the input's shape.
    Raises:
        RuntimeError: fewer than 3 dims, ``groups <= 0`` or ``C`` not divisible by it.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.channel_shuffle(dyngrad.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist()
        [0.0, 2.0, 1.0, 3.0]
    """
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c = input.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape((n, c) + rest)
