"""Cyclic learning-rate schedules: ``CosineAnnealingWarmRestarts``, ``CyclicLR`` and
``OneCycleLR`` (PyTorch 2.13's formulas, momentum cycling included)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ._lr_base import LRScheduler, _format_param
from .optimizer import Optimizer

__all__ = ["CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR"]


def _set_momentum(group: dict[str, Any], use_beta1: bool, m: float) -> None:
    if use_beta1:
        group["betas"] = (m, *group["betas"][1:])
    else:
        group["momentum"] = m


def _init_momentum(optimizer: Optimizer, base_momentum: Any, max_momentum: Any,
                   last_epoch: int) -> tuple[bool, list[float], list[float]]:
    """Check the optimizer has a momentum (or Adam's beta1), set it to ``max_momentum`` and
    record ``max_momentum`` / ``base_momentum`` in each group (PyTorch's behaviour)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    use_beta1 = "betas" in optimizer.defaults
    bases = _format_param("base_momentum", optimizer, base_momentum)
    maxes = _format_param("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for mx, b, g in zip(maxes, bases, optimizer.param_groups):
            _set_momentum(g, use_beta1, mx)
            g["max_momentum"] = mx
            g["base_momentum"] = b
    return use_beta1, bases, maxes


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing with warm restarts: ``lr = eta_min + (base_lr - eta_min) *
    (1 + cos(pi * T_cur / T_i)) / 2``, where ``T_cur`` counts epochs since the last restart
    and the period ``T_i`` starts at ``T_0`` and is multiplied by ``T_mult`` at each restart.
    ``step(epoch)`` may be given a fractional epoch (e.g. ``epoch + i / iters``).

    Source: Loshchilov & Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts"
    (ICLR 2017).

    Raises:
        ValueError: ``T_0`` not a positive int, ``T_mult`` not an int >= 1, a non-number
            ``eta_min``, or a negative epoch.
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,  # noqa: N803
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for b in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Advance one epoch, or jump to ``epoch`` (may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** (n)
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            lrs = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for g, lr in zip(self.optimizer.param_groups, lrs):
            g["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]


class CyclicLR(LRScheduler):
    r"""Cyclical learning rate: the lr moves between ``base_lr`` and ``max_lr`` in triangles of
    ``step_size_up + step_size_down`` iterations (call ``step()`` after every batch); the
    amplitude is scaled by ``scale_fn`` ('triangular': 1, 'triangular2': halved each cycle,
    'exp_range': ``gamma ** iteration``). With ``cycle_momentum`` the momentum (or Adam's
    beta1) moves inversely between ``max_momentum`` and ``base_momentum``.

    Source: Smith, "Cyclical Learning Rates for Training Neural Networks" (WACV 2017).

    Raises:
        TypeError: ``optimizer`` is not an Optimizer.
        ValueError: an unknown mode without ``scale_fn``; ``cycle_momentum`` with an optimizer
            that has neither ``momentum`` nor ``betas``; a per-group list of the wrong length.
    """

    def __init__(self, optimizer: Optimizer, base_lr: float | list[float], max_lr: float | list[float],
                 step_size_up: int = 2000, step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float = 0.8, max_momentum: float = 0.9,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, g in zip(base_lrs, optimizer.param_groups):
                g["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, self.base_momentums, self.max_momentums = _init_momentum(
                optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is None and self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self._scale_fn_custom is None and self.mode == "exp_range":
            self.scale_mode = "iterations"

    def scale_fn(self, x: float) -> float:
        """The amplitude scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma**x

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        scale_factor = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [b + (mx - b) * scale_factor * self.scale_fn(at) for b, mx in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for g, b, mx in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(g, self.use_beta1, mx - (mx - b) * scale_factor * self.scale_fn(at))
        return lrs

    def state_dict(self) -> dict[str, Any]:
        d = super().state_dict()
        d["_scale_fn_custom"] = None  # functions are not saved, as in PyTorch
        return d

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        d = dict(state_dict)
        d.pop("_scale_fn_custom", None)
        super().load_state_dict(d)
        self._init_scale_fn()


class OneCycleLR(LRScheduler):
    r"""The 1cycle policy: the lr rises from ``max_lr / div_factor`` to ``max_lr`` over the
    first ``pct_start`` of ``total_steps``, then anneals (cosine or linear) to
    ``initial_lr / final_div_factor``; ``three_phase`` comes back down to ``initial_lr``
    symmetrically first. With ``cycle_momentum`` the momentum (or Adam's beta1) moves
    inversely between ``max_momentum`` and ``base_momentum``. Call ``step()`` after every batch.

    Source: Smith & Topin, "Super-Convergence: Very Fast Training of Neural Networks Using
    Large Learning Rates" (2018).

    Raises:
        TypeError: ``optimizer`` is not an Optimizer.
        ValueError: neither ``total_steps`` nor ``epochs`` and ``steps_per_epoch`` (positive
            ints), ``pct_start`` not a float in [0, 1], an unknown ``anneal_strategy``, or
            stepping past ``total_steps``.
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float], total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        n = self.total_steps
        self._schedule_phases: list[dict[str, Any]]
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * n) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * n) - 2, "start_lr": "max_lr", "end_lr": "initial_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": n - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * n) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": n - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for mx, g in zip(max_lrs, optimizer.param_groups):
                g["initial_lr"] = mx / div_factor
                g["max_lr"] = mx
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1, _, _ = _init_momentum(optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        self._warn_if_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total steps is {self.total_steps}")
        lrs = []
        for g in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = float(phase["end_step"])
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lrs.append(self._anneal(g[phase["start_lr"]], g[phase["end_lr"]], pct))
                    if self.cycle_momentum:
                        m = self._anneal(g[phase["start_momentum"]], g[phase["end_momentum"]], pct)
                        _set_momentum(g, self.use_beta1, m)
                    break
                start_step = end_step
        return lrs
