"""Recurrent layers: ``RNN``, ``LSTM`` (with ``proj_size``), ``GRU`` (PyTorch's
``torch.nn.RNN/LSTM/GRU``: constructor, parameter names and shapes, initialisation,
input/hidden layouts, ``PackedSequence`` input). The cells are in ``nn/rnn_cells.py``.

Each layer is composed of differentiable ops (the LSTM gates of a step are one fused op,
``ops/recurrent.py``), so backward, higher order, vmap and forward mode come from theirs. Per layer and direction the input projection of every step is one
matrix product (``F.linear`` over all steps); each step then adds ``h @ W_hh^T`` and applies
the gates. Gate formulas (PyTorch's docs):

* RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu);
* LSTM: ``i, f, g, o = chunk(x W_ih^T + b_ih + h W_hh^T + b_hh, 4)``,
  ``c' = sigmoid(f) c + sigmoid(i) tanh(g)``, ``h' = sigmoid(o) tanh(c')``, then
  ``h' = h' W_hr^T`` with ``proj_size``;
* GRU: ``r, z = sigmoid(x W_i{r,z}^T + b_i{r,z} + h W_h{r,z}^T + b_h{r,z})``,
  ``n = tanh(x W_in^T + b_in + r (h W_hn^T + b_hn))``, ``h' = (1 - z) n + z h``.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from .. import _backend as B
from .. import creation, ops
from ..ops.recurrent import lstm_gates
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _param(shape: tuple, dtype: Any) -> Parameter:
    nd = B.to_np_dtype(dtype) if dtype is not None else B.get_default_dtype().np
    return Parameter(Tensor._make(np.zeros(shape, dtype=nd)))


def _step(mode: str, xw: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor, b_hh: Tensor | None,
          w_hr: Tensor | None) -> tuple[Tensor, Tensor | None]:
    """One step of one layer and direction: ``xw`` is ``x W_ih^T + b_ih`` of the step."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        h, c = lstm_gates(xw, gh, c)  # the gates in one fused op (ops/recurrent.py)
        if w_hr is not None:
            h = F.linear(h, w_hr)
        return h, c
    if mode == "GRU":
        xr, xz, xn = xw.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r = ops.sigmoid(xr + hr)
        z = ops.sigmoid(xz + hz)
        n = ops.tanh(xn + r * hn)
        return n + z * (h - n), None
    pre = xw + gh
    return (ops.tanh(pre) if mode == "RNN_TANH" else ops.relu(pre)), None


def _run_direction(mode: str, X: Tensor, bsz: list[int], h0: Tensor, c0: Tensor | None, weights: list,
                   reverse: bool) -> tuple[Tensor, Tensor, Tensor | None]:
    """One layer, one direction over flat time-major steps ``X`` ``(sum(bsz), In)``, where
    step ``t`` has ``bsz[t]`` rows (non-increasing). Returns the flat outputs (time order),
    the last hidden state ``(B, H_out)`` and (LSTM) the last cell state."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    # every step's input projection in one product, split into steps by one op (so that
    # backward concatenates the step gradients once instead of adding T full-size slices)
    XWs = ops.split_with_sizes(F.linear(X, w_ih, b_ih), bsz, 0)
    T = len(bsz)
    ys: list = [None] * T
    if not reverse:
        h, c = h0, c0
        done_h: list = []
        done_c: list = []
        for t in range(T):
            bs = bsz[t]
            if bs < h.shape[0]:  # sequences that ended: keep their last state
                done_h.append(h[bs:])
                h = h[:bs]
                if c is not None:
                    done_c.append(c[bs:])
                    c = c[:bs]
            h, c = _step(mode, XWs[t], h, c, w_hh, b_hh, w_hr)
            ys[t] = h
        hn = ops.cat([h, *reversed(done_h)], 0) if done_h else h
        cn = (ops.cat([c, *reversed(done_c)], 0) if done_c else c) if c is not None else None
    else:
        cur = bsz[-1] if T else 0
        h = h0[:cur]
        c = c0[:cur] if c0 is not None else None
        for t in range(T - 1, -1, -1):
            bs = bsz[t]
            if bs > h.shape[0]:  # sequences whose (reversed) run starts here
                h = ops.cat([h, h0[h.shape[0]:bs]], 0)
                if c is not None and c0 is not None:
                    c = ops.cat([c, c0[c.shape[0]:bs]], 0)
            h, c = _step(mode, XWs[t], h, c, w_hh, b_hh, w_hr)
            ys[t] = h
        hn, cn = h, c
    return ops.cat(ys, 0), hn, cn


class RNNBase(Module):
    """The base of :class:`RNN`, :class:`LSTM` and :class:`GRU` (PyTorch's ``torch.nn.RNNBase``): the
    constructor's checks and parameters ``weight_ih_l{k}{_reverse}`` ``(G*H, In_k)``,
    ``weight_hh_l{k}{_reverse}`` ``(G*H, H_out)``, ``bias_ih/bias_hh`` ``(G*H,)`` and (LSTM with
    ``proj_size``) ``weight_hr_l{k}{_reverse}`` ``(proj_size, H)``, all ``U(-1/sqrt(H),
    1/sqrt(H))``; ``G`` is 1 (RNN), 4 (LSTM), 3 (GRU). It has no ``forward`` of its own.

    Args:
        mode (str): ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
        input_size (int): ``H_in``, the features of each input step.
        hidden_size (int): ``H``, the features of the hidden state.
        num_layers (int): stacked layers, each fed the previous one's output. Default: ``1``.
        bias (bool): learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, *)`` instead of ``(L, N, *)`` (not the
            hidden state). Default: ``False``.
        dropout (float): dropout on each layer's output except the last's, in [0, 1]. Default:
            ``0.0``.
        bidirectional (bool): also run each layer backwards and concatenate (``D = 2``). Default:
            ``False``.
        proj_size (int): LSTM only: project ``h`` to this size, below ``hidden_size``. Default:
            ``0``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: for ``dropout`` outside [0, 1], non-positive sizes, a ``proj_size`` that is
            negative or not below ``hidden_size``.
        TypeError: when ``bias`` or ``batch_first`` is not a bool, or a size is not an int.

    Example:
        >>> from dyngrad import nn
        >>> m = nn.RNNBase("LSTM", 4, 3)
        >>> m.weight_ih_l0.shape, m.weight_hh_l0.shape
        (dyngrad.Size([12, 4]), dyngrad.Size([12, 3]))
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        for name, v in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(v, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(v).__name__}")
        for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(v, int):
                raise TypeError(f"{name} should be of type int, got: {type(v).__name__}")
            if v <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        D = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for d in range(D):
                in_k = input_size if layer == 0 else real_hidden * D
                sfx = "_reverse" if d == 1 else ""
                names = [f"weight_ih_l{layer}{sfx}", f"weight_hh_l{layer}{sfx}"]
                shapes = [(gate, in_k), (gate, real_hidden)]
                if bias:
                    names += [f"bias_ih_l{layer}{sfx}", f"bias_hh_l{layer}{sfx}"]
                    shapes += [(gate,), (gate,)]
                if proj_size > 0:
                    names.append(f"weight_hr_l{layer}{sfx}")
                    shapes.append((proj_size, hidden_size))
                for n, s in zip(names, shapes):
                    setattr(self, n, _param(s, dtype))
                self._flat_weights_names += names
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias ``~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """Accepted for compatibility (cuDNN weight layout); does nothing here."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters, per layer and direction, in PyTorch's order."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def _weights(self, layer: int, d: int) -> list:
        names = self._all_weights[layer * (2 if self.bidirectional else 1) + d]
        get = {n.split("_l")[0]: getattr(self, n) for n in names}
        return [get["weight_ih"], get["weight_hh"], get.get("bias_ih"), get.get("bias_hh"), get.get("weight_hr")]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ------------------------------------------------------------------ forward
    def _hidden_shape(self, batch: int) -> tuple[int, int, int]:
        D = 2 if self.bidirectional else 1
        return (self.num_layers * D, batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def _check_hidden(self, hx: Tensor, expected: tuple, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def _run(self, input: Any, hx: Tensor | None, cx: Tensor | None) -> tuple:
        """The whole stack on ``input`` (Tensor or PackedSequence). Returns the output in
        the caller's layout, ``h_n``, ``c_n`` (LSTM, else None), and whether the input was
        unbatched."""
        name = type(self).__name__
        packed = isinstance(input, PackedSequence)
        w0 = getattr(self, self._flat_weights_names[0])
        D = 2 if self.bidirectional else 1
        unbatched = False
        if packed:
            X, bsz = input.data, [int(v) for v in input.batch_sizes.tolist()]
            if X.dim() != 2:
                raise RuntimeError(f"input must have 2 dimensions, got {X.dim()}")
            batch = bsz[0]
            perm = input.sorted_indices
            if perm is not None:
                if hx is not None:
                    hx = ops.index_select(hx, 1, perm)
                if cx is not None:
                    cx = ops.index_select(cx, 1, perm)
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
            unbatched = input.dim() == 2
            if unbatched:
                input = input.unsqueeze(1)
                for k, s in (("hx", hx), ("cx", cx)):
                    if s is not None and s.dim() != 2:
                        raise RuntimeError(f"For unbatched 2-D input, {k} should also be 2-D but got {s.dim()}-D tensor")
                hx = hx.unsqueeze(1) if hx is not None else None
                cx = cx.unsqueeze(1) if cx is not None else None
            else:
                if self.batch_first:
                    input = input.transpose(0, 1)
                for k, s in (("hx", hx), ("cx", cx)):
                    if s is not None and s.dim() != 3:
                        raise RuntimeError(f"For batched 3-D input, {k} should also be 3-D but got {s.dim()}-D tensor")
            T, batch = input.shape[0], input.shape[1]
            X, bsz = input.reshape(T * batch, input.shape[2]), [batch] * T
        if X.dtype != w0.dtype:
            raise ValueError(
                f"RNN input dtype ({X.dtype}) does not match weight dtype ({w0.dtype}). Convert "
                f"input: input.to({w0.dtype}), or convert model: model.to({X.dtype})"
            )
        if X.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {X.shape[-1]}"
            )
        expected = self._hidden_shape(batch)
        is_lstm = self.mode == "LSTM"
        if hx is None:
            hx = creation.zeros(expected, dtype=X.dtype)
        else:
            self._check_hidden(hx, expected, "Expected hidden[0] size {}, got {}" if is_lstm else
                               "Expected hidden size {}, got {}")
        if is_lstm:
            cexp = (expected[0], batch, self.hidden_size)
            if cx is None:
                cx = creation.zeros(cexp, dtype=X.dtype)
            else:
                self._check_hidden(cx, cexp, "Expected hidden[1] size {}, got {}")
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                k = layer * D + d
                y, hn, cn = _run_direction(self.mode, X, bsz, hx[k], cx[k] if is_lstm else None,
                                           self._weights(layer, d), reverse=d == 1)
                outs.append(y)
                hs.append(hn)
                cs.append(cn)
            X = outs[0] if D == 1 else ops.cat(outs, 1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                X = F.dropout(X, self.dropout, True)
        h_n = ops.stack(hs, 0)
        c_n = ops.stack(cs, 0) if is_lstm else None
        if packed:
            unperm = input.unsorted_indices
            if unperm is not None:
                h_n = ops.index_select(h_n, 1, unperm)
                c_n = ops.index_select(c_n, 1, unperm) if c_n is not None else None
            return input._replace(data=X), h_n, c_n, False
        out = X.reshape(len(bsz), batch, X.shape[-1])
        if unbatched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, h_n, c_n, unbatched


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu), per layer;
    PyTorch's ``torch.nn.RNN``. ``forward(input, hx=None)`` returns ``(output, h_n)``; ``hx``
    defaults to zeros.

    Derivative: backpropagation through time: each layer is composed of differentiable ops (one
    ``F.linear`` over all steps for the input projection, then per step ``h @ W_hh^T`` and the
    gates), so backward, double backward, forward mode and vmap come from theirs.

    Args:
        input_size (int): ``H_in``, the features of each input step.
        hidden_size (int): ``H``, the features of the hidden state.
        num_layers (int): stacked layers, each fed the previous one's output. Default: ``1``.
        nonlinearity (str): ``'tanh'`` or ``'relu'`` (4th positional, as PyTorch). Default:
            ``'tanh'``.
        bias (bool): learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, *)`` instead of ``(L, N, *)`` (not the
            hidden state). Default: ``False``.
        dropout (float): dropout on each layer's output except the last's, in [0, 1]. Default:
            ``0.0``.
        bidirectional (bool): also run each layer backwards and concatenate (``D = 2``). Default:
            ``False``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: for an unknown nonlinearity, a ``proj_size`` argument, ``dropout`` outside [0,
            1], non-positive sizes, or (at call time) an input that is not 2-d or 3-d.
        TypeError: when ``bias`` or ``batch_first`` is not a bool, or a size is not an int.
        RuntimeError: (at call time) when the input's last dim is not ``input_size`` or a hidden
            state has the wrong shape.
    Shape:
        - Input: ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, ``(L, H_in)`` unbatched,
          or a ``PackedSequence``.
        - hx: ``(D * num_layers, N, H)`` or ``(D * num_layers, H)`` unbatched.
        - Output: ``(L, N, D * H)`` (``(N, L, D * H)`` with ``batch_first``; a ``PackedSequence``
          for one).
        - h_n: ``(D * num_layers, N, H)``.

    Example:
        >>> import dyngrad
        >>> rnn = dyngrad.nn.RNN(4, 3, num_layers=2)
        >>> out, h = rnn(dyngrad.randn(5, 2, 4))
        >>> list(out.shape), list(h.shape)
        ([5, 2, 3], [2, 2, 3])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple:
        out, h_n, _, _ = self._run(input, hx, None)
        return out, h_n


class LSTM(RNNBase):
    """Long short-term memory (PyTorch's ``torch.nn.LSTM``): ``i, f, g, o = chunk(x W_ih^T + b_ih + h
    W_hh^T + b_hh, 4)``, ``c' = sigmoid(f) c + sigmoid(i) tanh(g)``, ``h' = sigmoid(o) tanh(c')``
    (then ``h' W_hr^T`` with ``proj_size``; Hochreiter & Schmidhuber 1997). ``forward(input,
    hx=None)`` with ``hx = (h_0, c_0)`` (zeros by default) returns ``(output, (h_n, c_n))``.

    Derivative: backpropagation through time: each layer is composed of differentiable ops (one
    ``F.linear`` over all steps for the input projection, then per step ``h @ W_hh^T`` and the
    gates; the four gates of a step are one fused op with a hand-written derivative,
    ``ops/recurrent.py``), so backward, double backward, forward mode and vmap come from theirs.

    Args:
        input_size (int): ``H_in``, the features of each input step.
        hidden_size (int): ``H``, the features of the hidden state.
        num_layers (int): stacked layers, each fed the previous one's output. Default: ``1``.
        bias (bool): learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, *)`` instead of ``(L, N, *)`` (not the
            hidden state). Default: ``False``.
        dropout (float): dropout on each layer's output except the last's, in [0, 1]. Default:
            ``0.0``.
        bidirectional (bool): also run each layer backwards and concatenate (``D = 2``). Default:
            ``False``.
        proj_size (int): project ``h`` to this size (``H_out``), below ``hidden_size``. Default:
            ``0``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: for a ``proj_size`` not below ``hidden_size``, ``dropout`` outside [0, 1],
            non-positive sizes, or (at call time) an input that is not 2-d or 3-d.
        TypeError: when ``bias`` or ``batch_first`` is not a bool, or a size is not an int.
        RuntimeError: (at call time) when the input's last dim is not ``input_size`` or
            ``h_0``/``c_0`` have the wrong shape.
    Shape:
        - Input: as :class:`RNN`.
        - h_0: ``(D * num_layers, N, H_out)``, ``H_out = proj_size or hidden_size``; c_0: ``(D *
          num_layers, N, H)``.
        - Output: ``(L, N, D * H_out)`` (``(N, L, D * H_out)`` with ``batch_first``).
        - h_n: ``(D * num_layers, N, H_out)``; c_n: ``(D * num_layers, N, H)``.

    Example:
        >>> import dyngrad
        >>> lstm = dyngrad.nn.LSTM(4, 3, batch_first=True)
        >>> out, (h, c) = lstm(dyngrad.randn(2, 5, 4))
        >>> list(out.shape), list(h.shape), list(c.shape)
        ([2, 5, 3], [1, 2, 3], [1, 2, 3])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input: Any, hx: tuple | None = None) -> tuple:
        h0, c0 = (None, None) if hx is None else hx
        out, h_n, c_n, _ = self._run(input, h0, c0)
        return out, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit (PyTorch's ``torch.nn.GRU``, Cho et al. 2014): ``r, z = sigmoid(x
    W_i{r,z}^T + b_i{r,z} + h W_h{r,z}^T + b_h{r,z})``, ``n = tanh(x W_in^T + b_in + r (h W_hn^T +
    b_hn))``, ``h' = (1 - z) n + z h``. ``forward(input, hx=None)`` returns ``(output, h_n)``.

    Derivative: backpropagation through time: each layer is composed of differentiable ops (one
    ``F.linear`` over all steps for the input projection, then per step ``h @ W_hh^T`` and the
    gates), so backward, double backward, forward mode and vmap come from theirs.

    Args:
        input_size (int): ``H_in``, the features of each input step.
        hidden_size (int): ``H``, the features of the hidden state.
        num_layers (int): stacked layers, each fed the previous one's output. Default: ``1``.
        bias (bool): learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, *)`` instead of ``(L, N, *)`` (not the
            hidden state). Default: ``False``.
        dropout (float): dropout on each layer's output except the last's, in [0, 1]. Default:
            ``0.0``.
        bidirectional (bool): also run each layer backwards and concatenate (``D = 2``). Default:
            ``False``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        ValueError: for a ``proj_size`` argument, ``dropout`` outside [0, 1], non-positive sizes, or
            (at call time) an input that is not 2-d or 3-d.
        TypeError: when ``bias`` or ``batch_first`` is not a bool, or a size is not an int.
        RuntimeError: (at call time) when the input's last dim is not ``input_size`` or a hidden
            state has the wrong shape.
    Shape:
        - Input: ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, ``(L, H_in)`` unbatched,
          or a ``PackedSequence``.
        - hx: ``(D * num_layers, N, H)``.
        - Output: ``(L, N, D * H)``; h_n: ``(D * num_layers, N, H)``.

    Example:
        >>> import dyngrad
        >>> gru = dyngrad.nn.GRU(4, 3, bidirectional=True)
        >>> out, h = gru(dyngrad.randn(5, 2, 4))
        >>> list(out.shape), list(h.shape)
        ([5, 2, 6], [2, 2, 3])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple:
        out, h_n, _, _ = self._run(input, hx, None)
        return out, h_n
