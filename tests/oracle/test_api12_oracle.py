"""Live comparison with PyTorch 2.13 for issue 12's leftovers: mode's tie and NaN rules,
nanquantile, index_reduce, the in-place variants, searchsorted with NaNs, quantile with
infinities, the negative-index errors. Skipped when torch is not installed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(1212)


def _same(a, b):
    np.testing.assert_array_equal(np.asarray(a.detach().numpy()), np.asarray(b.detach().numpy()))


def test_mode_values_and_indices_match_pytorch_on_ties_and_nans():
    for it in range(150):
        n = int(RNG.integers(1, 17))  # PyTorch's index is well defined up to 16 elements (insertion sort)
        x = RNG.integers(0, 4, (3, n)).astype(np.float64)
        if it % 3 == 0:
            x[RNG.random(x.shape) < 0.3] = np.nan
        a, b = torch.mode(torch.tensor(x), 1), dg.mode(dg.tensor(x), 1)
        np.testing.assert_array_equal(a.values.numpy(), b.values.numpy())
        np.testing.assert_array_equal(a.indices.numpy(), b.indices.numpy())


def test_mode_of_long_slices_gives_pytorchs_values():
    x = RNG.integers(0, 5, (5, 300)).astype(np.float64)
    np.testing.assert_array_equal(torch.mode(torch.tensor(x)).values.numpy(), dg.mode(dg.tensor(x)).values.numpy())


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_nanquantile_values_and_gradients_match_pytorch(interp):
    x = RNG.standard_normal((4, 7))
    x[RNG.random(x.shape) < 0.3] = np.nan
    x[1] = np.nan
    q = np.array([0.0, 0.2, 0.5, 0.9, 1.0])
    outs = []
    for m in (torch, dg):
        t = m.tensor(x, requires_grad=True)
        out = m.nanquantile(t, m.tensor(q), dim=1, interpolation=interp)
        out.nansum().backward()
        outs.append((out.detach().numpy(), t.grad.numpy()))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_values_and_gradients_match_pytorch(reduce, include_self):
    x = RNG.standard_normal((4, 3))
    s = RNG.standard_normal((5, 3))
    i = np.array([0, 2, 0, 3, 2])
    outs = []
    for m in (torch, dg):
        a, b = m.tensor(x, requires_grad=True), m.tensor(s, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's "index_reduce() is in beta"
            out = a.index_reduce(0, m.tensor(i), b, reduce, include_self=include_self)
        out.backward(m.tensor(np.arange(12.0).reshape(4, 3)))
        outs.append([out.detach().numpy(), a.grad.numpy(), b.grad.numpy()])
    for got, want in zip(outs[1], outs[0]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


INPLACE = [
    ("addmm_", lambda m: (m.tensor(RNG_A[0]), m.tensor(RNG_A[1]))), ("addcmul_", lambda m: (m.tensor(RNG_A[2]),) * 2),
    ("lerp_", lambda m: (m.tensor(RNG_A[2]), 0.3)), ("cumsum_", lambda m: (1,)), ("tril_", lambda m: (-1,)),
    ("clamp_min_", lambda m: (0.1,)), ("fmod_", lambda m: (0.3,)), ("remainder_", lambda m: (-0.3,)),
    ("hypot_", lambda m: (m.tensor(RNG_A[2]),)), ("atan2_", lambda m: (m.tensor(RNG_A[2]),)),
    ("float_power_", lambda m: (2,)), ("ge_", lambda m: (0.0,)), ("logical_xor_", lambda m: (m.tensor(RNG_A[2]),)),
    ("index_fill_", lambda m: (1, m.tensor([0, 2]), -1.0)),
]
RNG_A = (RNG.standard_normal((2, 4)), RNG.standard_normal((4, 3)), RNG.standard_normal((2, 3)))


@pytest.mark.parametrize("name,args", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_variants_match_pytorch(name, args):
    base = RNG.standard_normal((2, 3))
    outs = []
    for m in (torch, dg):
        a = m.tensor(base, requires_grad=True)
        y = a * 1
        getattr(y, name)(*args(m))
        (y * m.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
        outs.append((y.detach().numpy(), a.grad.numpy(), y.requires_grad))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-12)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-12)
    assert outs[1][2] == outs[0][2]


def test_searchsorted_with_nans_matches_pytorch():
    for _ in range(100):
        m, k = int(RNG.integers(1, 9)), int(RNG.integers(1, 6))
        s = np.sort(RNG.standard_normal((2, m)), -1)
        s[RNG.random(s.shape) < 0.3] = np.nan
        v = RNG.standard_normal((2, k))
        v[RNG.random(v.shape) < 0.3] = np.nan
        for right in (False, True):
            _same(dg.searchsorted(dg.tensor(s), dg.tensor(v), right=right),
                  torch.searchsorted(torch.tensor(s), torch.tensor(v), right=right))
            _same(dg.searchsorted(dg.tensor(s[0]), dg.tensor(v), right=right),
                  torch.searchsorted(torch.tensor(s[0]), torch.tensor(v), right=right))


@pytest.mark.parametrize("interp", ["linear", "midpoint", "nearest"])
def test_quantile_with_infinities_matches_pytorch(interp):
    for _ in range(50):
        x = RNG.standard_normal((2, int(RNG.integers(1, 7))))
        r = RNG.random(x.shape)
        x[r < 0.2], x[r > 0.8] = np.inf, -np.inf
        q = np.concatenate([[0.0, 1.0], RNG.random(3)])
        a = torch.quantile(torch.tensor(x), torch.tensor(q), dim=1, interpolation=interp).numpy()
        b = dg.quantile(dg.tensor(x), dg.tensor(q), dim=1, interpolation=interp).numpy()
        np.testing.assert_allclose(b, a, rtol=1e-14, equal_nan=True)


@pytest.mark.parametrize("call", [
    lambda m: m.gather(m.zeros(3), 0, m.tensor([-1])), lambda m: m.zeros(3).scatter(0, m.tensor([-1]), 1.0),
    lambda m: m.zeros(3).scatter_add(0, m.tensor([-1]), m.ones(1)),
    lambda m: m.take_along_dim(m.zeros(3), m.tensor([-1])),
    lambda m: m.zeros(3).index_add(0, m.tensor([-1]), m.ones(1)),
    lambda m: m.zeros(3).index_copy(0, m.tensor([-1]), m.ones(1)),
])
def test_negative_indices_raise_the_same_error_type_as_pytorch(call):
    with pytest.raises(Exception) as want:
        call(torch)
    with pytest.raises(want.type):
        call(dg)


def test_take_along_dim_with_a_dim_wraps_negative_indices_as_pytorch():
    x, i = np.arange(6.0).reshape(2, 3), np.array([[-1], [0]])
    _same(dg.take_along_dim(dg.tensor(x), dg.tensor(i), 1), torch.take_along_dim(torch.tensor(x), torch.tensor(i), 1))


def test_size_slices_and_saved_parameters_match_pytorch(tmp_path):
    for m in (torch, dg):
        s = m.zeros(2, 3, 4).shape
        assert type(s[1:]) is m.Size and type((1,) + s) is m.Size
    p = torch.nn.Parameter(torch.ones(2))
    torch.save({"p": p}, tmp_path / "p.pt")
    loaded = dg.load(tmp_path / "p.pt")["p"]
    assert type(loaded) is dg.nn.Parameter and loaded.requires_grad


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_values_and_gradients_match_pytorch(largest):
    q = np.linalg.qr(RNG.standard_normal((12, 12)))[0]
    A = (q * np.arange(1.0, 13.0)) @ q.T
    W = RNG.standard_normal((12, 12))
    outs = []
    for m in (torch, dg):
        a = m.tensor(A, requires_grad=True)
        E, X = m.lobpcg(a, k=3, largest=largest)
        ((E * m.tensor([1.0, 2.0, 3.0], dtype=m.float64)).sum() + ((X @ X.mT) * m.tensor(W)).sum()).backward()
        outs.append((E.detach().numpy(), (X @ X.mT).detach().numpy(), a.grad.numpy()))
    for got, want in zip(outs[1], outs[0]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
