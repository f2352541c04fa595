"""save/load of tensors and state dicts in a format that cannot run code (being built)."""

from __future__ import annotations

from typing import Any

__all__ = ["save", "load"]


def save(obj: Any, f: Any) -> None:
    raise NotImplementedError("dyngrad.save is being built")


def load(f: Any, *args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("dyngrad.load is being built")
