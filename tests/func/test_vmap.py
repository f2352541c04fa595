"""vmap (loop fallback) and functional_call."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad import func as F

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731


def _quiet(fn, *args):  # noqa: ANN001, ANN202
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def test_vmap_equals_stacking_per_example_results() -> None:
    xs = np.arange(12.0).reshape(4, 3)
    w = np.array([1.0, -1.0, 2.0])
    res = _quiet(F.vmap(lambda x, w: (x * w).sum(), in_dims=(0, None)), xs, w)
    assert isinstance(res, np.ndarray)
    np.testing.assert_allclose(res, xs @ w)


def test_vmap_falls_back_to_a_loop_with_a_warning_when_f_reads_values() -> None:
    def f(x):  # noqa: ANN001, ANN202
        return x * 2 if float(x.sum()) > 0 else -x  # data-dependent control flow

    with pytest.warns(UserWarning, match="vmap fell back to a loop over 2 calls of f"):
        res = F.vmap(f)(np.array([[1.0, 2.0], [-1.0, -2.0]]))
    np.testing.assert_allclose(res, [[2.0, 4.0], [1.0, 2.0]])


def test_vmap_of_a_numpy_function_without_a_dyngrad_rule_falls_back_to_a_loop() -> None:
    with pytest.warns(UserWarning, match="fell back to a loop"):
        res = F.vmap(lambda x: np.heaviside(x, 0.5).sum())(np.array([[1.0, -1.0, 0.0], [1.0, 1.0, 1.0]]))
    np.testing.assert_allclose(res, [1.5, 3.0])


def test_vmap_of_a_numpy_ufunc_batches_without_a_loop() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = F.vmap(lambda x: np.sin(x).sum())(np.ones((2, 3)))
    np.testing.assert_allclose(res, [3 * np.sin(1.0)] * 2)


def test_an_op_without_batching_rule_runs_as_a_loop_and_is_named() -> None:
    class Twice(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            return x * 2

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            return g * 2

    with pytest.warns(UserWarning, match="no batching rule for Twice; ran once per example"):
        res = F.vmap(Twice.apply)(T(np.arange(6.0).reshape(2, 3)))
    np.testing.assert_allclose(res._data, np.arange(6.0).reshape(2, 3) * 2)


def test_vmap_in_dims_and_out_dims() -> None:
    x = T(np.arange(6.0).reshape(2, 3))
    res = _quiet(F.vmap(lambda c: c * 2, in_dims=1, out_dims=1), x)
    np.testing.assert_allclose(res._data, x._data * 2)
    a, b = _quiet(F.vmap(lambda c: (c.sum(), c * 1)), x)
    np.testing.assert_allclose(a._data, [3.0, 12.0])
    np.testing.assert_allclose(b._data, x._data)


def test_vmap_of_grad_gives_per_example_gradients_and_keeps_the_graph() -> None:
    w = T([0.5, -1.0]).requires_grad_()
    xs = T([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]])
    per_ex = _quiet(F.vmap(F.grad(lambda w, x: ((x * w).sum()) ** 2), in_dims=(None, 0)), w, xs)
    want = 2 * (xs._data @ w._data)[:, None] * xs._data
    np.testing.assert_allclose(per_ex._data, want)
    (g,) = dyngrad.autograd.grad(per_ex.sum(), w)
    np.testing.assert_allclose(g._data, 2 * (xs._data.T @ xs._data).sum(1))


def test_vmap_with_inconsistent_batch_sizes_names_the_arguments() -> None:
    with pytest.raises(ValueError, match="argument 0 has size 2, argument 1 has size 4"):
        F.vmap(lambda a, b: a + b)(np.ones((2, 3)), np.ones((4, 3)))


def test_vmap_bad_in_dims_raise() -> None:
    with pytest.raises(ValueError, match="in_dims is a tuple of length 1 but there are 2"):
        F.vmap(lambda a, b: a, in_dims=(0,))(np.ones(2), np.ones(2))
    with pytest.raises(ValueError, match="argument 0 has in_dim 2 but only 1"):
        F.vmap(lambda a: a, in_dims=2)(np.ones(2))
    with pytest.raises(ValueError, match="at least one"):
        F.vmap(lambda a: a, in_dims=None)(np.ones(2))
    with pytest.raises(ValueError, match="argument 1 has in_dim 0 but is a float"):
        F.vmap(lambda a, b: a)(np.ones(2), 3.0)


class _Lin:
    """A duck-typed module: attributes for parameters."""

    def __init__(self) -> None:
        self.w = T([1.0, 2.0])
        self.b = T(0.5)

    def __call__(self, x):  # noqa: ANN001, ANN204
        return x @ self.w + self.b


def test_functional_call_swaps_attributes_and_restores_them() -> None:
    m = _Lin()
    old_w = m.w
    out = F.functional_call(m, {"w": T([0.0, 1.0])}, (T([3.0, 4.0]),))
    assert float(out) == 4.5
    assert m.w is old_w


def test_functional_call_restores_after_an_error() -> None:
    m = _Lin()
    old_b = m.b
    with pytest.raises(RuntimeError):
        F.functional_call(m, {"b": T(1.0)}, (T([1.0, 2.0, 3.0]),))
    assert m.b is old_b


def test_grad_through_functional_call_over_a_parameter_dict() -> None:
    m = _Lin()
    x = np.array([3.0, 4.0])
    g = F.grad(lambda p: F.functional_call(m, p, (T(x),)) ** 2)({"w": np.array([1.0, 2.0]), "b": np.array(0.5)})
    r = x @ [1.0, 2.0] + 0.5
    np.testing.assert_allclose(g["w"], 2 * r * x)
    np.testing.assert_allclose(g["b"], 2 * r)


def test_functional_call_on_an_nn_module() -> None:
    nn = dyngrad.nn
    if not hasattr(nn, "Linear"):
        pytest.skip("dyngrad.nn.Linear is not available yet")
    lin = nn.Linear(2, 1).double() if hasattr(nn.Linear(2, 1), "double") else nn.Linear(2, 1)
    params = {"weight": T([[1.0, -1.0]]).to(lin.weight.dtype), "bias": T([0.25]).to(lin.weight.dtype)}
    old = lin.weight
    out = F.functional_call(lin, params, (T([[2.0, 3.0]]).to(lin.weight.dtype),))
    np.testing.assert_allclose(out._data, [[-0.75]], rtol=1e-6)
    assert lin.weight is old
    g = F.grad(lambda p: F.functional_call(lin, p, (T([[2.0, 3.0]]).to(lin.weight.dtype),)).sum())(params)
    np.testing.assert_allclose(g["weight"]._data, [[2.0, 3.0]])
    with pytest.raises(RuntimeError, match="missing"):
        F.functional_call(lin, {"weight": params["weight"]}, (T([[2.0, 3.0]]),), strict=True)


def test_pytree_arguments_and_nested_in_dims() -> None:
    x, y = T(np.arange(12.0).reshape(4, 3)), T(np.ones((4, 3)))
    out = _quiet(dyngrad.vmap(lambda d: (d["a"] * d["b"]).sum()), {"a": x, "b": y})
    np.testing.assert_allclose(out._data, x._data.sum(1))
    out = _quiet(F.vmap(lambda p, c: p[0] * c + p[1].sum(), in_dims=((0, None), None)), (x, y[0]), 2.0)
    np.testing.assert_allclose(out._data, x._data * 2 + 3.0)
    with pytest.raises(ValueError, match=r"argument 0 \(leaf 1\) has in_dim 0 but is a float"):
        F.vmap(lambda d: d["a"])({"a": x, "b": 3.0})
    with pytest.raises(ValueError, match=r"in_dims\[0\] has the structure tuple of 3 dims"):
        F.vmap(lambda p: p[0], in_dims=((0, 0, 0),))((x, y))


def test_model_ensembling_with_stack_module_state() -> None:
    models = [dyngrad.nn.Linear(3, 2).double() for _ in range(5)]
    params, buffers = F.stack_module_state(models)
    assert params["weight"].shape == (5, 2, 3) and params["weight"].requires_grad
    x = T(np.random.default_rng(0).standard_normal((4, 3)))
    out = _quiet(F.vmap(lambda p, b, xx: F.functional_call(models[0], (p, b), (xx,)), in_dims=(0, 0, None)),
                 params, buffers, x)
    np.testing.assert_allclose(out._data, np.stack([m(x)._data for m in models]))
    (g,) = dyngrad.autograd.grad(out.sum(), params["bias"])
    np.testing.assert_allclose(g._data, np.full((5, 2), 4.0))
    with pytest.raises(RuntimeError, match="shape"):
        F.stack_module_state([dyngrad.nn.Linear(3, 2), dyngrad.nn.Linear(3, 4)])
