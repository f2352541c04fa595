"""``torch.nn.modules.rnn`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.rnn import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    GRU,
    LSTM,
    RNN,
    GRUCell,
    LSTMCell,
    RNNBase,
    RNNCell,
    RNNCellBase,
)

__all__ = ['GRU', 'GRUCell', 'LSTM', 'LSTMCell', 'RNN', 'RNNBase', 'RNNCell', 'RNNCellBase']
