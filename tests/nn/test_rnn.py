"""Recurrent layers and cells against PyTorch 2.13's values (tests/golden/rnn.npz, from
tests/golden/gen_rnn.py), gradcheck in float64, packed sequences, and misuse errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
from dyngrad import nn
from dyngrad.autograd import gradcheck
from dyngrad.nn.utils import rnn as rnn_utils

from .rnn_cases import CASES, CELLS, HID, IN, LENGTHS

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "rnn.npz"))
TOL = dict(rtol=1e-10, atol=1e-12)


def _model(name, cls, kw):
    m = getattr(nn, cls)(IN, HID, **kw, dtype=dyngrad.float64)
    names = [str(n) for n in GOLDEN[f"{name}/names"]]
    assert list(m.state_dict()) == names  # PyTorch's parameter names, in PyTorch's order
    m.load_state_dict({n: dyngrad.tensor(GOLDEN[f"{name}/w/{n}"]) for n in names})
    return m


@pytest.mark.parametrize("name,cls,kw,kind", CASES, ids=[c[0] for c in CASES])
def test_recurrent_layer_matches_pytorch_outputs_and_gradients(name, cls, kw, kind):
    m = _model(name, cls, kw)
    x = dyngrad.tensor(GOLDEN[f"{name}/x"], requires_grad=True)
    states, args = [], []
    if kind == "h0":
        h0 = dyngrad.tensor(GOLDEN[f"{name}/h0"], requires_grad=True)
        states.append(("h0", h0))
        if cls == "LSTM":
            c0 = dyngrad.tensor(GOLDEN[f"{name}/c0"], requires_grad=True)
            states.append(("c0", c0))
            args = [(h0, c0)]
        else:
            args = [h0]
    xin = rnn_utils.pack_padded_sequence(x, LENGTHS, enforce_sorted=False) if kind == "packed" else x
    out, hid = m(xin, *args)
    if kind == "packed":
        assert isinstance(out, rnn_utils.PackedSequence)
        out, lengths = rnn_utils.pad_packed_sequence(out)
        assert lengths.tolist() == LENGTHS
    np.testing.assert_allclose(out.detach().numpy(), GOLDEN[f"{name}/out"], **TOL)
    hs = list(hid) if isinstance(hid, tuple) else [hid]
    rng_cot = np.random.default_rng(5000 + [c[0] for c in CASES].index(name))
    loss = (out * dyngrad.tensor(rng_cot.standard_normal(tuple(out.shape)))).sum()
    seed = [c[0] for c in CASES].index(name)
    for j, (k, h) in enumerate(zip(("h_n", "c_n"), hs)):
        np.testing.assert_allclose(h.detach().numpy(), GOLDEN[f"{name}/{k}"], **TOL)
        cot = np.random.default_rng(5000 + seed + 100 * (j + 1)).standard_normal(tuple(h.shape))
        loss = loss + (h * dyngrad.tensor(cot)).sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), GOLDEN[f"{name}/grad/x"], **TOL)
    for k, s in states:
        np.testing.assert_allclose(s.grad.numpy(), GOLDEN[f"{name}/grad/{k}"], **TOL)
    for k, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), GOLDEN[f"{name}/grad/w/{k}"], **TOL, err_msg=k)


@pytest.mark.parametrize("name,cls,kw", CELLS, ids=[c[0] for c in CELLS])
def test_recurrent_cell_matches_pytorch_outputs_and_gradients(name, cls, kw):
    m = _model(name, cls, kw)
    seed = 100 + [c[0] for c in CELLS].index(name)
    x = dyngrad.tensor(GOLDEN[f"{name}/x"], requires_grad=True)
    h = dyngrad.tensor(GOLDEN[f"{name}/h0"], requires_grad=True)
    if cls == "LSTMCell":
        c = dyngrad.tensor(GOLDEN[f"{name}/c0"], requires_grad=True)
        outs = list(m(x, (h, c)))
    else:
        outs = [m(x, h)]
    loss = 0
    for j, o in enumerate(outs):
        np.testing.assert_allclose(o.detach().numpy(), GOLDEN[f"{name}/out{j}"], **TOL)
        cot = np.random.default_rng(5000 + seed + j).standard_normal(tuple(o.shape))
        loss = loss + (o * dyngrad.tensor(cot)).sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), GOLDEN[f"{name}/grad/x"], **TOL)
    np.testing.assert_allclose(h.grad.numpy(), GOLDEN[f"{name}/grad/h0"], **TOL)
    if cls == "LSTMCell":
        np.testing.assert_allclose(c.grad.numpy(), GOLDEN[f"{name}/grad/c0"], **TOL)
    for k, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), GOLDEN[f"{name}/grad/w/{k}"], **TOL, err_msg=k)


# ------------------------------------------------------------------ gradcheck (float64)
@pytest.mark.parametrize("cls,kw,packed,second", [
    ("LSTM", {"bidirectional": True, "proj_size": 1}, False, False),
    ("GRU", {"bidirectional": True}, True, False),
    ("RNN", {}, False, True),
])
def test_recurrent_layers_pass_gradcheck(cls, kw, packed, second):
    dyngrad.manual_seed(0)
    m = getattr(nn, cls)(2, 2, **kw, dtype=dyngrad.float64)
    names = [n for n, _ in m.named_parameters()]

    def f(x, *ps):
        xin = rnn_utils.pack_padded_sequence(x, [3, 2]) if packed else x
        out, hid = dyngrad.func.functional_call(m, dict(zip(names, ps)), (xin,))
        if packed:
            out = rnn_utils.pad_packed_sequence(out)[0]
        h = hid[0] if isinstance(hid, tuple) else hid
        return out.sum(-1), h

    x = dyngrad.randn(3, 2, 2, dtype=dyngrad.float64, requires_grad=True)
    ps = [p.detach().clone().requires_grad_() for p in m.parameters()]
    assert gradcheck(f, (x, *ps))
    if second:
        assert dyngrad.autograd.gradgradcheck(f, (x, *ps))


# ------------------------------------------------------------------ layouts and state dicts
def test_default_initialisation_is_uniform_within_one_over_sqrt_hidden():
    dyngrad.manual_seed(0)
    m = nn.LSTM(8, 16, num_layers=2)
    bound = 1 / np.sqrt(16)
    for p in m.parameters():
        v = p.detach().numpy()
        assert v.min() >= -bound and v.max() <= bound and v.std() > bound / 3
        assert p.dtype == dyngrad.float32


def test_parameter_shapes_follow_pytorch_for_projections_and_directions():
    m = nn.LSTM(5, 6, num_layers=2, bidirectional=True, proj_size=3)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert shapes["weight_ih_l0"] == (24, 5)
    assert shapes["weight_hh_l0_reverse"] == (24, 3)
    assert shapes["weight_ih_l1"] == (24, 6)  # proj_size * 2 directions
    assert shapes["weight_hr_l1_reverse"] == (3, 6)
    assert len(m.all_weights) == 4 and len(m.all_weights[0]) == 5


def test_output_layouts_batch_first_and_unbatched():
    m = nn.GRU(4, 3, num_layers=2, batch_first=True, bidirectional=True)
    out, h = m(dyngrad.randn(2, 7, 4))
    assert out.shape == (2, 7, 6) and h.shape == (4, 2, 3)
    out, h = m(dyngrad.randn(7, 4))
    assert out.shape == (7, 6) and h.shape == (4, 3)
    lstm = nn.LSTM(4, 3, proj_size=2)
    out, (h, c) = lstm(dyngrad.randn(7, 2, 4))
    assert out.shape == (7, 2, 2) and h.shape == (1, 2, 2) and c.shape == (1, 2, 3)


def test_dropout_between_layers_only_in_training_mode():
    dyngrad.manual_seed(0)
    m = nn.LSTM(4, 8, num_layers=3, dropout=0.5)
    x = dyngrad.randn(6, 2, 4)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    m.train()
    assert not np.array_equal(m(x)[0].detach().numpy(), a.detach().numpy())


def test_last_hidden_state_of_a_packed_sequence_is_taken_at_each_sequence_length():
    dyngrad.manual_seed(0)
    m = nn.RNN(2, 3, dtype=dyngrad.float64)
    seqs = [dyngrad.randn(n, 2, dtype=dyngrad.float64) for n in (4, 1, 3)]
    _, h = m(rnn_utils.pack_sequence(seqs, enforce_sorted=False))
    for i, s in enumerate(seqs):
        _, hi = m(s)
        np.testing.assert_allclose(h[0, i].detach().numpy(), hi[0].detach().numpy(), rtol=1e-12)


def test_pad_pack_round_trip_and_helpers():
    seqs = [dyngrad.tensor([1.0, 2.0, 3.0]), dyngrad.tensor([4.0]), dyngrad.tensor([5.0, 6.0])]
    padded = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=-1)
    np.testing.assert_array_equal(padded.numpy(), [[1, 2, 3], [4, -1, -1], [5, 6, -1]])
    left = rnn_utils.pad_sequence(seqs, batch_first=True, padding_side="left")
    np.testing.assert_array_equal(left.numpy(), [[1, 2, 3], [0, 0, 4], [0, 5, 6]])
    p = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    assert p.batch_sizes.tolist() == [3, 2, 1]
    back = rnn_utils.unpack_sequence(p)
    for a, b in zip(back, seqs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    out, lens = rnn_utils.pad_packed_sequence(p, batch_first=True, total_length=5)
    assert out.shape == (3, 5) and lens.tolist() == [3, 1, 2]


# ------------------------------------------------------------------ misuse
def test_misuse_raises_pytorch_error_types_and_messages():
    lstm = nn.LSTM(4, 3)
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 3\), got \[2, 2, 3\]"):
        lstm(dyngrad.randn(5, 2, 4), (dyngrad.randn(2, 2, 3), dyngrad.randn(1, 2, 3)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size"):
        lstm(dyngrad.randn(5, 2, 4), (dyngrad.randn(1, 2, 3), dyngrad.randn(1, 3, 3)))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 4, got 5"):
        lstm(dyngrad.randn(5, 2, 5))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D"):
        lstm(dyngrad.randn(5, 2, 4, 1))
    with pytest.raises(ValueError, match="does not match weight dtype"):
        lstm(dyngrad.randn(5, 2, 4, dtype=dyngrad.float64))
    with pytest.raises(ValueError, match="proj_size has to be smaller"):
        nn.LSTM(4, 3, proj_size=3)
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(4, 3, proj_size=1)
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(4, 3, nonlinearity="gelu")
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(4, 3, dropout=0.2)
    cell = nn.LSTMCell(4, 3)
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        cell(dyngrad.randn(2, 4), (dyngrad.randn(3, 3), dyngrad.randn(3, 3)))
    with pytest.raises(ValueError, match="LSTMCell: Expected input to be 1D or 2D, got 3D"):
        cell(dyngrad.randn(2, 2, 4))
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn_utils.pack_padded_sequence(dyngrad.randn(3, 2, 1), [1, 3])


def test_repr_matches_pytorch():
    assert repr(nn.LSTM(4, 3, num_layers=2, bidirectional=True)) == "LSTM(4, 3, num_layers=2, bidirectional=True)"
    assert repr(nn.GRU(4, 3, batch_first=True, dropout=0.5, num_layers=2)) == "GRU(4, 3, num_layers=2, batch_first=True, dropout=0.5)"
    assert repr(nn.RNNCell(4, 3, nonlinearity="relu")) == "RNNCell(4, 3, nonlinearity=relu)"
    assert repr(nn.LSTMCell(4, 3, bias=False)) == "LSTMCell(4, 3, bias=False)"


@pytest.mark.parametrize("modname", ["dyngrad.nn.rnn", "dyngrad.nn.rnn_cells", "dyngrad.nn.utils.rnn"])
def test_docstring_examples_run(modname):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
