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
