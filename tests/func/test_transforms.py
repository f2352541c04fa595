"""dyngrad.func: grad/jacrev/jacfwd/hessian/vjp/jvp/linearize on Tensors and NumPy arrays,
against PyTorch golden data and each other; bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
from dyngrad import func as F
from tests.autograd.functional_cases import cases, inputs

GOLD = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "functional.npz"))
CASES = cases(dyngrad)
SCALAR = [n for n, c in CASES.items() if c[2] == "scalar"]
T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731


@pytest.mark.parametrize("name", SCALAR)
def test_grad_of_numpy_inputs_returns_ndarrays_matching_golden_jacobian(name: str) -> None:
    fn, shapes, _ = CASES[name]
    xs = inputs(name, shapes)
    argnums = tuple(range(len(xs))) if len(xs) > 1 else 0
    g = F.grad(fn, argnums=argnums)(*xs)
    gs = g if isinstance(g, tuple) else (g,)
    for j, gj in enumerate(gs):
        assert isinstance(gj, np.ndarray)
        np.testing.assert_allclose(gj, GOLD[f"{name}/jac/0/{j}"], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("transform", ["hessian", "jacrev_jacrev", "jacrev_jacfwd"])
@pytest.mark.parametrize("name", SCALAR)
def test_hessians_by_composed_transforms_match_golden(name: str, transform: str) -> None:
    fn, shapes, _ = CASES[name]
    xs = inputs(name, shapes)
    for j in range(len(xs)):  # the diagonal blocks, one argnum at a time
        if transform == "hessian":
            h = F.hessian(fn, j)(*xs)
        elif transform == "jacrev_jacrev":
            h = F.jacrev(F.jacrev(fn, j), j)(*xs)
        else:
            h = F.jacrev(F.jacfwd(fn, j), j)(*xs)
        np.testing.assert_allclose(h, GOLD[f"{name}/hess/{j}/{j}"], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c[2] == "vector"])
def test_jacrev_and_jacfwd_agree_with_golden_on_tensors(name: str) -> None:
    fn, shapes, _ = CASES[name]
    xs = [T(x) for x in inputs(name, shapes)]
    for jac in (F.jacrev, F.jacfwd):
        res = jac(fn, argnums=tuple(range(len(xs))))(*xs)
        multi_out = isinstance(fn(*xs), tuple)
        for i in range(2 if multi_out else 1):
            row = res[i] if multi_out else res
            for j in range(len(xs)):
                assert isinstance(row[j], dyngrad.Tensor)
                np.testing.assert_allclose(row[j]._data, GOLD[f"{name}/jac/{i}/{j}"], rtol=1e-10, atol=1e-12)


def test_grad_composes_to_third_derivative() -> None:
    d3 = F.grad(F.grad(F.grad(lambda x: x ** 4)))
    assert float(d3(2.0)) == pytest.approx(24 * 2.0)


def test_grad_and_value_and_has_aux() -> None:
    f = lambda x: ((x ** 2).sum(), x.mean())  # noqa: E731
    x = np.array([1.0, 2.0, 3.0])
    g, (v, aux) = F.grad_and_value(f, has_aux=True)(x)
    np.testing.assert_allclose(g, 2 * x)
    assert float(v) == 14.0 and float(aux) == 2.0
    g2, aux2 = F.grad(f, has_aux=True)(T(x))
    assert isinstance(g2, dyngrad.Tensor) and float(aux2) == 2.0


def test_grad_over_a_dict_of_parameters() -> None:
    p = {"w": np.array([1.0, -2.0]), "b": np.array(0.5)}
    g = F.grad(lambda p, x: ((x @ p["w"] + p["b"]) ** 2).sum())(p, np.array([[1.0, 1.0], [2.0, 0.0]]))
    assert set(g) == {"w", "b"}
    r = np.array([[1.0, 1.0], [2.0, 0.0]]) @ p["w"] + 0.5
    np.testing.assert_allclose(g["w"], 2 * np.array([[1.0, 1.0], [2.0, 0.0]]).T @ r)
    np.testing.assert_allclose(g["b"], 2 * r.sum())


def test_grad_keeps_an_outer_graph_for_tensors_that_require_grad() -> None:
    x = T([1.0, 2.0]).requires_grad_()
    g = F.grad(lambda x: (x ** 3).sum())(x)
    (gg,) = dyngrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg._data, 6 * x._data)


def test_vjp_and_jvp_transforms() -> None:
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    out, vjp_fn = F.vjp(lambda a, b: a * b + a, x, y)
    np.testing.assert_allclose(out, x * y + x)
    ga, gb = vjp_fn(np.array([1.0, 10.0]))
    np.testing.assert_allclose(ga, (y + 1) * [1, 10])
    np.testing.assert_allclose(gb, x * [1, 10])
    out, t = F.jvp(lambda a, b: a * b + a, (x, y), (np.ones(2), np.zeros(2)))
    np.testing.assert_allclose(t, y + 1)


def test_linearize_gives_the_jvp_at_the_primal() -> None:
    out, jvp_fn = F.linearize(lambda x: x.sin() * x, np.array([0.3, 1.1]))
    u = np.array([1.0, -2.0])
    x = np.array([0.3, 1.1])
    np.testing.assert_allclose(jvp_fn(u), (np.cos(x) * x + np.sin(x)) * u)
    np.testing.assert_allclose(out, np.sin(x) * x)


def test_grad_of_non_scalar_output_raises() -> None:
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        F.grad(lambda x: x * 2)(np.array([1.0, 2.0]))


def test_argnums_out_of_range_or_duplicated_raises() -> None:
    with pytest.raises(RuntimeError, match="argnums=2 but only 2 positional inputs"):
        F.grad(lambda a, b: (a * b).sum(), argnums=2)(np.ones(2), np.ones(2))
    with pytest.raises(RuntimeError, match="duplicates"):
        F.grad(lambda a, b: (a * b).sum(), argnums=(0, 0))(np.ones(2), np.ones(2))
    with pytest.raises(RuntimeError, match="argnums must be"):
        F.jacrev(lambda a: a, argnums="0")(np.ones(2))


def test_integer_argument_to_differentiate_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match="argument 0"):
        F.grad(lambda a: a.sum())(dyngrad.tensor([1, 2]))


def test_jvp_tangent_of_wrong_shape_names_it() -> None:
    with pytest.raises(RuntimeError, match=r"tangents\[1\] has shape \[3\] but primals\[1\] has shape \[2\]"):
        F.jvp(lambda a, b: a * b, (np.ones(2), np.ones(2)), (np.ones(2), np.ones(3)))
    with pytest.raises(RuntimeError, match="same length"):
        F.jvp(lambda a: a, (np.ones(2),), ())


def test_vjp_fn_with_cotangent_of_wrong_shape_raises() -> None:
    _, vjp_fn = F.vjp(lambda a: a * 2, np.ones(3))
    with pytest.raises(RuntimeError, match=r"cotangents\[0\] has shape \[2\]"):
        vjp_fn(np.ones(2))


def _rosenbrock(x):
    return ((1 - x[:-1]) ** 2 + 100 * (x[1:] - x[:-1] ** 2) ** 2).sum()


def _rosenbrock_hessian(x: np.ndarray) -> np.ndarray:
    """The Rosenbrock function's Hessian, by hand."""
    n = len(x)
    H = np.zeros((n, n))
    for i in range(n - 1):
        H[i, i] += 2 + 1200 * x[i] ** 2 - 400 * x[i + 1]
        H[i + 1, i + 1] += 200
        H[i, i + 1] += -400 * x[i]
        H[i + 1, i] += -400 * x[i]
    return H


def test_forward_over_forward_hessian_equals_the_rosenbrock_hessian() -> None:
    x = np.random.RandomState(0).randn(5)
    H = F.jacfwd(F.jacfwd(_rosenbrock))(dyngrad.tensor(x))
    np.testing.assert_allclose(H._data, _rosenbrock_hessian(x), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(F.hessian(_rosenbrock)(dyngrad.tensor(x))._data, H._data, rtol=1e-12, atol=1e-9)


def test_jvp_of_jvp_is_the_second_directional_derivative() -> None:
    x = np.random.RandomState(1).randn(4)
    u = np.random.RandomState(2).randn(4)
    T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
    inner = lambda z: F.jvp(_rosenbrock, (z,), (T(u),))[1]  # noqa: E731
    first, second = F.jvp(inner, (T(x),), (T(u),))
    H = _rosenbrock_hessian(x)
    np.testing.assert_allclose(second._data, u @ H @ u, rtol=1e-10)
    g = F.grad(_rosenbrock)(T(x))._data
    np.testing.assert_allclose(first._data, g @ u, rtol=1e-10)


def test_jacfwd_of_jacfwd_of_a_cubic_is_its_hessian() -> None:
    x = np.array([1.5, -2.0])
    H = F.jacfwd(F.jacfwd(lambda z: (z ** 3).sum()))(dyngrad.tensor(x))
    np.testing.assert_allclose(H._data, np.diag(6 * x))


# ---------------------------------------------------------------- outer graphs (closures)
def test_transforms_keep_derivatives_that_reach_tensors_outside_their_inputs() -> None:
    T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
    x, w, one = T([1.0, 2.0]), T([3.0, 4.0]), T([1.0, 1.0])
    g = dyngrad.func.grad
    # values checked against torch.func 2.13 by hand: d/dw sum(d/dx sum(x*w)) = 1, ...
    np.testing.assert_allclose(g(lambda w: g(lambda x: (x * w).sum())(x).sum())(w)._data, [1.0, 1.0])
    np.testing.assert_allclose(g(lambda w: g(lambda x, v: (x * v * v).sum())(x, w).sum())(w)._data, [6.0, 8.0])
    jv = g(lambda w: dyngrad.func.jvp(lambda x: (x * w * w).sum(), (x,), (one,))[1])(w)
    np.testing.assert_allclose(jv._data, [6.0, 8.0])
    for jac in (dyngrad.func.jacrev, dyngrad.func.jacfwd):
        got = g(lambda w: jac(lambda x: (x * w).sin())(x).sum())(w)  # noqa: B023
        xw = x._data * w._data  # d/dw_i of sum_i cos(x_i w_i) w_i (the Jacobian is diagonal)
        np.testing.assert_allclose(got._data, np.cos(xw) - xw * np.sin(xw))
    vj = g(lambda w: dyngrad.func.vjp(lambda x: (x * w).sin(), x)[1](one)[0].sum())(w)
    np.testing.assert_allclose(vj._data, np.cos(x._data * w._data) - x._data * w._data * np.sin(x._data * w._data))
    W = w.clone().requires_grad_()
    assert g(lambda x: (x * W * W).sum())(x).requires_grad  # it depends on W
    assert not g(lambda x: (x * x).sum())(x).requires_grad  # nothing outside: detached, as torch
    assert not dyngrad.func.jacrev(lambda x: x.sin())(x).requires_grad


def test_gradient_penalty_through_vmap_of_grad_reaches_the_weights() -> None:
    rng = np.random.default_rng(0)
    lin = dyngrad.nn.Linear(3, 1).double()
    X = dyngrad.tensor(rng.standard_normal((5, 3)))

    def loss(batched: bool) -> dyngrad.Tensor:
        if batched:
            gx = dyngrad.func.vmap(dyngrad.func.grad(lambda x: (lin(x) ** 3).sum()))(X)
        else:
            xs = X.detach().requires_grad_()
            (gx,) = dyngrad.autograd.grad((lin(xs) ** 3).sum(), xs, create_graph=True)
        return lin(X).mean() + ((gx.norm(dim=1) - 1) ** 2).mean()

    (a,) = dyngrad.autograd.grad(loss(True), lin.weight)
    (b,) = dyngrad.autograd.grad(loss(False), lin.weight)
    np.testing.assert_allclose(a._data, b._data, rtol=1e-10)


def test_jacobians_of_pytree_arguments_match_torch_layout() -> None:
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(3), rng.standard_normal((3, 2))
    f = lambda p: (p["x"] @ p["w"]).sin()  # noqa: E731
    for jac in (dyngrad.func.jacrev, dyngrad.func.jacfwd):
        J = jac(f)({"x": dyngrad.tensor(x), "w": dyngrad.tensor(w)})
        c = np.cos(x @ w)
        np.testing.assert_allclose(J["x"]._data, c[:, None] * w.T)  # d out_j / d x_i
        want_w = np.zeros((2, 3, 2))
        for j in range(2):
            want_w[j, :, j] = c[j] * x
        np.testing.assert_allclose(J["w"]._data, want_w)
        assert not J["x"].requires_grad
    H = dyngrad.func.hessian(lambda p: (p[0] @ p[1]).sin().sum())((dyngrad.tensor(x), dyngrad.tensor(w)))
    assert H[0][1].shape == (3, 3, 2) and not H[0][0].requires_grad
    Jn = dyngrad.func.jacrev(f)({"x": x, "w": w})  # ndarrays in, ndarrays out
    assert isinstance(Jn["x"], np.ndarray)


def test_transform_edge_cases_from_the_break_it_trial() -> None:
    T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
    x = T([1.0, 2.0])
    np.testing.assert_allclose(dyngrad.func.jacrev(lambda a: dyngrad.ones(2, dtype=dyngrad.float64))(x)._data,
                               np.zeros((2, 2)))
    assert dyngrad.func.jacrev(dyngrad.func.jacfwd(lambda a: 2 * a))(x).shape == (2, 2, 2)
    j, aux = dyngrad.func.jacfwd(lambda a: (a * 2, a.sum()), has_aux=True)(T([1.0, 2.0, 3.0]))
    assert type(aux) is dyngrad.Tensor and float(aux) == 6.0 and not aux.requires_grad
    with pytest.raises(RuntimeError, match="Expected f.*to return a Tensor, got float"):
        dyngrad.func.grad(lambda a: float((a ** 2).sum().item()))(x)


def test_functional_call_ties_weights_as_pytorch() -> None:
    nn = dyngrad.nn
    a, b = nn.Linear(2, 2, bias=False).double(), nn.Linear(2, 2, bias=False).double()
    b.weight = a.weight
    net = nn.Sequential(a, b)
    x = dyngrad.ones(2, dtype=dyngrad.float64)
    w2 = 2 * dyngrad.eye(2, dtype=dyngrad.float64)
    F = dyngrad.func
    np.testing.assert_allclose(F.functional_call(net, {"0.weight": w2}, (x,))._data, [4.0, 4.0])  # torch: [4, 4]
    g = F.grad(lambda w: F.functional_call(net, {"0.weight": w}, (x,)).sum())(w2)
    np.testing.assert_allclose(g._data, np.full((2, 2), 4.0))  # torch: [[4, 4], [4, 4]]
    with pytest.raises(ValueError, match="are tied"):
        F.functional_call(net, {"0.weight": w2, "1.weight": 3 * w2}, (x,))


def test_custom_gradient_forward_and_reverse_mode_agree() -> None:
    @dyngrad.custom_gradient
    def sq(x):  # noqa: ANN001, ANN202
        return x ** 2, lambda up: up * 5  # deliberately not the derivative

    x = dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float64)
    np.testing.assert_allclose(dyngrad.func.jacfwd(sq)(x)._data, dyngrad.func.jacrev(sq)(x)._data)
    np.testing.assert_allclose(dyngrad.func.jacfwd(sq)(x)._data, 5 * np.eye(2))


def test_pytree_primals_and_outputs_in_jvp_vjp_jacobians_and_hessian() -> None:
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(3), rng.standard_normal((3, 2))
    D = dyngrad
    P = {"x": D.tensor(x), "w": D.tensor(w)}
    f = lambda p: (p["x"] @ p["w"]).sin()  # noqa: E731
    c = np.cos(x @ w)
    _, t = D.func.jvp(f, (P,), ({"x": D.ones(3, dtype=D.float64), "w": D.zeros(3, 2, dtype=D.float64)},))
    np.testing.assert_allclose(t._data, c * w.sum(0))
    _, fn = D.func.vjp(f, P)
    (g,) = fn(D.ones(2, dtype=D.float64))
    np.testing.assert_allclose(g["x"]._data, w @ c)
    np.testing.assert_allclose(g["w"]._data, np.outer(x, c))
    J = D.func.jacrev(lambda a: {"s": a.sin(), "p": (a.sum(), a * 2)})(D.tensor(x))
    np.testing.assert_allclose(J["s"]._data, np.diag(np.cos(x)))
    np.testing.assert_allclose(J["p"][1]._data, 2 * np.eye(3))
    H = D.func.hessian(lambda p: (p["x"] ** 2 * p["y"]).sum())({"x": D.tensor(x), "y": D.tensor(w[:, 0])})
    np.testing.assert_allclose(H["x"]["y"]._data, np.diag(2 * x))
    np.testing.assert_allclose(H["x"]["x"]._data, np.diag(2 * w[:, 0]))


def test_forward_mode_dual_views_and_in_place_custom_functions() -> None:
    fwd = dyngrad.autograd.forward_ad
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    with fwd.dual_level():
        d = fwd.make_dual(x, dyngrad.tensor([1.0, 1.0]))
        with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
            d.mul_(2)
        with pytest.raises(RuntimeError, match="already has a tangent"):
            fwd.make_dual(d, dyngrad.tensor([1.0, 1.0]))

    class Double_(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):  # noqa: ANN001, ANN205
            a.mul_(2)
            ctx.mark_dirty(a)
            return a

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            return g * 2

        @staticmethod
        def jvp(ctx, ta):  # noqa: ANN001, ANN205
            return ta * 2

    with fwd.dual_level():
        a = fwd.make_dual(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([1.0, 1.0])).clone()
        out = Double_.apply(a)
        assert out.tolist() == [2.0, 4.0] and fwd.unpack_dual(out).tangent.tolist() == [2.0, 2.0]


def test_third_round_fixes() -> None:
    D = dyngrad
    F = D.func
    X = np.random.default_rng(6).random((4, 3))

    def f(x):  # noqa: ANN001, ANN202
        y = x.t() * 2  # a transposed (not C-contiguous) result
        y[0].mul_(3)
        return y

    _, t = F.jvp(f, (D.tensor(X),), (D.ones(4, 3, dtype=D.float64),))
    np.testing.assert_allclose(t._data[0], 6.0)  # torch.func: 6
    x = D.tensor(X, requires_grad=True)
    f(x).sum().backward()
    want = np.full((4, 3), 2.0)
    want[:, 0] = 6.0
    np.testing.assert_allclose(x.grad._data, want)
    g = lambda a: (a * 1).mul_(2).pow(3).sum()  # noqa: E731
    np.testing.assert_allclose(F.jacfwd(F.jacrev(g))(D.tensor([1.0, 2.0, 3.0], dtype=D.float64))._data,
                               np.diag([48.0, 96.0, 144.0]))  # torch.func: diag(48, 96, 144)
    third = F.jacrev(F.jacrev(F.jacrev(lambda a: a.prod())))(D.tensor([1.5, 0.0, 2.0, 0.0], dtype=D.float64))
    assert float(third[0, 1, 3]) == 2.0  # torch.func: 2 (= x_2)
    with pytest.raises(RuntimeError, match="should be a tuple: \\(output, aux\\)"):
        F.jacrev(lambda a: a.sin(), has_aux=True)(D.tensor([0.5, 1.0]))
    o = F.vmap(lambda a: {"a": a * 2, "b": a.sum()}, out_dims={"a": 1, "b": 0})(D.tensor(X[:, :2]))
    assert o["a"].shape == (2, 4) and o["b"].shape == (4,)
    ms = [D.nn.Linear(2, 2) for _ in range(3)]
    for m in ms:
        m.weight.requires_grad_(False)
    p, _ = F.stack_module_state(ms)
    assert not p["weight"].requires_grad and p["bias"].requires_grad
