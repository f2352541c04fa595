"""The two training examples (examples/char_lstm.py, examples/small_transformer.py) run
unchanged on PyTorch 2.13 (skipped without torch): each script's source is executed once as
written (dyngrad) and once with its three import lines pointed at torch; with PyTorch's initial
weights copied into the dyngrad model and the same batches (the scripts draw them with NumPy),
the first 5 training losses agree in float32 (Adam / AdamW, gradient clipping, the LR schedule
and, for the LSTM, the hidden state carried over detached)."""

from __future__ import annotations

import pathlib
import types

import numpy as np
import pytest

import dyngrad

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
IMPORTS = {
    "import dyngrad as torch\n": "import torch\n",
    "import dyngrad.nn.functional as F\n": "import torch.nn.functional as F\n",
    "from dyngrad import nn\n": "from torch import nn\n",
}


def _load(name: str, lib: str) -> types.ModuleType:
    """examples/<name>.py as a module, on dyngrad or (imports rewritten) on torch."""
    path = EXAMPLES / f"{name}.py"
    src = path.read_text(encoding="utf-8")
    if lib == "torch":
        for old, new in IMPORTS.items():
            assert src.count(old) == 1, f"{path.name} no longer has the line {old!r} once"
            src = src.replace(old, new)
        imports = [ln for ln in src.splitlines() if ln.lstrip().startswith(("import ", "from "))]
        assert not [ln for ln in imports if "dyngrad" in ln], "an import of dyngrad is left"
    mod = types.ModuleType(f"{name}_on_{lib}")
    mod.__file__ = str(path)
    exec(compile(src, str(path), "exec"), mod.__dict__)
    return mod


@pytest.fixture(autouse=True)
def one_blas_thread():
    """Small matrices: extra BLAS threads only spin (badly so on a busy machine)."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # NumPy's BLAS keeps its threads; slower, same numbers
        yield
    else:
        with threadpool_limits(1, user_api="blas"):
            yield
    finally:
        torch.set_num_threads(n)


def _copy_weights(tmodel, dmodel) -> None:
    """PyTorch's state dict into the dyngrad model (strict: same names and shapes)."""
    dmodel.load_state_dict({k: dyngrad.tensor(v.detach().numpy()) for k, v in tmodel.state_dict().items()})


def test_char_lstm_example_trains_like_pytorch_for_its_first_five_steps():
    dmod, tmod = _load("char_lstm", "dyngrad"), _load("char_lstm", "torch")
    assert tmod.torch is torch and dmod.torch is dyngrad
    text = dmod.load_text()
    vocab = dmod.Vocab(text)
    data = dmod.batchify(vocab.encode(text), 16)
    torch.manual_seed(0)
    tmodel = tmod.CharLSTM(len(vocab))
    dmodel = dmod.CharLSTM(len(vocab))
    _copy_weights(tmodel, dmodel)
    want = tmod.train(tmodel, data, 5)
    got = dmod.train(dmodel, data, 5)
    assert want[-1] < want[0]  # the steps do something: the check is not of a constant
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for k, v in tmodel.state_dict().items():  # and the weights after 5 Adam steps
        # as in the transformer test below: a float32 gradient that is mostly rounding noise
        # becomes a full Adam step, so allow one element in a thousand to be off (the text is
        # README.md + docs/, which every docs edit changes; 1 of 14,336 was seen off by 1.5e-5)
        off = ~np.isclose(dmodel.state_dict()[k].numpy(), v.numpy(), rtol=1e-4, atol=1e-5)
        assert off.mean() <= 1e-3, f"{k}: {off.sum()} of {off.size} weights differ from PyTorch's"


def test_small_transformer_example_trains_like_pytorch_for_its_first_five_steps():
    dmod, tmod = _load("small_transformer", "dyngrad"), _load("small_transformer", "torch")
    text = dmod.load_text()
    vocab = dmod.Vocab(text)
    ids = vocab.encode(text)
    torch.manual_seed(0)
    tmodel = tmod.TinyGPT(len(vocab), dropout=0.0)  # dropout draws differ between the libraries
    dmodel = dmod.TinyGPT(len(vocab), dropout=0.0)
    _copy_weights(tmodel, dmodel)
    want, want_lr = tmod.train(tmodel, ids, 5, warmup=3)
    got, got_lr = dmod.train(dmodel, ids, 5, warmup=3)
    assert want[-1] < want[0]
    np.testing.assert_allclose(got_lr, want_lr, rtol=1e-12)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    E = tmodel.tok.embedding_dim
    for k, v in tmodel.state_dict().items():
        want_w, got_w = v.numpy(), dmodel.state_dict()[k].numpy()
        if k.endswith("in_proj_bias"):
            # the key bias's exact gradient is 0 (it adds q . b_k to a whole row of scores, which
            # softmax ignores): both libraries' are rounding noise, which Adam scales up to +-lr
            want_w, got_w = np.delete(want_w, np.s_[E:2 * E]), np.delete(got_w, np.s_[E:2 * E])
        # elsewhere too a gradient can be mostly rounding noise; Adam makes it a full step: allow
        # one element in a thousand to be off (there is 1 in 12,288 here)
        off = ~np.isclose(got_w, want_w, rtol=1e-4, atol=1e-5)
        assert off.mean() <= 1e-3, f"{k}: {off.sum()} of {off.size} weights differ from PyTorch's"
