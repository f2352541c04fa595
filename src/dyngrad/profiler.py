"""``dyngrad.profiler``: PyTorch's ``torch.profiler`` face over dyngrad's op profiler
(:mod:`dyngrad.autograd.profiler`): ``profile`` (accepting ``activities``, ``schedule``,
``on_trace_ready``, ... ; CPU only), ``record_function``, ``ProfilerActivity``, ``schedule``.

Example:
    >>> from dyngrad.profiler import profile, record_function, ProfilerActivity
    >>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    ...     with record_function("model_inference"):
    ...         model(inputs)
    >>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from .autograd import profiler as _profiler
from .autograd.profiler import record_function

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule"]


class ProfilerActivity(enum.Enum):
    """What to profile; dyngrad records CPU (NumPy) time only, whatever is asked."""

    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3


class ProfilerAction(enum.Enum):
    """The state a :func:`schedule` puts a step in."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """PyTorch's step schedule: ``step -> ProfilerAction`` (skip, then cycles of ``wait``
    idle, ``warmup`` and ``active`` recorded steps, ``repeat`` times; 0 is forever)."""

    def fn(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD_AND_SAVE if pos == cycle - 1 else ProfilerAction.RECORD

    return fn


class profile(_profiler.profile):  # noqa: N801
    """``torch.profiler.profile``: records every op while open (dyngrad records every step;
    ``schedule`` only decides when ``on_trace_ready(prof)`` is called, at the end of each
    active cycle and on exit).

    Args:
        activities: accepted; CPU time is recorded whatever is asked.
        schedule: an optional ``step -> ProfilerAction`` (see :func:`schedule`).
        on_trace_ready: called with the profile when a cycle ends (and on exit).
        record_shapes: also record input shapes.
        profile_memory, with_stack, with_flops, with_modules, experimental_config: accepted,
            ignored.
    """

    def __init__(self, *, activities: Any = None, schedule: Callable | None = None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(record_shapes=record_shapes)
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0

    def step(self) -> None:
        """Mark the end of a training step (calls ``on_trace_ready`` where the schedule says)."""
        if self.schedule is not None and self.on_trace_ready is not None:
            if self.schedule(self.step_num) is ProfilerAction.RECORD_AND_SAVE:
                self.on_trace_ready(self)
        self.step_num += 1

    def __exit__(self, *exc: Any) -> None:
        super().__exit__(*exc)
        if self.on_trace_ready is not None and self.schedule is None:
            self.on_trace_ready(self)

    def start(self) -> None:
        """Open the profile (as ``__enter__``)."""
        self.__enter__()

    def stop(self) -> None:
        """Close the profile (as ``__exit__``)."""
        self.__exit__(None, None, None)
