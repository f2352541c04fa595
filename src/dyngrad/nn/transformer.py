"""Transformer layers (PyTorch's ``torch.nn.Transformer``, ``TransformerEncoder(Layer)``,
``TransformerDecoder(Layer)``), composed of :class:`MultiheadAttention`, ``Linear``,
``LayerNorm`` and ``Dropout``. Post-norm (default) and pre-norm (``norm_first``) as in
"Attention Is All You Need" and Xiong et al. 2020 (Fig. 1)::

    post-norm: x = norm1(x + sa(x));  x = norm2(x + ff(x))
    pre-norm:  x = x + sa(norm1(x));  x = x + ff(norm2(x))

PyTorch's inference fast path (nested tensors in ``TransformerEncoder`` when a padding mask
is given in eval mode) is not reproduced: dyngrad returns the computed values at padded
positions where PyTorch's fast path returns zeros there; unpadded positions agree.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import functional as F
from .attention import MultiheadAttention
from .container import ModuleList
from .layers import Dropout, Linear
from .module import Module
from .norm import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _activation(activation: str | Callable) -> Callable:
    if callable(activation):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class TransformerEncoderLayer(Module):
    """A transformer encoder layer: self-attention and a feed-forward block, each with a residual and a
    LayerNorm (Vaswani et al. 2017; ``norm_first`` as Xiong et al. 2020). ``forward(src,
    src_mask=None, src_key_padding_mask=None, is_causal=False)``.

    Derivative: composed of :class:`MultiheadAttention`, ``Linear``, ``LayerNorm``, ``Dropout`` and
    the activation, so the gradients are theirs.

    Args:
        d_model (int): ``E``, the model width.
        nhead (int): attention heads, dividing ``d_model``.
        dim_feedforward (int): the feed-forward block's hidden width. Default: ``2048``.
        dropout (float): dropout after attention, inside and after the feed-forward block. Default:
            ``0.1``.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a callable. Default: ``'relu'``.
        layer_norm_eps (float): the LayerNorms' eps. Default: ``1e-5``.
        batch_first (bool): ``(N, S, E)`` instead of ``(S, N, E)``. Default: ``False``.
        norm_first (bool): pre-norm (``x + sa(norm1(x))``) instead of post-norm (``norm1(x +
            sa(x))``). Default: ``False``.
        bias (bool): biases in the Linear and LayerNorm layers. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        AssertionError: when ``nhead`` does not divide ``d_model`` (as PyTorch), and (at call time)
            for a feature size other than ``d_model``.
        RuntimeError: for an unknown activation name, and (at call time) for masks or batch sizes
            that do not fit.
    Shape:
        - src: ``(S, N, E)``, ``(N, S, E)`` with ``batch_first``, or ``(S, E)`` unbatched.
        - src_mask: ``(S, S)`` or ``(N * nhead, S, S)``; src_key_padding_mask: ``(N, S)``.
        - Output: the shape of ``src``.

    Example:
        >>> import dyngrad
        >>> layer = dyngrad.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        >>> list(layer(dyngrad.randn(3, 5, 8)).shape)
        [3, 5, 8]
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        """The layer on ``src`` (masks as :meth:`MultiheadAttention.forward`'s)."""
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, mask: Any, kpm: Any, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoderLayer(Module):
    """A transformer decoder layer: self-attention, attention over the encoder's ``memory`` and a
    feed-forward block, each with a residual and a LayerNorm. ``forward(tgt, memory, tgt_mask=None,
    memory_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None, tgt_is_causal=False,
    memory_is_causal=False)``.

    Derivative: composed of :class:`MultiheadAttention`, ``Linear``, ``LayerNorm``, ``Dropout`` and
    the activation, so the gradients are theirs.

    Args:
        d_model (int): ``E``, the model width.
        nhead (int): attention heads, dividing ``d_model``.
        dim_feedforward (int): the feed-forward block's hidden width. Default: ``2048``.
        dropout (float): dropout after attention, inside and after the feed-forward block. Default:
            ``0.1``.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a callable. Default: ``'relu'``.
        layer_norm_eps (float): the LayerNorms' eps. Default: ``1e-5``.
        batch_first (bool): ``(N, T, E)`` instead of ``(T, N, E)``. Default: ``False``.
        norm_first (bool): pre-norm (``x + sa(norm1(x))``) instead of post-norm (``norm1(x +
            sa(x))``). Default: ``False``.
        bias (bool): biases in the Linear and LayerNorm layers. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        AssertionError: when ``nhead`` does not divide ``d_model`` (as PyTorch), and (at call time)
            for a feature size other than ``d_model``.
        RuntimeError: for an unknown activation name, and (at call time) for masks or batch sizes
            that do not fit.
    Shape:
        - tgt: ``(T, N, E)`` (``(N, T, E)`` with ``batch_first``); memory: ``(S, N, E)``.
        - tgt_mask: ``(T, T)``; memory_mask: ``(T, S)``; the padding masks ``(N, T)`` and ``(N,
          S)``.
        - Output: the shape of ``tgt``.

    Example:
        >>> import dyngrad
        >>> layer = dyngrad.nn.TransformerDecoderLayer(8, 2, 16)
        >>> list(layer(dyngrad.randn(4, 3, 8), dyngrad.randn(5, 3, 8)).shape)
        [4, 3, 8]
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = "relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:
        """The layer on ``tgt`` ``(T, N, E)`` attending to ``memory`` ``(S, N, E)``."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, mask: Any, kpm: Any, is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, mask: Any, kpm: Any, is_causal: bool) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """A stack of ``num_layers`` deep copies of ``encoder_layer``, then ``norm`` (if given).
    ``forward(src, mask=None, src_key_padding_mask=None, is_causal=None)``. PyTorch's nested-tensor
    fast path is not reproduced (padded positions hold computed values, not zeros; see the module
    docstring).

    Derivative: the layers' (a composition).

    Args:
        encoder_layer (Module): a :class:`TransformerEncoderLayer` (copied ``num_layers`` times).
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the last layer's output. Default: ``None``.
        enable_nested_tensor (bool): accepted for compatibility (no fast path). Default: ``True``.
        mask_check (bool): accepted for compatibility. Default: ``True``.
    Raises:
        AssertionError: (at call time) for a feature size other than the layers' ``d_model``.
        RuntimeError: (at call time) for masks that do not fit.
    Shape:
        - src: ``(S, N, E)`` (``(N, S, E)`` with the layer's ``batch_first``).
        - mask: ``(S, S)``; src_key_padding_mask: ``(N, S)``.
        - Output: the shape of ``src``.

    Example:
        >>> import dyngrad
        >>> enc = dyngrad.nn.TransformerEncoder(dyngrad.nn.TransformerEncoderLayer(8, 2, 16), 2)
        >>> list(enc(dyngrad.randn(5, 3, 8)).shape)
        [5, 3, 8]
    """

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor  # accepted; no nested tensors here
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        """Every layer on ``src`` in turn (masks passed to each)."""
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=mask, is_causal=bool(is_causal), src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    """A stack of ``num_layers`` deep copies of ``decoder_layer``, then ``norm`` (if given).
    ``forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)``.

    Derivative: the layers' (a composition).

    Args:
        decoder_layer (Module): a :class:`TransformerDecoderLayer` (copied ``num_layers`` times).
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the last layer's output. Default: ``None``.
    Raises:
        AssertionError: (at call time) for a feature size other than the layers' ``d_model``.
        RuntimeError: (at call time) for masks or batch sizes that do not fit.
    Shape:
        - tgt: ``(T, N, E)``; memory: ``(S, N, E)`` (batch first with the layer's ``batch_first``).
        - Output: the shape of ``tgt``.

    Example:
        >>> import dyngrad
        >>> dec = dyngrad.nn.TransformerDecoder(dyngrad.nn.TransformerDecoderLayer(8, 2, 16), 2)
        >>> list(dec(dyngrad.randn(4, 3, 8), dyngrad.randn(5, 3, 8)).shape)
        [4, 3, 8]
    """

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        """Every layer on ``tgt`` in turn, each attending to ``memory``."""
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """An encoder-decoder transformer (PyTorch's ``torch.nn.Transformer``; Vaswani et al. 2017):
    encoder and decoder stacks with a final LayerNorm each; every parameter with more than one dim
    is re-initialised ``xavier_uniform_``. ``forward(src, tgt, src_mask=None, tgt_mask=None,
    memory_mask=None, src_key_padding_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None, memory_is_causal=False)``;
    ``Transformer.generate_square_subsequent_mask(T)`` makes a causal mask.

    Derivative: composed of the encoder and decoder layers, so the gradients are theirs.

    Args:
        d_model (int): ``E``. Default: ``512``.
        nhead (int): attention heads, dividing ``d_model``. Default: ``8``.
        num_encoder_layers (int): Default: ``6``.
        num_decoder_layers (int): Default: ``6``.
        dim_feedforward (int): the feed-forward width. Default: ``2048``.
        dropout (float): Default: ``0.1``.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a callable. Default: ``'relu'``.
        custom_encoder (Module, optional): replaces the encoder stack. Default: ``None``.
        custom_decoder (Module, optional): replaces the decoder stack. Default: ``None``.
        layer_norm_eps (float): Default: ``1e-5``.
        batch_first (bool): ``(N, S, E)`` layouts. Default: ``False``.
        norm_first (bool): pre-norm layers. Default: ``False``.
        bias (bool): biases in the Linear and LayerNorm layers. Default: ``True``.
        device: only ``"cpu"`` (or None) is accepted. Default: ``None``.
        dtype (dyngrad.dtype, optional): the parameters' dtype. Default: the default float dtype.
    Raises:
        AssertionError: when ``nhead`` does not divide ``d_model``.
        RuntimeError: (at call time) when src and tgt batch sizes differ or a feature size is not
            ``d_model``; for an unknown activation.
    Shape:
        - src: ``(S, N, E)``; tgt: ``(T, N, E)`` (``(N, S, E)``, ``(N, T, E)`` with ``batch_first``;
          unbatched ``(S, E)``, ``(T, E)``).
        - src_mask: ``(S, S)``; tgt_mask: ``(T, T)``; memory_mask: ``(T, S)``.
        - src/tgt/memory_key_padding_mask: ``(N, S)``, ``(N, T)``, ``(N, S)``.
        - Output: ``(T, N, E)`` (``(N, T, E)`` with ``batch_first``).

    Example:
        >>> import dyngrad
        >>> model = dyngrad.nn.Transformer(8, 2, 1, 1, 16)
        >>> list(model(dyngrad.randn(5, 3, 8), dyngrad.randn(4, 3, 8)).shape)
        [4, 3, 8]
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable = "relu", custom_encoder: Any = None, custom_decoder: Any = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        kw = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                  layer_norm_eps=layer_norm_eps, batch_first=batch_first, norm_first=norm_first, bias=bias,
                  dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(d_model, nhead, **kw), num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(d_model, nhead, **kw), num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self) -> None:
        from . import init

        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        """Encode ``src``, decode ``tgt`` attending to the encoding."""
        if src.dim() == 3:
            bdim = 0 if self.batch_first else 1
            if src.shape[bdim] != tgt.shape[bdim]:
                raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: Any = None, dtype: Any = None) -> Tensor:
        """The ``(sz, sz)`` causal mask: ``-inf`` above the diagonal, 0 elsewhere (float)."""
        nd = B.to_np_dtype(dtype) if dtype is not None else B.get_default_dtype().np
        return Tensor._make(np.triu(np.full((sz, sz), -np.inf, dtype=nd), 1))
