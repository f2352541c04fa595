"""The standard-only kernels behind the linalg, decomp, indexing and convolution ops on Array
API arrays (issue 15): each is checked against the NumPy code it stands in for, on
array-api-strict arrays, with exact equality where the kernel claims NumPy's order of
operations (the scatters) and a float64 rounding tolerance elsewhere."""

from __future__ import annotations

import numpy as np
import pytest

from dyngrad import _backend as B

xp = pytest.importorskip("array_api_strict")


def _s(a: np.ndarray):  # noqa: ANN202
    return xp.asarray(a)


def _h(a) -> np.ndarray:  # noqa: ANN001
    out = B.to_host(a)
    assert type(a).__module__.split(".")[0] == "array_api_strict", type(a)
    return out


# ---- einsum
@pytest.mark.parametrize("eq, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ii->", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(2, 2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij->", [(2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (4, 3, 2)]),
    ("...ij->...", [(2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,kj->ik", [(1, 3), (4, 3)]),
    ("ij,ij->i", [(3, 1), (3, 4)]),
])
def test_the_standard_only_einsum_equals_numpys(eq: str, shapes: list) -> None:
    from dyngrad.ops.contraction import _einsum_xp, _parse

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    ins, out = _parse(eq, len(arrays))
    got = _h(_einsum_xp(ins, out, [_s(a) for a in arrays]))
    np.testing.assert_allclose(got, np.einsum(eq, *arrays), rtol=1e-12, atol=1e-12)


def test_the_standard_only_einsum_promotes_mixed_dtypes_as_numpy_and_refuses_bad_sizes() -> None:
    from dyngrad.ops.contraction import _einsum_xp, _parse

    a, b = np.arange(6).reshape(2, 3), np.ones((3, 2), dtype=np.float32)
    got = _einsum_xp(*_parse("ij,jk->ik", 2), [_s(a), _s(b)])
    assert B.np_dtype_of(got) == np.einsum("ij,jk->ik", a, b).dtype
    with pytest.raises(ValueError, match="sizes"):
        _einsum_xp(*_parse("ij,jk->ik", 2), [_s(np.ones((2, 3))), _s(np.ones((4, 2)))])


# ---- gathers and scatters at host positions
def test_gather_positions_is_numpys_advanced_indexing() -> None:
    from dyngrad.ops.indexing import gather_positions

    a = np.arange(60.0).reshape(3, 4, 5)
    for idx in [(np.array([0, 2]), slice(None), np.array([1, 1])), (slice(None), np.array([[0], [3]]), np.array([4, 0])),
                (1, slice(1, 3), np.array([0, 0, 4])), (np.array([2, 0, 2]),)]:
        np.testing.assert_array_equal(_h(gather_positions(_s(a), idx)), a[idx])


def test_scatter_positions_adds_in_numpys_order_and_keeps_untouched_zeros() -> None:
    from dyngrad.ops.indexing import flat_positions, scatter_positions

    rng = np.random.default_rng(1)
    g = rng.standard_normal((6,)) * 10.0 ** rng.integers(-8, 8, 6)  # rounding depends on the order
    g[2] = np.nan
    idx = (np.array([0, 1, 0, 3, 0, 1]),)
    want = np.zeros(5)
    np.add.at(want, idx, g)
    got = _h(scatter_positions(_s(g), (5,), flat_positions((5,), idx), True))
    np.testing.assert_array_equal(got, want)  # NaN only where it was added
    base = np.array([-0.0, 1.0, 2.0, 3.0, -0.0])
    got = _h(scatter_positions(_s(np.ones(2)), (5,), flat_positions((5,), (np.array([1, 1]),)), True, base=_s(base)))
    assert np.signbit(got[0]) and np.signbit(got[4]) and got[1] == 3.0
    # a position written once keeps NumPy's -0.0 while another takes a second round
    got = _h(scatter_positions(_s(np.array([-0.0, 1.0, 1.0])), (5,), flat_positions((5,), (np.array([0, 1, 1]),)),
                               True, base=_s(base)))
    want = base.copy()
    np.add.at(want, (np.array([0, 1, 1]),), np.array([-0.0, 1.0, 1.0]))
    assert np.signbit(want[0]) and np.signbit(got[0])
    np.testing.assert_array_equal(got, want)
    # assignment: the last write of a repeated position wins, as NumPy's
    want = base.copy()
    want[np.array([2, 2, 3])] = np.array([7.0, 8.0, 9.0])
    got = _h(scatter_positions(_s(np.array([7.0, 8.0, 9.0])), (5,), flat_positions((5,), (np.array([2, 2, 3]),)),
                               False, base=_s(base)))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op, ufunc", [("add", np.add), ("mul", np.multiply), ("max", np.maximum),
                                       ("min", np.minimum)])
def test_reduce_positions_is_the_ufunc_at_reduction(op: str, ufunc: np.ufunc) -> None:
    from dyngrad.ops.indexing import flat_positions, reduce_positions

    rng = np.random.default_rng(2)
    base = rng.standard_normal((3, 4))
    vals = rng.standard_normal((3, 6))
    vals[1, 2] = np.nan
    grid = (np.arange(3)[:, None], rng.integers(0, 4, (3, 6)))
    want = base.copy()
    ufunc.at(want, grid, vals)
    got = _h(reduce_positions(_s(base), _s(vals), flat_positions((3, 4), grid), op))
    np.testing.assert_array_equal(got, want)


def test_scatter_device_is_bincount_with_device_positions() -> None:
    from dyngrad.ops.indexing import scatter_device

    rng = np.random.default_rng(3)
    pos = rng.integers(0, 7, 40)
    vals = rng.standard_normal(40) * 10.0 ** rng.integers(-6, 6, 40)
    vals[5] = np.inf
    got = _h(scatter_device(_s(vals), _s(pos), 9))
    np.testing.assert_array_equal(got, np.bincount(pos, weights=vals, minlength=9))
    last = _h(scatter_device(_s(vals), _s(pos), 9, accumulate=False))
    want = np.zeros(9)
    want[pos] = vals  # NumPy: the last write wins
    np.testing.assert_array_equal(last, want)


# ---- convolution kernels
@pytest.mark.parametrize("nd, stride, pad, dil, groups", [
    (1, (2,), (1, 0), (1,), 1),
    (2, (1, 1), (0, 0, 0, 0), (1, 1), 1),
    (2, (2, 1), (1, 2, 0, 1), (1, 2), 2),
    (3, (1, 2, 1), (1, 1, 0, 0, 1, 0), (2, 1, 1), 1),
])
def test_the_standard_only_convolution_kernels_equal_the_numpy_kernels(nd: int, stride: tuple, pad: tuple, dil: tuple,
                                                                        groups: int) -> None:
    from dyngrad.ops import conv as C

    rng = np.random.default_rng(4)
    size = (7, 6, 5)[:nd]
    ks = (3, 2, 2)[:nd]
    x = rng.standard_normal((2, 4) + size)
    w = rng.standard_normal((6, 4 // groups) + ks)
    g = C._Geom(stride, pad, dil, groups)
    y = C._conv_np(x, w, g)
    np.testing.assert_allclose(_h(C._conv_xp(_s(x), _s(w), g)), y, rtol=1e-12, atol=1e-12)
    gy = rng.standard_normal(y.shape)
    np.testing.assert_allclose(_h(C._conv_t_xp(_s(gy), _s(w), g, size)), C._conv_t_np(gy, w, g, size),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_h(C._conv_w_xp(_s(x), _s(gy), g, ks)), C._conv_w_np(x, gy, g, ks),
                               rtol=1e-12, atol=1e-12)


def test_max_pool_indices_on_strict_equal_numpys_with_ties_nan_and_padding() -> None:
    from dyngrad.ops.conv import max_pool_indices

    rng = np.random.default_rng(5)
    x = np.round(rng.standard_normal((2, 3, 6, 5)), 1)  # ties
    x[0, 1, 2, 2] = np.nan
    x[1, 0] = -np.inf  # windows whose maximum is the padding's fill
    for args in [((2, 2), (2, 2), (0, 0, 0, 0), (1, 1)), ((3, 2), (1, 2), (1, 1, 1, 0), (1, 2))]:
        idx, best = max_pool_indices(x, *args)
        i2, b2 = max_pool_indices(_s(x), *args)
        np.testing.assert_array_equal(_h(i2), idx)
        np.testing.assert_array_equal(_h(b2), best)


# ---- decompositions
@pytest.mark.parametrize("shape, pivot", [((3, 3), True), ((2, 4, 3), True), ((3, 5), True), ((4, 4), False)])
def test_lu_on_strict_is_the_numpy_elimination(shape: tuple, pivot: bool) -> None:
    from dyngrad.ops.lu import lu_numpy, lu_xp

    a = np.random.default_rng(6).standard_normal(shape)
    for got, want in zip(lu_xp(_s(a), pivot), lu_numpy(a, pivot)):
        np.testing.assert_array_equal(_h(got), want)


def test_matrix_exp_on_strict_is_the_numpy_pade() -> None:
    from dyngrad.ops.matfuncs import _expm, _expm_xp

    a = np.random.default_rng(7).standard_normal((2, 4, 4)) * np.array([0.1, 30.0])[:, None, None]
    np.testing.assert_array_equal(_h(_expm_xp(_s(a))), _expm(a))


# ---- the helpers added to _backend
def test_backend_helpers_work_in_the_arrays_library() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(_h(B.diagonal(_s(a), 1, 0, 2)), np.diagonal(a, 1, 0, 2))
    np.testing.assert_array_equal(_h(B.eye(3, 4, 1, dtype=np.float32, like=_s(a))), np.eye(3, 4, 1, dtype=np.float32))
    assert B.eye(2, like=a).dtype == np.float64 and isinstance(B.eye(2, like=a), np.ndarray)
    np.testing.assert_array_equal(_h(B.arange(4, like=_s(a))), np.arange(4))
    assert B.all_true(_s(a) >= 0) and not B.all_true(_s(a) > 0)
    assert B.any_true(_s(a)) and not B.any_true(_s(np.zeros(3)))
    z = B.zeros_of((2,), _s(a).dtype)
    assert B.backend_name(z) == "array_api_strict" and _h(z).tolist() == [0.0, 0.0]
    assert isinstance(B.zeros_of((2,), np.dtype(np.float32)), np.ndarray)
    assert B.native(a) and not B.native(_s(a))


def test_index_put_assigns_on_strict_tensors() -> None:
    import dyngrad

    x = dyngrad.tensor(_s(np.zeros(4)))
    i = dyngrad.tensor(np.array([1, 1, 3]))
    v = dyngrad.tensor(_s(np.array([1.0, 2.0, 3.0])))
    out = dyngrad.index_put(x, (i,), v)
    assert B.backend_name(out._data) == "array_api_strict"
    assert _h(out._data).tolist() == [0.0, 2.0, 0.0, 3.0]  # the last write wins, as NumPy's


def test_every_combination_of_einsum_diagonal_and_broadcast_letters() -> None:
    from dyngrad.ops.contraction import _einsum_xp, _parse

    rng = np.random.default_rng(8)
    for eq in ["iji->j", "jii,i->j", "ij,j->", "ij,i->ij"]:
        shapes = {"iji->j": [(2, 3, 2)], "jii,i->j": [(3, 2, 2), (2,)], "ij,j->": [(2, 3), (3,)],
                  "ij,i->ij": [(2, 3), (2,)]}[eq]
        arrays = [rng.standard_normal(s) for s in shapes]
        got = _h(_einsum_xp(*_parse(eq, len(arrays)), [_s(a) for a in arrays]))
        np.testing.assert_allclose(got, np.einsum(eq, *arrays), rtol=1e-12, atol=1e-12)
