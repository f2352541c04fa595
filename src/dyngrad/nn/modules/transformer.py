"""``torch.nn.modules.transformer`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.transformer import ...`` works as in PyTorch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import (  # noqa: F401
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = ['Transformer', 'TransformerDecoder', 'TransformerDecoderLayer', 'TransformerEncoder', 'TransformerEncoderLayer']


def _get_activation_fn(activation: str) -> Callable[[Any], Any]:
    """PyTorch's helper of the transformer layers: ``"relu"`` -> ``F.relu``, ``"gelu"`` ->
    ``F.gelu``; anything else a RuntimeError."""
    from .. import functional as F

    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")
