"""Conv3d, ConvTranspose3d, the 3-d pooling layers, grid_sample and affine_grid: layer
contracts (parameters, initialisation, extra_repr), identities that must hold whatever the
numbers (adjointness, fused backward == differentiable backward, vmap == loop), and misuse
errors with PyTorch's types and messages. Values against PyTorch are in
tests/nn/test_conv_layers.py (golden), tests/op_db/nn_conv3d.py (golden) and
tests/oracle/test_conv3d_oracle.py (live)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad import nn


def _t(a, grad=False):
    return dyngrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_conv3d_layer_has_pytorchs_parameters_and_initialisation_bounds():
    dyngrad.manual_seed(0)
    m = nn.Conv3d(4, 6, (3, 2, 1), groups=2)
    assert [(k, tuple(v.shape)) for k, v in m.named_parameters()] == [("weight", (6, 2, 3, 2, 1)), ("bias", (6,))]
    bound = 1 / math.sqrt(2 * 3 * 2 * 1)  # kaiming_uniform_(a=sqrt(5)) and the bias: U(+-1/sqrt(fan_in))
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    assert float(m.weight.abs().max()) > bound / 2  # not all zeros or tiny
    t = nn.ConvTranspose3d(4, 6, 3, groups=2, bias=False)
    assert [(k, tuple(v.shape)) for k, v in t.named_parameters()] == [("weight", (4, 3, 3, 3, 3))]


def test_3d_layers_extra_repr_is_pytorchs():
    assert repr(nn.Conv3d(2, 4, 3, padding="same", groups=2)) == (
        "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=same, groups=2)")
    assert repr(nn.ConvTranspose3d(2, 4, (1, 2, 3), output_padding=1, stride=2)) == (
        "ConvTranspose3d(2, 4, kernel_size=(1, 2, 3), stride=(2, 2, 2), output_padding=(1, 1, 1))")
    assert repr(nn.MaxPool3d(2)) == "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool3d(2, ceil_mode=True)) == "AvgPool3d(kernel_size=2, stride=2, padding=0)"
    assert repr(nn.AdaptiveAvgPool3d((2, None, 3))) == "AdaptiveAvgPool3d(output_size=(2, None, 3))"


def test_conv_transpose3d_is_the_adjoint_of_conv3d():
    # <conv3d(x, w), y> == <x, conv_transpose3d(y, w)> for every x, y
    rng = np.random.default_rng(1)
    x = _t(rng.standard_normal((2, 4, 6, 6, 4)))
    w = _t(rng.standard_normal((6, 2, 3, 2, 2)))
    kw = dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2)
    y = F.conv3d(x, w, **kw)
    v = _t(rng.standard_normal(tuple(y.shape)))
    xt = F.conv_transpose3d(v, w, output_padding=(1, 0, 0), **kw)
    assert xt.shape == x.shape
    np.testing.assert_allclose(float((y * v).sum()), float((x * xt).sum()), rtol=1e-12)


def test_conv3d_equals_a_direct_loop():
    # out[n, o, i, j, k] = sum_{c, a, b, e} x_pad[n, g*cg + c, i*s0 + a*d0, j*s1 + b*d1, k*s2 + e*d2] w[o, c, a, b, e]
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((2, 4, 4, 5, 3)), rng.standard_normal((4, 2, 2, 2, 2))
    s, p, d, groups = (2, 1, 1), (1, 0, 1), (1, 2, 1), 2
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((q, q) for q in p))
    out = F.conv3d(_t(x), _t(w), None, s, p, d, groups).numpy()
    ref = np.zeros_like(out)
    for o in range(4):
        gi = o // 2
        for i, j, k in np.ndindex(*out.shape[2:]):
            for a, b, e in np.ndindex(2, 2, 2):
                patch = xp[:, gi * 2:(gi + 1) * 2, i * s[0] + a * d[0], j * s[1] + b * d[1], k * s[2] + e * d[2]]
                ref[:, o, i, j, k] += patch @ w[o, :, a, b, e]
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


def test_grid_sample_bilinear_equals_a_per_point_formula():
    # zeros padding, align_corners=False: c = ((g + 1) * size - 1) / 2, the four neighbours
    # weighted by (1 - t) / t per axis, neighbours outside the input count as 0
    rng = np.random.default_rng(10)
    x, grid = rng.standard_normal((1, 2, 3, 4)), rng.uniform(-1.3, 1.3, (1, 2, 3, 2))
    out = F.grid_sample(_t(x), _t(grid), "bilinear", "zeros", False).numpy()

    def at(c, yy, xx):
        return x[0, c, yy, xx] if 0 <= yy < 3 and 0 <= xx < 4 else 0.0

    for i, j in np.ndindex(2, 3):
        cx, cy = ((grid[0, i, j, 0] + 1) * 4 - 1) / 2, ((grid[0, i, j, 1] + 1) * 3 - 1) / 2
        x0, y0 = int(np.floor(cx)), int(np.floor(cy))
        tx, ty = cx - x0, cy - y0
        for c in range(2):
            v = ((1 - ty) * ((1 - tx) * at(c, y0, x0) + tx * at(c, y0, x0 + 1))
                 + ty * ((1 - tx) * at(c, y0 + 1, x0) + tx * at(c, y0 + 1, x0 + 1)))
            np.testing.assert_allclose(out[0, c, i, j], v, rtol=1e-12, atol=1e-14)


def test_conv3d_of_depth_one_equals_conv2d():
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((2, 3, 5, 6)), rng.standard_normal((4, 3, 2, 3))
    a = F.conv3d(_t(x[:, :, None]), _t(w[:, :, None]), stride=(1, 2, 1), padding=(0, 1, 1))
    b = F.conv2d(_t(x), _t(w), stride=(2, 1), padding=1)
    np.testing.assert_allclose(a[:, :, 0].numpy(), b.numpy(), rtol=1e-13)


def test_transposed_conv_gradient_with_output_padding_past_the_stride():
    # output_padding may reach the stride when below the dilation; the input gradient must
    # keep the input's shape (it used to be one larger and raise)
    rng = np.random.default_rng(3)
    for f, xs, ws in ((F.conv_transpose2d, (1, 2, 2, 3), (2, 1, 1, 2)), (F.conv_transpose3d, (1, 2, 2, 1, 3), (2, 1, 1, 1, 2))):
        x, w = _t(rng.standard_normal(xs), True), _t(rng.standard_normal(ws), True)
        assert dyngrad.autograd.gradcheck(lambda x, w, f=f: f(x, w, output_padding=1, dilation=2), (x, w))


def test_vmap_of_conv3d_equals_a_loop():
    rng = np.random.default_rng(4)
    xs = _t(rng.standard_normal((3, 1, 2, 3, 4, 3)))
    w = _t(rng.standard_normal((2, 2, 2, 2, 2)))
    out = dyngrad.func.vmap(lambda x: F.conv3d(x, w, padding=1))(xs)
    for k in range(3):
        np.testing.assert_allclose(out[k].numpy(), F.conv3d(xs[k], w, padding=1).numpy(), rtol=1e-13)


def test_max_pool3d_indices_point_at_the_maxima():
    rng = np.random.default_rng(5)
    x = _t(rng.standard_normal((2, 3, 5, 4, 6)))
    out, idx = F.max_pool3d(x, (2, 3, 2), stride=(2, 1, 2), padding=(1, 1, 0), return_indices=True)
    flat = x.numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.numpy().reshape(2, 3, -1), 2).reshape(out.shape),
                                  out.numpy())
    y = F.max_pool3d(_t(x.numpy(), True), 2)
    assert y.grad_fn.name() == "MaxPool3DWithIndicesBackward0"


@pytest.mark.parametrize("mode,pad,align,nd", [("bilinear", "zeros", False, 2), ("bicubic", "reflection", True, 2),
                                              ("bicubic", "border", False, 2), ("nearest", "border", True, 2),
                                              ("bilinear", "reflection", False, 3), ("nearest", "zeros", True, 3)])
def test_grid_sample_fused_backward_equals_its_differentiable_form(mode, pad, align, nd):
    # the first-order backward is fused NumPy; under create_graph=True it is built from
    # differentiable ops: both must give the same gradients
    rng = np.random.default_rng(6)
    x = _t(rng.standard_normal((2, 3, 4, 5) if nd == 2 else (2, 3, 3, 4, 5)), True)
    g = _t(rng.uniform(-1.3, 1.3, (2, 3, 2, 2) if nd == 2 else (2, 2, 3, 2, 3)), True)
    out = F.grid_sample(x, g, mode, pad, align)
    cot = _t(rng.standard_normal(tuple(out.shape)))
    a = dyngrad.autograd.grad(out, (x, g), cot, retain_graph=True)
    b = dyngrad.autograd.grad(out, (x, g), cot, create_graph=True)
    for u, v in zip(a, b):
        np.testing.assert_allclose(u.numpy(), v.detach().numpy(), rtol=1e-12, atol=1e-14)
    assert b[1].grad_fn is not None or mode == "nearest"


def test_grid_sample_with_the_identity_grid_returns_the_input():
    rng = np.random.default_rng(7)
    x = _t(rng.standard_normal((2, 3, 4, 5)))
    theta = _t(np.tile(np.eye(2, 3), (2, 1, 1)))
    for align in (False, True):
        for mode in ("bilinear", "nearest", "bicubic"):
            out = F.grid_sample(x, F.affine_grid(theta, (2, 3, 4, 5), align), mode, "zeros", align)
            np.testing.assert_allclose(out.numpy(), x.numpy(), rtol=1e-12, atol=1e-12, err_msg=f"{mode} {align}")


def test_affine_grid_maps_the_corners_as_documented():
    theta = _t([[[2.0, 0.0, 0.5], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(theta, (1, 1, 2, 3), align_corners=True).numpy()
    assert grid.shape == (1, 2, 3, 2)
    np.testing.assert_allclose(grid[0, 0, 0], [-1.5, -1.0])  # x = 2 * -1 + 0.5, y = -1
    np.testing.assert_allclose(grid[0, 1, 2], [2.5, 1.0])
    g3 = F.affine_grid(_t(np.eye(3, 4)[None]), (1, 1, 2, 3, 4), align_corners=False).numpy()
    np.testing.assert_allclose(g3[0, 0, 0, 0], [-0.75, -2 / 3, -0.5])  # pixel centres (x, y, z)


def test_grid_sample_and_affine_grid_warn_when_align_corners_is_not_given():
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(dyngrad.ones(1, 1, 2, 2), dyngrad.zeros(1, 1, 1, 2))
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(dyngrad.ones(1, 2, 3), (1, 1, 2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.grid_sample(dyngrad.ones(1, 1, 2, 2), dyngrad.zeros(1, 1, 1, 2), align_corners=False)


def test_vmap_of_grid_sample_equals_a_loop():
    rng = np.random.default_rng(8)
    xs = _t(rng.standard_normal((3, 1, 2, 4, 4)))
    gs = _t(rng.uniform(-1, 1, (3, 1, 2, 3, 2)))
    out = dyngrad.func.vmap(lambda x, g: F.grid_sample(x, g, align_corners=True))(xs, gs)
    for k in range(3):
        np.testing.assert_allclose(out[k].numpy(), F.grid_sample(xs[k], gs[k], align_corners=True).numpy(), rtol=1e-13)


def test_conv3d_misuse_raises_pytorch_errors():
    with pytest.raises(RuntimeError, match=r"expected input\[1, 1, 2, 3, 3\] to have 2 channels, but got 1 channels"):
        F.conv3d(dyngrad.ones(1, 2, 3, 3), dyngrad.ones(1, 2, 1, 1, 1))
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a list of 3 values"):
        F.conv3d(dyngrad.ones(1, 2, 3, 3, 3), dyngrad.ones(1, 2, 1, 1, 1), stride=(1, 2))
    with pytest.raises(RuntimeError, match=r"Kernel size: \(4 x 1 x 1\). Kernel size can't be greater"):
        F.conv3d(dyngrad.ones(1, 2, 3, 3, 3), dyngrad.ones(1, 2, 4, 1, 1))
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        F.conv3d(dyngrad.ones(1, 2, 3, 3, 3), dyngrad.ones(1, 2, 1, 1, 1), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="output_padding_depth: 1 output_padding_height: 1"):
        F.conv_transpose3d(dyngrad.ones(1, 2, 3, 3, 3), dyngrad.ones(2, 1, 1, 1, 1), output_padding=1)
    with pytest.raises(RuntimeError, match=r"Given transposed=1, weight of size \[2, 1, 1, 1, 1\]"):
        F.conv_transpose3d(dyngrad.ones(1, 3, 3, 3, 3), dyngrad.ones(2, 1, 1, 1, 1))
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose3d'):
        nn.ConvTranspose3d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="requested an output size of"):
        nn.ConvTranspose3d(2, 3, 3, stride=2)(dyngrad.ones(1, 2, 3, 3, 3), output_size=(20, 7, 7))
    with pytest.raises(RuntimeError, match="non-empty 4D or 5D"):
        F.max_pool3d(dyngrad.ones(2, 3, 3), 2)
    with pytest.raises(RuntimeError, match="non-empty 4D or 5D"):
        F.avg_pool3d(dyngrad.ones(2, 3, 3), 2)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool3d(dyngrad.ones(1, 2, 3, 3, 3), 2, padding=2)
    with pytest.raises(RuntimeError, match=r"adaptive_avg_pool3d\(\): Expected 4D or 5D tensor"):
        F.adaptive_avg_pool3d(dyngrad.ones(2, 3, 3), 2)


def test_grid_sample_and_affine_grid_misuse_raise_pytorch_errors():
    x4, g4 = dyngrad.ones(1, 2, 3, 3), dyngrad.zeros(1, 2, 2, 2)
    with pytest.raises(RuntimeError, match="expected grid to have size 2 in last dimension"):
        F.grid_sample(x4, dyngrad.zeros(1, 2, 2, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="expected grid and input to have same batch size"):
        F.grid_sample(x4, dyngrad.zeros(2, 2, 2, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(dyngrad.ones(1, 2, 3, 3, 3), dyngrad.zeros(1, 2, 2, 2, 3), mode="bicubic", align_corners=False)
    with pytest.raises(RuntimeError, match="expected 4D input and grid with same number of dimensions"):
        F.grid_sample(x4, dyngrad.zeros(1, 2, 2, 2, 2), align_corners=False)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'"):
        F.grid_sample(x4, g4, mode="foo")
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x4, g4, padding_mode="foo")
    with pytest.raises(RuntimeError, match="same dtype"):
        F.grid_sample(x4, g4.double(), align_corners=False)
    with pytest.raises(ValueError, match="Expected a batch of 3D affine matrices of shape Nx3x4"):
        F.affine_grid(dyngrad.ones(1, 2, 3), (1, 1, 3, 3, 3), align_corners=False)
    with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices of shape Nx2x3"):
        F.affine_grid(dyngrad.ones(1, 3, 3), (1, 1, 3, 3), align_corners=False)
    with pytest.raises(NotImplementedError, match="affine_grid only supports 4D and 5D sizes"):
        F.affine_grid(dyngrad.ones(1, 2, 3), (1, 1, 3), align_corners=False)
    with pytest.raises(ValueError, match="Expected theta to have floating point type"):
        F.affine_grid(dyngrad.ones(1, 2, 3, dtype=dyngrad.int64), (1, 1, 3, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="Expected size for first two dimensions of batch2 tensor"):
        F.affine_grid(dyngrad.ones(1, 2, 3), (2, 1, 3, 3), align_corners=False)


@pytest.mark.parametrize("modname", ["dyngrad.nn._functional_grid", "dyngrad.nn._functional_conv",
                                     "dyngrad.nn._functional_conv_transpose"])
def test_docstring_examples_run(modname):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
