"""Averaged stochastic gradient descent (PyTorch's ``torch.optim.ASGD``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .._backend import get_default_dtype, to_np_dtype
from ..tensor import Tensor
from .optimizer import Optimizer, _buf, _check_common, _scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""ASGD: SGD with a decaying step size and a running (Polyak-Ruppert) average of the
    iterates, kept in ``state[p]['ax']``.

    Update rule at step ``t`` (``g`` negated when ``maximize``; ``eta`` starts at ``lr`` and
    ``mu`` at 1, both stored in the scalar dtype and rounded to the default dtype, float32
    unless changed, as PyTorch does)::

        g = g + weight_decay * p                         (if weight_decay != 0)
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + mu * (p - ax)    if mu != 1   else   ax = p
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)

    Source: Polyak & Juditsky, "Acceleration of Stochastic Approximation by Averaging"
    (SIAM J. Control Optim. 1992).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-2).
        lambd: decay term (default 1e-4).
        alpha: power for the eta update (default 0.75).
        t0: the step at which averaging starts (default 1e6).
        weight_decay: L2 penalty (default 0).
        foreach, maximize, differentiable, capturable: as PyTorch's.
    Raises:
        ValueError: a negative lr or weight_decay.

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.ASGD([p], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (p ** 2).sum().backward()
        ...     opt.step()
        >>> [round(v, 4) for v in p.tolist()]              # PyTorch 2.13 gives the same
        [0.64, -1.28]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0.0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_common(lr, weight_decay=weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, lambd, alpha, t0, wd = (group[k] for k in ("lr", "lambd", "alpha", "t0", "weight_decay"))
        if not state:
            _scalar(state, "step", 0.0)
            _scalar(state, "eta", lr)
            _scalar(state, "mu", 1.0)
        step_t = state["step"]._data
        eta, mu = state["eta"]._data, state["mu"]._data
        ax = _buf(state, "ax", p._data)
        step_t[...] += 1
        if wd != 0:
            g = g + wd * p._data
        eta_value = float(eta)
        p._data *= 1 - lambd * eta_value
        p._data -= eta_value * g
        if float(mu) != 1:
            ax += (p._data - ax) * mu
        else:
            ax[...] = p._data
        step = float(step_t)
        # PyTorch builds the new values with torch.as_tensor (the default dtype) before copying
        # them into the state, so they are rounded to float32 even when the state is float64
        dt = to_np_dtype(get_default_dtype())
        eta[...] = np.asarray(lr / ((1 + lambd * lr * step) ** alpha), dtype=dt)
        mu[...] = np.asarray(1 / max(1, step - t0), dtype=dt)
