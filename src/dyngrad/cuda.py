"""``dyngrad.cuda``: dyngrad runs on the CPU only, so there is no CUDA device.

Present so that PyTorch scripts that begin with ``device = "cuda" if
torch.cuda.is_available() else "cpu"`` run unchanged.
"""

from __future__ import annotations

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize"]


def is_available() -> bool:
    """Always False: dyngrad has no GPU backend (yet)."""
    return False


def device_count() -> int:
    """Always 0."""
    return 0


def manual_seed(seed: int) -> None:
    """No-op (there is no CUDA generator); seed the CPU one with ``dyngrad.manual_seed``."""


def manual_seed_all(seed: int) -> None:
    """No-op, as :func:`manual_seed`."""


def synchronize(device: object = None) -> None:
    """No-op: CPU operations are synchronous."""


# --- apisurface
__all__ += ["empty_cache", "memory_allocated", "max_memory_allocated"]


def empty_cache() -> None:
    """No-op: there is no CUDA caching allocator (NumPy arrays are freed by reference counting)."""


def memory_allocated(device: object = None) -> int:
    """Always 0: no CUDA memory is ever allocated."""
    return 0


def max_memory_allocated(device: object = None) -> int:
    """Always 0, as :func:`memory_allocated`."""
    return 0
