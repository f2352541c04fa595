"""vmap of the linalg, contraction, conv and nn.functional Functions beyond the op database's
per-op vmap checks (tests/test_op_db.py over tests/op_db/, including tests/op_db/vmap_linalg.py):
nested vmap, an MLP under vmap, per-example gradients, jacrev/jacfwd inside vmap, and embedding
with batched indices.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.func import grad, vmap
from dyngrad.nn import functional as F
from dyngrad.ops import conv as _cv
from tests.func.vmap_checks import T, _fallbacks

D = dyngrad


def _quiet(fn, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, _fallbacks([str(w.message) for w in caught])


@pytest.mark.parametrize(
    "fn,shapes",
    [
        (lambda a, b: a @ b, [(4, 5), (5,)]),
        (lambda a, b: D.einsum("ij,j->i", a, b), [(4, 5), (5,)]),
        (lambda x, w: F.conv2d(x, w, padding=1), [(1, 2, 4, 4), (3, 2, 3, 3)]),
        (lambda x, w: F.linear(x, w), [(3, 5), (2, 5)]),
    ],
    ids=["matmul", "einsum", "conv2d", "linear"],
)
def test_nested_vmap_equals_a_double_loop(fn, shapes) -> None:  # noqa: ANN001
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((2, 3) + s) for s in shapes]
    out, bad = _quiet(vmap(vmap(fn)), *[T(x) for x in xs])
    want = np.stack([np.stack([fn(*[T(x[i, j]) for x in xs])._data for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(out._data, want, rtol=1e-10, atol=1e-12)
    assert not bad, bad


def test_nested_vmap_with_the_inner_batch_on_the_other_operand() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 4, 3)), rng.standard_normal((5, 3))
    # outer vmap over a's first dim, inner over b's rows: out[i, j] = a[i] @ b[j]
    f = vmap(lambda x, y: vmap(lambda r: x @ r)(y), in_dims=(0, None))
    out, bad = _quiet(f, T(a), T(b))
    np.testing.assert_allclose(out._data, np.einsum("ikm,jm->ijk", a, b), rtol=1e-12)
    assert not bad, bad


def test_mlp_forward_under_vmap_runs_every_op_through_its_rule() -> None:
    D.manual_seed(0)
    model = D.nn.Sequential(D.nn.Linear(4, 8), D.nn.ReLU(), D.nn.Linear(8, 3)).double()
    x = T(np.random.default_rng(2).standard_normal((6, 4)))
    out, bad = _quiet(vmap(lambda a: model(a)), x)
    assert not bad, bad
    np.testing.assert_allclose(out._data, model(x)._data, rtol=1e-12)
    loop = np.stack([model(x[i])._data for i in range(6)])
    np.testing.assert_allclose(out._data, loop, rtol=1e-12)


def test_ensemble_of_linear_layers_under_vmap_runs_batched() -> None:
    rng = np.random.default_rng(4)
    ws, bs, x = T(rng.standard_normal((5, 3, 4))), T(rng.standard_normal((5, 3))), T(rng.standard_normal((7, 4)))
    out, bad = _quiet(vmap(F.linear, in_dims=(None, 0, 0)), x, ws, bs)
    assert not bad, bad
    want = np.stack([x._data @ ws._data[k].T + bs._data[k] for k in range(5)])
    np.testing.assert_allclose(out._data, want, rtol=1e-12)


def test_module_with_full_backward_hook_makes_vmap_loop_over_the_whole_function() -> None:
    lin = D.nn.Linear(3, 2).double()
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(tuple(go[0].shape)))
    x = T(np.random.default_rng(5).standard_normal((4, 3))).requires_grad_()
    out, bad = _quiet(vmap(lambda a: lin(a)), x)
    assert bad and "backward hooks" in bad[0]
    out.sum().backward()
    assert seen == [(2,)] * 4  # each example's hook saw its own gradient


def test_per_example_gradients_of_a_linear_loss() -> None:
    rng = np.random.default_rng(6)
    w, x, t = T(rng.standard_normal((3, 4))), T(rng.standard_normal((5, 4))), T(rng.standard_normal((5, 3)))

    def loss(w, xx, tt):  # noqa: ANN001, ANN202
        return ((F.linear(xx, w) - tt) ** 2).sum()

    g, bad = _quiet(vmap(grad(loss), in_dims=(None, 0, 0)), w, x, t)
    want = np.stack([2 * np.outer(x._data[i] @ w._data.T - t._data[i], x._data[i]) for i in range(5)])
    np.testing.assert_allclose(g._data, want, rtol=1e-10)
    assert not bad, bad


@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("tables", ["shared", "per_example"])
def test_embedding_with_batched_indices_equals_a_loop_with_gradients(tables, padding_idx) -> None:  # noqa: ANN001
    rng = np.random.default_rng(7)
    idx = D.tensor(rng.integers(0, 5, (4, 2, 3)))
    w = T(rng.standard_normal((4, 5, 3) if tables == "per_example" else (5, 3))).requires_grad_()
    wd = 0 if tables == "per_example" else None
    f = lambda ww, i: F.embedding(i, ww, padding_idx=padding_idx)  # noqa: E731
    out, bad = _quiet(vmap(f, in_dims=(wd, 0)), w, idx)
    assert not bad, bad
    per = [w[k] if wd == 0 else w for k in range(4)]
    want = np.stack([f(per[k], idx[k])._data for k in range(4)])
    np.testing.assert_allclose(out._data, want, rtol=1e-12)
    v = T(rng.standard_normal(out.shape))
    (g,) = D.autograd.grad(out, [w], v)
    w2 = T(w._data).requires_grad_()
    per2 = [w2[k] if wd == 0 else w2 for k in range(4)]
    loop = D.stack([f(per2[k], idx[k]) for k in range(4)])
    (g2,) = D.autograd.grad(loop, [w2], v)
    np.testing.assert_allclose(g._data, g2._data, rtol=1e-12)
    if padding_idx is not None:
        assert not np.any(g._data[..., padding_idx, :])


def test_embedding_index_out_of_one_examples_table_raises_under_vmap() -> None:
    w = T(np.zeros((2, 3, 4)))
    idx = D.tensor([[0, 2], [3, 1]])  # 3 is past each example's 3 rows (but inside the stacked 6)
    with pytest.raises(IndexError, match="out of range"):
        vmap(lambda ww, i: F.embedding(i, ww))(w, idx)


def test_per_example_gradients_of_an_embedding_model() -> None:
    rng = np.random.default_rng(8)
    emb, lin = T(rng.standard_normal((6, 3))), T(rng.standard_normal((2, 3)))
    idx, t = D.tensor(rng.integers(0, 6, (5, 4))), T(rng.standard_normal((5, 2)))

    def loss(e, w, i, tt):  # noqa: ANN001, ANN202
        return ((F.linear(F.embedding(i, e).mean(0), w) - tt) ** 2).sum()

    (ge, gw), bad = _quiet(vmap(grad(loss, argnums=(0, 1)), in_dims=(None, None, 0, 0)), emb, lin, idx, t)
    for k in range(5):
        we, ww = grad(loss, argnums=(0, 1))(emb, lin, idx[k], t[k])
        np.testing.assert_allclose(ge._data[k], we._data, rtol=1e-10)
        np.testing.assert_allclose(gw._data[k], ww._data, rtol=1e-10)
    assert not bad, bad


_GRAD_CASES = {
    "trace": (lambda a: D.trace(a) ** 2, (3, 3)),
    "diagonal": (lambda a: (D.diagonal(a, 1) ** 2).sum(), (3, 4)),
    "diag_embed": (lambda a: (D.diag_embed(a) ** 2).sum(), (2, 3)),
    "tril": (lambda a: (D.tril(a) ** 2).sum(), (3, 3)),
    "matmul_vec": (lambda a: ((a @ a.mT @ a[0]) ** 2).sum(), (3, 3)),
    "dot": (lambda a: D.dot(a, a) ** 2, (3,)),
    "einsum": (lambda a: D.einsum("ij,jk->", a, a.mT) ** 2, (2, 3)),
    "conv2d": (lambda a: (F.conv2d(a.reshape(1, 1, 4, 4), a.reshape(1, 1, 4, 4)[..., :2, :2], padding=1) ** 2).sum(),
               (4, 4)),
    "max_pool": (lambda a: (_cv.max_pool(a.reshape(1, 1, 4, 4), (2, 2), (1, 1), (0,) * 4, (1, 1), False)[0] ** 2).sum(),
                 (4, 4)),
    "constant_pad": (lambda a: (_cv.ConstantPad.apply(a, (1, -1), 2.0) ** 2).sum(), (2, 3)),
    "linear": (lambda a: (F.linear(a, a, a[0]) ** 2).sum(), (3, 3)),
}


@pytest.mark.parametrize("name", list(_GRAD_CASES))
def test_grad_and_grad_of_grad_inside_vmap_equal_per_example_ones(name) -> None:  # noqa: ANN001
    f, shape = _GRAD_CASES[name]
    x = T(np.random.default_rng(9).standard_normal((3,) + shape))
    gg_f = lambda a: (grad(f)(a) ** 2).sum()  # noqa: E731
    (g, gg), bad = _quiet(lambda: (vmap(grad(f))(x), vmap(grad(gg_f))(x)))
    assert not bad, bad
    np.testing.assert_allclose(g._data, np.stack([grad(f)(x[i])._data for i in range(3)]), rtol=1e-10)
    np.testing.assert_allclose(gg._data, np.stack([grad(gg_f)(x[i])._data for i in range(3)]), rtol=1e-10)


@pytest.mark.parametrize("name", list(_GRAD_CASES))
def test_jacrev_equals_jacfwd_and_vmapped_jvp_equals_a_loop(name) -> None:  # noqa: ANN001
    from dyngrad.func import jacfwd, jacrev, jvp

    f, shape = _GRAD_CASES[name]
    rng = np.random.default_rng(10)
    x, t = T(rng.standard_normal(shape)), T(rng.standard_normal((3,) + shape))
    (jr, jf, jv), bad = _quiet(lambda: (jacrev(f)(x), jacfwd(f)(x), vmap(lambda u: jvp(f, (x,), (u,))[1])(t)))
    assert not bad, bad
    np.testing.assert_allclose(jr._data, jf._data, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jv._data, np.stack([jvp(f, (x,), (t[i],))[1]._data for i in range(3)]), rtol=1e-10)
