"""``torch.types`` (PyTorch's module path): the type aliases annotations use."""

from __future__ import annotations

__all__ = ["Number", "Device"]

#: a Python number, as PyTorch's ``torch.types.Number``
Number = int | float | bool
#: what a ``device=`` argument takes (PyTorch's ``torch.types.Device`` also names its device class)
Device = str | int | None
