"""The ``LRScheduler`` base class (PyTorch 2.13's ``torch.optim.lr_scheduler.LRScheduler``).

Kept apart from ``lr_scheduler.py`` (the public face) so the scheduler families in
``lr_cyclic.py`` and ``lr_composite.py`` can build on it without an import cycle.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from functools import wraps
from typing import Any

from .optimizer import Optimizer

__all__ = ["LRScheduler", "EPOCH_DEPRECATION_WARNING"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)

_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
    "In PyTorch 1.1.0 and later, you should call them in the opposite order: "
    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
    "will result in PyTorch skipping the first value of the learning rate schedule. "
    "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)

_OVERRIDE_WARNING = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
    "initialization. Please, make sure to call `optimizer.step()` before "
    "`lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


def _lrs(optimizer: Optimizer, key: str = "lr") -> list[Any]:
    return [g[key] for g in optimizer.param_groups]


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: a list/tuple of the right length, or a scalar repeated.

    Raises:
        ValueError: a list whose length differs from the number of groups.
    """
    n = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != n:
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has {n}."
            )
        return list(param)
    return [param] * n


def _track_step_called(scheduler: LRScheduler) -> None:
    """Wrap the optimizer instance's ``step`` so it records ``_opt_called`` (as PyTorch does),
    letting the first ``scheduler.step()`` warn when the optimizer has not stepped yet."""
    opt = scheduler.optimizer
    if hasattr(opt.step, "_wrapped_by_lr_sched"):
        return
    func = type(opt).step
    opt_ref = weakref.ref(opt)

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        o = opt_ref()
        assert o is not None, "the optimizer was freed"
        o._opt_called = True  # type: ignore[attr-defined]
        return func(o, *args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    opt.step = wrapper  # type: ignore[method-assign]


class LRScheduler:
    """Base class of the schedulers: keeps ``base_lrs`` (each group's ``initial_lr``),
    ``last_epoch`` and the last learning rates; ``step()`` (after ``optimizer.step()``)
    writes the next ones into the optimizer's groups.

    Args:
        optimizer: the wrapped optimizer.
        last_epoch: index of the last epoch; -1 starts fresh (sets ``initial_lr``).
    Raises:
        TypeError: ``optimizer`` is not an Optimizer.
        KeyError: resuming (``last_epoch != -1``) while a group lacks ``initial_lr``.
    Warns:
        UserWarning: the first ``step()`` comes before any ``optimizer.step()`` (PyTorch's
            message), or ``step(epoch)`` is given an epoch (deprecated, as in PyTorch).
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

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
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler "
                        "with last_epoch >= 0."
                    )
        self.base_lrs: list[Any] = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_called(self)
        self._initial_step()

    def _initial_step(self) -> None:
        """The step run at construction (``_is_initial`` is True inside it)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The learning rates for the current ``last_epoch`` (subclasses implement)."""
        raise NotImplementedError

    def get_last_lr(self) -> list[float]:
        """The learning rates set by the last ``step()``, one per parameter group."""
        return self._last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch and write the new learning rates into the optimizer.

        Args:
            epoch: deprecated (warns): jump to this epoch, using the closed form if any.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(_OVERRIDE_WARNING, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed: Callable[[], list[float]] | None = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = _lrs(self.optimizer)

    def _warn_if_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=3)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer, as a dict (PyTorch's keys: ``base_lrs``,
        ``last_epoch``, ``_step_count``, ``_last_lr`` and the scheduler's own settings)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the scheduler's state from :meth:`state_dict`'s output."""
        self.__dict__.update(state_dict)
