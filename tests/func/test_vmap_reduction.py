"""vmap of the reductions, sorting and the fused ops beyond the op database's per-op vmap
checks (tests/test_op_db.py over tests/op_db/, including tests/op_db/vmap_reduction.py): tuple
outputs, nll_loss with batched targets, the other users of the normalisation core, and nested
vmap.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.func import vmap
from tests.func.vmap_checks import T, _fallbacks, _run_vmap

D = dyngrad
F = dyngrad.nn.functional
I = lambda *a: D.tensor(list(a))  # noqa: E731, E741 - int64 class indices



def test_tuple_outputs_of_max_sort_and_var_mean_are_all_batched() -> None:
    x = np.random.default_rng(0).standard_normal((3, 2, 4))
    _, (v, i), msgs = _run_vmap(lambda a: tuple(D.max(a, 1)), [x], (0,))
    np.testing.assert_allclose(v._data, x.max(2))
    np.testing.assert_array_equal(i._data, x.argmax(2))
    _, (sv, si), _ = _run_vmap(lambda a: tuple(D.sort(a, 0, descending=True)), [x], (-1,))
    xm = np.moveaxis(x, -1, 0)
    np.testing.assert_array_equal(si._data, np.argsort(-xm, axis=1, kind="stable"))
    np.testing.assert_allclose(sv._data, -np.sort(-xm, axis=1))
    _, (var, mean), _ = _run_vmap(lambda a: D.var_mean(a, 0), [x], (1,))
    np.testing.assert_allclose(var._data, np.moveaxis(x, 1, 0).var(1, ddof=1))
    np.testing.assert_allclose(mean._data, np.moveaxis(x, 1, 0).mean(1))
    assert not _fallbacks(msgs)


def test_namedtuple_outputs_come_back_as_the_same_namedtuple() -> None:
    out = vmap(lambda a: D.max(a, 0))(T(np.arange(6.0).reshape(2, 3)))
    assert type(out).__name__ == "max" and out.indices.shape == (2,)


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 4, 3)], ids=["C", "NC", "NCd"])
def test_nll_loss_with_batched_targets_equals_a_loop_with_gradients(reduction: str, shape: tuple) -> None:
    rng = np.random.default_rng(1)
    n = 3
    x = rng.standard_normal((n,) + shape)
    tshape = shape[:1] + shape[2:] if len(shape) > 1 else ()
    t = rng.integers(0, 4, size=(n,) + tshape)
    t[0] = 3  # example 0: every target ignored ('mean': nan, and no gradient)
    w = T([0.5, 1.0, 2.0, 1.5])

    def f(a, tt):  # noqa: ANN001, ANN202
        return F.nll_loss(a, tt, weight=w, ignore_index=3, reduction=reduction)

    xt = T(x).requires_grad_()
    out = vmap(f, in_dims=(0, 0))(xt, D.tensor(t))
    v = rng.standard_normal(out.shape)
    (g,) = dyngrad.autograd.grad(out, [xt], T(v))
    for k in range(n):
        leaf = T(x[k]).requires_grad_()
        want = f(leaf, D.tensor(t[k]))
        np.testing.assert_allclose(out._data[k], want._data, rtol=1e-12)
        (gk,) = dyngrad.autograd.grad(want, [leaf], T(v[k]))
        np.testing.assert_allclose(g._data[k], gk._data, rtol=1e-12, atol=1e-15)


def test_nll_loss_with_only_the_targets_batched_expands_the_input() -> None:
    x = T(np.random.default_rng(2).standard_normal((3, 4))).requires_grad_()
    t = D.tensor([[0, 1, 2], [3, 3, 0]])
    out = vmap(lambda tt: F.nll_loss(x, tt), in_dims=(0,))(t)
    want = D.stack([F.nll_loss(x, t[0]), F.nll_loss(x, t[1])])
    np.testing.assert_allclose(out._data, want._data)
    (g,) = dyngrad.autograd.grad(out.sum(), [x])
    (gw,) = dyngrad.autograd.grad(want.sum(), [x])
    np.testing.assert_allclose(g._data, gw._data)


def test_nested_vmap_of_reductions_and_losses_equals_the_double_loop() -> None:
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 4, 5))  # outer batch 2, inner batch 3, examples (4, 5)
    target = D.tensor([1, 0, 4, 2])

    def f(a):  # noqa: ANN001, ANN202
        p = D.log_softmax(a, 1)
        return (F.nll_loss(p, target) + D.logsumexp(a, 0).cumsum(0)[-1] + a.amax() + D.sort(a, 1).values[0, 1]
                + D.var(a, None) + D.max(a, 0).values.sum())

    xt = T(x).requires_grad_()
    with _Recorder() as rec:
        out = vmap(vmap(f))(xt)
    want = np.array([[f(T(x[i, j]))._data for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(out._data, want, rtol=1e-12)
    mine = {"LogSoftmax", "NllLoss", "Logsumexp", "Cumsum", "Amax", "Sort", "Var", "MaxDim", "SumAll", "Sum"}
    assert not [m for m in rec.messages if "fell back to a loop" in m]
    looped = {n for m in _fallbacks(rec.messages) for n in m.split("for ", 1)[1].split(";")[0].split(", ")}
    assert not looped & mine, looped
    (g,) = dyngrad.autograd.grad(out.sum(), [xt])
    for i in range(2):
        for j in range(3):
            leaf = T(x[i, j]).requires_grad_()
            (gw,) = dyngrad.autograd.grad(f(leaf), [leaf])
            np.testing.assert_allclose(g._data[i, j], gw._data, rtol=1e-10, atol=1e-12)


class _Recorder:
    """Record every warning raised inside the block (``messages``)."""

    def __enter__(self):  # noqa: ANN204
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self._caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc: object) -> None:
        self.messages = [str(w.message) for w in self._caught]
        self._cm.__exit__(*exc)
