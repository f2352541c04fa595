"""Adadelta (PyTorch's ``torch.optim.Adadelta``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _buf, _check_common, _next_step

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta: step sizes from running averages of squared gradients and squared updates.

    Update rule (``g`` negated when ``maximize``)::

        g = g + weight_decay * p                              (if weight_decay != 0)
        v = rho * v + (1 - rho) * g * g                       (state 'square_avg')
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta               (state 'acc_delta')
        p = p - lr * delta

    Source: Zeiler, "ADADELTA: An Adaptive Learning Rate Method" (2012).

    Args:
        params: parameters or parameter groups.
        lr: coefficient that scales delta before it is applied (default 1.0).
        rho: coefficient of the running averages (default 0.9).
        eps: added inside the square roots (default 1e-6).
        weight_decay: L2 penalty (default 0).
        foreach, capturable, maximize, differentiable: as PyTorch's.
    Raises:
        ValueError: a negative lr/eps/weight_decay or rho outside [0, 1].

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.Adadelta([p], lr=1.0)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (p ** 2).sum().backward()
        ...     opt.step()
        >>> [round(v, 4) for v in p.tolist()]              # PyTorch 2.13 gives the same
        [0.9936, -1.9936]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0.0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _check_common(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_common(0.0, eps, weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
        _next_step(state)
        v = _buf(state, "square_avg", p._data)
        u = _buf(state, "acc_delta", p._data)
        if wd != 0:
            g = g + wd * p._data
        v *= rho
        v += (1 - rho) * g * g
        std = np.sqrt(v + eps)
        delta = np.sqrt(u + eps)
        delta /= std
        delta *= g
        u *= rho
        u += (1 - rho) * delta * delta
        p._data -= lr * delta
