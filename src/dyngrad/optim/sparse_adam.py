"""SparseAdam (PyTorch's ``torch.optim.SparseAdam``), for the API only: dyngrad has no
sparse tensors, so every gradient is dense and ``step`` refuses it exactly as PyTorch does
for a dense gradient."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Adam for sparse gradients (``nn.Embedding(sparse=True)``), which dyngrad does not
    have: ``nn.Embedding(sparse=True)`` raises NotImplementedError at its forward, and a
    ``SparseAdam`` constructed on dense parameters (accepted, as PyTorch) raises at the first
    ``step`` that sees a gradient. Use :class:`~dyngrad.optim.Adam`: on dense gradients,
    SparseAdam's update is Adam's restricted to the rows that have a gradient.

    Args:
        params: parameters or parameter groups.
        lr: learning rate (default 1e-3), > 0.
        betas: coefficients of the running averages, each in [0, 1).
        eps: > 0 (default 1e-8).
        maximize: maximize the objective.
    Raises:
        ValueError: ``lr <= 0``, ``eps <= 0`` or a beta outside [0, 1).
        RuntimeError: at ``step``, for any (necessarily dense) gradient.

    Example:
        >>> import dyngrad
        >>> p = dyngrad.zeros(3, requires_grad=True)
        >>> opt = dyngrad.optim.SparseAdam([p], lr=0.1)
        >>> opt.param_groups[0]["betas"]
        (0.9, 0.999)
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, b in enumerate(betas):
            if not 0.0 <= b < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {b}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, maximize=maximize))

    def _update(self, p: Tensor, g: np.ndarray, group: dict[str, Any], state: dict[str, Any]) -> None:
        raise RuntimeError(
            "SparseAdam does not support dense gradients, please consider Adam instead (dyngrad has no sparse "
            "gradients: nn.Embedding(sparse=True) is not supported)"
        )
