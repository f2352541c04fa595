"""interpolate (every mode), pixel_shuffle/unshuffle, the resampling layers and ceil-mode
pooling against PyTorch 2.13's values (tests/golden/resample.npz), gradcheck and
gradgradcheck, and misuse errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad import nn
from dyngrad.autograd import gradcheck, gradgradcheck

from .resample_cases import CASES

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "resample.npz"))


@pytest.mark.parametrize("name,fn,shape,kw", CASES, ids=[c[0] for c in CASES])
def test_resampling_matches_pytorch_values_and_gradients(name, fn, shape, kw):
    x = dyngrad.tensor(GOLDEN[f"{name}/x"], requires_grad=True)
    out = getattr(F, fn)(x, **kw)
    np.testing.assert_allclose(out.detach().numpy(), GOLDEN[f"{name}/out"], rtol=1e-12, atol=1e-13)
    out.backward(dyngrad.tensor(GOLDEN[f"{name}/cot"]))
    np.testing.assert_allclose(x.grad.numpy(), GOLDEN[f"{name}/grad"], rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("mode,shape", [("linear", (1, 2, 4)), ("bilinear", (1, 1, 3, 3)), ("bicubic", (1, 1, 3, 3)),
                                        ("nearest", (1, 1, 3, 3))])
def test_interpolate_passes_gradcheck_and_gradgradcheck(mode, shape):
    x = dyngrad.tensor(np.random.default_rng(0).standard_normal(shape), requires_grad=True)
    f = lambda x: F.interpolate(x, scale_factor=1.5, mode=mode)  # noqa: E731
    assert gradcheck(f, (x,), check_forward_ad=True)
    assert gradgradcheck(f, (x,))


def test_layers_and_their_reprs_match_pytorch():
    x = dyngrad.tensor(np.arange(8.0).reshape(1, 2, 2, 2))
    np.testing.assert_array_equal(nn.Upsample(scale_factor=2)(x).numpy(), F.interpolate(x, scale_factor=2).numpy())
    np.testing.assert_array_equal(nn.UpsamplingBilinear2d(size=3)(x).numpy(),
                                  F.interpolate(x, size=3, mode="bilinear", align_corners=True).numpy())
    assert repr(nn.Upsample(scale_factor=2)) == "Upsample(scale_factor=2.0, mode='nearest')"
    assert repr(nn.UpsamplingBilinear2d(scale_factor=2)) == "UpsamplingBilinear2d(scale_factor=2.0, mode='bilinear')"
    assert repr(nn.PixelShuffle(3)) == "PixelShuffle(upscale_factor=3)"
    y = dyngrad.randn(2, 8, 3, 4)
    np.testing.assert_array_equal(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(y)).numpy(), y.numpy())
    assert list(nn.MaxPool2d(3, 2, ceil_mode=True)(dyngrad.randn(1, 1, 6, 6)).shape) == [1, 1, 3, 3]


def test_misuse_raises_pytorch_error_types():
    x = dyngrad.randn(1, 2, 3, 3)
    with pytest.raises(ValueError, match="only one of size or scale_factor should be defined"):
        F.interpolate(x, size=4, scale_factor=2)
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        F.interpolate(x, scale_factor=2, align_corners=True)
    with pytest.raises(NotImplementedError, match="Got 4D input, but linear mode needs 3D input"):
        F.interpolate(x, scale_factor=2, mode="linear")
    with pytest.raises(RuntimeError, match="divisible by the square of upscale_factor"):
        F.pixel_shuffle(dyngrad.randn(1, 3, 2, 2), 2)


@pytest.mark.parametrize("modname", ["dyngrad.nn._functional_resample", "dyngrad.nn.resampling"])
def test_docstring_examples_run(modname):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0


def test_an_empty_output_size_raises_pytorchs_error():
    x = dyngrad.randn(1, 1, 2, 3)
    for kw in [dict(size=(0, 1)), dict(scale_factor=1 / 3), dict(scale_factor=1 / 3, mode="bilinear", recompute_scale_factor=True)]:
        with pytest.raises(RuntimeError, match=r"Input and output sizes should be greater than 0, but got input \(H: 2, W: 3\) output \(H: 0, W: 1\)"):
            F.interpolate(x, **kw)
