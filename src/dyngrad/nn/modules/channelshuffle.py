"""``torch.nn.modules.channelshuffle`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.channelshuffle import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    ChannelShuffle,
)

__all__ = ['ChannelShuffle']
