"""The ops added for issue 12, without PyTorch: counting ops against NumPy, documented edge
cases, and errors. Gradients and golden values are in the op database (tests/op_db/apisurface.py);
the live comparison is tests/oracle/test_apisurface_ops_oracle.py."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad as torch


def test_unique_returns_sorted_values_inverse_and_counts_that_rebuild_the_input():
    a = np.array([[3, 1], [3, 2], [0, 1]])
    out, inv, counts = torch.unique(torch.tensor(a), return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(out.numpy(), np.unique(a))
    np.testing.assert_array_equal(out.numpy()[inv.numpy()], a)
    assert inv.shape == a.shape and inv.dtype == torch.int64
    np.testing.assert_array_equal(counts.numpy(), [np.sum(a == v) for v in np.unique(a)])


def test_unique_consecutive_collapses_runs_only():
    x = torch.tensor([1, 1, 2, 2, 1, 3, 3, 3])
    out, counts = torch.unique_consecutive(x, return_counts=True)
    assert out.tolist() == [1, 2, 1, 3] and counts.tolist() == [2, 2, 1, 3]


def test_bincount_counts_and_weights_keep_pytorchs_dtypes():
    x = torch.tensor([0, 2, 2, 5])
    assert torch.bincount(x).tolist() == [1, 0, 2, 0, 0, 1]
    assert torch.bincount(x, minlength=8).shape == (8,)
    w32 = torch.bincount(x, torch.tensor([1.0, 2.0, 3.0, 4.0]))
    assert w32.dtype == torch.float32 and w32.tolist() == [1.0, 0.0, 5.0, 0.0, 0.0, 4.0]
    assert torch.bincount(x, torch.tensor([1, 2, 3, 4])).dtype == torch.float64
    with pytest.raises(RuntimeError, match="non-negative"):
        torch.bincount(torch.tensor([-1, 0]))


def test_searchsorted_and_bucketize_agree_with_numpy_on_both_sides():
    seq = np.array([0.0, 1.0, 1.0, 3.0])
    vals = np.array([-1.0, 1.0, 2.0, 3.0, 9.0])
    for right in (False, True):
        got = torch.searchsorted(torch.tensor(seq), torch.tensor(vals), right=right)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(seq, vals, side="right" if right else "left"))
        assert got.dtype == torch.int64
        b = torch.bucketize(torch.tensor(vals), torch.tensor(seq), right=right, out_int32=True)
        assert b.dtype == torch.int32 and b.tolist() == got.tolist()
    rows = torch.searchsorted(torch.tensor([[0, 5], [10, 20]]), torch.tensor([[3], [15]]))
    assert rows.tolist() == [[1], [1]]
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        torch.searchsorted(torch.tensor(seq), torch.tensor(vals), right=True, side="left")


def test_histc_counts_values_in_equal_bins_of_the_data_range():
    x = torch.tensor([1.0, 2.0, 1.0, 4.0])
    h = torch.histc(x, bins=3)
    np.testing.assert_array_equal(h.numpy(), np.histogram(x.numpy(), bins=3, range=(1.0, 4.0))[0])
    assert h.dtype == torch.float32


def test_cummax_takes_the_later_index_on_ties_and_keeps_a_nan():
    v, i = torch.cummax(torch.tensor([1.0, 3.0, 3.0, 2.0, float("nan"), 5.0]), 0)
    assert i.tolist() == [0, 1, 2, 2, 4, 4]
    assert v.tolist()[:4] == [1.0, 3.0, 3.0, 3.0] and np.isnan(v.numpy()[4:]).all()


def test_cummax_gradient_goes_to_the_selected_elements():
    x = torch.tensor([2.0, 1.0, 4.0, 3.0], requires_grad=True)
    torch.cummax(x, 0).values.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0, 0.0]


def test_logcumsumexp_does_not_overflow_and_matches_the_stable_definition():
    a = np.array([1000.0, 1000.0, -1000.0, 999.0])
    got = torch.logcumsumexp(torch.tensor(a), 0).numpy()
    np.testing.assert_allclose(got, np.logaddexp.accumulate(a))
    assert np.isfinite(got).all()
    x = torch.tensor(a, requires_grad=True)
    torch.logcumsumexp(x, 0)[-1].backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(a - np.logaddexp.reduce(a)), atol=1e-12)


def test_median_without_dim_splits_the_gradient_among_equal_values():
    x = torch.tensor([1.0, 2.0, 2.0, 5.0], requires_grad=True)
    m = torch.median(x)
    assert m.item() == 2.0  # the lower of the two middle values
    m.backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5, 0.0]


def test_median_with_dim_returns_values_and_indices_that_index_the_input():
    a = np.random.default_rng(0).standard_normal((3, 5))
    r = torch.median(torch.tensor(a), 1)
    np.testing.assert_array_equal(r.values.numpy(), np.sort(a, 1)[:, 2])
    np.testing.assert_array_equal(np.take_along_axis(a, r.indices.numpy()[:, None], 1)[:, 0], r.values.numpy())


def test_quantile_linear_matches_numpy_and_vector_q_leads_the_shape():
    a = np.random.default_rng(1).standard_normal((4, 7))
    q = np.array([0.1, 0.5, 0.95])
    got = torch.quantile(torch.tensor(a), torch.tensor(q), dim=1)
    assert got.shape == (3, 4)
    np.testing.assert_allclose(got.numpy(), np.quantile(a, q, axis=1))
    for how in ("lower", "higher", "nearest", "midpoint"):
        np.testing.assert_allclose(torch.quantile(torch.tensor(a), 0.4, 0, interpolation=how).numpy(),
                                   np.quantile(a, 0.4, axis=0, method=how))
    with pytest.raises(RuntimeError, match=r"q values must be in the range \[0, 1\]"):
        torch.quantile(torch.tensor(a), 1.5)


def test_nanmean_ignores_nans_and_gives_them_zero_gradient():
    a = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]])
    x = torch.tensor(a, requires_grad=True)
    m = torch.nanmean(x, 1)
    assert m.tolist()[0] == 2.0 and np.isnan(m.detach().numpy()[1])
    m[0].backward()
    assert x.grad.tolist()[0] == [0.5, 0.0, 0.5]
    # an all-NaN row: dyngrad's gradient is 0 there (PyTorch's is NaN: 0 * inf in its nansum)
    x.grad = None
    m = torch.nanmean(x, 1)
    m[1].backward()
    assert x.grad.tolist()[1] == [0.0, 0.0, 0.0]


def test_repeat_interleave_repeats_each_element_in_place_order():
    x = torch.tensor([[1, 2], [3, 4]])
    assert torch.repeat_interleave(x, 2).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert x.repeat_interleave(torch.tensor([1, 2]), dim=0).tolist() == [[1, 2], [3, 4], [3, 4]]
    assert torch.repeat_interleave(torch.tensor([2, 0, 1])).tolist() == [0, 0, 2]
    with pytest.raises(RuntimeError, match="repeats must have the same size"):
        torch.repeat_interleave(x, torch.tensor([1, 2, 3]), dim=0)


def test_meshgrid_ij_and_xy_index_as_numpy():
    a, b = torch.arange(3), torch.arange(4)
    for how in ("ij", "xy"):
        got = torch.meshgrid(a, b, indexing=how)
        ref = np.meshgrid(np.arange(3), np.arange(4), indexing=how)
        for g, r in zip(got, ref):
            np.testing.assert_array_equal(g.numpy(), r)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.meshgrid(a, b)
    assert any("indexing argument" in str(x.message) for x in w)


def test_kron_and_cross_match_numpy():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
    np.testing.assert_allclose(torch.kron(torch.tensor(a), torch.tensor(b)).numpy(), np.kron(a, b))
    u, v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    np.testing.assert_allclose(torch.linalg.cross(torch.tensor(u), torch.tensor(v)).numpy(), np.cross(u, v))
    with pytest.raises(RuntimeError, match="must have length 3"):
        torch.linalg.cross(torch.ones(2, 4), torch.ones(2, 4))


def test_addmm_with_beta_zero_ignores_nan_in_input():
    out = torch.addmm(torch.full((2, 2), float("nan")), torch.eye(2), torch.ones(2, 2), beta=0)
    assert out.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_scatter_reduce_reductions_match_a_loop():
    x = np.array([1.0, 2.0, 3.0])
    src = np.array([4.0, -1.0, 5.0, 0.5])
    idx = np.array([0, 0, 2, 2])
    ops = {"sum": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}
    for reduce, ufunc in ops.items():
        for incl in (True, False):
            ref = x.copy()
            if not incl:
                ref[np.unique(idx)] = {"sum": 0.0, "prod": 1.0, "amax": -np.inf, "amin": np.inf}[reduce]
            ufunc.at(ref, idx, src)
            got = torch.scatter_reduce(torch.tensor(x), 0, torch.tensor(idx), torch.tensor(src), reduce,
                                       include_self=incl)
            np.testing.assert_allclose(got.numpy(), ref, err_msg=f"{reduce} include_self={incl}")
    mean = torch.scatter_reduce(torch.tensor(x), 0, torch.tensor(idx), torch.tensor(src), "mean")
    np.testing.assert_allclose(mean.numpy(), [(1 + 4 - 1) / 3, 2.0, (3 + 5 + 0.5) / 3])


def test_scatter_reduce_amax_shares_add_up_when_self_is_excluded():
    # input 5.0 at position 0 equals the result but takes no part (include_self=False): it gets no share
    x = torch.tensor([5.0, 0.0], requires_grad=True)
    s = torch.tensor([5.0, 1.0], requires_grad=True)
    out = torch.scatter_reduce(x, 0, torch.tensor([0, 0]), s, "amax", include_self=False)
    out[0].backward()
    assert s.grad.tolist() == [1.0, 0.0] and x.grad.tolist() == [0.0, 0.0]


def test_index_put_accumulate_sums_repeated_indices_and_the_in_place_form_returns_self():
    x = torch.zeros(3)
    out = torch.index_put(x, (torch.tensor([0, 0, 2]),), torch.tensor([1.0, 2.0, 5.0]), accumulate=True)
    assert out.tolist() == [3.0, 0.0, 5.0] and x.tolist() == [0.0, 0.0, 0.0]
    assert x.index_put_((torch.tensor([1]),), torch.tensor(7.0)) is x and x.tolist() == [0.0, 7.0, 0.0]
    with pytest.raises(TypeError, match="must be tuple of Tensors"):
        torch.index_put(x, torch.tensor([0]), torch.tensor(1.0))


def test_pinv_lstsq_and_matrix_power_match_numpy():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    np.testing.assert_allclose(torch.linalg.pinv(torch.tensor(a)).numpy(), np.linalg.pinv(a), atol=1e-12)
    sol = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(sol.solution.numpy(), np.linalg.lstsq(a, b, rcond=None)[0], atol=1e-12)
    assert sol.rank.item() == 3
    m = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(torch.linalg.matrix_power(torch.tensor(m), 5).numpy(), np.linalg.matrix_power(m, 5))
    np.testing.assert_allclose(torch.linalg.matrix_power(torch.tensor(m), -1).numpy(), np.linalg.inv(m))


def test_pinv_of_a_rank_deficient_matrix_drops_the_null_direction():
    a = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    np.testing.assert_allclose(torch.linalg.pinv(torch.tensor(a)).numpy(), np.linalg.pinv(a), atol=1e-12)


def test_cholesky_solve_solves_with_the_factor():
    rng = np.random.default_rng(4)
    m = rng.standard_normal((3, 3))
    spd = m @ m.T + 3 * np.eye(3)
    L = np.linalg.cholesky(spd)
    b = rng.standard_normal((3, 2))
    np.testing.assert_allclose(torch.cholesky_solve(torch.tensor(b), torch.tensor(L)).numpy(),
                               np.linalg.solve(spd, b))
    np.testing.assert_allclose(torch.cholesky_solve(torch.tensor(b), torch.tensor(L.T), upper=True).numpy(),
                               np.linalg.solve(spd, b))


def test_lu_factor_rebuilds_the_input_from_its_packed_factors_and_pivots():
    a = np.random.default_rng(5).standard_normal((2, 4, 4))
    lu, piv = torch.linalg.lu_factor(torch.tensor(a))
    assert piv.dtype == torch.int32 and piv.shape == (2, 4)
    for k in range(2):
        L = np.tril(lu.numpy()[k], -1) + np.eye(4)
        U = np.triu(lu.numpy()[k])
        perm = np.arange(4)
        for i, p in enumerate(piv.numpy()[k] - 1):  # LAPACK's 1-based row swaps, in order
            perm[[i, p]] = perm[[p, i]]
        np.testing.assert_allclose((L @ U), a[k][perm], atol=1e-12)
        assert np.all(np.abs(L) <= 1 + 1e-12)  # partial pivoting: |L| <= 1
    # rectangular inputs factor too (tests/ops/test_api12.py)
    assert torch.linalg.lu_factor(torch.ones(2, 3)).LU.shape == (2, 3)


@pytest.mark.parametrize("which", ["addmm", "addmv", "addr", "baddbmm", "addbmm"])
def test_beta_zero_keeps_input_in_the_graph_with_a_zero_gradient_and_ignores_its_nans(which):
    shapes = {"addmm": ((2, 2), (2, 3), (3, 2)), "addmv": ((2,), (2, 3), (3,)), "addr": ((2, 3), (2,), (3,)),
              "baddbmm": ((4, 2, 2), (4, 2, 3), (4, 3, 2)), "addbmm": ((2, 2), (4, 2, 3), (4, 3, 2))}[which]
    c = torch.full(shapes[0], float("nan")).requires_grad_()
    a, b = torch.ones(*shapes[1], requires_grad=True), torch.ones(*shapes[2])
    y = getattr(torch, which)(c, a, b, beta=0)
    assert y.requires_grad and not y.isnan().any()
    y.sum().backward()
    assert c.grad is not None and (c.grad == 0).all() and a.grad is not None


def test_alpha_zero_ignores_an_infinite_product():
    out = torch.addmm(torch.ones(1, 1), torch.ones(1, 1), torch.full((1, 1), float("inf")), alpha=0)
    assert out.tolist() == [[1.0]]


def test_unique_keeps_every_nan_apart_as_pytorch():
    values, counts = torch.unique(torch.tensor([1.0, float("nan"), float("nan")]), return_counts=True)
    assert values.shape == (3,) and values.isnan().sum().item() == 2 and counts.tolist() == [1, 1, 1]


def test_kthvalue_and_diff_match_pytorchs_values_gradients_and_errors():
    x = torch.tensor([[1.0, 5.0, 2.0, 5.0], [3.0, 3.0, 1.0, 0.0]], requires_grad=True)
    r = torch.kthvalue(x, 2, 1)
    assert r.values.tolist() == [2.0, 1.0] and r.indices.tolist() == [2, 2]  # PyTorch 2.13's output
    keep = x.kthvalue(2, 0, keepdim=True)
    assert keep.values.tolist() == [[3.0, 5.0, 2.0, 5.0]] and keep.indices.tolist() == [[1, 0, 0, 0]]
    (r.values.sum() + keep.values.sum()).backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0, 1.0], [1.0, 0.0, 1.0, 0.0]]
    y = torch.tensor([[1.0, 5.0, 2.0, 5.0], [3.0, 3.0, 1.0, 0.0]], requires_grad=True)
    d2 = torch.diff(y, n=2, dim=1, prepend=torch.zeros(2, 1))
    assert d2.tolist() == [[3.0, -7.0, 6.0], [-3.0, -2.0, 1.0]]
    (d2 * torch.arange(3.0)).sum().backward()
    assert y.grad.tolist() == [[1.0, 0.0, -3.0, 2.0], [1.0, 0.0, -3.0, 2.0]]
    assert torch.diff(torch.tensor([True, False, False])).tolist() == [True, False]
    assert torch.diff(torch.tensor([1, 4, 9])).tolist() == [3, 5]
    assert torch.func.vmap(torch.diff)(y.detach()).shape == (2, 3)
    w = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a: torch.diff(a, 2, 0, append=a[:1]), (w,))
    assert torch.autograd.gradcheck(lambda a: torch.kthvalue(a, 3, 0).values, (w,))
    with pytest.raises(RuntimeError, match="selected number k out of range for dimension 1"):
        torch.kthvalue(torch.ones(2, 3), 4, 1)
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        torch.diff(torch.ones(3), n=-1)
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        torch.diff(torch.tensor(1.0))
