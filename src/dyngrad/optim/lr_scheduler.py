"""Learning-rate schedulers (PyTorch's ``torch.optim.lr_scheduler``).

Each scheduler rewrites ``group['lr']`` of its optimizer's parameter groups when
``step()`` is called (once per epoch, after ``optimizer.step()``), using the same
(recursive, "chainable") formulas as PyTorch 2.13 so the learning-rate sequences agree.
This module holds the multiplicative schedules; the cyclic ones live in ``lr_cyclic.py``,
the plateau and composite ones in ``lr_composite.py``, the base class in ``_lr_base.py``.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from typing import Any

from ._lr_base import LRScheduler, _lrs
from .lr_composite import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from .lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from .optimizer import Optimizer

__all__ = [
    "LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
    "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "CyclicLR",
    "OneCycleLR", "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau",
]


class _LRScheduler(LRScheduler):
    """PyTorch's old name of :class:`LRScheduler` (a subclass, as in PyTorch 2.13), kept for
    schedulers written as ``class MyScheduler(_LRScheduler)``."""


class StepLR(LRScheduler):
    """``lr = base_lr * gamma ** (epoch // step_size)`` (applied as a multiplication by
    ``gamma`` every ``step_size`` epochs)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [lr * self.gamma for lr in _lrs(self.optimizer)]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each epoch in ``milestones``."""

    def __init__(self, optimizer: Optimizer, milestones: list[int], gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in _lrs(self.optimizer)]

    def _get_closed_form_lr(self) -> list[float]:
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``lr = base_lr * gamma ** epoch``."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [lr * self.gamma for lr in _lrs(self.optimizer)]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma**self.last_epoch for b in self.base_lrs]


class LambdaLR(LRScheduler):
    """``lr = base_lr * lr_lambda(epoch)`` (one function, or one per group).

    Raises:
        ValueError: a list of functions whose length differs from the number of groups.
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list, last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        return [b * f(self.last_epoch) for b, f in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self) -> dict[str, Any]:
        d = super().state_dict()
        d["lr_lambdas"] = [None] * len(self.lr_lambdas)
        return d

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        d = dict(state_dict)
        d.pop("lr_lambdas", None)
        super().load_state_dict(d)


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing: ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2``
    (computed recursively, as PyTorch does, so it composes with other schedulers).

    Source: Loshchilov & Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts"
    (ICLR 2017).
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:  # noqa: N803
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        t, T, e = self.last_epoch, self.T_max, self.eta_min  # noqa: N806
        groups = _lrs(self.optimizer)
        if self._is_initial:
            return groups
        if self._step_count == 1 and t > 0:
            return [e + (b - e) * (1 + math.cos(t * math.pi / T)) / 2 for b in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (b - e) * (1 - math.cos(math.pi / T)) / 2 for b, lr in zip(self.base_lrs, groups)]
        return [
            (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T)) * (lr - e) + e for lr in groups
        ]

    def _get_closed_form_lr(self) -> list[float]:
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


class MultiplicativeLR(LRScheduler):
    """``lr = lr * lr_lambda(epoch)`` each epoch (one function, or one per group).

    Raises:
        ValueError: a list of functions whose length differs from the number of groups.
        TypeError: a ``lr_lambda`` that is not callable.
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float] | list, last_epoch: int = -1) -> None:
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        for f in self.lr_lambdas:
            if not callable(f):
                raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [lr * f(self.last_epoch) for lr, f in zip(_lrs(self.optimizer), self.lr_lambdas)]

    def state_dict(self) -> dict[str, Any]:
        d = super().state_dict()
        d["lr_lambdas"] = [None] * len(self.lr_lambdas)
        return d

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        d = dict(state_dict)
        d.pop("lr_lambdas", None)
        super().load_state_dict(d)


class ConstantLR(LRScheduler):
    """``lr = base_lr * factor`` for the first ``total_iters`` epochs, then ``base_lr``.

    Raises:
        ValueError: ``factor`` outside [0, 1].
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in _lrs(self.optimizer)]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [lr * (1.0 / self.factor) for lr in _lrs(self.optimizer)]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)) for b in self.base_lrs]


class LinearLR(LRScheduler):
    """The lr factor goes linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs, then stays.

    Raises:
        ValueError: ``start_factor`` outside (0, 1] or ``end_factor`` outside [0, 1].
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in _lrs(self.optimizer)]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        a, b, n = self.start_factor, self.end_factor, self.total_iters
        return [lr * (1.0 + (b - a) / (n * a + (self.last_epoch - 1) * (b - a))) for lr in _lrs(self.optimizer)]

    def _get_closed_form_lr(self) -> list[float]:
        a, b, n = self.start_factor, self.end_factor, self.total_iters
        return [base * (a + (b - a) * min(n, self.last_epoch) / n) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``lr = base_lr * (1 - min(epoch, total_iters) / total_iters) ** power``."""

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        n, t = self.total_iters, self.last_epoch
        decay = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [lr * decay for lr in _lrs(self.optimizer)]

    def _get_closed_form_lr(self) -> list[float]:
        n = self.total_iters
        return [b * (1.0 - min(n, self.last_epoch) / n) ** self.power for b in self.base_lrs]
