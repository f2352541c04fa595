"""Adam and AdamW (PyTorch's ``torch.optim.Adam`` / ``torch.optim.AdamW``)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _buf, _check_hparams, _lerp_

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam: adaptive moment estimation.

    Update rule at step ``t`` (``g`` negated when ``maximize``)::

        g = g + weight_decay * p                 (Adam: L2 penalty added to the gradient)
        p = p * (1 - lr * weight_decay)          (AdamW: decoupled decay, instead)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        v_max = max(v_max, v)                    (amsgrad; then use v_max for v below)
        p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    Sources: Kingma & Ba, "Adam: A Method for Stochastic Optimization" (ICLR 2015);
    AMSGrad: Reddi et al., "On the Convergence of Adam and Beyond" (ICLR 2018).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3).
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator for numerical stability (default 1e-8).
        weight_decay: L2 penalty (default 0).
        amsgrad: use the AMSGrad variant.
        maximize: maximize the objective.
    Raises:
        ValueError: a negative lr/eps/weight_decay or a beta outside [0, 1).

    Example:
        >>> import dyngrad
        >>> w = dyngrad.tensor([1.0, -1.0], requires_grad=True)
        >>> opt = dyngrad.optim.Adam([w], lr=0.1)
        >>> for _ in range(3):
        ...     opt.zero_grad()
        ...     (w ** 2).sum().backward()
        ...     opt.step()
        >>> w                                     # Adam's first steps are about lr each
        tensor([ 0.7016, -0.7016], requires_grad=True)
    """

    _decoupled = False

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        _check_hparams(lr=lr, eps=eps, weight_decay=weight_decay)
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        if self._decoupled:
            defaults["decoupled_weight_decay"] = True
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        step_t = state.get("step")
        if step_t is None:
            step_t = state["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
        step_t._data[...] += 1
        step = float(step_t._data)
        m = _buf(state, "exp_avg", p._data)
        v = _buf(state, "exp_avg_sq", p._data)
        if wd != 0:
            if group.get("decoupled_weight_decay", False):
                p._data *= 1 - lr * wd
            else:
                g = g + wd * p._data
        _lerp_(m, g, 1 - beta1)
        v *= beta2
        v += (1 - beta2) * g * g
        bc1 = 1 - beta1**step
        bc2_sqrt = math.sqrt(1 - beta2**step)
        if group["amsgrad"]:
            vmax = _buf(state, "max_exp_avg_sq", p._data)
            np.maximum(vmax, v, out=vmax)
            denom = np.sqrt(vmax) / bc2_sqrt + eps
        else:
            denom = np.sqrt(v) / bc2_sqrt + eps
        p._data -= (lr / bc1) * (m / denom)


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p = p * (1 - lr * weight_decay)`` before the Adam
    step (see :class:`Adam` for the rest of the rule).

    Source: Loshchilov & Hutter, "Decoupled Weight Decay Regularization" (ICLR 2019).

    Args:
        same as :class:`Adam`, but ``weight_decay`` defaults to 1e-2.
    Raises:
        ValueError: a negative lr, eps or weight_decay, a beta outside [0, 1), or an empty
            parameter list (as :class:`Adam`).
        TypeError: ``params`` given as a single Tensor.

    Example:
        >>> import dyngrad
        >>> w = dyngrad.tensor([1.0], requires_grad=True)
        >>> opt = dyngrad.optim.AdamW([w], lr=0.1, weight_decay=0.5)
        >>> (w * 0).sum().backward()                 # zero gradient: only the decay acts
        >>> opt.step()
        >>> w                                        # 1 * (1 - 0.1 * 0.5)
        tensor([0.9500], requires_grad=True)
    """

    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, **kw: Any) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kw)
