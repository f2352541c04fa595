"""Stochastic gradient descent with momentum (PyTorch's ``torch.optim.SGD``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _check_hparams

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum.

    Update rule (PyTorch's formulation; ``g`` is the gradient, negated when ``maximize``)::

        g = g + weight_decay * p                       (if weight_decay != 0)
        b = g                                          (first step)
        b = momentum * b + (1 - dampening) * g         (later steps, if momentum != 0)
        g = g + momentum * b  if nesterov  else  b     (if momentum != 0)
        p = p - lr * g

    Sources: Robbins & Monro, "A Stochastic Approximation Method" (1951); momentum as in
    Sutskever et al., "On the importance of initialization and momentum in deep learning"
    (ICML 2013), which also gives the Nesterov variant (Nesterov, 1983).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3).
        momentum: momentum factor (default 0).
        dampening: dampening for momentum (default 0).
        weight_decay: L2 penalty (default 0).
        nesterov: use Nesterov momentum (needs momentum > 0 and dampening == 0).
        maximize: maximize the objective instead of minimizing.
    Raises:
        ValueError: a negative hyper-parameter, or nesterov with zero momentum / non-zero
            dampening.

    Example:
        >>> import dyngrad
        >>> w = dyngrad.tensor([1.0], requires_grad=True)
        >>> opt = dyngrad.optim.SGD([w], lr=0.1)
        >>> (w ** 2).sum().backward()             # gradient 2w = 2
        >>> opt.step()
        >>> w
        tensor([0.8000], requires_grad=True)
        >>> opt.zero_grad(); w.grad is None
        True
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_hparams(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        wd, mom, lr = group["weight_decay"], group["momentum"], group["lr"]
        if wd != 0:
            g = g + wd * p._data
        if mom != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = Tensor._make(np.array(g, copy=True))
                state["momentum_buffer"] = buf
            else:
                b = buf._data
                b *= mom
                b += (1 - group["dampening"]) * g
            g = g + mom * buf._data if group["nesterov"] else buf._data
        p._data -= lr * g if lr != 1 else g
