"""``torch.utils.benchmark`` as dyngrad has it: ``Timer`` (``timeit``, ``blocked_autorange``),
``Measurement`` and ``Compare``, over Python's ``timeit``. Enough for the tutorials that
time a function (per-sample gradients, ensembling, Jacobians); no instruction counts
(use ``valgrind --tool=callgrind`` for those) and no thread sweeps.

Example:
    >>> import dyngrad
    >>> from dyngrad.utils.benchmark import Timer
    >>> x = dyngrad.ones(8)
    >>> m = Timer(stmt="x * 2", globals={"x": x}, label="mul").timeit(10)
    >>> m.number_per_run, len(m.times), m.median > 0
    (10, 1, True)
"""

from __future__ import annotations

import statistics
import timeit as _timeit
from typing import Any

__all__ = ["Timer", "Measurement", "Compare"]


def _fmt(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.2f} {unit}"
    return f"{seconds:.2e} s"


class Measurement:
    """The result of a :class:`Timer` run: ``times`` are seconds per call, one per block.

    Attributes:
        number_per_run (int): calls in each timed block.
        raw_times (list of float): seconds of each block.
        times (list of float): seconds per call of each block.
        label, sub_label, description (str or None): as given to the Timer.
        num_threads (int): as given to the Timer.
    """

    def __init__(self, number_per_run: int, raw_times: list[float], label: str | None = None,
                 sub_label: str | None = None, description: str | None = None, stmt: str = "",
                 num_threads: int = 1) -> None:
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.times = [t / number_per_run for t in raw_times]
        self.label, self.sub_label, self.description, self.stmt = label, sub_label, description, stmt
        self.num_threads = num_threads

    @property
    def median(self) -> float:
        """Median seconds per call."""
        return statistics.median(self.times)

    @property
    def mean(self) -> float:
        """Mean seconds per call."""
        return statistics.fmean(self.times)

    @property
    def iqr(self) -> float:
        """Interquartile range of the seconds per call (0 for fewer than 2 blocks)."""
        if len(self.times) < 2:
            return 0.0
        q = statistics.quantiles(self.times, n=4)
        return q[2] - q[0]

    def __repr__(self) -> str:
        """PyTorch's layout: the object line, the title (label, else the statement), the
        description, the median (``Median:`` when there are several blocks), the IQR (from
        4 blocks on) and the counts line (``1 measurement, 100 runs , 1 thread``)."""
        if self.label is not None:
            title = self.label + (f": {self.sub_label}" if self.sub_label else "")
        elif "\n" not in self.stmt:
            title = self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        else:
            title = f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + "\n".join(
                "  " + line for line in self.stmt.splitlines())
        n = len(self.times)
        lines = [object.__repr__(self), title]
        if self.description:
            lines.append(self.description)
        lines.append(f"  {'Median: ' if n > 1 else ''}{_fmt(self.median)}")
        if n >= 4:
            q = statistics.quantiles(self.times, n=4)
            unit = _fmt(self.median).split()[1]
            scale = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({q[0] / scale:.2f} to {q[2] / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} thread{'s' if self.num_threads > 1 else ''}")
        return "\n".join(lines)


class Timer:
    """Time ``stmt`` (a string or a callable) as PyTorch's ``torch.utils.benchmark.Timer``.

    Args:
        stmt (str or callable): what to time.
        setup (str): run once before timing.
        globals (dict, optional): the names ``stmt`` and ``setup`` use.
        label, sub_label, description (str, optional): carried to the Measurement.
        num_threads (int): recorded (the BLAS threads are set with ``dyngrad.set_num_threads``).
    """

    def __init__(self, stmt: Any = "pass", setup: str = "pass", globals: dict | None = None,  # noqa: A002
                 label: str | None = None, sub_label: str | None = None, description: str | None = None,
                 num_threads: int = 1, **kwargs: Any) -> None:
        self._stmt = stmt
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, globals=dict(globals or {}))
        self._meta = dict(label=label, sub_label=sub_label, description=description,
                          stmt=stmt if isinstance(stmt, str) else getattr(stmt, "__name__", repr(stmt)),
                          num_threads=num_threads)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One block of ``number`` calls.

        Raises:
            ValueError: ``number`` below 1.
        """
        if number < 1:
            raise ValueError(f"timeit: number must be at least 1, got {number}")
        return Measurement(number, [self._timer.timeit(number)], **self._meta)

    def blocked_autorange(self, callback: Any = None, min_run_time: float = 0.2) -> Measurement:
        """Blocks of a size chosen so each takes about 10 ms or more, until ``min_run_time``
        seconds were spent timing (at least one block)."""
        number, t = 1, self._timer.timeit(1)
        while t < 0.01 and number < 10**9:
            number *= 10
            t = self._timer.timeit(number)
        raw = [t]
        total = t
        while total < min_run_time:
            t = self._timer.timeit(number)
            if callback is not None:
                callback(number, t)
            raw.append(t)
            total += t
        return Measurement(number, raw, **self._meta)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback: Any = None) -> Measurement:
        """As :meth:`blocked_autorange` (no adaptive stopping rule here)."""
        return self.blocked_autorange(callback, max(min_run_time, 0.2))


class Compare:
    """A table of Measurements grouped by label, rows by sub_label, columns by description.

    Example:
        >>> from dyngrad.utils.benchmark import Compare, Measurement
        >>> Compare([Measurement(1, [0.001], "f", "a", "x"), Measurement(1, [0.002], "f", "a", "y")]).print()
        [-- f --]
           |     x     |     y
        a  |  1.00 ms  |  2.00 ms
    """

    def __init__(self, results: list[Measurement]) -> None:
        self._results = list(results)

    def __str__(self) -> str:
        out = []
        labels = list(dict.fromkeys(m.label for m in self._results))
        for lab in labels:
            ms = [m for m in self._results if m.label == lab]
            cols = list(dict.fromkeys(m.description or "" for m in ms))
            rows = list(dict.fromkeys(m.sub_label or "" for m in ms))
            cell = {(m.sub_label or "", m.description or ""): _fmt(m.median) for m in ms}
            w = max([len(r) for r in rows] + [1])
            cw = max([len(c) for c in cols] + [len(v) for v in cell.values()]) + 4
            out.append(f"[-- {lab} --]")
            out.append(" " * w + "  |" + "|".join(c.center(cw) for c in cols).rstrip())
            for r in rows:
                out.append(r.ljust(w) + "  |" + "|".join(cell.get((r, c), "").center(cw) for c in cols).rstrip())
        return "\n".join(out)

    def print(self) -> None:
        """Print the table."""
        print(str(self))
