"""vmap batching rules of the reduction family, sorting and the fused ops beyond the shared
op table (tests/func/test_vmap_rules.py): 0-d examples, "all dims" reductions with
keepdim, negative dims, tuple outputs, nll_loss layouts and batched targets, the other
users of the normalisation core, and nested vmap.

Each table entry is (name, function of tensors, per-example input shapes, domain, the
Function whose rule must run), checked like the shared table: batch dim first, last and
only the first input batched, against a loop, with no per-op loop for that Function, and
gradients through vmap equal to per-example gradients.
"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.func import vmap
from dyngrad.ops import arg_reduce as _ar_re
from dyngrad.ops import fused as _fu
from dyngrad.ops import reduction as _re
from dyngrad.ops import sorting as _so
from dyngrad.ops import statistics as _st
from tests.func.vmap_checks import WHERE, T, _fallbacks, _run_vmap, check_gradients, check_values

D = dyngrad
F = dyngrad.nn.functional
I = lambda *a: D.tensor(list(a))  # noqa: E731, E741 - int64 class indices

TABLE = [
    ("sum_0d", lambda a: a.sum(), [()], "real", _re.SumAll),
    ("sum_neg_dim", lambda a: a.sum(-1), [(2, 3)], "real", _re.Sum),
    ("sum_all_keepdim", lambda a: a.sum(None, keepdim=True), [(2, 3)], "real", _re.SumAll),
    ("mean_all_keepdim", lambda a: a.mean(None, keepdim=True), [(2, 3, 2)], "real", _re.MeanAll),
    ("mean_0d", lambda a: a.mean(), [()], "real", _re.MeanAll),
    ("prod_0d", lambda a: D.prod(a), [()], "real", _re.ProdAll),
    ("prod_keepdim_zero", lambda a: D.prod(a * T([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0]]), 1, keepdim=True), [(3, 2)],
     "real", _re.Prod),
    ("prod_all_zero", lambda a: D.prod(a * T([1.0, 0.0, 1.0])), [(3,)], "real", _re.ProdAll),
    ("amax_dims", lambda a: D.amax(a, (0, 2)), [(2, 3, 2)], "real", _re.Amax),
    ("amax_all_keepdim", lambda a: D.amax(a, (), keepdim=True), [(2, 3)], "real", _re.Amax),
    ("amin_0d", lambda a: D.amin(a), [()], "real", _re.Amin),
    ("max_all_0d", lambda a: D.max(a), [()], "real", _re.MaxAll),
    ("max_dim_indices", lambda a: D.max(a, 0).values + D.max(a, 0).indices, [(3, 2)], "real", _re.MaxDim),
    ("min_dim_neg_keepdim", lambda a: D.min(a, -1, keepdim=True).values, [(2, 3)], "real", _re.MinDim),
    ("max_dim_0d", lambda a: D.max(a, 0).values, [()], "real", _re.MaxDim),
    ("min_dim_0d_keepdim", lambda a: D.min(a, 0, keepdim=True).values, [()], "real", _re.MinDim),
    ("var_dims_correction0", lambda a: D.var(a, (0, 2), correction=0), [(2, 3, 2)], "real", _st.Var),
    ("std_all_keepdim", lambda a: D.std(a, None, keepdim=True), [(2, 3)], "real", _st.Std),
    ("var_mean_all", lambda a: D.stack(D.var_mean(a)), [(2, 3)], "real", _st.VarMean),
    ("std_mean_neg", lambda a: D.stack(D.std_mean(a, -1)), [(3, 4)], "real", _st.StdMean),
    ("logsumexp_all", lambda a: D.logsumexp(a, ()), [(2, 3)], "real", _st.Logsumexp),
    ("logsumexp_0d", lambda a: D.logsumexp(a, 0), [()], "real", _st.Logsumexp),
    ("norm_fro", lambda a: D.norm(a), [(2, 3)], "real", _st.VectorNorm),
    ("norm_neg_inf_keepdim", lambda a: D.linalg.vector_norm(a, float("-inf"), 0, keepdim=True), [(3, 2)], "real",
     _st.VectorNorm),
    ("cumsum_neg", lambda a: D.cumsum(a, -2), [(3, 2)], "real", _st.Cumsum),
    ("cumsum_0d", lambda a: D.cumsum(a, 0), [()], "real", _st.Cumsum),
    ("cumprod_dim0", lambda a: D.cumprod(a, 0), [(3, 2)], "real", _st.Cumprod),
    ("cumprod_zero", lambda a: D.cumprod(a * T([1.0, 0.0, 1.0, 0.0]), 0), [(4,)], "real", _st.Cumprod),
    ("cumprod_0d", lambda a: D.cumprod(a, 0), [()], "real", _st.Cumprod),
    ("sort_ascending_dim0", lambda a: D.sort(a, 0).values, [(3, 2)], "real", _so.Sort),
    ("sort_indices", lambda a: D.sort(a).indices * 1.0 + a.sum(), [(4,)], "real", _so.Sort),
    ("sort_0d", lambda a: D.sort(a).values, [()], "real", _so.Sort),
    ("topk_smallest_neg", lambda a: D.topk(a, 2, -1, largest=False).values, [(2, 4)], "real", _so.Topk),
    ("argmax_all", lambda a: D.argmax(a) * 1.0, [(2, 3)], "real", _ar_re.NoGradReduce),
    ("argmax_all_keepdim", lambda a: D.argmax(a, keepdim=True) * 1.0, [(2, 3)], "real", _ar_re.NoGradReduce),
    ("argmin_dim_keepdim", lambda a: D.argmin(a, 0, keepdim=True) * 1.0, [(3, 2)], "real", _ar_re.NoGradReduce),
    ("argmax_0d", lambda a: D.argmax(a, 0) * 1.0, [()], "real", _ar_re.NoGradReduce),
    ("all_any_count_nonzero", lambda a: D.all(D.relu(a), 1, keepdim=True) * 1.0 + D.any(D.relu(a), 0, keepdim=True) * 2.0
     + D.count_nonzero(D.relu(a)) * 4.0, [(3, 4)], "real", _ar_re.NoGradReduce),
    ("argsort", lambda a: D.argsort(a, 0, descending=True) * 1.0, [(4, 2)], "real", _so.Sort),
    ("softmax_0d", lambda a: D.softmax(a, 0), [()], "real", _fu.Softmax),
    ("softmax_neg_3d", lambda a: D.softmax(a, -1), [(2, 2, 3)], "real", _fu.Softmax),
    ("log_softmax_dtype", lambda a: D.log_softmax(a, 1, dtype=D.float64), [(2, 3)], "real", _fu.LogSoftmax),
    ("nll_loss_sum", lambda a: F.nll_loss(a, I(0, 2, 1), reduction="sum"), [(3, 4)], "real", _fu.NllLoss),
    ("nll_loss_1d", lambda a: F.nll_loss(a, D.tensor(2)), [(4,)], "real", _fu.NllLoss),
    ("nll_loss_1d_none", lambda a: F.nll_loss(a, D.tensor(1), reduction="none"), [(3,)], "real", _fu.NllLoss),
    ("nll_loss_spatial_none", lambda a: F.nll_loss(a, I([0, 2], [1, 1]), reduction="none"), [(2, 3, 2)], "real",
     _fu.NllLoss),
    ("nll_loss_spatial_mean", lambda a: F.nll_loss(a, I([[0, 2], [1, 1]], [[2, 2], [0, 1]])), [(2, 3, 2, 2)],
     "real", _fu.NllLoss),
    ("nll_loss_weight_ignore", lambda a: F.nll_loss(a, I(0, 2, 1, 2), weight=T([0.5, 2.0, 1.5]), ignore_index=1),
     [(4, 3)], "real", _fu.NllLoss),
    ("nll_loss_all_ignored", lambda a: F.nll_loss(a, I(1, 1), ignore_index=1), [(2, 3)], "real", _fu.NllLoss),
    ("cross_entropy_spatial", lambda a: F.cross_entropy(a, I([0, 2], [1, 0])), [(2, 3, 2)], "real", _fu.NllLoss),
    ("cross_entropy_1d_smoothing", lambda a: F.cross_entropy(a, D.tensor(1), label_smoothing=0.1), [(3,)], "real",
     _fu.NllLoss),
    ("log_sigmoid_0d", lambda a: _fu.log_sigmoid(a), [()], "real", _fu._LogSigmoid),
    ("smooth_l1_broadcast", lambda a, b: _fu.SmoothL1.apply(a, b, 0.5), [(2, 3), (3,)], "real", _fu.SmoothL1),
    ("smooth_l1_mean", lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), [(2, 3), (2, 3)], "real", _fu.SmoothL1),
    ("huber", lambda a, b: F.huber_loss(a, b, delta=0.7), [(4,), (4,)], "real", _fu.SmoothL1),
    ("bce_weighted_mean", lambda a, b, w: F.binary_cross_entropy(D.sigmoid(a), D.sigmoid(b), weight=w.abs()),
     [(2, 3), (2, 3), (3,)], "real", _fu.BinaryCrossEntropy),
    ("layer_norm_affine_2d", lambda a, w, b: F.layer_norm(a, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)], "real",
     _fu.NormalizeStats),
    ("batch_norm_training", lambda a: F.batch_norm(a, None, None, training=True), [(4, 3)], "real",
     _fu.NormalizeStats),
    ("group_norm", lambda a: F.group_norm(a, 2), [(2, 4, 3)], "real", _fu.NormalizeStats),
]
IDS = [r[0] for r in TABLE]


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_vmap_equals_a_loop_and_runs_the_ops_batching_rule(name, fn, shapes, domain, cls, where) -> None:  # noqa: ANN001
    check_values(name, fn, shapes, domain, cls, where)


@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_gradients_through_vmap_equal_gradients_through_a_loop(name, fn, shapes, domain, cls) -> None:  # noqa: ANN001
    check_gradients(name, fn, shapes, domain)


def test_tuple_outputs_of_max_sort_and_var_mean_are_all_batched() -> None:
    x = np.random.default_rng(0).standard_normal((3, 2, 4))
    _, (v, i), msgs = _run_vmap(lambda a: tuple(D.max(a, 1)), [x], (0,))
    np.testing.assert_allclose(v.data, x.max(2))
    np.testing.assert_array_equal(i.data, x.argmax(2))
    _, (sv, si), _ = _run_vmap(lambda a: tuple(D.sort(a, 0, descending=True)), [x], (-1,))
    xm = np.moveaxis(x, -1, 0)
    np.testing.assert_array_equal(si.data, np.argsort(-xm, axis=1, kind="stable"))
    np.testing.assert_allclose(sv.data, -np.sort(-xm, axis=1))
    _, (var, mean), _ = _run_vmap(lambda a: D.var_mean(a, 0), [x], (1,))
    np.testing.assert_allclose(var.data, np.moveaxis(x, 1, 0).var(1, ddof=1))
    np.testing.assert_allclose(mean.data, np.moveaxis(x, 1, 0).mean(1))
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
        np.testing.assert_allclose(out.data[k], want.data, rtol=1e-12)
        (gk,) = dyngrad.autograd.grad(want, [leaf], T(v[k]))
        np.testing.assert_allclose(g.data[k], gk.data, rtol=1e-12, atol=1e-15)


def test_nll_loss_with_only_the_targets_batched_expands_the_input() -> None:
    x = T(np.random.default_rng(2).standard_normal((3, 4))).requires_grad_()
    t = D.tensor([[0, 1, 2], [3, 3, 0]])
    out = vmap(lambda tt: F.nll_loss(x, tt), in_dims=(0,))(t)
    want = D.stack([F.nll_loss(x, t[0]), F.nll_loss(x, t[1])])
    np.testing.assert_allclose(out.data, want.data)
    (g,) = dyngrad.autograd.grad(out.sum(), [x])
    (gw,) = dyngrad.autograd.grad(want.sum(), [x])
    np.testing.assert_allclose(g.data, gw.data)


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
    want = np.array([[f(T(x[i, j])).data for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(out.data, want, rtol=1e-12)
    mine = {"LogSoftmax", "NllLoss", "Logsumexp", "Cumsum", "Amax", "Sort", "Var", "MaxDim", "SumAll", "Sum"}
    assert not [m for m in rec.messages if "fell back to a loop" in m]
    looped = {n for m in _fallbacks(rec.messages) for n in m.split("for ", 1)[1].split(";")[0].split(", ")}
    assert not looped & mine, looped
    (g,) = dyngrad.autograd.grad(out.sum(), [xt])
    for i in range(2):
        for j in range(3):
            leaf = T(x[i, j]).requires_grad_()
            (gw,) = dyngrad.autograd.grad(f(leaf), [leaf])
            np.testing.assert_allclose(g.data[i, j], gw.data, rtol=1e-10, atol=1e-12)


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
