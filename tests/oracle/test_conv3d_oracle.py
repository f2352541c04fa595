"""Live comparison with PyTorch (skipped without torch) of the 3-d convolutions, the 3-d
pooling layers, ``grid_sample`` and ``affine_grid``: hypothesis draws geometry and options;
values and gradients (of a random cotangent) agree in float64."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
import dyngrad.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.oracle


def _compare(fd, ft, arrays, seed, rtol=1e-9, atol=1e-11):
    """``fd(*dyngrad tensors)`` and ``ft(*torch tensors)`` agree, and so do the gradients of
    ``<out, cot>`` w.r.t. every input."""
    dd = [dyngrad.tensor(a, requires_grad=True) for a in arrays]
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        dout, tout = fd(*dd), ft(*tt)
    np.testing.assert_allclose(dout.detach().numpy(), tout.detach().numpy(), rtol=rtol, atol=atol)
    cot = np.random.default_rng(seed).standard_normal(tuple(tout.shape))
    gd = dyngrad.autograd.grad(dout, dd, dyngrad.tensor(cot), allow_unused=True)
    gt = torch.autograd.grad(tout, tt, torch.tensor(cot), allow_unused=True)
    for k, (a, b) in enumerate(zip(gd, gt)):
        if b is None:
            assert a is None or not np.any(a.numpy()), k
            continue
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=atol, err_msg=f"input {k}")


_GEOM = st.tuples(st.integers(1, 3), st.integers(1, 2), st.integers(0, 2), st.integers(1, 2))  # k, s, p, d


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.integers(1, 2), st.sampled_from([1, 2]), st.lists(_GEOM, min_size=3, max_size=3), st.booleans(),
       st.integers(0, 2**31))
def test_conv3d_matches_torch(n, groups, geom, bias, seed):
    rng = np.random.default_rng(seed)
    k, s, p, d = zip(*geom)
    size = [di * (ki - 1) + 1 + int(rng.integers(0, 3)) for ki, di in zip(k, d)]
    arrays = [rng.standard_normal((n, 2 * groups, *size)), rng.standard_normal((2 * groups, 2, *k))]
    if bias:
        arrays.append(rng.standard_normal(2 * groups))
    kw = dict(stride=s, padding=p, dilation=d, groups=groups)
    _compare(lambda *a: F.conv3d(*a, **kw), lambda *a: TF.conv3d(*a, **kw), arrays, seed)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.integers(1, 2), st.sampled_from([1, 2]), st.lists(_GEOM, min_size=3, max_size=3), st.booleans(),
       st.integers(0, 2**31))
def test_conv_transpose3d_matches_torch(n, groups, geom, bias, seed):
    rng = np.random.default_rng(seed)
    k, s, p, d = zip(*geom)
    op = tuple(int(rng.integers(0, max(si, di))) for si, di in zip(s, d))
    p = tuple(min(pi, (di * (ki - 1)) // 2) for pi, di, ki in zip(p, d, k))  # keep the output non-empty
    arrays = [rng.standard_normal((n, 2 * groups, 2, 3, 2)), rng.standard_normal((2 * groups, 2, *k))]
    if bias:
        arrays.append(rng.standard_normal(2 * groups))
    kw = dict(stride=s, padding=p, output_padding=op, groups=groups, dilation=d)
    _compare(lambda *a: F.conv_transpose3d(*a, **kw), lambda *a: TF.conv_transpose3d(*a, **kw), arrays, seed)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv3d_layer_padding_modes_match_torch(mode):
    rng = np.random.default_rng(3)
    tm = torch.nn.Conv3d(2, 3, (3, 2, 3), padding=(1, 1, 2), padding_mode=mode, stride=(1, 2, 1)).double()
    dm = dyngrad.nn.Conv3d(2, 3, (3, 2, 3), padding=(1, 1, 2), padding_mode=mode, stride=(1, 2, 1),
                           dtype=dyngrad.float64)
    dm.load_state_dict({k: dyngrad.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    _compare(dm, tm, [rng.standard_normal((2, 2, 4, 5, 4))], 3)


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(0, 1), st.integers(1, 2)),
                min_size=3, max_size=3), st.booleans(), st.integers(0, 2**31))
def test_max_pool3d_matches_torch(geom, ceil, seed):
    rng = np.random.default_rng(seed)
    k, s, p, d = zip(*geom)
    p = tuple(min(pi, ki // 2) for pi, ki in zip(p, k))
    x = rng.standard_normal((2, 2, 5, 5, 6))  # room for a dilated kernel of 3
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil)
    _compare(lambda x: F.max_pool3d(x, **kw), lambda x: TF.max_pool3d(x, **kw), [x], seed)
    di = F.max_pool3d(dyngrad.tensor(x), return_indices=True, **kw)[1]
    ti = TF.max_pool3d(torch.tensor(x), return_indices=True, **kw)[1]
    np.testing.assert_array_equal(di.numpy(), ti.numpy())


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(0, 1)), min_size=3, max_size=3),
       st.booleans(), st.booleans(), st.sampled_from([None, 5]), st.integers(0, 2**31))
def test_avg_pool3d_matches_torch(geom, ceil, count_pad, divisor, seed):
    rng = np.random.default_rng(seed)
    k, s, p = zip(*geom)
    p = tuple(min(pi, ki // 2) for pi, ki in zip(p, k))
    kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=count_pad,
              divisor_override=divisor)
    _compare(lambda x: F.avg_pool3d(x, **kw), lambda x: TF.avg_pool3d(x, **kw), [rng.standard_normal((2, 2, 5, 4, 6))],
             seed)


@pytest.mark.parametrize("out", [(2, 3, 1), 3, (None, 2, 5)])
def test_adaptive_avg_pool3d_matches_torch(out):
    x = np.random.default_rng(4).standard_normal((2, 3, 5, 4, 7))
    _compare(lambda x: F.adaptive_avg_pool3d(x, out), lambda x: TF.adaptive_avg_pool3d(x, out), [x], 4)
    _compare(lambda x: F.adaptive_avg_pool3d(x, out), lambda x: TF.adaptive_avg_pool3d(x, out), [x[0]], 4)


_GS_MATRIX = [(mode, pad, align, nd) for nd in (2, 3) for mode in (("bilinear", "nearest", "bicubic") if nd == 2
              else ("bilinear", "nearest")) for pad in ("zeros", "border", "reflection") for align in (False, True)]


@pytest.mark.parametrize("mode,pad,align,nd", _GS_MATRIX)
def test_grid_sample_matches_torch_for_every_mode_and_padding(mode, pad, align, nd):
    rng = np.random.default_rng(len(mode) + 7 * len(pad) + 3 * align + nd)
    x = rng.standard_normal((2, 3, 4, 5) if nd == 2 else (2, 3, 3, 4, 5))
    g = rng.uniform(-1.3, 1.3, (2, 3, 4, 2) if nd == 2 else (2, 2, 3, 4, 3))
    _compare(lambda x, g: F.grid_sample(x, g, mode, pad, align), lambda x, g: TF.grid_sample(x, g, mode, pad, align),
             [x, g], 0)


@pytest.mark.parametrize("nd,align", [(2, False), (2, True), (3, False), (3, True)])
def test_affine_grid_into_grid_sample_matches_torch(nd, align):
    rng = np.random.default_rng(nd + align)
    theta = np.concatenate([np.eye(nd), np.zeros((nd, 1))], 1)[None] + 0.3 * rng.standard_normal((2, nd, nd + 1))
    size = (2, 3, 4, 5) if nd == 2 else (2, 3, 3, 4, 5)
    x = rng.standard_normal(size)
    _compare(lambda x, t: F.grid_sample(x, F.affine_grid(t, size, align), "bilinear", "border", align),
             lambda x, t: TF.grid_sample(x, TF.affine_grid(t, size, align), "bilinear", "border", align), [x, theta], 1)


@pytest.mark.slow
@pytest.mark.parametrize("mode,pad,align,nd", _GS_MATRIX)
def test_grid_sample_double_backward_matches_torch_and_passes_gradgradcheck(mode, pad, align, nd):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1, 2, 3, 4) if nd == 2 else (1, 2, 2, 3, 3))
    g = rng.uniform(-1.2, 1.2, (1, 2, 2, 2) if nd == 2 else (1, 1, 2, 2, 3))
    res = []
    for lib, fn in ((dyngrad, F), (torch, TF)):
        xs, gs = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
        out = fn.grid_sample(xs, gs, mode, pad, align)
        cot = lib.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), requires_grad=True)
        gx, gg = lib.autograd.grad(out, (xs, gs), cot, create_graph=True)
        v = (gx * gx).sum() + (gg * lib.tensor(np.ones(g.shape))).sum() * (gx.sum() if mode != "nearest" else 1)
        res.append([a.detach().numpy() for a in lib.autograd.grad(v, (xs, gs, cot), allow_unused=True)
                    if a is not None])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
    xs, gs = dyngrad.tensor(x, requires_grad=True), dyngrad.tensor(g, requires_grad=True)
    f = lambda x, g: F.grid_sample(x, g, mode, pad, align)  # noqa: E731
    assert dyngrad.autograd.gradcheck(f, (xs, gs), check_forward_ad=True)
    assert dyngrad.autograd.gradgradcheck(f, (xs, gs))


@pytest.mark.parametrize("name", ["Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d"])
def test_3d_layer_constructors_take_pytorchs_arguments(name):
    import inspect

    ours = inspect.signature(getattr(dyngrad.nn, name).__init__).parameters
    theirs = inspect.signature(getattr(torch.nn, name).__init__).parameters
    # (dyngrad's shared _ConvNd constructor takes one more keyword, output_padding, last)
    assert list(ours)[:len(theirs)] == list(theirs)
    for k, p in theirs.items():
        assert ours[k].default == p.default, k


@pytest.mark.parametrize("fname", ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
                                   "grid_sample", "affine_grid"])
def test_3d_functionals_take_pytorchs_arguments(fname):
    import inspect

    ours = list(inspect.signature(getattr(F, fname)).parameters)
    try:
        theirs = list(inspect.signature(getattr(TF, fname)).parameters)
    except ValueError:  # a builtin without a signature
        pytest.skip(f"torch.nn.functional.{fname} has no Python signature")
    if theirs == ["args", "kwargs"]:  # boolean_dispatch (return_indices): the wrapped function's
        theirs = list(inspect.signature(getattr(TF, f"_{fname}")).parameters)
    assert ours == theirs


def test_conv3d_loads_a_pytorch_state_dict_and_gives_its_outputs():
    tm = torch.nn.Sequential(torch.nn.Conv3d(2, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool3d(2),
                             torch.nn.ConvTranspose3d(4, 2, 2, stride=2), torch.nn.AdaptiveAvgPool3d(1)).double()
    f64 = dyngrad.float64
    dm = dyngrad.nn.Sequential(dyngrad.nn.Conv3d(2, 4, 3, padding=1, dtype=f64), dyngrad.nn.ReLU(),
                               dyngrad.nn.MaxPool3d(2), dyngrad.nn.ConvTranspose3d(4, 2, 2, stride=2, dtype=f64),
                               dyngrad.nn.AdaptiveAvgPool3d(1))
    dm.load_state_dict({k: dyngrad.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 2, 4, 4, 6))
    np.testing.assert_allclose(dm(dyngrad.tensor(x)).detach().numpy(), tm(torch.tensor(x)).detach().numpy(), rtol=1e-10)


@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_of_non_finite_grid_points_matches_torch(align):
    # NaN and +-inf coordinates: PyTorch clips NaN to 0 under border/reflection padding
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    g = np.array([[[[np.nan, 0.2], [0.3, np.inf]], [[-np.inf, 0.5], [0.1, -0.2]]]])
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            a = F.grid_sample(dyngrad.tensor(x), dyngrad.tensor(g), mode, pad, align).numpy()
            b = TF.grid_sample(torch.tensor(x), torch.tensor(g), mode, pad, align).numpy()
            np.testing.assert_allclose(a, b, equal_nan=True, err_msg=f"{mode} {pad}")
