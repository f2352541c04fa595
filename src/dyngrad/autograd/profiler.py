"""``dyngrad.autograd.profiler.profile``: per-op forward and backward time, call counts and
bytes saved for backward.

When no profiler is active, the cost is one attribute check in ``Function.apply`` and one
in the engine's node call (``state.active``). When active, ``Function.apply`` calls
:func:`run_forward` instead of running forward directly, and the engine calls
:func:`run_backward` instead of ``node.apply``; both time the call and append an event to
every open profile (nested profiles all see the events).

Example:
    >>> with dyngrad.autograd.profiler.profile() as prof:
    ...     loss = (model(x) - y).pow(2).mean()
    ...     loss.backward()
    >>> print(prof.table(sort_by="self_cpu_time_total"))
    >>> prof.export_chrome_trace("trace.json")  # open in ui.perfetto.dev
"""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .function import Function

from ._context import context as _context

__all__ = ["profile", "record_function", "FunctionEvent", "FunctionEventAvg", "EventAverages"]


class _State:
    """Global (all threads) profiler switch and the stack of open profiles."""

    __slots__ = ("active", "profiles", "lock")

    def __init__(self) -> None:
        self.active = False
        self.profiles: list = []
        self.lock = threading.Lock()


state = _State()
_now = time.perf_counter_ns


class FunctionEvent:
    """One timed call: ``name``, ``kind`` ('forward', 'backward', or 'backward_op' for an
    op run inside a backward, counted in that backward's time), ``start_ns``,
    ``dur_ns``, ``self_ns`` (minus nested ops), ``saved_bytes``, ``thread``, ``shapes``."""

    __slots__ = ("name", "kind", "start_ns", "dur_ns", "self_ns", "saved_bytes", "thread", "shapes")

    def __init__(self, name: str, kind: str, start_ns: int, thread: int) -> None:
        self.name, self.kind, self.start_ns, self.thread = name, kind, start_ns, thread
        self.dur_ns = self.self_ns = self.saved_bytes = 0
        self.shapes: list | None = None

    def __repr__(self) -> str:
        return f"FunctionEvent({self.name!r}, {self.kind}, {self.dur_ns / 1e3:.1f} us)"


class FunctionEventAvg:
    """Per-op aggregate (one row of the table)."""

    __slots__ = ("key", "count", "cpu_time_total", "self_cpu_time_total", "backward_count",
                 "backward_time_total", "saved_bytes")

    def __init__(self, key: str) -> None:
        self.key = key
        self.count = self.backward_count = 0
        self.cpu_time_total = self.self_cpu_time_total = self.backward_time_total = 0  # ns
        self.saved_bytes = 0

    def __repr__(self) -> str:
        return f"<FunctionEventAvg {self.key}: {self.count} calls, {self.cpu_time_total / 1e3:.1f} us>"


class EventAverages(list):
    """The rows of :meth:`profile.key_averages` (a list of :class:`FunctionEventAvg`)."""

    def table(self, sort_by: str | None = "cpu_time_total", row_limit: int = 100, **kwargs: Any) -> str:
        """The per-op summary as a string.

        Args:
            sort_by: one of ``cpu_time_total`` (forward, including nested ops),
                ``self_cpu_time_total``, ``backward_time_total``, ``total`` (forward +
                backward), ``count``, ``saved_bytes``, ``name``. Descending, except name.
            row_limit: the most rows shown (``-1``: all).
            kwargs: PyTorch's other options (``max_name_column_width``, ...), accepted and
                ignored.
        Raises:
            ValueError: for an unknown ``sort_by``.
        """
        sort_by = "cpu_time_total" if sort_by is None else sort_by
        if sort_by not in _SORT_KEYS:
            raise ValueError(f"profile.table: unknown sort_by {sort_by!r}; use one of {', '.join(_SORT_KEYS)}")
        rows = list(self)
        key = _SORT_KEYS[sort_by]
        rows.sort(key=(lambda r: r.key) if key is None else key, reverse=key is not None)
        w = max([len(r.key) for r in rows] + [4])
        head = (f"{'Name':<{w}}  {'Calls':>6}  {'Fwd total':>11}  {'Fwd self':>11}  {'Bwd calls':>9}  "
                f"{'Bwd total':>11}  {'Saved':>10}")
        lines = [head, "-" * len(head)]
        for r in (rows if row_limit < 0 else rows[:row_limit]):
            lines.append(
                f"{r.key:<{w}}  {r.count:>6}  {_fmt_ns(r.cpu_time_total):>11}  {_fmt_ns(r.self_cpu_time_total):>11}  "
                f"{r.backward_count:>9}  {_fmt_ns(r.backward_time_total):>11}  {_fmt_bytes(r.saved_bytes):>10}"
            )
        fwd = sum(r.self_cpu_time_total for r in rows)
        bwd = sum(r.backward_time_total for r in rows)
        lines.append("-" * len(head))
        lines.append(f"Self forward time total: {_fmt_ns(fwd)}; backward time total: {_fmt_ns(bwd)}; "
                     f"saved for backward: {_fmt_bytes(sum(r.saved_bytes for r in rows))}")
        return "\n".join(lines)


def _stack() -> list:
    return _context.profiler_stack


def _saved_bytes(tensors: Any) -> int:
    seen: set = set()
    total = 0
    for t in tensors or ():
        d = getattr(t, "_data", None)
        if d is None:
            continue
        base = d
        while base.base is not None and hasattr(base.base, "nbytes"):
            base = base.base
        if id(base) not in seen:
            seen.add(id(base))
            total += base.nbytes
    return total


def _begin(name: str, kind: str) -> FunctionEvent:
    stack = _stack()
    if kind == "forward" and stack and stack[-1][0].kind != "forward":
        kind = "backward_op"  # an op run by a backward: part of that backward's time
    ev = FunctionEvent(name, kind, _now(), threading.get_ident())
    stack.append([ev, 0])  # event, time spent in children
    return ev


def _end(ev: FunctionEvent) -> None:
    t1 = _now()
    stack = _stack()
    _, child = stack.pop()
    ev.dur_ns = t1 - ev.start_ns
    ev.self_ns = ev.dur_ns - child
    if stack:
        stack[-1][1] += ev.dur_ns
    with state.lock:
        for p in state.profiles:
            p._events.append(ev)


def run_forward(cls: type[Function], ctx: Any, args: tuple, kw: dict) -> Any:
    """Called by ``Function.apply`` while profiling: run and time ``forward``."""
    ev = _begin(cls.__name__, "forward")
    try:
        if cls._has_setup_context:
            out = cls._forward_impl(*args, **kw)
            cls.setup_context(ctx, args, out)
        else:
            out = cls._forward_impl(ctx, *args, **kw)
    finally:
        _end(ev)
    ev.saved_bytes = _saved_bytes(getattr(ctx, "_to_save", ()))
    if any(p.record_shapes for p in state.profiles):
        ev.shapes = [list(a.shape) if hasattr(a, "shape") else None for a in args]
    return out


def run_backward(node: Any, buf: list) -> Any:
    """Called by the engine while profiling: run and time ``node.apply(*buf)``."""
    fwd = getattr(node, "_forward_cls", None)
    ev = _begin(fwd.__name__ if fwd is not None else node.name(), "backward")
    try:
        return node.apply(*buf)
    finally:
        _end(ev)


_SORT_KEYS = {
    "cpu_time_total": lambda r: r.cpu_time_total,
    "cpu_time": lambda r: r.cpu_time_total,
    "self_cpu_time_total": lambda r: r.self_cpu_time_total,
    "count": lambda r: r.count,
    "calls": lambda r: r.count,
    "backward_time_total": lambda r: r.backward_time_total,
    "total": lambda r: r.cpu_time_total + r.backward_time_total,
    "saved_bytes": lambda r: r.saved_bytes,
    "name": None,
    # PyTorch's device-time keys (tutorials sort by them): dyngrad has no device time, so
    # every row has 0 and the rows keep their order of first call
    "cuda_time_total": lambda r: 0,
    "self_cuda_time_total": lambda r: 0,
    "device_time_total": lambda r: 0,
    "self_device_time_total": lambda r: 0,
}


class profile:  # noqa: N801
    """Context manager recording every op's forward and backward calls.

    Args:
        enabled: False makes it a no-op.
        record_shapes: also record the input shapes of each forward call.
        use_cuda, profile_memory, with_stack: accepted for PyTorch compatibility; ignored.
    Attributes:
        function_events: the list of :class:`FunctionEvent` recorded (after exit too).
    """

    def __init__(self, enabled: bool = True, *, record_shapes: bool = False, use_cuda: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, **kwargs: Any) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self._events: list[FunctionEvent] = []
        self._t0 = 0

    def __enter__(self) -> profile:
        if self.enabled:
            self._t0 = _now()
            with state.lock:
                state.profiles.append(self)
                state.active = True
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.enabled:
            with state.lock:
                if self in state.profiles:
                    state.profiles.remove(self)
                state.active = bool(state.profiles)

    @property
    def function_events(self) -> list[FunctionEvent]:
        return list(self._events)

    def key_averages(self, group_by_input_shape: bool = False, **kwargs: Any) -> EventAverages:
        """One aggregate per op name (forward and backward of the same op together), as a
        list with a ``table()`` method (PyTorch's ``prof.key_averages().table(...)``)."""
        rows: dict[str, FunctionEventAvg] = {}
        for ev in self._events:
            if ev.kind == "backward_op":
                continue
            r = rows.get(ev.name)
            if r is None:
                r = rows[ev.name] = FunctionEventAvg(ev.name)
            if ev.kind == "forward":
                r.count += 1
                r.cpu_time_total += ev.dur_ns
                r.self_cpu_time_total += ev.self_ns
                r.saved_bytes += ev.saved_bytes
            else:
                r.backward_count += 1
                r.backward_time_total += ev.dur_ns
        return EventAverages(rows.values())

    def table(self, sort_by: str = "cpu_time_total", row_limit: int = 100, **kwargs: Any) -> str:
        """``self.key_averages().table(sort_by, row_limit)``; see :meth:`EventAverages.table`."""
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str) -> None:
        """Write the events in Chrome trace-event JSON (open in ui.perfetto.dev or
        chrome://tracing): one complete event ('ph': 'X') per call, microseconds."""
        t0 = min((e.start_ns for e in self._events), default=self._t0)
        trace = []
        for e in self._events:
            args: dict[str, Any] = {"self_us": e.self_ns / 1e3}
            if e.kind == "forward":
                args["saved_bytes"] = e.saved_bytes
            if e.shapes is not None:
                args["input_shapes"] = e.shapes
            trace.append({
                "name": e.name, "cat": e.kind, "ph": "X", "ts": (e.start_ns - t0) / 1e3,
                "dur": e.dur_ns / 1e3, "pid": 0, "tid": e.thread, "args": args,
            })
        with open(path, "w") as f:
            json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)


def _fmt_ns(ns: float) -> str:
    if ns >= 1e9:
        return f"{ns / 1e9:.3f}s"
    if ns >= 1e6:
        return f"{ns / 1e6:.3f}ms"
    return f"{ns / 1e3:.3f}us"


def _fmt_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)  # pragma: no cover


# --- apisurface: record_function
class record_function:  # noqa: N801
    """A labelled range in the profile (PyTorch's ``torch.profiler.record_function``): the
    time spent inside shows as one row named ``name`` (its ops are its children, so its self
    time excludes them). A context manager and a decorator; a no-op when no profile is open.

    Args:
        name: the row's label.
        args: accepted for PyTorch's signature; ignored.
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._ev: FunctionEvent | None = None

    def __enter__(self) -> record_function:
        if state.active:
            self._ev = _begin(self.name, "forward")
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._ev is not None:
            _end(self._ev)
            self._ev = None

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*a: Any, **k: Any) -> Any:
            with record_function(self.name):
                return fn(*a, **k)

        return wrapper
