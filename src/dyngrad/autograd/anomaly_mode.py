"""Anomaly detection: name the node (and its forward's source line) that produced NaN/inf
in backward. (First version; the verification issue extends it.)"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = False
        self.check_nan = True


state = _State()


def is_anomaly_enabled() -> bool:
    return state.enabled


def check_node_output(node: Any, res: tuple) -> None:
    for i, g in enumerate(res):
        if g is not None and g.data.dtype.kind == "f" and not np.all(np.isfinite(g.data)):
            where = f" (created at {node._site})" if node._site else ""
            raise RuntimeError(
                f"Function '{node.name()}'{where} returned nan values in its {i}th output."
            )


class detect_anomaly:  # noqa: N801
    """Context manager enabling anomaly detection: NaN/inf gradients raise naming the node."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = True, self.check_nan

    def __exit__(self, *exc: Any) -> None:
        state.enabled, state.check_nan = self.prev


class set_detect_anomaly:  # noqa: N801
    """Set anomaly detection on or off (also a context manager restoring the old value)."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = mode, check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        state.enabled, state.check_nan = self.prev
