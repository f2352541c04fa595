"""Generate tests/golden/rnn.npz: PyTorch 2.13 reference values for the recurrent layers
and cells of tests/nn/rnn_cases.py.

Run with torch installed::

    python tests/golden/gen_rnn.py

For each case: ``<case>/names`` (the state-dict keys, in order), ``<case>/w/<name>`` (the
weights, drawn with NumPy), the outputs (``out``, ``h_n``, ``c_n``) and the gradients of
``sum(out * cot) + sum(h_n * cot_h) (+ sum(c_n * cot_c))`` w.r.t. the input, the initial
states and every parameter (``grad/x``, ``grad/h0``, ``grad/c0``, ``grad/w/<name>``).
"""

from __future__ import annotations

import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from tests.nn.rnn_cases import CASES, CELLS, HID, IN, LENGTHS, inputs, weights  # noqa: E402

OUT = os.path.join(HERE, "rnn.npz")
data: dict[str, np.ndarray] = {}
rnn_utils = torch.nn.utils.rnn


def _load(m: torch.nn.Module, name: str, seed: int) -> None:
    sd = m.state_dict()
    w = weights([(k, tuple(v.shape)) for k, v in sd.items()], seed)
    m.load_state_dict({k: torch.tensor(v) for k, v in w.items()})
    data[f"{name}/names"] = np.array(list(sd))
    for k, v in w.items():
        data[f"{name}/w/{k}"] = v


def _cot(shape: tuple, seed: int) -> np.ndarray:
    return np.random.default_rng(5000 + seed).standard_normal(shape)


for seed, (name, cls, kw, kind) in enumerate(CASES):
    m = getattr(torch.nn, cls)(IN, HID, **kw).double()
    _load(m, name, seed)
    inp = inputs(kind, kw, seed)
    x = torch.tensor(inp["x"], requires_grad=True)
    data[f"{name}/x"] = inp["x"]
    args = []
    states = []
    if kind == "h0":
        h0 = torch.tensor(inp["h0"], requires_grad=True)
        data[f"{name}/h0"] = inp["h0"]
        states.append(("h0", h0))
        if cls == "LSTM":
            c0 = torch.tensor(inp["c0"], requires_grad=True)
            data[f"{name}/c0"] = inp["c0"]
            states.append(("c0", c0))
            args = [(h0, c0)]
        else:
            args = [h0]
    xin = rnn_utils.pack_padded_sequence(x, LENGTHS, enforce_sorted=False) if kind == "packed" else x
    out, hid = m(xin, *args)
    if kind == "packed":
        out, _ = rnn_utils.pad_packed_sequence(out)
    hs = list(hid) if isinstance(hid, tuple) else [hid]
    data[f"{name}/out"] = out.detach().numpy()
    loss = (out * torch.tensor(_cot(tuple(out.shape), seed))).sum()
    for j, (k, h) in enumerate(zip(("h_n", "c_n"), hs)):
        data[f"{name}/{k}"] = h.detach().numpy()
        loss = loss + (h * torch.tensor(_cot(tuple(h.shape), seed + 100 * (j + 1)))).sum()
    loss.backward()
    data[f"{name}/grad/x"] = x.grad.numpy()
    for k, s in states:
        data[f"{name}/grad/{k}"] = s.grad.numpy()
    for k, p in m.named_parameters():
        data[f"{name}/grad/w/{k}"] = p.grad.numpy()

for seed, (name, cls, kw) in enumerate(CELLS, start=100):
    m = getattr(torch.nn, cls)(IN, HID, **kw).double()
    _load(m, name, seed)
    rng = np.random.default_rng(seed)
    xs, hs = rng.standard_normal((3, IN)), rng.standard_normal((3, HID))
    data[f"{name}/x"], data[f"{name}/h0"] = xs, hs
    x, h = torch.tensor(xs, requires_grad=True), torch.tensor(hs, requires_grad=True)
    if cls == "LSTMCell":
        cs = rng.standard_normal((3, HID))
        data[f"{name}/c0"] = cs
        c = torch.tensor(cs, requires_grad=True)
        ho, co = m(x, (h, c))
        outs = [ho, co]
    else:
        outs = [m(x, h)]
    loss = 0
    for j, o in enumerate(outs):
        data[f"{name}/out{j}"] = o.detach().numpy()
        loss = loss + (o * torch.tensor(_cot(tuple(o.shape), seed + j))).sum()
    loss.backward()
    data[f"{name}/grad/x"], data[f"{name}/grad/h0"] = x.grad.numpy(), h.grad.numpy()
    if cls == "LSTMCell":
        data[f"{name}/grad/c0"] = c.grad.numpy()
    for k, p in m.named_parameters():
        data[f"{name}/grad/w/{k}"] = p.grad.numpy()

np.savez_compressed(OUT, **data)
print(f"wrote {OUT}: {len(data)} arrays")
