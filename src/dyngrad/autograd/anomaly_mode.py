"""Anomaly detection: name the node, the output index and the user's forward code that
produced a NaN/inf gradient or raised in backward.

While anomaly mode is on, ``Function.apply`` calls :func:`record_site` for every node it
records: ``ctx._site`` gets ``file:line`` of the first frame outside the dyngrad package
and ``ctx._trace`` the forward stack of the user code (formatted when shown). The engine then calls
:func:`check_node_output` after each node's backward, and adds the creation site (and the
trace, when recorded) to any exception raised in a backward.

Recording the site on every op costs more than 5% of dyngrad's per-op overhead (see
``benchmarks/anomaly_overhead.py`` and ``benchmarks/RESULTS.md``), so it is done only in
anomaly mode.
"""

from __future__ import annotations

import os
import sys
import threading
import traceback
from types import FrameType
from typing import Any

import numpy as np

from ._context import context as state  # anomaly mode's flags: state.anomaly, .anomaly_check_nan
from .. import _backend as B

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _Any:
    """Process-wide: how many threads have anomaly mode on. ``Function.apply`` checks
    ``any_on.count`` (a plain attribute, ~20 ns) before the thread-local ``state`` (an
    attribute of a threading.local costs ~10x more), so the check is cheap when off."""

    __slots__ = ("count", "lock")

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()


any_on = _Any()


def _set(enabled: bool, check_nan: bool) -> None:
    was = state.anomaly
    state.anomaly, state.anomaly_check_nan = enabled, check_nan
    if was != enabled:
        with any_on.lock:
            any_on.count += 1 if enabled else -1


def is_anomaly_enabled() -> bool:
    """Whether anomaly mode is on in this thread.

    Returns:
        bool: True inside ``detect_anomaly()`` / ``set_detect_anomaly(True)``.

    Example:
        >>> import dyngrad
        >>> dyngrad.autograd.is_anomaly_enabled()
        False
    """
    return state.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode also checks backward outputs for NaN/inf."""
    return state.anomaly_check_nan


def _user_frame(depth: int = 2) -> Any:
    f: FrameType | None = sys._getframe(depth)
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        f = f.f_back
    return f


def creation_site(depth: int = 2) -> str | None:
    """``file:line`` of the innermost caller outside the dyngrad package (None if none)."""
    f = _user_frame(depth + 1)
    return None if f is None else f"{f.f_code.co_filename}:{f.f_lineno}"


def record_site(ctx: Any) -> None:
    """Store the creation site and the forward stack of the user code on a new node."""
    f = _user_frame(2)
    if f is None:
        return
    ctx._site = f"{f.f_code.co_filename}:{f.f_lineno}"
    # frame summaries only (no locals kept alive, source lines read when formatted)
    ctx._trace = traceback.StackSummary.extract(traceback.walk_stack(f), lookup_lines=False)


def _trace_note(node: Any) -> str:
    trace = getattr(node, "_trace", None)
    if not trace:
        return ""
    text = "".join(traceback.StackSummary.from_list(list(reversed(trace))).format()).rstrip()
    return f"\nTraceback of the forward call that created {node.name()}:\n{text}"


def check_node_output(node: Any, res: tuple) -> None:
    """Raise RuntimeError when a gradient returned by ``node``'s backward has NaN or inf.

    The message names the node, the output index (= the forward input it is the gradient
    of, with its parameter name for custom Functions), the creation site and, when
    recorded, the forward stack trace.
    """
    for i, g in enumerate(res):
        if g is None:
            continue
        d = g._data
        if B.kind(d) not in "fc" or np.all(np.isfinite(d)):
            continue
        what = "nan" if np.any(np.isnan(d)) else "inf"
        names = getattr(node, "_arg_names", ())
        arg = f" (the gradient for input {i}, '{names[i]}')" if i < len(names) else f" (the gradient for input {i})"
        where = f", created at {node._site}" if node._site else ""
        raise RuntimeError(
            f"Function '{node.name()}' returned {what} values in its {i}th output{arg}{where}."
            + _trace_note(node)
        )


def annotate(node: Any, exc: BaseException) -> None:
    """Add the forward trace of ``node`` to an exception raised in its backward."""
    note = _trace_note(node)
    if note and hasattr(exc, "add_note"):
        exc.add_note(note.lstrip("\n"))


class detect_anomaly:  # noqa: N801
    """Context manager (and decorator) enabling anomaly detection.

    Inside it, every recorded node keeps the forward stack of the code that created it; a
    backward that raises gets that stack added to the exception, and (with
    ``check_nan=True``) a backward that returns NaN/inf raises RuntimeError naming the node,
    the output index and the user's forward line. Slow: for debugging only.

    Args:
        check_nan: also check each backward's outputs for NaN/inf.

    Raises:
        RuntimeError: inside the block, from a backward that returns NaN/inf (with ``check_nan``), naming the node and the forward line; other errors of a backward get the forward stack added.

    Example:
        >>> import warnings, dyngrad
        >>> x = dyngrad.tensor([0.0, 4.0], requires_grad=True)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")          # it warns that it is slow
        ...     with dyngrad.autograd.detect_anomaly():
        ...         (x.sqrt() * 0).sum().backward()      # 0 / (2 sqrt(0)) is NaN
        Traceback (most recent call last):
        ...
        RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output...
    """

    def __init__(self, check_nan: bool = True) -> None:
        import warnings

        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> detect_anomaly:
        self.prev = (state.anomaly, state.anomaly_check_nan)
        _set(True, self.check_nan)
        return self

    def __exit__(self, *exc: Any) -> None:
        _set(*self.prev)

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:  # noqa: N801
    """Set anomaly detection on or off (also a context manager restoring the old value).

    Args:
        mode: on (True) or off.
        check_nan: also check backward outputs for NaN/inf.

    Raises:
        TypeError: ``mode`` or ``check_nan`` not a bool (as PyTorch).

    Example:
        >>> import warnings, dyngrad
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with dyngrad.autograd.set_detect_anomaly(True):
        ...         print(dyngrad.autograd.is_anomaly_enabled())
        True
        >>> dyngrad.autograd.is_anomaly_enabled()
        False
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        for name, v in (("mode", mode), ("check_nan", check_nan)):
            if not isinstance(v, bool):  # as PyTorch's; a string would silently turn it on
                raise TypeError(f"set_detect_anomaly(): argument '{name}' must be bool, not {type(v).__name__}")
        self.prev = (state.anomaly, state.anomaly_check_nan)
        _set(mode, check_nan)

    def __enter__(self) -> set_detect_anomaly:
        return self

    def __exit__(self, *exc: Any) -> None:
        _set(*self.prev)
