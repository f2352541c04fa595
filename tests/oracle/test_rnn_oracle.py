"""Live comparison of the recurrent layers with PyTorch (skipped without torch): hypothesis
draws the layer, its options, the sizes and (packed) the lengths; outputs, final states and
every gradient must agree in float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
from dyngrad.nn.utils import rnn as drnn

torch = pytest.importorskip("torch")
trnn = torch.nn.utils.rnn


@st.composite
def configs(draw):
    cls = draw(st.sampled_from(["RNN", "LSTM", "GRU"]))
    kw = {
        "num_layers": draw(st.integers(1, 2)),
        "bidirectional": draw(st.booleans()),
        "bias": draw(st.booleans()),
        "batch_first": draw(st.booleans()),
    }
    if cls == "RNN":
        kw["nonlinearity"] = draw(st.sampled_from(["tanh", "relu"]))
    hidden = draw(st.integers(2, 4))
    if cls == "LSTM" and draw(st.booleans()):
        kw["proj_size"] = draw(st.integers(1, hidden - 1))
    n = draw(st.integers(1, 3))
    lengths = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)) if draw(st.booleans()) else None
    return cls, kw, draw(st.integers(1, 3)), hidden, n, lengths, draw(st.booleans()), draw(st.integers(0, 10**6))


@settings(max_examples=40, deadline=None)
@given(configs())
def test_recurrent_layers_match_pytorch_on_random_configurations(cfg):
    cls, kw, nin, hidden, n, lengths, give_h0, seed = cfg
    tm = getattr(torch.nn, cls)(nin, hidden, **kw).double()
    dm = getattr(dyngrad.nn, cls)(nin, hidden, **kw, dtype=dyngrad.float64)
    dm.load_state_dict({k: dyngrad.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    rng = np.random.default_rng(seed)
    T = max(lengths) if lengths else 4
    xs = rng.standard_normal((n, T, nin) if kw["batch_first"] else (T, n, nin))
    tx, dx = torch.tensor(xs, requires_grad=True), dyngrad.tensor(xs, requires_grad=True)
    targs, dargs, tstates, dstates = [], [], [], []
    if give_h0:
        D = 2 if kw["bidirectional"] else 1
        hout = kw.get("proj_size", 0) or hidden
        shapes = [(D * kw["num_layers"], n, hout)] + ([(D * kw["num_layers"], n, hidden)] if cls == "LSTM" else [])
        for s in shapes:
            a = rng.standard_normal(s)
            tstates.append(torch.tensor(a, requires_grad=True))
            dstates.append(dyngrad.tensor(a, requires_grad=True))
        targs = [tuple(tstates)] if cls == "LSTM" else tstates
        dargs = [tuple(dstates)] if cls == "LSTM" else dstates
    tin, din = tx, dx
    if lengths:
        tin = trnn.pack_padded_sequence(tx, lengths, batch_first=kw["batch_first"], enforce_sorted=False)
        din = drnn.pack_padded_sequence(dx, lengths, batch_first=kw["batch_first"], enforce_sorted=False)
    tout, thid = tm(tin, *targs)
    dout, dhid = dm(din, *dargs)
    if lengths:
        tout = trnn.pad_packed_sequence(tout, batch_first=kw["batch_first"])[0]
        dout = drnn.pad_packed_sequence(dout, batch_first=kw["batch_first"])[0]
    th = list(thid) if isinstance(thid, tuple) else [thid]
    dh = list(dhid) if isinstance(dhid, tuple) else [dhid]
    tl, dl = tout.pow(2).sum(), dout.pow(2).sum()
    for a, b in zip(th, dh):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-9, atol=1e-12)
        tl, dl = tl + a.sin().sum(), dl + b.sin().sum()
    np.testing.assert_allclose(dout.detach().numpy(), tout.detach().numpy(), rtol=1e-9, atol=1e-12)
    tl.backward()
    dl.backward()
    np.testing.assert_allclose(dx.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-11)
    for a, b in zip(tstates, dstates):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-8, atol=1e-11)
    for (k, p), (_, q) in zip(tm.named_parameters(), dm.named_parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-8, atol=1e-11, err_msg=k)
