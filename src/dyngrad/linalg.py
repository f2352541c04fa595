"""dyngrad.linalg: PyTorch's torch.linalg namespace (being built)."""

from __future__ import annotations

__all__: list[str] = []
