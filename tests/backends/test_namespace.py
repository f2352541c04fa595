"""The backend seam (dyngrad/_backend.py): namespace() and its NumPy fast path, mixing
backends, the table of functions outside the standard (each entry against SciPy/NumPy on
NumPy and on Dask), and creation keeping arrays in their library."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import dyngrad
from dyngrad import _backend as B

xp = pytest.importorskip("array_api_strict")


def test_numpy_arrays_and_scalars_give_numpy_itself() -> None:
    assert B.namespace(np.ones(2), np.zeros((2, 2))) is np
    assert B.namespace(np.ones(2), 1.0, None, np.float64(2)) is np
    assert B.namespace() is np


def test_the_numpy_fast_path_never_reaches_array_api_compat(monkeypatch: pytest.MonkeyPatch) -> None:
    import array_api_compat

    def boom(*a: object) -> None:
        raise AssertionError("array_namespace called on NumPy arrays")

    monkeypatch.setattr(array_api_compat, "array_namespace", boom)
    assert B.namespace(np.ones(3), np.ones(3)) is np


def test_an_array_api_array_gives_its_library() -> None:
    assert B.namespace(xp.ones(2)).__name__ == "array_api_strict"
    assert B.backend_name(xp.ones(2)) == "array_api_strict"
    assert B.namespace(xp.ones(2), 2.0, np.float64(1), np.array(3.0)).__name__ == "array_api_strict"


def test_mixing_backends_is_a_type_error_naming_both() -> None:
    with pytest.raises(TypeError, match="array_api_strict and numpy"):
        B.namespace(xp.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="add.*array_api_strict and numpy"):
        B.check_same_backend("add", np.ones(2), xp.ones(2))
    B.check_same_backend("add", np.ones(2), np.ones(2))  # NumPy: nothing


def test_mixing_backends_in_an_op_names_both() -> None:
    a = dyngrad.tensor(xp.asarray([1.0, 2.0]))
    b = dyngrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="array_api_strict and numpy"):
        a + b
    with pytest.raises(TypeError, match="array_api_strict and numpy"):
        dyngrad.mul(b, a)


def test_an_array_api_tensor_keeps_its_array_and_dtype() -> None:
    t = dyngrad.tensor(xp.asarray([1.0, 2.0], dtype=xp.float32))
    assert B.backend_name(t._data) == "array_api_strict"
    assert t.dtype == dyngrad.float32 and t.shape == (2,)
    assert t.tolist() == [1.0, 2.0] and t.numpy().dtype == np.float32
    i = dyngrad.tensor(xp.asarray([1, 2], dtype=xp.uint16))  # other integers become int64, as for NumPy
    assert i.dtype == dyngrad.int64 and B.backend_name(i._data) == "array_api_strict"


def test_to_host_and_creation_helpers_follow_the_library() -> None:
    a = xp.asarray([1.0, 2.0])
    assert B.backend_name(B.zeros_like(a)) == "array_api_strict"
    assert B.backend_name(B.ones_like(a)) == "array_api_strict"
    assert B.backend_name(B.full_like(a, 3.0)) == "array_api_strict"
    np.testing.assert_array_equal(B.to_host(B.full_like(a, 3.0)), [3.0, 3.0])
    assert B.zeros((2,), np.float64, like=np.ones(1)).shape == (2,)


# ------------------------------------------------------------------ the nonstandard table
_SPECIAL_ARGS = {"erfinv": (-0.9, 0.9), "ndtri": (0.05, 0.95), "log_ndtr": (-3, 3)}


@pytest.mark.parametrize("name", [n for n in B.NONSTANDARD if n in B._SPECIAL])
def test_each_special_function_entry_equals_scipy_on_numpy_and_dask(name: str) -> None:
    lo, hi = _SPECIAL_ARGS.get(name, (0.1, 3.0))
    x = np.linspace(lo, hi, 7)
    want = getattr(scipy.special, name)(x)
    np.testing.assert_allclose(B.nonstandard(name, x)(x), want, rtol=1e-14)
    da = pytest.importorskip("dask.array")
    dx = da.from_array(x, chunks=3)
    got = B.nonstandard(name, dx)(dx)
    assert B.is_dask(got)
    np.testing.assert_allclose(got.compute(), want, rtol=1e-14)


def test_the_sliding_window_entry_on_numpy_and_dask() -> None:
    x = np.arange(10.0).reshape(2, 5)
    want = np.lib.stride_tricks.sliding_window_view(x, 3, axis=1)
    np.testing.assert_array_equal(B.nonstandard("sliding_window_view", x)(x, 3, 1), want)
    da = pytest.importorskip("dask.array")
    dx = da.from_array(x, chunks=(1, 5))
    got = B.nonstandard("sliding_window_view", dx)(dx, 3, 1)
    assert B.is_dask(got)
    np.testing.assert_array_equal(got.compute(), want)


def test_the_solve_triangular_entry_on_numpy_and_dask() -> None:
    import scipy.linalg

    rng = np.random.default_rng(0)
    a = np.tril(rng.standard_normal((4, 4))) + 4 * np.eye(4)
    b = rng.standard_normal((4, 2))
    want = scipy.linalg.solve_triangular(a, b, lower=True)
    np.testing.assert_allclose(B.nonstandard("solve_triangular", a, b)(a, b, lower=True), want, rtol=1e-12)
    da = pytest.importorskip("dask.array")
    got = B.nonstandard("solve_triangular", da.from_array(a), da.from_array(b))(
        da.from_array(a, chunks=2), da.from_array(b, chunks=2), lower=True)
    assert B.is_dask(got)
    np.testing.assert_allclose(got.compute(), want, rtol=1e-12)


@pytest.mark.parametrize("name", [n for n in B.NONSTANDARD if "fft" in n])
def test_each_fft_entry_on_numpy_dask_and_the_standards_extension(name: str) -> None:
    x = np.random.default_rng(1).standard_normal((3, 8))
    want = getattr(np.fft, name)(x)
    np.testing.assert_allclose(B.nonstandard(name, x)(x), want, rtol=1e-12, atol=1e-12)
    xs = x if name.startswith("rfft") else x + 0j  # the standard's fft wants complex input there
    got = B.nonstandard(name, xp.asarray(xs))(xp.asarray(xs))
    assert B.backend_name(got) == "array_api_strict"
    np.testing.assert_allclose(B.to_host(got), getattr(np.fft, name)(xs), rtol=1e-12, atol=1e-12)
    da = pytest.importorskip("dask.array")
    dx = da.from_array(x, chunks=(1, 8))  # Dask's FFT wants the transformed axes in one chunk
    got = B.nonstandard(name, dx)(dx) if name in ("fft", "ifft", "rfft", "irfft") else \
        B.nonstandard(name, dx)(dx, axes=(1,))
    want = want if name in ("fft", "ifft", "rfft", "irfft") else getattr(np.fft, name)(x, axes=(1,))
    assert B.is_dask(got)
    np.testing.assert_allclose(got.compute(), want, rtol=1e-12, atol=1e-12)


def test_a_function_a_backend_lacks_is_a_type_error_naming_both() -> None:
    with pytest.raises(TypeError, match="erf is not available for array_api_strict"):
        B.nonstandard("erf", xp.ones(2))
    with pytest.raises(KeyError):
        B.nonstandard("no_such_function", np.ones(2))


def test_every_table_entry_has_numpy_cupy_and_dask_versions() -> None:
    for name, entry in B.NONSTANDARD.items():
        assert {"numpy", "cupy", "dask"} <= set(entry), name
