"""dyngrad.utils: checkpointing, data loading and a benchmark timer."""

from __future__ import annotations

import importlib
from typing import Any

from . import checkpoint

__all__ = ["benchmark", "checkpoint", "data"]

# imported on first use, not by ``import dyngrad`` (they pull in multiprocessing, statistics
# and timeit; import time, benchmarks/RESULTS.md)
_LAZY = frozenset({"benchmark", "data"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _LAZY)
