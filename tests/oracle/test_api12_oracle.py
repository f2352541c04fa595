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


EVERYDAY = {
    "cov": lambda m, a: m.cov(a),
    "cov_weights": lambda m, a: m.cov(a, correction=0, fweights=m.tensor([1, 2, 1, 1, 3]),
                                      aweights=m.tensor([0.5, 1.0, 2.0, 1.0, 1.0], dtype=m.float64)),
    "cov_1d": lambda m, a: m.cov(a[0]), "corrcoef": lambda m, a: m.corrcoef(a),
    "aminmax": lambda m, a: m.cat(list(m.aminmax(a, dim=1))), "aminmax_all": lambda m, a: m.stack(list(a.aminmax())),
    "dist": lambda m, a: m.dist(a, a.flip(0), p=3), "combinations": lambda m, a: m.combinations(a[0], 3),
    "combinations_repl": lambda m, a: m.combinations(a[0, :3], 2, with_replacement=True),
    "cartesian_prod": lambda m, a: m.cartesian_prod(a[0, :2], a[1, :3], a[2, :2]),
    "sinc": lambda m, a: m.sinc(m.cat([a.reshape(-1), m.zeros(1, dtype=m.float64)])),
    "deg2rad": lambda m, a: a.deg2rad(), "rad2deg": lambda m, a: m.rad2deg(a),
    "logaddexp2": lambda m, a: m.logaddexp2(a, a.flip(1)), "copysign": lambda m, a: m.copysign(a, a.flip(0)),
    "copysign_negative_zero": lambda m, a: m.copysign(a, -0.0), "rot90": lambda m, a: m.rot90(a),
    "rot90_k": lambda m, a: a.rot90(-3, [1, 0]), "rot90_2": lambda m, a: m.rot90(a, 2),
    "diagflat": lambda m, a: m.diagflat(a[:2, :2], 1),
    "tensor_split": lambda m, a: m.cat([t.reshape(-1) for t in m.tensor_split(a, 2, dim=1)]),
    "tensor_split_at": lambda m, a: m.cat([t.reshape(-1) for t in m.tensor_split(a, [1, 4], 1)]),
    "hsplit": lambda m, a: m.cat([t.reshape(-1) for t in m.hsplit(a, [2])]),
    "vsplit": lambda m, a: m.cat([t.reshape(-1) for t in m.vsplit(a, 3)]),
    "column_stack": lambda m, a: m.column_stack([a[0], a[1]]), "dstack": lambda m, a: m.dstack([a, a]),
    "row_stack": lambda m, a: m.row_stack([a[0], a[1]]), "vdot": lambda m, a: m.vdot(a[0], a[1]),
    "ravel": lambda m, a: m.ravel(a.mT),
}


@pytest.mark.parametrize("name", list(EVERYDAY))
def test_everyday_ops_values_dtypes_and_gradients_match_pytorch(name):
    x = np.random.default_rng(5).standard_normal((3, 5))
    outs = []
    for m in (torch, dg):
        a = m.tensor(x, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's deprecation of row_stack's alias, ...
            o = EVERYDAY[name](m, a)
        o.backward(m.arange(o.numel(), dtype=m.float64).reshape(o.shape) * 0.7)
        outs.append((o.detach().numpy(), a.grad.numpy(), str(o.dtype).split(".")[-1]))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-10, atol=1e-12)
    assert outs[1][2] == outs[0][2]


def test_everyday_ops_without_gradients_match_pytorch():
    for m in (torch, dg):
        assert m.tril_indices(3, 4, 1).tolist() == torch.tril_indices(3, 4, 1).tolist()
        assert m.triu_indices(4, 3, -1).tolist() == torch.triu_indices(4, 3, -1).tolist()
    for f in (lambda m: m.heaviside(m.tensor([-1.0, 0.0, 2.0]), m.tensor(0.5)),
              lambda m: m.signbit(m.tensor([-0.0, 0.0, -2.0])),
              lambda m: m.isin(m.tensor([1, 2, 3]), 2, invert=True),
              lambda m: m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([4, 1])),
              lambda m: m.cov(m.tensor([[1, 2], [3, 5]])), lambda m: m.sinc(m.tensor([1, 0])),
              lambda m: m.deg2rad(m.tensor([180])), lambda m: m.combinations(m.tensor([1, 2]), 3)):
        a, b = f(torch), f(dg)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1] and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6)
