"""Attention: ``nn.MultiheadAttention`` (PyTorch's; ``F.scaled_dot_product_attention`` is in
``nn/functional.py``),
composed of differentiable ops (so backward, higher order, vmap and forward mode come
from theirs). The math is PyTorch's reference ("math") path::

    attn = softmax(q k^T * scale + mask) ;  attn = dropout(attn) ;  out = attn v

Mask conventions differ between the two, as in PyTorch: for
``scaled_dot_product_attention`` a bool ``attn_mask`` is True where attention is
*allowed*; for ``MultiheadAttention`` a bool ``attn_mask``/``key_padding_mask`` is True
where it is *not* allowed. Float masks are added to the scores in both.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import creation, ops
from ..tensor import Tensor
from . import functional as F
from . import init
from .functional import _additive_mask as _additive
from .layers import Linear, _empty
from .module import Module

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name PyTorch gives ``MultiheadAttention.out_proj`` (its repr and
    type name; no quantization here)."""


class MultiheadAttention(Module):
    """Multi-head attention (PyTorch's ``torch.nn.MultiheadAttention``):
    ``out_proj(concat_h(attention(q W_q^h, k W_k^h, v W_v^h)))``.

    Args:
        embed_dim (int): ``E``, the model width (query size).
        num_heads (int): heads; ``E`` must be divisible by it.
        dropout (float): dropout on the attention weights (training only).
        bias (bool): input and output projection biases.
        add_bias_kv (bool): learned ``bias_k``/``bias_v`` appended to the keys/values.
        add_zero_attn (bool): a zero key/value appended after the projections.
        kdim, vdim (int, optional): key/value sizes (default ``E``; separate
            ``q/k/v_proj_weight`` when they differ).
        batch_first (bool): ``(N, L, E)`` instead of ``(L, N, E)``.

    Parameters (PyTorch's names and initialisation): ``in_proj_weight (3E, E)`` xavier
    uniform (or ``q_proj_weight (E, E)``, ``k_proj_weight (E, kdim)``, ``v_proj_weight
    (E, vdim)``), ``in_proj_bias (3E)`` zeros, ``bias_k``/``bias_v (1, 1, E)`` xavier normal,
    ``out_proj`` a Linear with zero bias.

    Derivative: composed of ``F.linear``, ``softmax``, ``bmm`` and ``dropout``, so the
    gradients are theirs (the attention derivative of Vaswani et al. 2017, as PyTorch's
    ``multi_head_attention_forward`` composite).

    Raises:
        AssertionError: ``embed_dim`` not divisible by ``num_heads`` (PyTorch's type), and
            (at call time) a query size other than ``embed_dim``.
        ValueError: ``embed_dim`` or ``num_heads`` not positive.
        RuntimeError: (at call time) ``is_causal`` without ``attn_mask``, mask shapes that do
            not fit.
    Shape:
        - query: ``(L, N, E)``, ``(N, L, E)`` with ``batch_first``, or ``(L, E)`` unbatched.
        - key: ``(S, N, kdim)``; value: ``(S, N, vdim)`` (batch first / unbatched alike).
        - key_padding_mask: ``(N, S)`` (bool: True ignores the key; float: added).
        - attn_mask: ``(L, S)`` or ``(N * num_heads, L, S)`` (bool: True blocks; float: added).
        - Output: ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``); the weights
          ``(N, L, S)`` averaged over heads, or ``(N, num_heads, L, S)``.

    Example:
        >>> import dyngrad
        >>> mha = dyngrad.nn.MultiheadAttention(8, 2, batch_first=True)
        >>> x = dyngrad.randn(3, 5, 8)
        >>> out, w = mha(x, x, x)
        >>> list(out.shape), list(w.shape)
        ([3, 5, 8], [3, 5, 5])
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: Any = None, dtype: Any = None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == embed_dim, "embed_dim must be divisible by num_heads"
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _empty((embed_dim, embed_dim), dtype)
            self.k_proj_weight = _empty((embed_dim, self.kdim), dtype)
            self.v_proj_weight = _empty((embed_dim, self.vdim), dtype)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _empty((3 * embed_dim, embed_dim), dtype)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = _empty((3 * embed_dim,), dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = _empty((1, 1, embed_dim), dtype)
            self.bias_v = _empty((1, 1, embed_dim), dtype)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def _project(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        E = self.embed_dim
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            wq, wk, wv = w[:E], w[E:2 * E], w[2 * E:]
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None = None,
                need_weights: bool = True, attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """Attention of ``query`` over ``key``/``value``.

        Shapes: query ``(L, N, E)`` (``(N, L, E)`` with batch_first, ``(L, E)`` unbatched),
        key ``(S, N, kdim)``, value ``(S, N, vdim)``; ``key_padding_mask (N, S)`` (bool: True
        ignores the key; float: added); ``attn_mask (L, S)`` or ``(N * num_heads, L, S)``
        (bool: True blocks; float: added). ``is_causal`` is a hint that ``attn_mask`` is the
        causal mask (it must be given, as in PyTorch).

        Returns:
            (Tensor, Tensor | None): the output ``(L, N, E)`` and, with ``need_weights``, the
            attention weights ``(N, L, S)`` averaged over heads (``(N, num_heads, L, S)``
            with ``average_attn_weights=False``), after dropout, as PyTorch returns them.

        Raises:
            RuntimeError: ``is_causal`` without ``attn_mask``; mask shapes that do not fit.
            AssertionError: a query size that is not ``embed_dim`` (PyTorch's type).
        """
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                "module method `generate_square_subsequent_mask` to create this mask."
            )
        unbatched = query.dim() == 2
        if self.batch_first and not unbatched:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        if unbatched:
            query, key, value = (x.unsqueeze(1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        L, N, E = query.shape
        if E != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {E}")  # PyTorch's type
        Hn, hd = self.num_heads, self.head_dim
        q, k, v = self._project(query, key, value)
        dt = q.dtype
        attn_mask_is_bool = None if attn_mask is None else not attn_mask.dtype.is_floating_point
        if attn_mask is not None:
            attn_mask = _additive(attn_mask, dt, allowed_when_true=False)
            if attn_mask.dim() == 2:
                if tuple(attn_mask.shape) != (L, key.shape[0]):
                    raise RuntimeError(
                        f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be {(L, key.shape[0])}."
                    )
                attn_mask = attn_mask.unsqueeze(0)
            elif tuple(attn_mask.shape) != (N * Hn, L, key.shape[0]):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                    f"{(N * Hn, L, key.shape[0])}."
                )
        if key_padding_mask is not None:
            if attn_mask_is_bool is not None and attn_mask_is_bool != (not key_padding_mask.dtype.is_floating_point):
                warnings.warn(
                    "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same "
                    "type for both instead.",
                    stacklevel=2,
                )
            key_padding_mask = _additive(key_padding_mask, dt, allowed_when_true=False)
        if self.bias_k is not None and self.bias_v is not None:
            k = ops.cat([k, self.bias_k.expand(1, N, E)], 0)
            v = ops.cat([v, self.bias_v.expand(1, N, E)], 0)
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, (0, 1))
        # heads: (L, N, E) -> (N * H, L, hd)
        q = q.reshape(L, N * Hn, hd).transpose(0, 1)
        k = k.reshape(k.shape[0], N * Hn, hd).transpose(0, 1)
        v = v.reshape(v.shape[0], N * Hn, hd).transpose(0, 1)
        if self.add_zero_attn:
            k = ops.cat([k, creation.zeros((N * Hn, 1, hd), dtype=dt)], 1)
            v = ops.cat([v, creation.zeros((N * Hn, 1, hd), dtype=dt)], 1)
            if attn_mask is not None:
                attn_mask = F.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = F.pad(key_padding_mask, (0, 1))
        S = k.shape[1]
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (N, S):
                raise RuntimeError(
                    f"expecting key_padding_mask shape of {(N, S)}, but got {tuple(key_padding_mask.shape)}"
                )
            kpm = key_padding_mask.reshape(N, 1, 1, S).expand(N, Hn, 1, S).reshape(N * Hn, 1, S)
            attn_mask = kpm if attn_mask is None else attn_mask + kpm
        scores = ops.matmul(q * (1.0 / math.sqrt(hd)), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        w = F.softmax(scores, -1)
        if self.dropout > 0.0 and self.training:
            w = F.dropout(w, self.dropout, True)
        out = ops.matmul(w, v)  # (N * H, L, hd)
        out = out.transpose(0, 1).reshape(L, N, E)
        out = self.out_proj(out)
        weights = None
        if need_weights:
            weights = w.reshape(N, Hn, L, S)
            if average_attn_weights:
                weights = weights.mean(1)
            if unbatched:
                weights = weights.squeeze(0)
        if unbatched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, weights
