"""RMSprop (PyTorch's ``torch.optim.RMSprop``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, _buf, _check_hparams, _lerp_

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop: divide the gradient by a running root mean square of recent gradients.

    Update rule (``g`` negated when ``maximize``)::

        g = g + weight_decay * p                              (if weight_decay != 0)
        v = alpha * v + (1 - alpha) * g * g
        a = alpha * a + (1 - alpha) * g; d = sqrt(v - a*a) + eps   (centered)
        d = sqrt(v) + eps                                     (otherwise)
        b = momentum * b + g / d;  p = p - lr * b             (momentum > 0)
        p = p - lr * g / d                                    (otherwise)

    Sources: Hinton, Lecture 6e of "Neural Networks for Machine Learning" (Coursera, 2012);
    the centered version: Graves, "Generating Sequences With Recurrent Neural Networks" (2013).

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-2).
        alpha: smoothing constant (default 0.99).
        eps: added to the denominator (default 1e-8).
        weight_decay: L2 penalty (default 0).
        momentum: momentum factor (default 0).
        centered: normalise by an estimate of the gradient's variance.
        maximize: maximize the objective.
    Raises:
        ValueError: a negative hyper-parameter.

    Example:
        >>> import dyngrad
        >>> p = dyngrad.tensor([1.0, -2.0], requires_grad=True)
        >>> opt = dyngrad.optim.RMSprop([p], lr=0.01)
        >>> for _ in range(2):
        ...     opt.zero_grad()
        ...     (p ** 2).sum().backward()
        ...     opt.step()
        >>> [round(v, 4) for v in p.tolist()]              # PyTorch 2.13 gives the same
        [0.8329, -1.8309]
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False,
                 capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_hparams(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                        centered=centered, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        lr, alpha, eps, wd, mom = (group[k] for k in ("lr", "alpha", "eps", "weight_decay", "momentum"))
        step_t = state.get("step")
        if step_t is None:
            step_t = state["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
        step_t._data[...] += 1
        if wd != 0:
            g = g + wd * p._data
        v = _buf(state, "square_avg", p._data)
        v *= alpha
        v += (1 - alpha) * g * g
        if group["centered"]:
            a = _buf(state, "grad_avg", p._data)
            _lerp_(a, g, 1 - alpha)
            d = np.sqrt(v - a * a) + eps
        else:
            d = np.sqrt(v) + eps
        if mom > 0:
            b = _buf(state, "momentum_buffer", p._data)
            b *= mom
            b += g / d
            p._data -= lr * b
        else:
            p._data -= lr * (g / d)
