"""NumPy functions on Tensors (dyngrad/_tensor/numpy_function.py, numpy_arrays.py,
numpy_linalg.py): each covered call gives NumPy's values, shapes and dtypes on the arrays
and passes gradcheck through the NumPy call; uncovered functions refuse traced inputs."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad._tensor.numpy_function import FUNCTIONS

rng = np.random.default_rng(0)
M = rng.standard_normal((3, 4))
S = rng.standard_normal((3, 3))
SPD = S @ S.T + 3 * np.eye(3)
V = rng.standard_normal(4)
B3 = rng.standard_normal((2, 3, 4))

# (id, function of arrays, the arrays to differentiate, differentiable?)
CASES = [
    ("sum", lambda a: np.sum(a), [M], True),
    ("sum axis keepdims", lambda a: np.sum(a, axis=1, keepdims=True), [M], True),
    ("sum tuple axis", lambda a: np.sum(a, axis=(0, 2)), [B3], True),
    ("prod axis", lambda a: np.prod(a, axis=0), [M], True),
    ("max", lambda a: np.max(a, axis=1), [M], True),
    ("amin", lambda a: np.amin(a), [M], True),
    ("mean", lambda a: np.mean(a, axis=0), [M], True),
    ("std ddof=0", lambda a: np.std(a), [M], True),
    ("var ddof=1 axis", lambda a: np.var(a, axis=1, ddof=1), [M], True),
    ("average weights", lambda a, w: np.average(a, axis=1, weights=w), [M, np.abs(V) + 0.5], True),
    ("argmax flat", lambda a: np.argmax(a), [M], False),
    ("argmin axis", lambda a: np.argmin(a, axis=0), [M], False),
    ("cumsum flat", lambda a: np.cumsum(a), [M], True),
    ("cumprod axis", lambda a: np.cumprod(a, axis=1), [M], True),
    ("diff", lambda a: np.diff(a, n=2, axis=1), [M], True),
    ("dot 2d 1d", lambda a, v: np.dot(a, v), [M, V], True),
    ("dot nd md", lambda a, b: np.dot(a, b), [B3, M.T], True),
    ("vdot", lambda a, b: np.vdot(a, b), [M, M[::-1]], True),
    ("inner", lambda a, b: np.inner(a, b), [M, M], True),
    ("outer", lambda a, b: np.outer(a, b), [M[0], V], True),
    ("tensordot", lambda a, b: np.tensordot(a, b, axes=([1], [0])), [M, M.T], True),
    ("einsum", lambda a, b: np.einsum("ij,jk->ik", a, b), [M, M.T], True),
    ("kron", lambda a, b: np.kron(a, b), [M[:2, :2], S[:2]], True),
    ("trace", lambda a: np.trace(a), [S], True),
    ("matmul", lambda a, b: np.matmul(a, b), [B3, M.T], True),
    ("diag", lambda a: np.diag(a), [S], True),
    ("diagonal", lambda a: np.diagonal(a, offset=1), [M], True),
    ("tril triu", lambda a: np.tril(a, -1) + np.triu(a, 1), [S], True),
    ("transpose", lambda a: np.transpose(a, (2, 0, 1)), [B3], True),
    ("moveaxis", lambda a: np.moveaxis(a, 0, -1), [B3], True),
    ("swapaxes", lambda a: np.swapaxes(a, 0, 2), [B3], True),
    ("reshape ravel", lambda a: np.ravel(np.reshape(a, (4, 3))), [M], True),
    ("squeeze expand_dims", lambda a: np.squeeze(np.expand_dims(a, (0, 3)), axis=0), [M], True),
    ("broadcast_to", lambda a: np.broadcast_to(a, (2, 4)), [V], True),
    ("concatenate", lambda a, b: np.concatenate([a, b], axis=1), [M, S], True),
    ("concatenate None", lambda a, b: np.concatenate((a, b), axis=None), [M, V], True),
    ("stack", lambda a, b: np.stack([a, b], axis=-1), [M, M * 2], True),
    ("vstack hstack dstack", lambda a, b: np.vstack([a, b]).sum() + np.hstack([a, b]).sum() + np.dstack([a, b]).sum(), [V, V], True),
    ("split", lambda a: np.split(a, 2, axis=1)[1], [M], True),
    ("split points", lambda a: np.split(a, [1, 3], axis=1)[2], [M], True),
    ("array_split", lambda a: np.array_split(a, 3, axis=1)[0], [M], True),
    ("tile", lambda a: np.tile(a, (2, 1)), [M], True),
    ("repeat", lambda a: np.repeat(a, [1, 2, 0, 1], axis=1), [M], True),
    ("repeat flat", lambda a: np.repeat(a, 2), [M], True),
    ("flip", lambda a: np.flip(a), [M], True),
    ("roll", lambda a: np.roll(a, 2, axis=1), [M], True),
    ("where", lambda a, b: np.where(a > 0, a, b), [M, M * 3], True),
    ("take", lambda a: np.take(a, [[0, 3], [1, 1]], axis=1), [M], True),
    ("take flat", lambda a: np.take(a, [5, 0, 5]), [M], True),
    ("take_along_axis", lambda a: np.take_along_axis(a, np.argsort(M, axis=1), axis=1), [M], True),
    ("sort", lambda a: np.sort(a, axis=0), [M], True),
    ("sort None", lambda a: np.sort(a, axis=None), [M], True),
    ("argsort", lambda a: np.argsort(a, axis=1), [M], False),
    ("clip", lambda a: np.clip(a, -0.5, 0.5), [M], True),
    ("pad", lambda a: np.pad(a, ((1, 0), (2, 1)), constant_values=0.5), [M], True),
    ("pad edge", lambda a: np.pad(a, ((1, 2), (2, 1)), mode="edge"), [M], True),
    ("pad wrap", lambda a: np.pad(a, ((3, 0), (5, 1)), mode="wrap"), [M], True),
    ("pad reflect", lambda a: np.pad(a, ((2, 4), (4, 1)), mode="reflect"), [M], True),
    ("pad symmetric", lambda a: np.pad(a, 3, mode="symmetric"), [M], True),
    ("linalg.det", lambda a: np.linalg.det(a), [SPD], True),
    ("linalg.slogdet", lambda a: np.linalg.slogdet(a)[1], [SPD], True),
    ("linalg.inv", lambda a: np.linalg.inv(a), [SPD], True),
    ("linalg.solve vector", lambda a, b: np.linalg.solve(a, b), [SPD, V[:3]], True),
    ("linalg.solve matrix", lambda a, b: np.linalg.solve(a, b), [SPD, M], True),
    ("linalg.cholesky", lambda a: np.linalg.cholesky((a + a.T) / 2), [SPD], True),  # symmetric input
    ("linalg.qr", lambda a: np.linalg.qr(a)[1], [M.T], True),
    ("linalg.eigh", lambda a: np.linalg.eigh((a + a.T) / 2)[0], [SPD], True),
    ("linalg.svd values", lambda a: np.linalg.svd(a, compute_uv=False), [M], True),
    ("linalg.pinv", lambda a: np.linalg.pinv(a), [M], True),
    ("linalg.lstsq", lambda a, b: np.linalg.lstsq(a, b)[0], [M.T, V], True),
    ("linalg.matrix_power", lambda a: np.linalg.matrix_power(a, 3), [S], True),
    ("linalg.matrix_power -2", lambda a: np.linalg.matrix_power(a, -2), [SPD], True),
    ("linalg.norm", lambda a: np.linalg.norm(a), [M], True),
    ("linalg.norm vector ord", lambda a: np.linalg.norm(a, ord=1, axis=1), [M], True),
    ("linalg.norm nuc", lambda a: np.linalg.norm(a, "nuc"), [M], True),
    ("linalg.norm 2", lambda a: np.linalg.norm(a, 2), [M], True),
    ("linalg.norm inf", lambda a: np.linalg.norm(a, np.inf), [M], True),
    ("zeros_like ones_like", lambda a: a * np.ones_like(a) + np.zeros_like(a), [M], True),
]


@pytest.mark.parametrize("name,f,arrays,diff", CASES, ids=[c[0] for c in CASES])
def test_a_numpy_function_on_tensors_gives_numpys_result_and_gradient(name, f, arrays, diff):
    expected = f(*arrays)
    ts = [dyngrad.tensor(a, requires_grad=diff) for a in arrays]
    got = f(*ts)
    assert isinstance(got, dyngrad.Tensor), type(got)
    assert got._data.shape == np.shape(expected) and got._data.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got._data, expected, rtol=1e-10, atol=1e-12)
    if diff:
        assert dyngrad.autograd.gradcheck(f, ts)


def test_numpy_reductions_of_integer_tensors_give_numpys_dtypes():
    i = dyngrad.tensor([[1, 2], [3, 5]])
    a = np.array([[1, 2], [3, 5]])
    for f in (np.mean, np.std, np.var, np.sum, np.prod, np.max, np.linalg.norm):
        r = f(i)
        assert r._data.dtype == np.asarray(f(a)).dtype, f.__name__
        np.testing.assert_allclose(r._data, f(a))


def test_a_numpy_function_without_a_rule_names_itself_for_a_traced_input_and_runs_otherwise():
    x = dyngrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="numpy.median"):
        np.median(x)
    with pytest.raises(TypeError, match="numpy.linalg.eig"):
        np.linalg.eig(dyngrad.eye(2, requires_grad=True))
    r = np.median(x.detach())
    assert not isinstance(r, dyngrad.Tensor) and r == 2.0
    assert np.allclose(x, x) and np.shape(x) == (3,) and np.array_equal(x, x)  # value-only functions


def test_out_of_a_numpy_function_writes_into_a_tensor():
    out = dyngrad.zeros(3, dtype=dyngrad.float64)
    x = dyngrad.tensor(M, requires_grad=True)
    r = np.sum(x, axis=1, out=out)
    assert r is out
    out.sum().backward()
    np.testing.assert_allclose(x.grad._data, np.ones_like(M))


def test_lstsq_returns_numpys_four_results():
    a, b = M.T, V
    x, res, rank, s = np.linalg.lstsq(dyngrad.tensor(a), dyngrad.tensor(b))
    ex, eres, erank, es = np.linalg.lstsq(a, b)
    np.testing.assert_allclose(x._data, ex, rtol=1e-10)
    np.testing.assert_allclose(res._data, eres, rtol=1e-10)
    assert rank == erank and isinstance(rank, int)
    np.testing.assert_allclose(s._data, es, rtol=1e-10)


def test_every_table_entry_is_a_numpy_function():
    for f in FUNCTIONS:
        assert callable(f) and (f.__module__ or "").startswith("numpy"), f


def test_tensor_ravel_flattens_like_ndarray_ravel_and_is_differentiable():
    x = dyngrad.tensor(M, requires_grad=True)
    r = x.ravel()
    np.testing.assert_array_equal(r._data, M.ravel())
    (r * dyngrad.arange(12.0, dtype=dyngrad.float64)).sum().backward()
    np.testing.assert_array_equal(x.grad._data, np.arange(12.0).reshape(3, 4))


def test_forward_mode_tangents_go_through_numpy_calls_and_an_uncovered_one_refuses():
    import dyngrad.autograd.forward_ad as fwAD

    x = dyngrad.tensor([0.5, 1.0], dtype=dyngrad.float64)
    with fwAD.dual_level():
        dx = fwAD.make_dual(x, dyngrad.ones(2, dtype=dyngrad.float64))
        y = np.sum(np.exp(dx) * np.sin(dx))
        a = x._data
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent._data, np.sum(np.exp(a) * (np.sin(a) + np.cos(a))), rtol=1e-12)
        with pytest.raises(TypeError, match="numpy.median"):
            np.median(dx)  # no grad, but a tangent it would drop


@pytest.mark.parametrize("f", [np.sum, np.mean, np.std, np.var, np.prod, np.max, np.count_nonzero, np.all])
def test_axis_empty_tuple_reduces_nothing_as_in_numpy(f):
    a = np.array([[1.0, 0.0], [3.0, 4.0]])
    got = f(dyngrad.tensor(a), axis=())
    np.testing.assert_array_equal(got._data, f(a, axis=()))
    assert got._data.dtype == np.asarray(f(a, axis=())).dtype


def test_pad_modes_equal_numpys_for_random_shapes_and_widths():
    rng = np.random.default_rng(0)
    for _ in range(200):
        shape = tuple(rng.integers(1, 5, rng.integers(1, 4)))
        a = rng.standard_normal(shape)
        widths = rng.integers(0, 7, (len(shape), 2))
        mode = str(rng.choice(["edge", "wrap", "reflect", "symmetric"]))
        got = np.pad(dyngrad.tensor(a), widths, mode=mode)
        assert isinstance(got, dyngrad.Tensor)
        np.testing.assert_array_equal(got.numpy(), np.pad(a, widths, mode=mode))
    with pytest.raises(TypeError, match="linear_ramp"):
        np.pad(dyngrad.ones(3, requires_grad=True), 1, mode="linear_ramp")
    with pytest.raises(ValueError, match="can't extend empty axis 0"):
        np.pad(dyngrad.zeros(0, 2), ((1, 1), (0, 0)), mode="edge")


def test_linspace_with_tensor_bounds_is_differentiable_and_equals_numpys():
    for args, kw in [((0.0, 1.0, 5), {}), ((0.0, 1.0, 5), {"endpoint": False}), ((1.0, 2.0, 1), {}),
                     ((np.array([0.0, 1.0]), np.array([2.0, 5.0]), 4), {"axis": 1}), ((0, 10, 6), {})]:
        got = np.linspace(dyngrad.tensor(args[0]), dyngrad.tensor(args[1]), *args[2:], **kw)
        np.testing.assert_allclose(got.numpy(), np.linspace(*args, **kw), rtol=1e-6)
    a = dyngrad.tensor(0.5, dtype=dyngrad.float64, requires_grad=True)
    b = dyngrad.tensor(2.0, dtype=dyngrad.float64, requires_grad=True)
    y = np.linspace(a, b, 5)
    assert y[-1].item() == 2.0  # the endpoint is stop exactly
    y.sum().backward()
    assert a.grad.item() == pytest.approx(2.5) and b.grad.item() == pytest.approx(2.5)
    assert dyngrad.autograd.gradcheck(lambda s, t: np.linspace(s, t, 7, endpoint=False), (a, b))


def test_ufunc_out_tensor_of_another_kind_is_refused_as_numpy_does():
    ints = dyngrad.zeros(3, dtype=dyngrad.int64)
    for call in (lambda: np.multiply(dyngrad.ones(3), 2.5, out=ints), lambda: np.exp(dyngrad.ones(3), out=ints),
                 lambda: np.multiply(dyngrad.ones(3), 0.5, out=dyngrad.zeros(3, dtype=dyngrad.bool))):
        with pytest.raises(TypeError, match="same_kind"):
            call()
    assert ints.tolist() == [0, 0, 0]  # left untouched
    wide = dyngrad.zeros(3, dtype=dyngrad.float64)
    np.multiply(dyngrad.ones(3), 2.5, out=wide)
    assert wide.tolist() == [2.5, 2.5, 2.5]
