"""Convolution and pooling kernels of ops/conv.py: values against a direct loop reference
over random geometry (stride, padding, dilation, groups), the adjoint identities that
make backward exact, derivatives of every order, pooling and constant padding."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
import dyngrad.nn.functional as F
from dyngrad.autograd import grad, gradcheck, gradgradcheck
from dyngrad.ops import conv


def conv_ref(x, w, stride, pad, dil, groups):
    """Direct loops: out[n,o,i,j] = sum x_pad[n, g*cg + c, i*s + a*d, j*s + b*d] w[o,c,a,b]."""
    pt, pb, pl, pr = pad
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    n, cin, hp, wp = xp.shape
    o, cg, kh, kw = w.shape
    ho = (hp - dil[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (wp - dil[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, ho, wo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(ho):
            for j in range(wo):
                for a in range(kh):
                    for b in range(kw):
                        patch = xp[
                            :, g * cg : (g + 1) * cg, i * stride[0] + a * dil[0], j * stride[1] + b * dil[1]
                        ]
                        out[:, oc, i, j] += patch @ w[oc, :, a, b]
    return out


@st.composite
def geometry(draw):
    groups = draw(st.sampled_from([1, 2]))
    cg = draw(st.integers(1, 2))
    og = draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pad = tuple(draw(st.integers(0, 2)) for _ in range(4))
    h = draw(st.integers(dil[0] * (kh - 1) + 1, 6))
    w = draw(st.integers(dil[1] * (kw - 1) + 1, 6))
    n = draw(st.integers(1, 2))
    return (n, groups * cg, h, w), (groups * og, cg, kh, kw), stride, pad, dil, groups


# the kernels choose a layout per case (ops/conv.py); these force each choice
LAYOUTS = {
    "auto": {},
    "wide_batched": {"_WIDE_MAX_WASTE": float("inf"), "_BATCHED_MIN_P": 0},
    "strided_per_group": {"_WIDE_MAX_WASTE": 0.0, "_BATCHED_MIN_P": 10**9},
    # the transposed convolution one image per chunk (its L2-sized chunks, forced small)
    "chunked": {"_CHUNK_BYTES": 1},
    # the weight gradient as one long product (and, below, per image) whatever the size
    "wgrad_one_product": {"_WGRAD_BATCHED_MAX_CK": -1},
    "wgrad_per_image": {"_WGRAD_BATCHED_MAX_CK": 10**9},
}


@contextlib.contextmanager
def forced(layout):
    saved = {name: getattr(conv, name) for name in LAYOUTS[layout]}
    try:
        for name, value in LAYOUTS[layout].items():
            setattr(conv, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(conv, name, value)


def conv_t_ref(y, w, stride, pad, dil, groups, in_hw):
    """The transposed convolution by direct loops (the adjoint of conv_ref, entry by entry)."""
    pt, pb, pl, pr = pad
    n, o, ho, wo = y.shape
    _, cg, kh, kw = w.shape
    xp = np.zeros((n, cg * groups, in_hw[0] + pt + pb, in_hw[1] + pl + pr))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(ho):
            for j in range(wo):
                for a in range(kh):
                    for b in range(kw):
                        r, c = i * stride[0] + a * dil[0], j * stride[1] + b * dil[1]
                        xp[:, g * cg : (g + 1) * cg, r, c] += y[:, oc, i, j][:, None] * w[oc, :, a, b]
    return xp[:, :, pt : pt + in_hw[0], pl : pl + in_hw[1]]


def conv_w_ref(x, y, ws, stride, pad, dil, groups):
    """The weight gradient by direct loops: gw[o, c, a, b] = sum y[n, o, i, j] x_pad[n, g*cg + c, i*s + a*d, j*s + b*d]."""
    pt, pb, pl, pr = pad
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    o, cg, kh, kw = ws
    og = o // groups
    gw = np.zeros(ws)
    for oc in range(o):
        g = oc // og
        for i in range(y.shape[2]):
            for j in range(y.shape[3]):
                for a in range(kh):
                    for b in range(kw):
                        patch = xp[:, g * cg : (g + 1) * cg, i * stride[0] + a * dil[0], j * stride[1] + b * dil[1]]
                        gw[oc, :, a, b] += y[:, oc, i, j] @ patch
    return gw


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@settings(max_examples=25, deadline=None)
@given(geom=geometry(), seed=st.integers(0, 2**31))
def test_conv_kernels_match_direct_loops_in_every_layout(layout, geom, seed) -> None:
    if seed % 2:  # half the cases stride 1 (where the wide layout applies)
        geom = geom[:2] + ((1, 1),) + geom[3:]
    xs, ws, stride, pad, dil, groups = geom
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    ref = conv_ref(x, w, stride, pad, dil, groups)
    g = conv._Geom(stride, pad, dil, groups)
    with forced(layout):
        _check_kernels(x, w, ref, g, geom, rng)


def _check_kernels(x, w, ref, g, geom, rng):
    xs, ws, stride, pad, dil, groups = geom
    out, cols = conv._conv_np_cols(x, w, g)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)
    assert out.flags.c_contiguous
    y = rng.standard_normal(ref.shape)
    gx = conv._conv_t_np(y, w, g, xs[2:])
    np.testing.assert_allclose(gx, conv_t_ref(y, w, stride, pad, dil, groups, xs[2:]), rtol=1e-10, atol=1e-12)
    assert gx.flags.c_contiguous and gx.shape == xs
    # the weight gradient, with the forward's im2col and without, equals the loop adjoint
    gw_ref = conv_w_ref(x, y, ws, stride, pad, dil, groups)
    np.testing.assert_allclose(conv._conv_w_np(x, y, g, ws[2:], cols), gw_ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(conv._conv_w_np(x, y, g, ws[2:]), gw_ref, rtol=1e-10, atol=1e-10)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31))
def test_conv_kernels_agree_across_layouts_in_1d_and_3d(seed) -> None:
    rng = np.random.default_rng(seed)
    nd = int(rng.choice([1, 3]))
    groups = int(rng.integers(1, 3))
    ks = tuple(int(k) for k in rng.integers(1, 4, nd))
    dil = tuple(int(d) for d in rng.integers(1, 3, nd))
    stride = (1,) * nd if seed % 2 else tuple(int(v) for v in rng.integers(1, 3, nd))
    pad = tuple(int(v) for v in rng.integers(0, 3, 2 * nd))
    size = tuple(int(d * (k - 1) + 1 + rng.integers(0, 4)) for k, d in zip(ks, dil))
    x = rng.standard_normal((2, 2 * groups) + size)
    w = rng.standard_normal((groups * int(rng.integers(1, 3)), 2) + ks)
    g = conv._Geom(stride, pad, dil, groups)
    results = {}
    for layout in sorted(LAYOUTS):
        with forced(layout):
            out, cols = conv._conv_np_cols(x, w, g)
            y = np.cos(out)
            results[layout] = (out, conv._conv_t_np(y, w, g, size), conv._conv_w_np(x, y, g, ks, cols))
    for layout in LAYOUTS:
        for a, b in zip(results[layout], results["auto"]):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    lhs = (results["auto"][0] * np.cos(results["auto"][0])).sum()  # <conv(x, w), y> = <x, conv_t(y, w)>
    np.testing.assert_allclose((x * results["auto"][1]).sum(), lhs, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose((w * results["auto"][2]).sum(), lhs, rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(geometry(), st.integers(0, 2**31))
def test_conv_matches_direct_loops_and_its_adjoints(geom, seed) -> None:
    xs, ws, stride, pad, dil, groups = geom
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    ref = conv_ref(x, w, stride, pad, dil, groups)
    g = conv._Geom(stride, pad, dil, groups)
    np.testing.assert_allclose(conv._conv_np(x, w, g), ref, rtol=1e-10, atol=1e-12)
    y = rng.standard_normal(ref.shape)
    lhs = (ref * y).sum()  # <conv(x, w), y> = <x, conv_t(y, w)> = <w, conv_w(x, y)>
    np.testing.assert_allclose((x * conv._conv_t_np(y, w, g, xs[2:])).sum(), lhs, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose((w * conv._conv_w_np(x, y, g, ws[2:])).sum(), lhs, rtol=1e-10, atol=1e-10)


def test_conv_is_differentiable_three_times() -> None:
    rng = np.random.default_rng(0)
    x = dyngrad.tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
    w = dyngrad.tensor(rng.standard_normal((2, 1, 2, 2)), requires_grad=True)

    def f(a, b):
        return (F.conv2d(a, b, stride=2, padding=1, groups=2) ** 2).sum()

    (gx,) = grad(f(x, w), (x,), create_graph=True)
    assert gradgradcheck(lambda a, b: grad(f(a, b), (a,), create_graph=True)[0], (x, w))
    assert gx.requires_grad


def test_conv_backward_grad_fn_names() -> None:
    x = dyngrad.randn(1, 1, 3, 3, requires_grad=True)
    w = dyngrad.randn(1, 1, 2, 2, requires_grad=True)
    y = F.conv2d(x, w)
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"


def test_conv_input_and_weight_dtype_mismatch_raises() -> None:
    with pytest.raises(RuntimeError, match="should be the same"):
        F.conv2d(dyngrad.randn(1, 1, 3, 3), dyngrad.randn(1, 1, 2, 2, dtype=dyngrad.float64))


def test_conv_rank_and_padding_errors() -> None:
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D"):
        F.conv2d(dyngrad.randn(1, 1, 1, 3, 3), dyngrad.randn(1, 1, 2, 2))
    with pytest.raises(RuntimeError, match="Invalid padding string"):  # PyTorch 2.13: RuntimeError
        F.conv2d(dyngrad.randn(1, 1, 3, 3), dyngrad.randn(1, 1, 2, 2), padding="full")
    with pytest.raises(RuntimeError, match="strided"):
        F.conv2d(dyngrad.randn(1, 1, 3, 3), dyngrad.randn(1, 1, 2, 2), stride=2, padding="same")


def pool_ref(x, k, s, p, fn, fill):
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    ho = (xp.shape[2] - k) // s + 1
    wo = (xp.shape[3] - k) // s + 1
    out = np.empty(x.shape[:2] + (ho, wo))
    for i in range(ho):
        for j in range(wo):
            out[:, :, i, j] = fn(xp[:, :, i * s : i * s + k, j * s : j * s + k], axis=(2, 3))
    return out


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 3), st.integers(1, 2), st.integers(0, 1), st.integers(0, 2**31))
def test_max_and_avg_pool_match_window_reference(k, s, p, seed) -> None:
    if 2 * p > k:
        p = 0
    x = np.random.default_rng(seed).standard_normal((2, 2, 5, 6))
    t = dyngrad.tensor(x)
    np.testing.assert_allclose(F.max_pool2d(t, k, s, p).numpy(), pool_ref(x, k, s, p, np.max, -np.inf))
    np.testing.assert_allclose(
        F.avg_pool2d(t, k, s, p).numpy(), pool_ref(x, k, s, p, np.mean, 0.0), rtol=1e-12, atol=1e-15
    )  # (atol: a mean near 0 summed in another order differs by an ulp of its terms)


def test_max_pool_gradient_goes_to_the_maximum_once_per_window() -> None:
    x = dyngrad.tensor([[[[1.0, 2.0, 0.0], [4.0, 3.0, 5.0], [0.0, 0.0, 0.0]]]], requires_grad=True)
    F.max_pool2d(x, 2, stride=1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[0, 0, 0], [2, 0, 2], [0, 0, 0]])


def test_take_flat_and_put_flat_are_adjoint_and_twice_differentiable() -> None:
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 12, size=(2, 3, 5))
    x = dyngrad.tensor(rng.standard_normal((2, 3, 3, 4)), requires_grad=True)
    g = dyngrad.tensor(rng.standard_normal((2, 3, 5)), requires_grad=True)
    lhs = (conv.TakeFlat.apply(x, idx) * g).sum().item()
    rhs = (x * conv.PutFlat.apply(g, idx, (2, 3, 3, 4))).sum().item()
    assert lhs == pytest.approx(rhs)
    assert gradgradcheck(lambda a: conv.TakeFlat.apply(a, idx) ** 2, (x,))
    assert gradcheck(lambda a: conv.PutFlat.apply(a, idx, (2, 3, 3, 4)), (g,))


def test_constant_pad_and_crop_with_gradient() -> None:
    x = dyngrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = conv.ConstantPad.apply(x, (1, -1, 0, 1), 9.0)
    np.testing.assert_array_equal(y.detach().numpy(), [[9, 0, 1], [9, 3, 4], [9, 9, 9]])
    assert gradgradcheck(lambda a: conv.ConstantPad.apply(a, (2, -1, -1, 1), 0.0) ** 2, (x.double(),))


def test_adaptive_avg_pool_uneven_bins_match_pytorch_rule() -> None:
    x = dyngrad.tensor(np.arange(5.0).reshape(1, 1, 1, 5))
    out = F.adaptive_avg_pool2d(x, (1, 3)).numpy()
    np.testing.assert_allclose(out[0, 0, 0], [0.5, 2.0, 3.5])  # bins [0,2), [1,4), [3,5)


def test_max_pool_propagates_nan_like_pytorch() -> None:
    x = dyngrad.tensor([[[[1.0, float("nan")], [3.0, 2.0]]]], requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    assert np.isnan(out.item()) and idx.item() == 1
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[0, 1], [0, 0]])


@pytest.mark.parametrize("dtype", [dyngrad.float32, dyngrad.int64])
def test_max_pool_window_of_minimum_values_indexes_inside_the_input_like_pytorch(dtype) -> None:
    # windows whose maximum equals the padding fill (-inf, or the integer minimum) point at
    # their first position inside the input, never into the padding (PyTorch 2.13's indices)
    low = float("-inf") if dtype == dyngrad.float32 else np.iinfo(np.int64).min
    x = np.full((1, 1, 3, 3), low, dtype=np.float32 if dtype == dyngrad.float32 else np.int64)
    x[0, 0, 1, 1] = 0
    out, idx = F.max_pool2d(dyngrad.tensor(x), 2, 1, padding=1, return_indices=True)
    assert idx.tolist() == [[[[0, 0, 1, 2], [0, 4, 4, 2], [3, 4, 4, 5], [6, 6, 7, 8]]]]
    if dtype == dyngrad.float32:
        xt = dyngrad.tensor(x, requires_grad=True)
        F.max_pool2d(xt, 2, 2, padding=1).sum().backward()  # non-overlapping: the scatter path
        np.testing.assert_array_equal(xt.grad.numpy()[0, 0], [[1, 1, 0], [1, 1, 0], [0, 0, 0]])


def test_put_flat_scatter_paths_agree() -> None:
    rng = np.random.default_rng(2)
    idx = np.stack([rng.permutation(12)[:5] for _ in range(6)]).reshape(2, 3, 5)  # unique per slice
    g = dyngrad.tensor(rng.standard_normal((2, 3, 5)))
    fast = conv.PutFlat.apply(g, idx, (2, 3, 3, 4), True).numpy()
    slow = conv.PutFlat.apply(g, idx, (2, 3, 3, 4), False).numpy()
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("chunk", [1, 3000, 1 << 20])
@pytest.mark.parametrize(
    "n, groups, stride, pad, dil",
    [
        (1, 1, (1, 1), (1, 1, 1, 1), (1, 1)),  # batch size 1
        (5, 1, (1, 1), (1, 1, 1, 1), (1, 1)),  # uneven last chunk
        (5, 2, (1, 1), (0, 2, 1, 0), (2, 1)),  # grouped, asymmetric padding, dilated
        (4, 6, (1, 1), (1, 1, 1, 1), (1, 1)),  # more than 4 groups: one chunk
        (5, 1, (2, 1), (1, 0, 0, 1), (1, 2)),  # strided: the col2im path in chunks
        (3, 2, (2, 2), (2, 2, 2, 2), (2, 2)),
    ],
)
def test_transposed_conv_in_chunks_matches_direct_loops(chunk, n, groups, stride, pad, dil, monkeypatch) -> None:
    monkeypatch.setattr(conv, "_CHUNK_BYTES", chunk)
    rng = np.random.default_rng(n * 100 + groups)
    cg, og = 2, 3
    x = rng.standard_normal((n, groups * cg, 7, 6))
    w = rng.standard_normal((groups * og, cg, 3, 2))
    g = conv._Geom(stride, pad, dil, groups)
    ref = conv_ref(x, w, stride, pad, dil, groups)
    # a non-contiguous y: the transpose of a contiguous array
    y = np.ascontiguousarray(rng.standard_normal(ref.shape).transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not y.flags.c_contiguous
    gx = conv._conv_t_np(y, w, g, x.shape[2:])
    np.testing.assert_allclose(gx, conv_t_ref(y, w, stride, pad, dil, groups, x.shape[2:]), rtol=1e-10, atol=1e-12)
    assert gx.flags.c_contiguous
    # exactness of the chunking: bitwise the same as one chunk for the whole batch
    monkeypatch.setattr(conv, "_CHUNK_BYTES", 1 << 40)
    np.testing.assert_array_equal(conv._conv_t_np(y, w, g, x.shape[2:]), gx)


def test_conv_gradients_exact_with_chunks_and_pooled_buffers(monkeypatch) -> None:
    monkeypatch.setattr(conv, "_CHUNK_BYTES", 1)
    rng = np.random.default_rng(3)
    x = dyngrad.tensor(rng.standard_normal((3, 4, 6, 5)), requires_grad=True)
    w = dyngrad.tensor(rng.standard_normal((6, 2, 3, 3)), requires_grad=True)
    assert gradcheck(lambda a, b: F.conv2d(a, b, padding=1, groups=2), (x, w))
    assert gradgradcheck(lambda a, b: F.conv2d(a, b, padding=1, groups=2), (x, w))
    w2 = dyngrad.tensor(rng.standard_normal((3, 4, 2, 2)), requires_grad=True)
    assert gradcheck(lambda a, b: F.conv2d(a, b, stride=2, dilation=(1, 2), padding=(2, 1)), (x, w2))
    assert gradcheck(lambda a, b: F.conv2d(a, b, padding=1), (x[:1], w2))  # batch size 1


def test_pooled_scratch_buffers_are_never_shared_while_in_use() -> None:
    from dyngrad.ops import _workspace as ws

    ws.clear()
    shape = (ws._MIN_BYTES // 8 + 16,)
    a = ws.empty(shape, np.float64)
    b = ws.empty(shape, np.float64)
    assert not np.shares_memory(a, b)
    a[...] = 1.0
    a_ptr = a.__array_interface__["data"][0]
    view = a[::2]  # a view keeps the buffer taken
    del a
    c = ws.empty(shape, np.float64)
    assert not np.shares_memory(c, view) and not np.shares_memory(c, b)
    z = ws.zeros(shape, np.float64)
    assert not z.any()
    del view, z
    d = ws.empty(shape, np.float64)  # a released buffer is handed out again (a's, the first free)
    assert d.__array_interface__["data"][0] == a_ptr
    assert not np.shares_memory(d, b) and not np.shares_memory(d, c)
    small = ws.empty((4,), np.float64)  # below _MIN_BYTES: plain NumPy, not pooled
    assert not any(np.shares_memory(small, buf) for bufs in ws._pool.values() for buf in bufs)
    assert ws._held[0] <= ws._MAX_BYTES
    ws.clear()
    assert ws._held[0] == 0 and not ws._pool


def test_conv_results_stay_valid_across_calls() -> None:
    # outputs and the saved im2col of one call are not overwritten by the next call
    rng = np.random.default_rng(4)
    x = rng.standard_normal((8, 16, 14, 14)).astype(np.float32)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    g = conv._Geom((1, 1), (1, 1, 1, 1), (1, 1), 1)
    out1, cols1 = conv._conv_np_cols(x, w, g)
    keep = out1.copy(), cols1.copy()
    y1 = conv._conv_t_np(out1, w, g, (14, 14))
    y1c = y1.copy()
    out2, cols2 = conv._conv_np_cols(x[::-1].copy(), w, g)
    y2 = conv._conv_t_np(out2, w, g, (14, 14))
    assert not np.shares_memory(cols1, cols2) and not np.shares_memory(y1, y2)
    np.testing.assert_array_equal(out1, keep[0])
    np.testing.assert_array_equal(cols1, keep[1])
    np.testing.assert_array_equal(y1, y1c)


def test_relu_gradient_passes_at_nan_like_pytorch() -> None:
    # PyTorch's threshold_backward: 0 where out <= 0, else the gradient (NaN is not <= 0)
    x = dyngrad.tensor([float("nan"), 2.0, -1.0, 0.0, -0.0], requires_grad=True)
    dyngrad.relu(x).backward(dyngrad.tensor([3.0, 4.0, 5.0, 6.0, 7.0]))
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0, 0.0, 0.0, 0.0])
    (gg,) = grad(dyngrad.relu(x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(gg.detach().numpy(), [1.0, 1.0, 0.0, 0.0, 0.0])
