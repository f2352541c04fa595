"""dyngrad.nn.functional: neural-network functions (fused where it pays)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..ops import relu, sigmoid, tanh
from ..ops._util import binary_operands, wrap
from ..tensor import Tensor

__all__ = ["linear", "relu", "sigmoid", "tanh"]


class Linear(Function):
    """``out = x @ W^T + b`` for ``x (*, in)``, ``W (out, in)``, ``b (out)``.

    ``grad_x = grad @ W``; ``grad_W = grad^T @ x`` (batch dims flattened);
    ``grad_b = sum(grad over batch dims)``.
    """

    _builtin = True
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, b: Tensor | None = None) -> Tensor:
        xd, wd, _ = binary_operands(x, w)
        if w.data.ndim not in (1, 2):
            raise RuntimeError(f"linear: weight must be 1-D or 2-D, got shape {list(w.shape)}")
        in_f = wd.shape[-1]
        if xd.ndim == 0 or xd.shape[-1] != in_f:
            raise RuntimeError(
                f"linear: mat1 and mat2 shapes cannot be multiplied "
                f"({'x'.join(map(str, xd.shape[:-1] and (int(np.prod(xd.shape[:-1])),) or (1,)))}x{xd.shape[-1] if xd.ndim else 0} "
                f"and {in_f}x{wd.shape[0] if wd.ndim == 2 else 1}); input {list(x.shape)}, weight {list(w.shape)}"
            )
        out = xd @ wd.T
        if b is not None:
            out = out + b.data
        n = ctx.needs_input_grad
        ctx.save_for_backward(x if n[1] else None, w)
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = gw = gb = None
        if n[0]:
            gx = g @ w if w.ndim == 2 else g.unsqueeze(-1) * w
        if n[1]:
            if w.ndim == 2:
                g2 = g.reshape(-1, g.shape[-1]) if g.ndim != 2 else g
                x2 = x.reshape(-1, x.shape[-1]) if x.ndim != 2 else x
                gw = g2.t() @ x2
            else:
                gw = (g.unsqueeze(-1) * x).reshape(-1, x.shape[-1]).sum(0)
        if len(n) > 2 and n[2]:
            gb = g.reshape(-1, g.shape[-1]).sum(0) if g.ndim > 1 else g
        return gx, gw, gb


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Affine map ``input @ weight.T + bias``.

    Args:
        input: ``(*, in_features)``.
        weight: ``(out_features, in_features)``.
        bias: ``(out_features)`` or None.
    Returns:
        ``(*, out_features)``.
    Raises:
        RuntimeError: when ``in_features`` of input and weight differ (both shapes named).
    """
    if bias is None:
        return Linear.apply(input, weight)
    return Linear.apply(input, weight, bias)
