"""Attention and transformer cases shared by tests/nn/test_attention.py and
tests/golden/gen_attention.py. Each module case: (name, class name, constructor args,
constructor kwargs, call) where call(lib, module, arrays) runs the forward with tensors of
``lib`` (dyngrad or torch) made from ``arrays`` (NumPy, drawn by ``arrays_for``) and returns
a list of outputs.

Each call gets ``t``, the dict of tensors made by :func:`tensors` from ``arrays_for``.
"""

from __future__ import annotations

import numpy as np


def arrays_for(name: str, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    n = lambda *s: rng.standard_normal(s)  # noqa: E731
    kpm = np.zeros((3, 6), bool)
    kpm[1, 4:] = True
    kpm[2, 5] = True
    return {
        "q": n(4, 3, 8), "k": n(6, 3, 8), "v": n(6, 3, 8), "qb": n(3, 4, 8), "kb": n(3, 6, 3), "vb": n(3, 6, 5),
        "q1": n(4, 8), "k1": n(6, 8), "am": n(4, 6), "amb": rng.random((4, 6)) < 0.3, "kpm": kpm,
        "am3": n(6, 4, 6), "src": n(6, 3, 8), "tgt": n(4, 3, 8), "srcb": n(3, 6, 8), "tgtb": n(3, 4, 8),
        "sq": n(2, 4, 3, 5), "sk": n(2, 2, 6, 5), "sv": n(2, 2, 6, 7), "smask": rng.random((3, 6)) > 0.3,
        "sfmask": n(2, 1, 3, 6),
    }


MASKS = {"am", "amb", "kpm", "am3", "smask", "sfmask"}


def tensors(lib, arrays: dict) -> dict:
    """``lib`` tensors of ``arrays``; the float ones that are not masks require grad."""
    out = {}
    for k, a in arrays.items():
        t = lib.tensor(a)
        out[k] = t.requires_grad_() if a.dtype.kind == "f" and k not in MASKS else t
    return out


def _mha(lib, m, t, q="q", k="k", v="v", **kw):
    out, w = m(t[q], t[k], t[v], **{key: t[val] for key, val in kw.items()})
    return [out] if w is None else [out, w]


def _causal(lib, n):
    return lib.nn.Transformer.generate_square_subsequent_mask(n, dtype=lib.float64)


MODULES = [
    ("mha", "MultiheadAttention", (8, 2), {}, lambda lib, m, t: _mha(lib, m, t)),
    ("mha_masks", "MultiheadAttention", (8, 2), {}, lambda lib, m, t: _mha(lib, m, t, key_padding_mask="kpm", attn_mask="am")),
    ("mha_bool_mask_heads", "MultiheadAttention", (8, 4), {},
     lambda lib, m, t: list(m(t["q"], t["k"], t["v"], attn_mask=t["amb"],
                              key_padding_mask=t["kpm"], average_attn_weights=False))),
    ("mha_3d_mask_no_weights", "MultiheadAttention", (8, 2), {},
     lambda lib, m, t: [m(t["q"], t["k"], t["v"], attn_mask=t["am3"],
                          need_weights=False)[0]]),
    ("mha_bias_kv_zero_attn", "MultiheadAttention", (8, 2), {"add_bias_kv": True, "add_zero_attn": True},
     lambda lib, m, t: _mha(lib, m, t, key_padding_mask="kpm")),
    ("mha_kdim_vdim_batch_first", "MultiheadAttention", (8, 2), {"kdim": 3, "vdim": 5, "batch_first": True},
     lambda lib, m, t: _mha(lib, m, t, q="qb", k="kb", v="vb")),
    ("mha_no_bias_unbatched", "MultiheadAttention", (8, 2), {"bias": False},
     lambda lib, m, t: _mha(lib, m, t, q="q1", k="k1", v="k1")),
    ("encoder_layer", "TransformerEncoderLayer", (8, 2, 16), {"dropout": 0.0},
     lambda lib, m, t: [m(t["src"], src_key_padding_mask=t["kpm"])]),
    ("encoder_layer_pre_norm_gelu_bf", "TransformerEncoderLayer", (8, 2, 16),
     {"dropout": 0.0, "norm_first": True, "activation": "gelu", "batch_first": True},
     lambda lib, m, t: [m(t["srcb"], src_mask=_causal(lib, 6), is_causal=True)]),
    ("decoder_layer", "TransformerDecoderLayer", (8, 2, 16), {"dropout": 0.0},
     lambda lib, m, t: [m(t["tgt"], t["src"], tgt_mask=_causal(lib, 4),
                          memory_key_padding_mask=t["kpm"])]),
    ("transformer", "Transformer", (8, 2, 2, 2, 16), {"dropout": 0.0},
     lambda lib, m, t: [m(t["src"], t["tgt"], tgt_mask=_causal(lib, 4),
                          src_key_padding_mask=t["kpm"], memory_key_padding_mask=t["kpm"])]),
    ("transformer_pre_norm_bf_no_bias", "Transformer", (8, 2, 1, 1, 16),
     {"dropout": 0.0, "norm_first": True, "batch_first": True, "bias": False},
     lambda lib, m, t: [m(t["srcb"], t["tgtb"], tgt_mask=_causal(lib, 4), tgt_is_causal=True)]),
]


def _sdpa(lib, t, **kw):
    F = lib.nn.functional
    extra = {k: (t[v] if isinstance(v, str) else v) for k, v in kw.items()}
    return [F.scaled_dot_product_attention(t["sq"], t["sk"], t["sv"], enable_gqa=True, **extra)]


FUNCTIONS = [
    ("sdpa_gqa", lambda lib, t: _sdpa(lib, t)),
    ("sdpa_causal_scale", lambda lib, t: _sdpa(lib, t, is_causal=True, scale=0.3)),
    ("sdpa_bool_mask", lambda lib, t: _sdpa(lib, t, attn_mask="smask")),
    ("sdpa_float_mask", lambda lib, t: _sdpa(lib, t, attn_mask="sfmask")),
]
