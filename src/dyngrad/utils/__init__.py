"""dyngrad.utils: checkpointing, data loading and a benchmark timer."""

from . import benchmark, checkpoint, data

__all__ = ["benchmark", "checkpoint", "data"]
