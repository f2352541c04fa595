"""Transposed convolutions and conv padding modes against PyTorch 2.13's values
(tests/golden/conv_layers.npz, from tests/golden/gen_conv_layers.py), gradcheck and
gradgradcheck in float64, and misuse errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad import nn
from dyngrad.autograd import gradcheck, gradgradcheck

from .conv_cases import CASES

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "conv_layers.npz"))
TOL = dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,cls,args,kw,xshape,fkw", CASES, ids=[c[0] for c in CASES])
def test_conv_layer_matches_pytorch_outputs_and_gradients(name, cls, args, kw, xshape, fkw):
    m = getattr(nn, cls)(*args, **kw, dtype=dyngrad.float64)
    names = [k[len(name) + 3:] for k in GOLDEN.files if k.startswith(f"{name}/w/")]
    assert sorted(m.state_dict()) == sorted(names)
    for k, v in m.state_dict().items():
        assert tuple(v.shape) == GOLDEN[f"{name}/w/{k}"].shape, k
    m.load_state_dict({k: dyngrad.tensor(GOLDEN[f"{name}/w/{k}"]) for k in names})
    x = dyngrad.tensor(GOLDEN[f"{name}/x"], requires_grad=True)
    out = m(x, **fkw)
    np.testing.assert_allclose(out.detach().numpy(), GOLDEN[f"{name}/out"], **TOL)
    out.sin().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), GOLDEN[f"{name}/grad/x"], **TOL)
    for k, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), GOLDEN[f"{name}/grad/w/{k}"], **TOL, err_msg=k)


def test_conv_transpose2d_passes_gradcheck_and_gradgradcheck():
    rng = np.random.default_rng(0)
    x = dyngrad.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    w = dyngrad.tensor(rng.standard_normal((2, 2, 2, 2)), requires_grad=True)
    b = dyngrad.tensor(rng.standard_normal(4), requires_grad=True)
    f = lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)  # noqa: E731
    assert gradcheck(f, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(f, (x, w, b))
    assert f(x, w, b).grad_fn is not None


def test_conv_transpose_is_the_adjoint_of_conv():
    # <conv(x, w), y> == <x, conv_transpose(y, w)> for every x, y
    rng = np.random.default_rng(1)
    x = dyngrad.tensor(rng.standard_normal((2, 3, 7, 6)))
    w = dyngrad.tensor(rng.standard_normal((4, 3, 3, 2)))
    y = F.conv2d(x, w, stride=2, padding=1, dilation=(1, 2))
    v = dyngrad.tensor(rng.standard_normal(tuple(y.shape)))
    xt = F.conv_transpose2d(v, w, stride=2, padding=1, dilation=(1, 2), output_padding=(0, 1))
    assert xt.shape == x.shape
    np.testing.assert_allclose(float((y * v).sum()), float((x * xt).sum()), rtol=1e-12)


def test_vmap_of_conv_transpose_equals_a_loop():
    rng = np.random.default_rng(2)
    xs = dyngrad.tensor(rng.standard_normal((3, 1, 2, 4, 4)))
    w = dyngrad.tensor(rng.standard_normal((2, 3, 3, 3)))
    out = dyngrad.func.vmap(lambda x: F.conv_transpose2d(x, w, stride=2))(xs)
    for k in range(3):
        np.testing.assert_allclose(out[k].numpy(), F.conv_transpose2d(xs[k], w, stride=2).numpy(), rtol=1e-13)


def test_misuse_raises_pytorch_error_types():
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(dyngrad.ones(1, 2, 3, 3), dyngrad.ones(2, 1, 3, 3), output_padding=1)
    with pytest.raises(RuntimeError, match=r"expected input\[1, 3, 3, 3\] to have 2 channels, but got 3"):
        F.conv_transpose2d(dyngrad.ones(1, 3, 3, 3), dyngrad.ones(2, 1, 3, 3))
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(2, 2, 3, padding_mode="bogus")
    with pytest.raises(ValueError, match="requested an output size of"):
        nn.ConvTranspose2d(2, 3, 3, stride=2)(dyngrad.ones(1, 2, 4, 4), output_size=(20, 20))


@pytest.mark.parametrize("modname", ["dyngrad.nn.conv_layers", "dyngrad.nn._functional_conv_transpose"])
def test_docstring_examples_run(modname):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
