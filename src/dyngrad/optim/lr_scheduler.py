"""Learning-rate schedulers (PyTorch's ``torch.optim.lr_scheduler``).

Each scheduler rewrites ``group['lr']`` of its optimizer's parameter groups when
``step()`` is called (once per epoch, after ``optimizer.step()``), using the same
(recursive, "chainable") formulas as PyTorch 2.x so the learning-rate sequences agree.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from typing import Any

from .optimizer import Optimizer

__all__ = [
    "LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR", "CosineAnnealingLR",
    "ReduceLROnPlateau",
]


class LRScheduler:
    """Base class: keeps ``base_lrs`` (each group's ``initial_lr``), ``last_epoch`` and the
    last computed learning rates.

    Args:
        optimizer: the wrapped optimizer.
        last_epoch: index of the last epoch; -1 starts fresh (sets ``initial_lr``).
    Raises:
        TypeError: ``optimizer`` is not an Optimizer.
        KeyError: resuming (``last_epoch != -1``) while a group lacks ``initial_lr``.
    """

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for g in optimizer.param_groups:
                g.setdefault("initial_lr", g["lr"])
        else:
            for i, g in enumerate(optimizer.param_groups):
                if "initial_lr" not in g:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an optimizer")
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self.step()

    def get_lr(self) -> list[float]:
        """The learning rates for the current ``last_epoch`` (subclasses implement)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates set by the last ``step()``."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and write the new learning rates into the optimizer."""
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            lrs = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            lrs = closed() if closed is not None else self.get_lr()
        for g, lr in zip(self.optimizer.param_groups, lrs):
            g["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    @property
    def _is_initial(self) -> bool:
        return self.last_epoch == 0

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer (and, for LambdaLR, the functions)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)


def _lrs(s: LRScheduler) -> list[float]:
    return [g["lr"] for g in s.optimizer.param_groups]


class StepLR(LRScheduler):
    """``lr = base_lr * gamma ** (epoch // step_size)`` (applied as a multiplication by
    ``gamma`` every ``step_size`` epochs)."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self)
        return [lr * self.gamma for lr in _lrs(self)]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each epoch in ``milestones``."""

    def __init__(self, optimizer: Optimizer, milestones: list[int], gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch not in self.milestones:
            return _lrs(self)
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in _lrs(self)]

    def _get_closed_form_lr(self) -> list[float]:
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``lr = base_lr * gamma ** epoch``."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        if self.last_epoch == 0:
            return _lrs(self)
        return [lr * self.gamma for lr in _lrs(self)]

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
        t, T, e = self.last_epoch, self.T_max, self.eta_min  # noqa: N806
        groups = _lrs(self)
        if t == 0:
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


class ReduceLROnPlateau:
    """Multiply the lr by ``factor`` when a metric has stopped improving for ``patience``
    epochs (``step(metric)`` once per epoch).

    Args:
        optimizer: the wrapped optimizer.
        mode: 'min' (metric should decrease) or 'max'.
        factor: multiplier (< 1).
        patience: epochs without improvement tolerated before reducing.
        threshold, threshold_mode: what counts as an improvement ('rel': relative to the
            best, 'abs': absolute).
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: lower bound (a float, or one per group).
        eps: reductions smaller than this are skipped.
    Raises:
        ValueError: factor >= 1, an unknown mode/threshold_mode, or a wrong-length min_lr list.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | list[float] = 0.0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.min_lrs = list(min_lr)
        else:
            self.min_lrs = [min_lr] * n
        self.factor, self.patience, self.threshold = factor, patience, threshold
        self.mode, self.threshold_mode, self.cooldown, self.eps = mode, threshold_mode, cooldown, eps
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self.cooldown_counter = 0
        self.last_epoch = 0
        self._last_lr = _lrs(self)  # type: ignore[arg-type]

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            ref = best * (1 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold
            return a < ref
        ref = best * (self.threshold + 1) if self.threshold_mode == "rel" else best + self.threshold
        return a > ref

    def step(self, metrics: Any, epoch: int | None = None) -> None:
        """Record ``metrics`` (a number or one-element Tensor) for this epoch."""
        current = float(metrics.item() if hasattr(metrics, "item") else metrics)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for g, mn in zip(self.optimizer.param_groups, self.min_lrs):
                old = g["lr"]
                new = max(old * self.factor, mn)
                if old - new > self.eps:
                    g["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self)  # type: ignore[arg-type]

    def get_last_lr(self) -> list[float]:
        return self._last_lr

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
