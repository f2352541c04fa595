"""``torch.accelerator`` as dyngrad has it: there is no accelerator (NumPy on the CPU).

Example:
    >>> import dyngrad
    >>> dyngrad.accelerator.is_available(), dyngrad.accelerator.current_accelerator()
    (False, None)
"""

from __future__ import annotations

__all__ = ["is_available", "current_accelerator", "device_count", "synchronize"]


def is_available() -> bool:
    """False: dyngrad computes on the CPU."""
    return False


def current_accelerator(check_available: bool = False) -> None:
    """None: no accelerator (PyTorch's answer on a CPU-only machine)."""
    return None


def device_count() -> int:
    """0."""
    return 0


def synchronize(device: object = None) -> None:
    """Nothing to wait for."""
