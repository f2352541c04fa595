"""Adagrad (PyTorch's ``torch.optim.Adagrad``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _buf, _check_hparams

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad: per-coordinate learning rates from the sum of squared gradients.

    Update rule at step ``t`` (``g`` negated when ``maximize``)::

        g = g + weight_decay * p                (if weight_decay != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g                           (s starts at initial_accumulator_value)
        p = p - clr * g / (sqrt(s) + eps)

    Source: Duchi, Hazan & Singer, "Adaptive Subgradient Methods for Online Learning and
    Stochastic Optimization" (JMLR 2011).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-2).
        lr_decay: learning-rate decay (default 0).
        weight_decay: L2 penalty (default 0).
        initial_accumulator_value: start value of the sum of squares (default 0).
        eps: added to the denominator (default 1e-10).
        maximize: maximize the objective.
    Raises:
        ValueError: a negative hyper-parameter.

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.Adagrad([p], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (p ** 2).sum().backward()
        ...     opt.step()
        >>> [round(v, 4) for v in p.tolist()]              # PyTorch 2.13 gives the same
        [0.8331, -1.8311]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0.0, weight_decay: float = 0.0,
                 initial_accumulator_value: float = 0.0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_hparams(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
                       initial_accumulator_value=initial_accumulator_value)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:  # PyTorch creates Adagrad's state eagerly
            for p in group["params"]:
                st = self.state.setdefault(p, {})
                st["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
                _buf(st, "sum", p._data, group["initial_accumulator_value"])

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, lr_decay, wd, eps = (group[k] for k in ("lr", "lr_decay", "weight_decay", "eps"))
        step_t = state.get("step")
        if step_t is None:
            step_t = state["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
        step_t._data[...] += 1
        step = float(step_t._data)
        if wd != 0:
            g = g + wd * p._data
        clr = lr / (1 + (step - 1) * lr_decay)
        s = _buf(state, "sum", p._data, group["initial_accumulator_value"])
        s += g * g
        p._data -= clr * (g / (np.sqrt(s) + eps))
