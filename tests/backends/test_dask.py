"""Dask tensors: forward and backward build Dask graphs lazily (nothing computed until asked),
``compute()`` / ``persist()`` / ``dyngrad.compute``, reading a value computes, and the
chunked-gradient example on a ``distributed`` LocalCluster started here equals NumPy."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import dyngrad
from dyngrad import _backend as B

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")


class _Counting:
    """Counts the graphs Dask computes (with the local schedulers)."""

    def __enter__(self) -> _Counting:
        from dask.callbacks import Callback

        self.n = 0

        def start(dsk: object) -> None:
            self.n += 1

        self._cb = Callback(start=start)
        self._cb.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._cb.__exit__(*exc)


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((6, 4)), rng.standard_normal((4, 3))


def test_forward_and_backward_are_lazy_and_equal_numpy() -> None:
    x0, w0 = _data()
    x = dyngrad.from_dask(da.from_array(x0, chunks=(2, 4)), requires_grad=True)
    w = dyngrad.tensor(da.from_array(w0, chunks=(4, 3)), requires_grad=True)
    with _Counting() as c:
        loss = dyngrad.nn.functional.softplus(x @ w).tanh().mean()
        loss.backward()
        assert c.n == 0, "a Dask graph was computed before compute() was asked"
    assert B.is_dask(loss._data) and B.is_dask(x.grad._data) and B.is_dask(w.grad._data)
    xn = dyngrad.from_numpy(x0.copy()).requires_grad_()
    wn = dyngrad.from_numpy(w0.copy()).requires_grad_()
    ln = dyngrad.nn.functional.softplus(xn @ wn).tanh().mean()
    ln.backward()
    lv, gx, gw = dyngrad.compute(loss, x.grad, w.grad)
    assert type(gx._data) is np.ndarray and gx.grad_fn is None
    np.testing.assert_allclose(lv.item(), ln.item(), rtol=1e-13)
    np.testing.assert_allclose(gx.numpy(), xn.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), wn.grad.numpy(), rtol=1e-12)


def test_reading_a_value_computes() -> None:
    x = dyngrad.from_dask(da.arange(4.0, chunks=2))
    s = x.sum()
    with _Counting() as c:
        assert s.item() == 6.0
        assert bool(s > 5)
        assert "6." in repr(s)
        assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
        assert float(s) == 6.0
        assert c.n >= 5
    np.testing.assert_array_equal(x.numpy(), [0.0, 1.0, 2.0, 3.0])  # the host values
    np.testing.assert_array_equal(np.asarray(x), [0.0, 1.0, 2.0, 3.0])


def test_compute_gives_a_numpy_tensor_and_persist_keeps_the_history() -> None:
    x = dyngrad.from_dask(da.from_array(np.arange(6.0).reshape(2, 3), chunks=(1, 3)), requires_grad=True)
    y = (x * x).persist()
    assert B.is_dask(y._data) and y.grad_fn is not None
    y.sum().backward()
    c = x.grad.compute()
    assert type(c._data) is np.ndarray
    np.testing.assert_array_equal(c.numpy(), 2 * np.arange(6.0).reshape(2, 3))
    n = dyngrad.ones(2)
    assert dyngrad.compute(n, None)[0] is not None and dyngrad.compute(n, None)[1] is None


def test_gradients_accumulate_lazily_over_two_backwards() -> None:
    x = dyngrad.from_dask(da.ones(3, chunks=1), requires_grad=True)
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert B.is_dask(x.grad._data)
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0, 5.0])


def test_numpy_parameters_join_a_dask_graph_as_constants() -> None:
    x0, w0 = _data(1)
    x = dyngrad.from_dask(da.from_array(x0, chunks=(3, 4)))
    w = dyngrad.from_numpy(w0.copy()).requires_grad_()
    (x @ w).sum().backward()
    assert B.is_dask(w.grad._data)
    np.testing.assert_allclose(w.grad.numpy(), x0.sum(0)[:, None].repeat(3, 1), rtol=1e-12)


def test_from_dask_refuses_other_arrays_and_casts_lazily() -> None:
    with pytest.raises(TypeError, match="dask.array.Array"):
        dyngrad.from_dask(np.ones(2))
    t = dyngrad.from_dask(da.ones(2, chunks=1, dtype=np.float32), dtype=dyngrad.float64)
    assert B.is_dask(t._data) and t.dtype == dyngrad.float64
    assert dyngrad.from_dask(da.ones(2, dtype=np.int32)).dtype == dyngrad.int32
    assert dyngrad.from_dask(da.ones(2, dtype=np.uint16)).dtype == dyngrad.int64
    assert str(t.device) == "cpu" and not t.is_cuda


def test_a_data_dependent_shape_says_so_until_persisted() -> None:
    x = dyngrad.from_dask(da.from_array(np.array([1.0, 0.0, -1.0, 2.0]), chunks=1))
    for r, n in ((dyngrad.nonzero(x), 3), (x[x > 0], 2)):
        with pytest.raises(RuntimeError, match="depends on its values.*persist"):
            r.shape  # noqa: B018
        assert r.persist().shape[0] == n
    np.testing.assert_array_equal(x[x > 0].numpy(), [1.0, 2.0])


def _example():  # noqa: ANN202
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    try:
        import dask_chunked_gradient as ex
    finally:
        sys.path.pop(0)
    return ex


def test_the_chunked_gradient_example_on_a_local_cluster_equals_numpy(tmp_path: object) -> None:
    pytest.importorskip("distributed")
    ex = _example()
    result = ex.main(["--quick", "--out", str(tmp_path)])
    assert result["equals_numpy"] is True and result["workers"] == 2


def test_save_of_a_dask_tensor_stores_its_values(tmp_path: object) -> None:
    import pathlib

    x = dyngrad.from_dask(da.arange(4.0, chunks=2)) * 2
    path = pathlib.Path(str(tmp_path)) / "x.pt"
    dyngrad.save({"x": x}, path)
    y = dyngrad.load(path)["x"]
    assert type(y._data) is np.ndarray
    np.testing.assert_array_equal(y.numpy(), [0.0, 2.0, 4.0, 6.0])
