"""Recurrent cells: ``RNNCell``, ``LSTMCell``, ``GRUCell`` (PyTorch's), one step of the
layers in ``nn/rnn.py`` with the same gate formulas (see there). Parameters ``weight_ih``
``(G*H, In)``, ``weight_hh`` ``(G*H, H)``, ``bias_ih``/``bias_hh`` ``(G*H,)``, all
``U(-1/sqrt(H), 1/sqrt(H))``.
"""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .rnn import _param, _step

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


class RNNCellBase(Module):
    """The base of the three cells: parameters ``weight_ih`` ``(G*H, H_in)``, ``weight_hh`` ``(G*H,
    H)``, ``bias_ih``/``bias_hh`` ``(G*H,)``, all ``U(-1/sqrt(H), 1/sqrt(H))``, and the input checks
    (PyTorch's ``torch.nn.RNNCellBase``).

    Args:
        input_size (int): ``H_in``.
        hidden_size (int): ``H``.
        bias (bool): learn the biases.
        num_chunks (int): ``G``, the gates (1 RNN, 4 LSTM, 3 GRU).
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: for a negative size (from allocating the parameters).

    Example:
        >>> from dyngrad import nn
        >>> nn.RNNCellBase(4, 3, True, 2).weight_ih.shape
        dyngrad.Size([6, 4])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = _param((num_chunks * hidden_size, input_size), dtype)
        self.weight_hh = _param((num_chunks * hidden_size, hidden_size), dtype)
        if bias:
            self.bias_ih = _param((num_chunks * hidden_size,), dtype)
            self.bias_hh = _param((num_chunks * hidden_size,), dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias ``~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Tensor, states: tuple) -> tuple[Tensor, list, bool]:
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for s in states:
            if s is not None and s.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {s.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}"
            )
        unbatched = input.dim() == 1
        if unbatched:
            input = input.unsqueeze(0)
        batch = input.shape[0]
        out = []
        for s in states:
            if s is None:
                s = creation.zeros((batch, self.hidden_size), dtype=input.dtype)
            elif unbatched:
                s = s.unsqueeze(0)
            if s.shape[0] != batch:
                raise RuntimeError(f"Input batch size {batch} doesn't match hidden{len(out)} batch size {s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{len(out)} has inconsistent hidden_size: got {s.shape[1]}, expected {self.hidden_size}"
                )
            out.append(s)
        return input, out, unbatched


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu); ``forward(input,
    hx=None)`` returns ``h'`` (``hx`` zeros by default).

    Derivative: composed of ``F.linear``, the gate activations and elementwise ops (PyTorch's cells
    are compositions too).

    Args:
        input_size (int): ``H_in``.
        hidden_size (int): ``H``.
        bias (bool): learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: for an unknown nonlinearity (PyTorch accepts it at construction).
        ValueError: (at call time) for an input or hidden state that is not 1-d or 2-d.
        RuntimeError: (at call time) when the input's last dim is not ``input_size`` or a hidden
            state's shape does not fit.
    Shape:
        - Input: ``(N, H_in)`` or ``(H_in)``.
        - hx: ``(N, H)`` or ``(H)``.
        - Output: ``(N, H)`` or ``(H)``.

    Example:
        >>> import dyngrad
        >>> cell = dyngrad.nn.RNNCell(4, 3)
        >>> list(cell(dyngrad.randn(2, 4)).shape)
        [2, 3]
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), unbatched = self._prepare(input, (hx,))
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        h, _ = _step(mode, F.linear(x, self.weight_ih, self.bias_ih), h, None, self.weight_hh, self.bias_hh, None)
        return h.squeeze(0) if unbatched else h


class LSTMCell(RNNCellBase):
    """One LSTM step (the gates of :class:`LSTM`); ``forward(input, hx=None)`` with ``hx = (h, c)``
    (zeros by default) returns ``(h', c')``.

    Derivative: composed of ``F.linear``, the gate activations and elementwise ops; the four gates
    are one fused op with a hand-written derivative (``ops/recurrent.py``) (PyTorch's cells are
    compositions too).

    Args:
        input_size (int): ``H_in``.
        hidden_size (int): ``H``.
        bias (bool): learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: (at call time) for an input or hidden state that is not 1-d or 2-d.
        RuntimeError: (at call time) when the input's last dim is not ``input_size`` or a hidden
            state's shape does not fit.
    Shape:
        - Input: ``(N, H_in)`` or ``(H_in)``.
        - hx: ``(h, c)``, each ``(N, H)`` or ``(H)``.
        - Output: ``(h', c')``, each ``(N, H)`` or ``(H)``.

    Example:
        >>> import dyngrad
        >>> cell = dyngrad.nn.LSTMCell(4, 3)
        >>> h, c = cell(dyngrad.randn(2, 4))
        >>> list(h.shape), list(c.shape)
        ([2, 3], [2, 3])
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple[Tensor, Tensor]:
        h0, c0 = (None, None) if hx is None else hx
        x, (h, c), unbatched = self._prepare(input, (h0, c0))
        h, c = _step("LSTM", F.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh, None)
        assert c is not None
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One GRU step (the gates of :class:`GRU`); ``forward(input, hx=None)`` returns ``h'``.

    Derivative: composed of ``F.linear``, the gate activations and elementwise ops (PyTorch's cells
    are compositions too).

    Args:
        input_size (int): ``H_in``.
        hidden_size (int): ``H``.
        bias (bool): learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: (at call time) for an input or hidden state that is not 1-d or 2-d.
        RuntimeError: (at call time) when the input's last dim is not ``input_size`` or a hidden
            state's shape does not fit.
    Shape:
        - Input: ``(N, H_in)`` or ``(H_in)``.
        - hx: ``(N, H)`` or ``(H)``.
        - Output: ``(N, H)`` or ``(H)``.

    Example:
        >>> import dyngrad
        >>> cell = dyngrad.nn.GRUCell(4, 3)
        >>> list(cell(dyngrad.randn(4), dyngrad.zeros(3)).shape)
        [3]
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, (h,), unbatched = self._prepare(input, (hx,))
        h, _ = _step("GRU", F.linear(x, self.weight_ih, self.bias_ih), h, None, self.weight_hh, self.bias_hh, None)
        return h.squeeze(0) if unbatched else h
