"""Schedulers that react or compose: ``ReduceLROnPlateau``, ``SequentialLR`` and
``ChainedScheduler`` (PyTorch 2.13's behaviour, state dicts included)."""

from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from ._lr_base import EPOCH_DEPRECATION_WARNING, LRScheduler, _lrs
from .optimizer import Optimizer

__all__ = ["ReduceLROnPlateau", "SequentialLR", "ChainedScheduler"]


class ReduceLROnPlateau(LRScheduler):
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
        TypeError: ``optimizer`` is not an Optimizer.
        ValueError: factor >= 1, an unknown mode/threshold_mode, or a wrong-length min_lr list.
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0,
                 min_lr: float | list[float] = 0.0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.factor = factor
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        self.default_min_lr: float | None
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode} is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode} is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold)

    def step(self, metrics: Any, epoch: int | None = None) -> None:  # type: ignore[override]
        """Record ``metrics`` (a number or one-element Tensor) for this epoch.

        Raises:
            RuntimeError: groups were added since construction and ``min_lr`` was a list.
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new param "
                    "group being added to the optimizer. Please modify the `min_lrs` field to match the "
                    "length of the `optimizer` param groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for g, mn in zip(groups, self.min_lrs):
            old = float(g["lr"])
            new = max(old * self.factor, mn)
            if old - new > self.eps:
                g["lr"] = new

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _check_schedulers(owner: str, optimizer: Optimizer, schedulers: Sequence[LRScheduler]) -> None:
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional kwargs to be "
                f"specified when calling `step`, but got one at index {i} in the given schedulers sequence."
            )
        if optimizer is not s.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got scheduler "
                f"{type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                f"{type(optimizer).__name__}."
            )


class _Composite(LRScheduler):
    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        d["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return d

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        d = dict(state_dict)
        subs = d.pop("_schedulers")
        self.__dict__.update(d)
        for s, sd in zip(self._schedulers, subs):
            s.load_state_dict(sd)


class SequentialLR(_Composite):
    """Run ``schedulers[i]`` between ``milestones[i-1]`` and ``milestones[i]`` (each later one
    starts from epoch 0 at its milestone), e.g. a LinearLR warm-up then a cosine decay.

    Raises:
        ValueError: no schedulers, a ReduceLROnPlateau, a scheduler of another optimizer, or
            ``len(milestones) != len(schedulers) - 1``.
        TypeError: an entry without an ``optimizer``.
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int],
                 last_epoch: int = -1) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
                f"milestone points, but got number of schedulers {len(schedulers)} and the number of milestones "
                f"to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for g in optimizer.param_groups:  # undo the steps the sub-schedulers took at construction
            g["lr"] = g["initial_lr"]
        for s in schedulers:
            self._recursive_undo(s)
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def _recursive_undo(self, sched: Any) -> None:
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self._recursive_undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        """Step the scheduler whose interval holds the next epoch (restarting it at 0 on
        its milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


class ChainedScheduler(_Composite):
    """Step every scheduler in ``schedulers`` at each ``step()``, so their (multiplicative)
    effects compose.

    Raises:
        ValueError: no schedulers, a ReduceLROnPlateau, or schedulers of different optimizers.
        TypeError: an entry without an ``optimizer``.
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(name, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    def step(self) -> None:  # type: ignore[override]
        """Step each chained scheduler once, in order."""
        for s in self._schedulers:
            s.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)
