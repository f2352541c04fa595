"""scaled_dot_product_attention, MultiheadAttention and the transformer layers against
PyTorch 2.13's values (tests/golden/attention.npz, from tests/golden/gen_attention.py),
gradcheck in float64, and misuse errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad import nn
from dyngrad.autograd import gradcheck, gradgradcheck

from .attention_cases import FUNCTIONS, MODULES, arrays_for, tensors

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "attention.npz"))
TOL = dict(rtol=1e-9, atol=1e-11)


def _check(name, outs, t, m):
    n_out = sum(1 for k in GOLDEN.files if k.startswith(f"{name}/out"))
    assert len(outs) == n_out
    for j, o in enumerate(outs):
        np.testing.assert_allclose(o.detach().numpy(), GOLDEN[f"{name}/out{j}"], **TOL)
    sum(o.sin().sum() for o in outs).backward()
    for k, x in t.items():
        key = f"{name}/grad/{k}"
        if key in GOLDEN.files:
            np.testing.assert_allclose(x.grad.numpy(), GOLDEN[key], **TOL, err_msg=k)
        else:
            assert getattr(x, "grad", None) is None or not np.any(x.grad.numpy()), k
    if m is not None:
        for k, p in m.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), GOLDEN[f"{name}/grad/w/{k}"], **TOL, err_msg=k)


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")
@pytest.mark.parametrize("seed,case", list(enumerate(MODULES)), ids=[c[0] for c in MODULES])
def test_attention_module_matches_pytorch_outputs_and_gradients(seed, case):
    name, cls, args, kw, call = case
    m = getattr(nn, cls)(*args, **kw, dtype=dyngrad.float64)
    names = [str(n) for n in GOLDEN[f"{name}/names"]]
    assert list(m.state_dict()) == names  # PyTorch's names, in PyTorch's order
    m.load_state_dict({n: dyngrad.tensor(GOLDEN[f"{name}/w/{n}"]) for n in names})
    t = tensors(dyngrad, arrays_for(name, seed))
    _check(name, call(dyngrad, m, t), t, m)


@pytest.mark.parametrize("seed,case", list(enumerate(FUNCTIONS, start=50)), ids=[c[0] for c in FUNCTIONS])
def test_scaled_dot_product_attention_matches_pytorch(seed, case):
    name, call = case
    t = tensors(dyngrad, arrays_for(name, seed))
    _check(name, call(dyngrad, t), t, None)


def test_attention_passes_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(0)
    q, k, v = (dyngrad.tensor(rng.standard_normal(s), requires_grad=True) for s in [(1, 2, 3, 2), (1, 2, 4, 2), (1, 2, 4, 3)])
    mask = dyngrad.tensor(rng.random((3, 4)) > 0.2)
    f = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)  # noqa: E731
    assert gradcheck(f, (q, k, v))
    assert gradgradcheck(f, (q, k, v))
    m = nn.MultiheadAttention(4, 2, dtype=dyngrad.float64)
    names = [n for n, _ in m.named_parameters()]
    x = dyngrad.tensor(rng.standard_normal((3, 2, 4)), requires_grad=True)
    ps = [p.detach().clone().requires_grad_() for p in m.parameters()]
    g = lambda x, *ps: dyngrad.func.functional_call(m, dict(zip(names, ps)), (x, x, x))[0]  # noqa: E731
    assert gradcheck(g, (x, *ps))


def test_default_initialisation_follows_pytorch():
    dyngrad.manual_seed(0)
    m = nn.MultiheadAttention(16, 4, add_bias_kv=True)
    a = np.sqrt(6 / (16 + 48))  # xavier_uniform_ on (3E, E)
    w = m.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= a and w.std() > a / 3
    assert not m.in_proj_bias.detach().numpy().any() and not m.out_proj.bias.detach().numpy().any()
    assert m.bias_k.shape == (1, 1, 16)
    t = nn.Transformer(8, 2, 1, 1, 16)
    for p in t.parameters():
        if p.dim() > 1:
            fan_out, fan_in = p.shape
            assert np.abs(p.detach().numpy()).max() <= np.sqrt(6 / (fan_in + fan_out))


def test_dropout_on_the_attention_weights_only_in_training():
    dyngrad.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = dyngrad.randn(4, 2, 8)
    m.eval()
    a, wa = m(x, x, x)
    b, _ = m(x, x, x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    np.testing.assert_allclose(wa.sum(-1).detach().numpy(), 1.0, rtol=1e-6)
    m.train()
    c, _ = m(x, x, x)
    assert not np.array_equal(c.detach().numpy(), a.detach().numpy())


def test_causal_mask_and_repr_and_copies_of_layers():
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype == dyngrad.float32
    np.testing.assert_array_equal(np.isinf(mask.numpy()), np.triu(np.ones((3, 3), bool), 1))
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 3)
    ws = [layer.linear1.weight for layer in enc.layers]
    assert len({id(w) for w in ws}) == 3  # deep copies, not shared
    np.testing.assert_array_equal(ws[0].detach().numpy(), ws[1].detach().numpy())
    assert repr(nn.MultiheadAttention(8, 2)).startswith("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(")


def test_misuse_raises_pytorch_error_types():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
    m = nn.MultiheadAttention(8, 2)
    x = dyngrad.randn(4, 3, 8)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \(3, 4\), but should be \(4, 4\)"):
        m(x, x, x, attn_mask=dyngrad.zeros(3, 4))
    with pytest.raises(RuntimeError, match=r"expecting key_padding_mask shape of \(3, 4\)"):
        m(x, x, x, key_padding_mask=dyngrad.zeros(3, 5, dtype=dyngrad.bool))
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        m(x, x, x, key_padding_mask=dyngrad.zeros(3, 4, dtype=dyngrad.bool), attn_mask=dyngrad.zeros(4, 4))
    q = dyngrad.randn(1, 4, 3, 2)
    kv = dyngrad.randn(1, 2, 3, 2)
    with pytest.raises(RuntimeError, match="enable_gqa=True"):
        F.scaled_dot_product_attention(q, kv, kv)
    with pytest.raises(RuntimeError, match="attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=dyngrad.ones(3, 3, dtype=dyngrad.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    t = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        t(dyngrad.randn(5, 3, 8), dyngrad.randn(4, 2, 8))


@pytest.mark.parametrize("modname", ["dyngrad.nn.attention", "dyngrad.nn.transformer"])
def test_docstring_examples_run(modname):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0


def test_sdpa_docstring_example_runs():
    import doctest

    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for t in finder.find(F.scaled_dot_product_attention, "sdpa", globs={}):
        assert runner.run(t).failed == 0


def test_a_query_with_every_key_masked_gets_zeros_and_finite_gradients_as_pytorchs_safe_softmax():
    rng = np.random.default_rng(0)
    q, k, v = (dyngrad.tensor(rng.standard_normal((1, 1, 2, 3)), requires_grad=True) for _ in range(3))
    m = dyngrad.tensor([[True, True], [False, False]])
    o = F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    o.sum().backward()
    assert not o.detach().numpy()[0, 0, 1].any()
    for t in (q, k, v):
        assert np.isfinite(t.grad.numpy()).all()
    # the unmasked row equals attention over its keys alone
    ref = F.scaled_dot_product_attention(q[:, :, :1], k, v)
    np.testing.assert_allclose(o.detach().numpy()[0, 0, 0], ref.detach().numpy()[0, 0, 0], rtol=1e-12)


def test_an_integer_attention_mask_is_refused_as_pytorch_does():
    q = dyngrad.randn(1, 1, 2, 3)
    with pytest.raises(RuntimeError, match="Expected attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=dyngrad.tensor([[1, 0], [1, 1]]))
    m = nn.MultiheadAttention(4, 2)
    x = dyngrad.randn(2, 1, 4)
    with pytest.raises(AssertionError, match="only bool and floating types of masks are supported"):
        m(x, x, x, attn_mask=dyngrad.tensor([[1, 0], [1, 1]]))
