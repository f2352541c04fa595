"""Moving a tensor between devices (the host and CuPy GPUs), differentiably: ``x.to("cuda")``,
``x.cuda()``, ``x.cpu()`` (docs/backends.md). PyTorch's node is ``ToCopyBackward0``: the
gradient goes back to the input's device."""

from __future__ import annotations

from typing import Any

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear
from ._batching import unary

__all__ = ["to_device"]


class ToDevice(Linear):
    """``out = x`` on another device; ``grad_x = grad`` moved back to ``x``'s device (linear:
    forward mode moves the tangent with the value)."""

    _node_name = "ToCopyBackward0"
    vmap = unary  # batching rule, see ops/_batching.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, device: Any) -> Tensor:
        kind, index = B.array_device(x._data)
        ctx.src = "cpu" if kind == "cpu" else f"cuda:{index}" if index is not None else "cuda"
        return Tensor._make(B.to_device(x._data, device))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return Tensor._make(B.to_device(g._data, ctx.src)), None


def to_device(x: Tensor, device: Any) -> Tensor:
    """``x`` on ``device`` (``'cpu'``, ``'cuda'``, ``'cuda:1'``), differentiably; ``x``
    itself when it is there already, as PyTorch's ``Tensor.to``.

    Derivative: ``grad_x = grad_output`` on ``x``'s device (PyTorch's ``_to_copy``).

    Args:
        x (Tensor): ``(*)``, any dtype.
        device (str or device): where to put it.
    Returns:
        Tensor: ``(*)``, same dtype, on ``device`` (a CuPy array for ``cuda``, NumPy for
        ``cpu``; a Dask tensor stays a Dask tensor on ``cpu``).
    Raises:
        RuntimeError: ``cuda`` without CuPy or a GPU, or an unknown device.

    Example:
        >>> import dyngrad
        >>> from dyngrad.ops.device import to_device
        >>> x = dyngrad.ones(2, requires_grad=True)
        >>> to_device(x, "cpu") is x
        True
    """
    kind, index = B.parse_device(device)
    if kind == "cuda":
        index = B.check_cuda(index)
    have_kind, have_index = B.array_device(x._data)
    if have_kind == kind and (kind == "cpu" or have_index == index):
        return x
    return ToDevice.apply(x, f"cuda:{index}" if kind == "cuda" else kind)
