"""Live comparison of MultiheadAttention and scaled_dot_product_attention with PyTorch
(skipped without torch): hypothesis draws heads, sizes, options and masks; outputs,
weights and every gradient must agree in float64."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad

torch = pytest.importorskip("torch")


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.sampled_from([2, 4]), st.integers(1, 4), st.integers(1, 5), st.booleans(), st.booleans(),
       st.booleans(), st.booleans(), st.sampled_from([None, "bool", "float"]), st.booleans(), st.integers(0, 10**6))
def test_multihead_attention_matches_pytorch(heads, hd, L, S, batch_first, bias, bias_kv, zero_attn, mask, kpm, seed):
    E = heads * hd
    tm = torch.nn.MultiheadAttention(E, heads, bias=bias, add_bias_kv=bias_kv, add_zero_attn=zero_attn,
                                     batch_first=batch_first).double()
    dm = dyngrad.nn.MultiheadAttention(E, heads, bias=bias, add_bias_kv=bias_kv, add_zero_attn=zero_attn,
                                       batch_first=batch_first, dtype=dyngrad.float64)
    dm.load_state_dict({k: dyngrad.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(seed)
    N = 2
    shp = lambda n: (N, n, E) if batch_first else (n, N, E)  # noqa: E731
    arrays = [rng.standard_normal(shp(L)), rng.standard_normal(shp(S)), rng.standard_normal(shp(S))]
    kw_t, kw_d = {}, {}
    if mask == "bool":
        m = rng.random((L, S)) < 0.3
        m[:, 0] = False  # every query keeps one key (an all-blocked row is NaN in both)
        kw_t["attn_mask"], kw_d["attn_mask"] = torch.tensor(m), dyngrad.tensor(m)
    elif mask == "float":
        m = rng.standard_normal((L, S))
        kw_t["attn_mask"], kw_d["attn_mask"] = torch.tensor(m), dyngrad.tensor(m)
    if kpm:
        p = rng.random((N, S)) < 0.3
        p[:, 0] = False
        if mask == "float":
            p = np.where(p, -np.inf, 0.0)
        kw_t["key_padding_mask"], kw_d["key_padding_mask"] = torch.tensor(p), dyngrad.tensor(p)
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ds = [dyngrad.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        to, tw = tm(*ts, **kw_t)
        do, dw = dm(*ds, **kw_d)
    np.testing.assert_allclose(do.detach().numpy(), to.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dw.detach().numpy(), tw.detach().numpy(), rtol=1e-9, atol=1e-12)
    (to.sin().sum() + tw.pow(2).sum()).backward()
    (do.sin().sum() + dw.pow(2).sum()).backward()
    for a, b in zip(ts, ds):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-8, atol=1e-11)
    for (k, p), (_, q) in zip(tm.named_parameters(), dm.named_parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-8, atol=1e-11, err_msg=k)
