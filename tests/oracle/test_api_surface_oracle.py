"""Live comparison with PyTorch 2.13 of the small API names added for issue 12: legacy
constructors, Size, ``torch.functional`` composites (values and gradients), saved-tensor
introspection names, reflected-operator edges, GradientEdge inputs. Skipped without torch."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _dt(t):
    return str(t.dtype).split(".")[-1]


@pytest.mark.parametrize("make,values", [
    (lambda m: m.Tensor([1, 2]), True),
    (lambda m: m.Tensor(2, 3), False),  # a shape: PyTorch leaves the memory uninitialized
    (lambda m: m.Tensor(), True),
    (lambda m: m.Tensor((2, 3)), True),
    (lambda m: m.Tensor(np.array([1, 2])), True),
    (lambda m: m.FloatTensor([[1, 2]]), True),
    (lambda m: m.DoubleTensor(2), False),
    (lambda m: m.LongTensor([1.7, -2.2]), True),
    (lambda m: m.IntTensor([3]), True),
    (lambda m: m.BoolTensor([0, 1]), True),
    (lambda m: m.ByteTensor([1, 255]), True),
    (lambda m: m.zeros(2, dtype=m.float64).new([1, 2]), True),
    (lambda m: m.zeros(2, dtype=m.int64).new(3, 1), False),
])
def test_legacy_constructors_give_pytorchs_dtype_shape_and_values(make, values):
    a, b = make(dg), make(torch)
    assert _dt(a) == _dt(b) and tuple(a.shape) == tuple(b.shape)
    if values:
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("make", [lambda m: m.Tensor(2.0), lambda m: m.zeros(2, dtype=m.float64).new(m.ones(2))])
def test_legacy_constructor_misuse_raises_typeerror_as_pytorch(make):
    with pytest.raises(TypeError):
        make(torch)
    with pytest.raises(TypeError):
        make(dg)


def test_isinstance_with_typed_constructors_agrees_with_pytorch():
    for dtype in ("float32", "float64", "int64", "bool"):
        for cls in ("FloatTensor", "DoubleTensor", "LongTensor", "BoolTensor"):
            a = isinstance(dg.zeros(1, dtype=getattr(dg, dtype)), getattr(dg, cls))
            b = isinstance(torch.zeros(1, dtype=getattr(torch, dtype)), getattr(torch, cls))
            assert a == b, (dtype, cls)


def test_shape_is_a_size_that_behaves_as_pytorchs():
    a, b = dg.zeros(2, 3).shape, torch.zeros(2, 3).shape
    assert a == b and a.numel() == b.numel() and tuple(a + (4,)) == tuple(b + (4,))
    assert isinstance(a, tuple) and isinstance(b, tuple)


@pytest.mark.parametrize("expr", ["2 * b", "2 + b", "b * 2", "b - 2"])
def test_reflected_operators_put_the_tensor_first_in_next_functions(expr):
    for m in (dg, torch):
        b = m.randn(3, requires_grad=True)  # noqa: F841 - read by eval
        y = eval(expr)
        first = y.grad_fn.next_functions[0][0]
        assert first is not None and first.name() == "torch::autograd::AccumulateGrad" \
            or type(first).__name__ == "AccumulateGrad", (m, expr)


@pytest.mark.parametrize("expr,names", [
    ("a * b", ("_saved_self", "_saved_other")),
    ("a / b", ("_saved_self", "_saved_other")),
    ("a.sin()", ("_saved_self",)),
    ("a.log()", ("_saved_self",)),
    ("a.pow(2)", ("_saved_self",)),
])
def test_saved_tensor_names_of_common_ops_match_pytorch(expr, names):
    for m in (dg, torch):
        a = m.randn(3, requires_grad=True)  # noqa: F841 - read by eval
        b = m.rand(3, requires_grad=True) + 0.5
        fn = eval(expr).grad_fn
        for n in names:
            v = getattr(fn, n)
            want = a if n == "_saved_self" else b
            assert m.equal(v, want), (m, expr, n)


@pytest.mark.parametrize("expr", ["a.exp()", "a.tanh()", "a.sigmoid()"])
def test_saved_result_of_ops_that_save_their_output_matches_pytorch(expr):
    for m in (dg, torch):
        a = m.randn(3, requires_grad=True)  # noqa: F841 - read by eval
        y = eval(expr)
        assert m.equal(y.grad_fn._saved_result, y), (m, expr)


def _grads(m, f, arrays):
    ts = [m.tensor(a, dtype=m.float64, requires_grad=True) for a in arrays]
    out = f(m, *ts)
    g = m.tensor(np.random.default_rng(5).standard_normal(tuple(out.shape)))
    return out.detach().numpy(), [x.detach().numpy() for x in m.autograd.grad(out, ts, g)]


@pytest.mark.parametrize("name,f,shapes", [
    ("block_diag", lambda m, a, b, c: m.block_diag(a, b, c), [(2, 2), (3,), ()]),
    ("cdist", lambda m, a, b: m.cdist(a, b), [(4, 3), (5, 3)]),
    ("cdist_p1_batched", lambda m, a, b: m.cdist(a, b, p=1.0), [(2, 4, 3), (2, 2, 3)]),
    ("cartesian_prod", lambda m, a, b: m.cartesian_prod(a, b), [(3,), (2,)]),
    ("atleast_3d", lambda m, a: m.atleast_3d(a), [(4,)]),
    ("broadcast_tensors", lambda m, a, b: m.stack(m.broadcast_tensors(a, b)), [(2, 1), (3,)]),
    ("chain_matmul", lambda m, a, b, c: m.linalg.multi_dot([a, b, c]) if m is torch else m.chain_matmul(a, b, c),
     [(2, 3), (3, 4), (4, 2)]),
])
def test_functional_composites_match_pytorch_values_and_gradients(name, f, shapes):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in shapes]
    (o1, g1), (o2, g2) = _grads(dg, f, arrays), _grads(torch, f, arrays)
    np.testing.assert_allclose(o1, o2, rtol=1e-10, atol=1e-12)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


def test_gradient_edge_inputs_give_pytorchs_gradients():
    x0 = np.random.default_rng(1).standard_normal(3)
    res = []
    for m in (dg, torch):
        x = m.tensor(x0, requires_grad=True)
        y = x.sin() * 3
        z = (y**3).sum()
        edge = m.autograd.graph.get_gradient_edge(y)
        res.append([g.detach().numpy() for g in m.autograd.grad(z, [edge, x])])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_increment_version_invalidates_saved_tensors_as_pytorch():
    for m in (dg, torch):
        b = m.randn(3, requires_grad=True)  # noqa: F841 - read by eval
        c = b * b
        m.autograd.graph.increment_version(b)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            c.sum().backward()


@pytest.mark.parametrize("call", [
    lambda m, o: m.add(m.ones(2, 3), m.ones(2, 3) * 2, alpha=3, out=o),
    lambda m, o: m.matmul(m.ones(2, 4), m.ones(4, 3), out=o),
    lambda m, o: m.cat([m.ones(1, 3), m.zeros(1, 3)], out=o),
    lambda m, o: m.where(m.eye(2, 3) > 0, m.ones(2, 3), m.zeros(2, 3), out=o),
    lambda m, o: m.clamp(m.arange(6.0).reshape(2, 3), 1, 4, out=o),
    lambda m, o: m.sum(m.ones(2, 3, 4), -1, out=o),
])
def test_out_keyword_gives_pytorchs_result_in_place(call):
    import warnings

    res = []
    for m in (dg, torch):
        o = m.empty(2, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = call(m, o)
        assert r is o
        res.append(o.numpy().copy())
    np.testing.assert_array_equal(*res)


def test_out_keyword_errors_match_pytorch():
    for m in (dg, torch):
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            m.exp(m.ones(2, requires_grad=True), out=m.empty(2))
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            m.add(m.ones(2), m.ones(2), out=m.zeros(2, dtype=m.int64))
