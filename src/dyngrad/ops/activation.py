"""Op family 'activation' (being built)."""

from __future__ import annotations

__all__: list[str] = []
TENSOR_METHODS: set[str] = set()
