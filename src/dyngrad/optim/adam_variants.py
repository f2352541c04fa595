"""Adam's relatives: NAdam, RAdam and Adamax (PyTorch's ``torch.optim.NAdam`` / ``RAdam`` /
``Adamax``), each written as PyTorch's single-tensor path so trajectories agree."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _buf, _check_betas, _check_common, _lerp_, _next_step, _scalar

__all__ = ["NAdam", "RAdam", "Adamax"]


class NAdam(Optimizer):
    r"""NAdam: Adam with Nesterov momentum.

    Update rule at step ``t`` (``g`` negated when ``maximize``; ``psi = momentum_decay``)::

        p = p * (1 - lr * weight_decay)   if decoupled_weight_decay   else   g = g + weight_decay * p
        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * psi));  mu_{t+1} likewise
        prod = prod * mu_t                               (state 'mu_product', starts at 1)
        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
        denom = sqrt(v / (1 - beta2 ** t)) + eps
        p = p - lr * (1 - mu_t) / (1 - prod) * g / denom
              - lr * mu_{t+1} / (1 - prod * mu_{t+1}) * m / denom

    Source: Dozat, "Incorporating Nesterov Momentum into Adam" (ICLR 2016 workshop);
    decoupled decay (NAdamW): Loshchilov & Hutter (ICLR 2019).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 2e-3).
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator (default 1e-8).
        weight_decay: weight decay (default 0).
        momentum_decay: the ``psi`` above (default 4e-3).
        decoupled_weight_decay: decay the weights as AdamW does instead of an L2 penalty.
        foreach, maximize, capturable, differentiable: as PyTorch's (``maximize`` negates the
            gradient; the others are accepted and change nothing on NumPy).
    Raises:
        ValueError: a negative lr/eps/weight_decay/momentum_decay or a beta outside [0, 1).

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.NAdam([p], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (p ** 2).sum().backward()
        ...     opt.step()
        >>> [round(v, 4) for v in p.tolist()]              # PyTorch 2.13 gives the same
        [0.82, -1.8179]
    """

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_common(lr, eps)
        _check_betas(betas)
        _check_common(0.0, weight_decay=weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, wd, eps, psi = group["lr"], group["weight_decay"], group["eps"], group["momentum_decay"]
        beta1, beta2 = group["betas"]
        step = _next_step(state)
        mu_product = _scalar(state, "mu_product", 1.0)
        m = _buf(state, "exp_avg", p._data)
        v = _buf(state, "exp_avg_sq", p._data)
        bc2 = 1 - beta2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * wd
            else:
                g = g + wd * p._data
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
        mu_product *= mu  # in the scalar dtype (float32 by default), as PyTorch's state tensor
        _lerp_(m, g, 1 - beta1)
        v *= beta2
        v += (1 - beta2) * g * g
        denom = np.sqrt(v / bc2) + eps
        prod = float(mu_product)
        prod_next = prod * mu_next
        p._data += (-lr * (1.0 - mu) / (1.0 - prod)) * g / denom
        p._data += ((-lr * mu_next) / (1.0 - prod_next)) * m / denom


class RAdam(Optimizer):
    r"""RAdam: Adam with a rectified (variance-corrected) adaptive learning rate.

    Update rule at step ``t`` (``g`` negated when ``maximize``)::

        p = p * (1 - lr * weight_decay)   if decoupled_weight_decay   else   g = g + weight_decay * p
        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1 ** t)
        rho_inf = 2 / (1 - beta2) - 1;   rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
        if rho_t > 5:
            r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
            p = p - lr * m_hat * r * sqrt(1 - beta2**t) / (sqrt(v) + eps)
        else:
            p = p - lr * m_hat

    Source: Liu et al., "On the Variance of the Adaptive Learning Rate and Beyond" (ICLR 2020).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3).
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator (default 1e-8).
        weight_decay: weight decay (default 0).
        decoupled_weight_decay: decay the weights as AdamW does instead of an L2 penalty.
        foreach, maximize, capturable, differentiable: as PyTorch's.
    Raises:
        ValueError: a negative lr/eps/weight_decay or a beta outside [0, 1).

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.RAdam([p], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (p ** 2).sum().backward()
        ...     opt.step()
        >>> [round(v, 4) for v in p.tolist()]              # PyTorch 2.13 gives the same
        [0.6211, -1.2421]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_common(lr, eps)
        _check_betas(betas)
        _check_common(0.0, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        step = _next_step(state)
        m = _buf(state, "exp_avg", p._data)
        v = _buf(state, "exp_avg_sq", p._data)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * wd
            else:
                g = g + wd * p._data
        _lerp_(m, g, 1 - beta1)
        v *= beta2
        v += (1 - beta2) * g * g
        bc1 = 1 - beta1**step
        bc2 = 1 - beta2**step
        m_hat = m / bc1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bc2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bc2**0.5) / (np.sqrt(v) + eps)
            p._data -= m_hat * lr * adaptive * rect
        else:
            p._data -= m_hat * lr


class Adamax(Optimizer):
    r"""Adamax: Adam with the infinity norm in place of the second moment.

    Update rule at step ``t`` (``g`` negated when ``maximize``)::

        g = g + weight_decay * p                         (if weight_decay != 0)
        m = beta1 * m + (1 - beta1) * g
        u = max(beta2 * u, |g| + eps)
        p = p - lr / (1 - beta1 ** t) * m / u

    Source: Kingma & Ba, "Adam: A Method for Stochastic Optimization" (ICLR 2015), section 7.

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 2e-3).
        betas: coefficients of the running average of the gradient and of the decay of the
            infinity norm.
        eps: added to ``|g|`` (default 1e-8).
        weight_decay: L2 penalty (default 0).
        foreach, maximize, differentiable, capturable: as PyTorch's.
    Raises:
        ValueError: a negative lr/eps/weight_decay or a beta outside [0, 1).

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.Adamax([p], lr=0.1)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (p ** 2).sum().backward()
        ...     opt.step()
        >>> [round(v, 4) for v in p.tolist()]              # PyTorch 2.13 gives the same
        [0.8052, -1.8025]
    """

    def __init__(self, params: Iterable[Any], lr: float = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        _check_common(lr, eps)
        _check_betas(betas)
        _check_common(0.0, weight_decay=weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        step = _next_step(state)
        m = _buf(state, "exp_avg", p._data)
        u = _buf(state, "exp_inf", p._data)
        if wd != 0:
            g = g + wd * p._data
        _lerp_(m, g, 1 - beta1)
        u *= beta2
        np.maximum(u, np.abs(g) + eps, out=u)
        clr = lr / (1 - beta1**step)
        p._data -= clr * m / u

