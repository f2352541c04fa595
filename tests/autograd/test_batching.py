"""BatchedTensor and the vmap dispatch (transforms/batching.py): what user code sees inside
vmap, the per-op and whole-function fallbacks, autograd and forward AD inside vmap,
in-place ops, randomness, nesting."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad import func as F
from dyngrad.autograd import Function
from dyngrad.transforms.batching import BatchedTensor

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
rng = np.random.default_rng(5)


def _quiet(fn, *args, **kwargs):  # noqa: ANN001, ANN202
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _messages(fn, *args):  # noqa: ANN001, ANN202
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [str(w.message) for w in caught]


def test_inside_vmap_the_function_sees_the_per_example_shape() -> None:
    seen = []

    def f(x):  # noqa: ANN001, ANN202
        seen.append((type(x), tuple(x.shape), x.ndim, x.dim(), x.size(-1), len(x), x.dtype))
        return x

    F.vmap(f, in_dims=1)(T(np.zeros((2, 5, 3))))
    assert seen == [(BatchedTensor, (2, 3), 2, 2, 3, 2, dyngrad.float64)]


def test_reading_values_inside_vmap_falls_back_to_a_loop_and_stays_exact() -> None:
    def f(x):  # noqa: ANN001, ANN202
        return x * 2 if x.sum().item() > 0 else x * 0  # data-dependent

    xs = T([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]])
    out, msgs = _messages(F.vmap(f), xs)
    np.testing.assert_allclose(out._data, [[2.0, 4.0], [0.0, 0.0], [1.0, 1.0]])
    assert any("fell back to a loop over 3 calls of f" in m and "item()" in m for m in msgs)


@pytest.mark.parametrize("read", [
    lambda x: bool(x.sum() > 0),
    lambda x: float(x.sum()),
    lambda x: x.tolist(),
    lambda x: x.numpy(),
    lambda x: np.asarray(x),
    lambda x: np.exp(x._data),
    lambda x: x._data.sum(),
    lambda x: x._data[0],
    lambda x: x._data.astype(np.float32),
])
def test_every_way_of_reading_values_is_caught(read) -> None:  # noqa: ANN001
    def f(x):  # noqa: ANN001, ANN202
        read(x)
        return x + 1

    out, msgs = _messages(F.vmap(f), T(np.ones((2, 3))))
    np.testing.assert_allclose(out._data, 2.0)
    assert any("fell back to a loop" in m for m in msgs)


def test_a_custom_function_with_a_vmap_staticmethod_uses_it() -> None:
    calls = []

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

        @staticmethod
        def vmap(info, in_dims, x):  # noqa: ANN001, ANN205
            calls.append((info.batch_size, in_dims))
            return Cube.apply(x), in_dims[0]

    xs = T(rng.standard_normal((4, 3))).requires_grad_()
    out, msgs = _messages(F.vmap(Cube.apply, in_dims=1), xs.mT)
    assert calls == [(4, (1,))]
    assert not any("Cube" in m for m in msgs)
    np.testing.assert_allclose(out._data, xs._data ** 3)
    (g,) = dyngrad.autograd.grad(out.sum(), xs)
    np.testing.assert_allclose(g._data, 3 * xs._data ** 2)


def test_a_custom_function_without_a_rule_loops_and_keeps_its_backward() -> None:
    class Scale(Function):
        @staticmethod
        def forward(ctx, x, w):  # noqa: ANN001, ANN205
            ctx.save_for_backward(w)
            return x * w

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            (w,) = ctx.saved_tensors
            return g * w * 10, None  # deliberately not the derivative: it must be used

    xs = T(rng.standard_normal((3, 2))).requires_grad_()
    w = T([1.0, 2.0])
    out, msgs = _messages(F.vmap(Scale.apply, in_dims=(0, None)), xs, w)
    assert any("no batching rule for Scale" in m for m in msgs)
    (g,) = dyngrad.autograd.grad(out.sum(), xs)
    np.testing.assert_allclose(g._data, np.broadcast_to(w._data * 10, (3, 2)))


def test_a_custom_in_place_function_without_a_rule_writes_every_example() -> None:
    class AddOne_(Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            x._data += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            return g

    def f(x):  # noqa: ANN001, ANN202
        y = x * 2
        AddOne_.apply(y)
        return y * 1

    xs = T(rng.standard_normal((3, 2))).requires_grad_()
    out = _quiet(F.vmap(f), xs)
    np.testing.assert_allclose(out._data, xs._data * 2 + 1)
    (g,) = dyngrad.autograd.grad(out.sum(), xs)
    np.testing.assert_allclose(g._data, 2.0)


def test_in_place_ops_inside_vmap_update_each_example_and_their_gradients() -> None:
    def f(x, v):  # noqa: ANN001, ANN202
        y = x.clone()
        y[:, 1] = v
        y.add_(1.0)
        y.mul_(x)
        return y

    x = rng.standard_normal((4, 3, 2))
    v = rng.standard_normal((4, 3))
    xt, vt = T(x).requires_grad_(), T(v).requires_grad_()
    out = _quiet(F.vmap(f), xt, vt)
    gx, gv = dyngrad.autograd.grad(out.sum(), [xt, vt])
    for k in range(4):
        a, b = T(x[k]).requires_grad_(), T(v[k]).requires_grad_()
        o = f(a, b)
        np.testing.assert_allclose(out._data[k], o._data)
        ga, gb = dyngrad.autograd.grad(o.sum(), [a, b])
        np.testing.assert_allclose(gx._data[k], ga._data)
        np.testing.assert_allclose(gv._data[k], gb._data)


def test_writing_a_batched_value_into_an_unbatched_tensor_falls_back_to_a_loop() -> None:
    acc = T(np.zeros(2))

    def f(x):  # noqa: ANN001, ANN202
        buf = acc.clone()
        buf.add_(x)  # buf is shared by the examples: only the loop gives each its own
        return buf

    out, msgs = _messages(F.vmap(f), T([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(out._data, [[1.0, 2.0], [3.0, 4.0]])
    assert any("fell back to a loop" in m for m in msgs)


def test_per_example_gradients_of_shared_weights() -> None:
    w = T(rng.standard_normal(3))
    xs = T(rng.standard_normal((5, 3)))
    ys = T(rng.standard_normal(5))

    def loss(w, x, y):  # noqa: ANN001, ANN202
        return ((x * w).sum() - y) ** 2

    per = _quiet(F.vmap(F.grad(loss), in_dims=(None, 0, 0)), w, xs, ys)
    want = 2 * ((xs._data @ w._data) - ys._data)[:, None] * xs._data
    np.testing.assert_allclose(per._data, want)


def test_vmap_of_grad_composes_with_an_outer_gradient() -> None:
    w = T(rng.standard_normal(2)).requires_grad_()
    xs = T(rng.standard_normal((3, 2)))
    per = _quiet(F.vmap(F.grad(lambda w, x: ((x * w).sum()) ** 2), in_dims=(None, 0)), w, xs)
    (g,) = dyngrad.autograd.grad(per.sum(), w)
    np.testing.assert_allclose(g._data, 2 * (xs._data.T @ xs._data).sum(1))


def test_grad_of_vmap_and_nested_vmap_of_grad() -> None:
    f = lambda x: (x.sin() * x).sum()  # noqa: E731
    x = rng.standard_normal((2, 3, 4))
    g = _quiet(F.vmap(F.vmap(F.grad(f))), T(x))
    np.testing.assert_allclose(g._data, np.sin(x) + x * np.cos(x))
    gg = F.grad(lambda x: _quiet(F.vmap(f), x).sum())(x)
    np.testing.assert_allclose(gg, np.sin(x) + x * np.cos(x))


def test_jvp_inside_vmap_with_batched_and_shared_tangents() -> None:
    f = lambda x: (x.sin() * x).sum()  # noqa: E731
    xs, vs = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    p, t = _quiet(F.vmap(lambda x, v: F.jvp(f, (x,), (v,))), T(xs), T(vs))
    np.testing.assert_allclose(p._data, (np.sin(xs) * xs).sum(1))
    np.testing.assert_allclose(t._data, ((np.sin(xs) + xs * np.cos(xs)) * vs).sum(1))
    u = np.ones(3)
    _, t1 = _quiet(F.vmap(lambda x: F.jvp(f, (x,), (T(u),))), T(xs))
    np.testing.assert_allclose(t1._data, (np.sin(xs) + xs * np.cos(xs)).sum(1))


def test_randomness_modes() -> None:
    x = T(np.zeros((3, 4)))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        F.vmap(lambda a: a + dyngrad.randn(4, dtype=dyngrad.float64))(x)
    same = _quiet(F.vmap(lambda a: a + dyngrad.randn(4, dtype=dyngrad.float64), randomness="same"), x)
    assert np.allclose(same._data, same._data[0])
    diff = _quiet(F.vmap(lambda a: a + dyngrad.randn(4, dtype=dyngrad.float64), randomness="different"), x)
    assert not np.allclose(diff._data[0], diff._data[1])
    with pytest.raises(ValueError, match="randomness must be"):
        F.vmap(lambda a: a, randomness="sometimes")


def test_out_dims_structures_and_unbatched_outputs() -> None:
    x = T(rng.standard_normal((3, 2)))
    c = T([7.0, 8.0])
    a, b = _quiet(F.vmap(lambda r: (r * 2, c), out_dims=(1, 0)), x)
    np.testing.assert_allclose(a._data, (x._data * 2).T)
    np.testing.assert_allclose(b._data, np.broadcast_to(c._data, (3, 2)))
    d = _quiet(F.vmap(lambda r: {"s": r.sum(), "c": c}, out_dims=0), x)
    np.testing.assert_allclose(d["s"]._data, x._data.sum(1))
    u = _quiet(F.vmap(lambda r: (r.sum(), c), out_dims=(0, None)), x)
    assert u[1] is c
    with pytest.raises(ValueError, match="out_dims is None for an output that depends"):
        F.vmap(lambda r: r * 2, out_dims=None)(x)


def test_chunk_size_gives_the_same_result() -> None:
    x = T(rng.standard_normal((7, 3)))
    full = _quiet(F.vmap(lambda r: (r.exp() * r).sum()), x)
    chunked = _quiet(F.vmap(lambda r: (r.exp() * r).sum(), chunk_size=3), x)
    np.testing.assert_allclose(full._data, chunked._data)
    with pytest.raises(ValueError, match="chunk_size"):
        F.vmap(lambda r: r, chunk_size=0)


def test_ndarray_inputs_give_ndarray_outputs() -> None:
    out = _quiet(F.vmap(lambda r: (r * r).sum()), np.arange(6.0).reshape(2, 3))
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, [5.0, 50.0])


def test_batched_tensor_repr_and_no_leak_of_levels() -> None:
    seen = []
    F.vmap(lambda r: seen.append(repr(r)) or r)(T(np.zeros((2, 3))))
    assert seen[0].startswith("BatchedTensor(lvl=1, bdim=0")
    from dyngrad.autograd._context import context

    with pytest.raises(ZeroDivisionError):
        F.vmap(lambda r: 1 / 0)(T(np.zeros((2, 3))))
    assert context.interpreters == ()


def test_jacobians_and_hessians_inside_vmap_are_per_example_and_batched() -> None:
    f = lambda x: (x.sin() * x).sum()  # noqa: E731
    g = lambda w, x: (x * w).sin() * x.sum()  # noqa: E731
    xs = rng.standard_normal((4, 3))
    w = T(rng.standard_normal(3))
    cases = [
        (F.vmap(F.hessian(f)), (T(xs),), lambda x: F.hessian(f)(T(x))),
        (F.vmap(F.jacfwd(lambda x: x.sin() * x.sum())), (T(xs),), lambda x: F.jacfwd(lambda y: y.sin() * y.sum())(T(x))),
        (F.vmap(F.jacrev(g), in_dims=(None, 0)), (w, T(xs)), lambda x: F.jacrev(g)(w, T(x))),
    ]
    for fn, args, one in cases:
        out, msgs = _messages(fn, *args)
        assert not any("fell back to a loop" in m for m in msgs), msgs
        np.testing.assert_allclose(out._data, np.stack([one(x)._data for x in xs]), rtol=1e-12)


def test_grad_with_is_grads_batched_runs_one_batched_backward() -> None:
    x = T(rng.standard_normal((3, 4))).requires_grad_()
    w = T(rng.standard_normal((4, 2))).requires_grad_()
    y = (x @ w).tanh() * x.sum(1, keepdim=True)
    v = T(rng.standard_normal((5, 3, 2)))
    (gx, gw), msgs = _messages(lambda: dyngrad.autograd.grad(y, [x, w], v, retain_graph=True, is_grads_batched=True))
    assert not msgs
    for k in range(5):
        a, b = dyngrad.autograd.grad(y, [x, w], v[k], retain_graph=True)
        np.testing.assert_allclose(gx._data[k], a._data)
        np.testing.assert_allclose(gw._data[k], b._data)
    with pytest.raises(RuntimeError, match="different batch sizes"):
        dyngrad.autograd.grad([y, y], [x], [v, v[:2]], retain_graph=True, is_grads_batched=True)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_vectorized_jacobian_and_hessian_equal_the_loop(strategy) -> None:  # noqa: ANN001
    AF = dyngrad.autograd.functional
    f = lambda x, w: ((x @ w).tanh() * x.sum(1, keepdim=True)).sin()  # noqa: E731
    x, w = T(rng.standard_normal((3, 4))), T(rng.standard_normal((4, 2)))
    j1 = AF.jacobian(f, (x, w), strategy=strategy)
    j2, msgs = _messages(lambda: AF.jacobian(f, (x, w), strategy=strategy, vectorize=True))
    assert not msgs
    for a, b in zip(j1, j2):
        np.testing.assert_allclose(a._data, b._data, rtol=1e-12)
    g = lambda x: (x.sin() * x.cos().sum()).sum() + (x ** 3).prod()  # noqa: E731
    z = T(rng.uniform(0.5, 1.0, 6))
    h1 = AF.hessian(g, z, outer_jacobian_strategy=strategy)
    h2 = AF.hessian(g, z, outer_jacobian_strategy=strategy, vectorize=True)
    np.testing.assert_allclose(h1._data, h2._data, rtol=1e-12)
    zr = T(z._data).requires_grad_()
    (d1,) = dyngrad.autograd.grad(AF.hessian(g, zr, create_graph=True).sum(), zr)
    (d2,) = dyngrad.autograd.grad(AF.hessian(g, zr, create_graph=True, vectorize=True).sum(), zr)
    np.testing.assert_allclose(d1._data, d2._data, rtol=1e-10)


def test_comparison_with_zero_dim_examples_promotes_like_each_example() -> None:
    m = dyngrad.tensor([[0.1, 0.5], [0.3, 0.2]], dtype=dyngrad.float32)
    xs = T([0.1, 0.2])  # float64 0-d examples: they compare in float32, as each example does
    out = _quiet(F.vmap(lambda a: a == m), xs)
    np.testing.assert_array_equal(out._data, np.stack([(T(v) == m)._data for v in xs._data]))


def test_nested_randomness_modes_and_same_across_chunks() -> None:
    z = T(np.zeros((3, 2)))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        F.vmap(F.vmap(lambda a: a + dyngrad.rand(()), randomness="same"), randomness="error")(z)
    o = _quiet(F.vmap(F.vmap(lambda a: a + dyngrad.rand((), dtype=dyngrad.float64), randomness="same"),
                      randomness="different"), z)
    assert np.allclose(o._data[:, 0], o._data[:, 1]) and not np.allclose(o._data[0], o._data[1])
    c = _quiet(F.vmap(lambda a: a + dyngrad.rand((), dtype=dyngrad.float64), randomness="same", chunk_size=2),
               T(np.zeros(6)))
    assert np.allclose(c._data, c._data[0])


def test_out_dims_out_of_range_raise_index_error() -> None:
    with pytest.raises(IndexError, match="out_dims=3 is out of range"):
        F.vmap(lambda a: a, out_dims=3)(T(np.zeros((4, 3, 5))))


def test_batchnorm_training_under_vmap_loops_with_exact_running_stats() -> None:
    x = T(rng.standard_normal((4, 6, 3, 5, 5)))
    bn, ref = (dyngrad.nn.BatchNorm2d(3, momentum=None).double() for _ in range(2))
    out = _quiet(F.vmap(bn), x)
    want = dyngrad.stack([ref(e) for e in x])
    np.testing.assert_allclose(out._data, want._data)
    assert int(bn.num_batches_tracked._data) == 4
    np.testing.assert_allclose(bn.running_mean._data, ref.running_mean._data)


def test_like_constructors_and_one_hot_stay_batched() -> None:
    x = T(rng.standard_normal((4, 3)))

    def f(a):  # noqa: ANN001, ANN202
        z = dyngrad.zeros_like(a)
        z[1:] = a[1:] * 2  # a per-example value written into zeros_like(a)
        return z + dyngrad.ones_like(a) + dyngrad.full_like(a, 0.5)

    out, msgs = _messages(F.vmap(f), x)
    assert not [m for m in msgs if "loop" in m]
    np.testing.assert_allclose(out._data, np.stack([f(r)._data for r in x]))
    t = dyngrad.tensor([[0, 2], [1, 1], [2, 0]])
    oh, msgs = _messages(F.vmap(lambda a: dyngrad.nn.functional.one_hot(a, 3), in_dims=1), t)
    assert not msgs
    np.testing.assert_array_equal(oh._data, dyngrad.nn.functional.one_hot(t.T, 3)._data)


def test_misuse_messages() -> None:
    kept = []
    F.vmap(lambda a: kept.append(a) or a)(T(np.zeros((2, 3))))
    with pytest.raises(RuntimeError, match="BatchedTensor escaped"):
        kept[0] + 1

    class NoDims(Function):
        @staticmethod
        def forward(ctx, a):  # noqa: ANN001, ANN205
            return a * 2

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            return g * 2

        @staticmethod
        def vmap(info, in_dims, a):  # noqa: ANN001, ANN205
            return NoDims.apply(a)

    with pytest.raises(TypeError, match=r"NoDims.vmap must return \(outputs, out_dims\)"):
        F.vmap(NoDims.apply)(T(np.zeros((2, 3))))
    _, msgs = _messages(F.vmap(F.grad(lambda a: (a * float(a.sum())).sum())), T(np.ones((2, 3))))
    assert any("loop over 2 calls of grad(<lambda>): float() on a batched tensor" in m for m in msgs)
