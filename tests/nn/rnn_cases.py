"""The recurrent-layer cases shared by tests/nn/test_rnn.py, tests/oracle/test_rnn_oracle.py
and tests/golden/gen_rnn.py: (name, class, constructor kwargs, input kind).

Input kinds: "seq" (L=5, N=3), "unbatched" (L=5), "packed" (lengths 3, 5, 2, unsorted),
"h0" (seq with given initial states).
"""

from __future__ import annotations

import numpy as np

IN, HID = 4, 3
L, N = 5, 3
LENGTHS = [3, 5, 2]

CASES = [
    ("rnn_tanh", "RNN", {}, "seq"),
    ("rnn_relu_2layer", "RNN", {"nonlinearity": "relu", "num_layers": 2}, "h0"),
    ("rnn_bidir_batch_first", "RNN", {"bidirectional": True, "batch_first": True}, "seq"),
    ("lstm", "LSTM", {}, "seq"),
    ("lstm_unbatched", "LSTM", {}, "unbatched"),
    ("lstm_2layer_bidir", "LSTM", {"num_layers": 2, "bidirectional": True}, "h0"),
    ("lstm_proj", "LSTM", {"proj_size": 2, "num_layers": 2}, "h0"),
    ("lstm_no_bias_batch_first", "LSTM", {"bias": False, "batch_first": True}, "seq"),
    ("lstm_packed_bidir", "LSTM", {"bidirectional": True, "num_layers": 2}, "packed"),
    ("gru", "GRU", {}, "seq"),
    ("gru_2layer_bidir", "GRU", {"num_layers": 2, "bidirectional": True}, "h0"),
    ("gru_packed", "GRU", {}, "packed"),
    ("rnn_packed_bidir", "RNN", {"bidirectional": True}, "packed"),
]

CELLS = [
    ("rnncell", "RNNCell", {}),
    ("rnncell_relu", "RNNCell", {"nonlinearity": "relu"}),
    ("lstmcell", "LSTMCell", {}),
    ("grucell_no_bias", "GRUCell", {"bias": False}),
]


def weights(names_shapes: list, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {n: rng.uniform(-0.6, 0.6, s) for n, s in names_shapes}


def inputs(kind: str, kwargs: dict, seed: int) -> dict:
    """NumPy inputs of a case: ``x`` (padded/time-major unless batch_first), maybe ``h0``/``c0``."""
    rng = np.random.default_rng(1000 + seed)
    bf = kwargs.get("batch_first", False)
    if kind == "unbatched":
        return {"x": rng.standard_normal((L, IN))}
    x = rng.standard_normal((N, L, IN) if bf else (L, N, IN))
    out = {"x": x}
    if kind == "h0":
        D = 2 if kwargs.get("bidirectional") else 1
        nl = kwargs.get("num_layers", 1)
        hout = kwargs.get("proj_size", 0) or HID
        out["h0"] = rng.standard_normal((D * nl, N, hout))
        out["c0"] = rng.standard_normal((D * nl, N, HID))
    return out
