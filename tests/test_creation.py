"""Creation functions: dtypes, requires_grad, memory sharing, random generators."""

import numpy as np
import pytest

import dyngrad


def test_tensor_infers_pytorch_dtypes_and_copies():
    assert dyngrad.tensor([1.0, 2.0]).dtype == dyngrad.float32
    assert dyngrad.tensor([1, 2]).dtype == dyngrad.int64
    assert dyngrad.tensor([True]).dtype == dyngrad.bool
    assert dyngrad.tensor(3.0).shape == ()
    assert dyngrad.tensor(np.array([1.0])).dtype == dyngrad.float64  # NumPy's dtype kept
    assert dyngrad.tensor(np.array([1], dtype=np.int32)).dtype == dyngrad.int32
    arr = np.zeros(3)
    t = dyngrad.tensor(arr)
    arr[0] = 1
    assert t[0].item() == 0.0
    src = dyngrad.tensor([1.0, 2.0])
    cp = dyngrad.tensor(src)
    assert not np.shares_memory(cp._data, src._data)


def test_tensor_dtype_and_requires_grad_arguments():
    t = dyngrad.tensor([1, 2], dtype=dyngrad.float64, requires_grad=True)
    assert t.dtype == dyngrad.float64 and t.requires_grad and t.is_leaf
    assert dyngrad.tensor([1.5], dtype=dyngrad.int32).tolist() == [1]
    with pytest.raises(RuntimeError, match="floating point"):
        dyngrad.tensor([1, 2], requires_grad=True)
    with pytest.raises(TypeError):
        dyngrad.tensor(["a", "b"])
    with pytest.raises(RuntimeError, match="cuda"):
        dyngrad.tensor([1.0], device="cuda")
    assert dyngrad.tensor([1.0], device="cpu").device == "cpu"


def test_as_tensor_and_from_numpy_share_memory():
    arr = np.arange(3.0)
    a = dyngrad.as_tensor(arr)
    f = dyngrad.from_numpy(arr)
    arr[0] = 10
    assert a[0].item() == 10 and f[0].item() == 10
    f._data[1] = 20
    assert arr[1] == 20
    t = dyngrad.ones(2)
    assert dyngrad.as_tensor(t) is t
    assert dyngrad.as_tensor(t, dtype=dyngrad.float64).dtype == dyngrad.float64
    assert dyngrad.as_tensor([1, 2]).dtype == dyngrad.int64
    with pytest.raises(TypeError, match="expected np.ndarray"):
        dyngrad.from_numpy([1, 2])


@pytest.mark.parametrize("fn", [dyngrad.zeros, dyngrad.ones, dyngrad.empty, dyngrad.rand, dyngrad.randn])
def test_size_forms_dtype_and_requires_grad(fn):
    assert fn(2, 3).shape == (2, 3)
    assert fn((2, 3)).shape == (2, 3)
    assert fn([4]).shape == (4,)
    assert fn(2).dtype == dyngrad.float32
    assert fn(2, dtype=dyngrad.float64).dtype == dyngrad.float64
    t = fn(2, requires_grad=True)
    assert t.requires_grad and t.is_leaf


def test_negative_size_raises():
    with pytest.raises(RuntimeError, match="negative dimension"):
        dyngrad.zeros(2, -1)


def test_zeros_ones_full_values():
    assert dyngrad.zeros(2).tolist() == [0.0, 0.0]
    assert dyngrad.ones(2, dtype=dyngrad.int64).tolist() == [1, 1]
    f = dyngrad.full((2, 2), 3.5)
    assert f.tolist() == [[3.5, 3.5], [3.5, 3.5]] and f.dtype == dyngrad.float32
    assert dyngrad.full((2,), 3).dtype == dyngrad.int64
    assert dyngrad.full((2,), True).dtype == dyngrad.bool
    assert dyngrad.empty(2, 2).shape == (2, 2)


def test_arange_and_linspace_and_eye():
    assert dyngrad.arange(5).tolist() == [0, 1, 2, 3, 4] and dyngrad.arange(5).dtype == dyngrad.int64
    a = dyngrad.arange(0, 1, 0.25)
    assert a.dtype == dyngrad.float32 and a.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert dyngrad.arange(1, 4, dtype=dyngrad.float64).dtype == dyngrad.float64
    ls = dyngrad.linspace(-5, 5, 100, requires_grad=True)
    assert ls.shape == (100,) and ls.dtype == dyngrad.float32 and ls.requires_grad
    assert ls[0].item() == -5.0 and ls[-1].item() == 5.0
    e = dyngrad.eye(2, 3)
    assert e.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert dyngrad.eye(3).shape == (3, 3)


def test_like_functions_take_shape_and_dtype():
    base = dyngrad.ones(2, 3, dtype=dyngrad.float64)
    for fn in (dyngrad.zeros_like, dyngrad.ones_like, dyngrad.empty_like, dyngrad.rand_like, dyngrad.randn_like):
        t = fn(base)
        assert t.shape == (2, 3) and t.dtype == dyngrad.float64 and not t.requires_grad
        assert fn(base, dtype=dyngrad.float32).dtype == dyngrad.float32
        assert fn(base, requires_grad=True).requires_grad
    f = dyngrad.full_like(base, 7)
    assert f.tolist() == [[7.0] * 3] * 2 and f.dtype == dyngrad.float64
    assert dyngrad.zeros_like(base).tolist() == [[0.0] * 3] * 2


def test_rand_is_in_unit_interval_and_randint_in_range():
    r = dyngrad.rand(1000)
    assert 0.0 <= r.min().item() if hasattr(r, "min") else True
    assert np.all((r.numpy() >= 0) & (r.numpy() < 1))
    ri = dyngrad.randint(3, 7, (1000,))
    assert ri.dtype == dyngrad.int64 and set(np.unique(ri.numpy())) == {3, 4, 5, 6}
    assert dyngrad.randint(5, (3,)).shape == (3,)
    n = dyngrad.randn(10000)
    assert abs(n.numpy().mean()) < 0.05 and abs(n.numpy().std() - 1) < 0.05


def test_manual_seed_makes_random_numbers_reproducible():
    dyngrad.manual_seed(123)
    a = dyngrad.randn(5).numpy().copy()
    b = dyngrad.rand(3).numpy().copy()
    dyngrad.manual_seed(123)
    assert np.array_equal(a, dyngrad.randn(5).numpy())
    assert np.array_equal(b, dyngrad.rand(3).numpy())


def test_generators_are_independent_and_numpy_global_state_is_untouched():
    np.random.seed(0)
    expected = np.random.rand()
    np.random.seed(0)
    g1 = dyngrad.Generator().manual_seed(7)
    g2 = dyngrad.Generator().manual_seed(7)
    x = dyngrad.randn(4, generator=g1)
    dyngrad.randn(100)  # the default generator does not disturb g2
    y = dyngrad.randn(4, generator=g2)
    assert np.array_equal(x.numpy(), y.numpy())
    assert np.random.rand() == expected


def test_rng_state_roundtrip():
    state = dyngrad.get_rng_state()
    a = dyngrad.rand(3).numpy().copy()
    dyngrad.set_rng_state(state)
    assert np.array_equal(a, dyngrad.rand(3).numpy())


def test_random_floats_refuse_integer_dtypes():
    with pytest.raises(RuntimeError, match="rand: only floating dtypes"):
        dyngrad.rand(2, dtype=dyngrad.int64)
    with pytest.raises(RuntimeError, match="randn: only floating"):
        dyngrad.randn(2, dtype=dyngrad.bool)
    with pytest.raises(RuntimeError, match="rand_like"):
        dyngrad.rand_like(dyngrad.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="randn_like"):
        dyngrad.randn_like(dyngrad.ones(2), dtype=dyngrad.int32)
    assert dyngrad.rand_like(dyngrad.tensor([1, 2]), dtype=dyngrad.float64).dtype == dyngrad.float64


def test_full_like_converts_an_int_fill_value_as_torch():
    # torch 2.13: a negative int wraps into uint8, out of range raises (was NumPy's OverflowError)
    assert dyngrad.full_like(dyngrad.ones(2, dtype=dyngrad.uint8), -1).tolist() == [255, 255]
    with pytest.raises(RuntimeError, match="without overflow"):
        dyngrad.full_like(dyngrad.ones(2, dtype=dyngrad.int8), 300)
    assert dyngrad.full_like(dyngrad.ones(2, dtype=dyngrad.int64), 2.7).tolist() == [2, 2]
