"""The reduction family of the op database (moved from tests/ops/test_reduction.py); golden values
in tests/golden/reduction.npz. The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import numpy as np

import dyngrad as dg
from dyngrad.ops import arg_reduce as _arg_reduce
from dyngrad.ops import reduction as _reduction
from dyngrad.ops import statistics as _statistics
from tests.op_db.info import OpInfo as OpSpec
from tests.op_db.info import skip, update

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "reduction.npz")
INF = float("inf")


def S(name: str, f, **kw) -> OpSpec:
    """A spec written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("zero_dim", False)
    kw.setdefault("zero_size", False)
    kw.setdefault("int_result", None)
    kw.setdefault("shapes", ((2, 3, 4),))
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), **kw)


def _fixed(*arrays):
    """make_inputs returning fixed float64 arrays (ties, zeros)."""
    return lambda rng, shapes: tuple(np.array(a, dtype=np.float64) for a in arrays)


TIES = _fixed([[1.0, 3.0, 3.0, -2.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 2.0, -1.0, 0.0]])
ZEROS = _fixed([[1.5, 0.0, 2.0, -0.5], [1.2, -0.7, 0.8, 2.0], [0.0, 0.0, 3.0, 1.0]])
ONE_ZERO = _fixed([[1.5, 0.0, 2.0, -0.5], [1.2, -0.7, 0.8, 2.0], [0.9, 1.1, 0.0, 1.3]])
ZERO_ROW = _fixed([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])
BIG = _fixed([[1000.0, 999.0, -5.0], [-1000.0, -1001.0, -2000.0]])


def _stack2(m, pair):
    return m.stack(list(pair))


SPECS = [
    S("sum_all", lambda m, x: x.sum(), zero_dim=True, zero_size=True, int_result="same", function=_reduction.SumAll, formerly=('jvp_rules:sum_all', 'jvp_ops:sum')),
    S("sum_dim", lambda m, x: x.sum(1), zero_size=True, int_result="same", function=_reduction.Sum, formerly=('jvp_rules:sum_dim', 'jvp_ops:sum_dim')),
    S("sum_tuple_keepdim", lambda m, x: m.sum(x, (0, -1), keepdim=True), zero_size=True),
    S("sum_empty_tuple", lambda m, x: x.sum(()), shapes=((2, 3),)),
    S("mean_all", lambda m, x: x.mean(), zero_dim=True, zero_size=True, function=_reduction.MeanAll, formerly=('jvp_rules:mean_all',)),
    S("mean_dim", lambda m, x: x.mean(-1), zero_size=True, function=_reduction.Mean, formerly=('jvp_rules:mean_dim', 'jvp_ops:mean')),
    S("mean_tuple_keepdim", lambda m, x: m.mean(x, (0, 2), keepdim=True)),
    S("prod_all", lambda m, x: x.prod(), zero_dim=True, int_result="same", shapes=((2, 3),), function=_reduction.ProdAll, formerly=('jvp_rules:prod_all',)),
    S("prod_dim", lambda m, x: x.prod(1), zero_size=True),
    S("prod_dim_keepdim", lambda m, x: m.prod(x, -1, keepdim=True)),
    S("prod_one_zero_per_row", lambda m, x: x.prod(1), make_inputs=ONE_ZERO, shapes=((3, 4),)),
    S("prod_zeros", lambda m, x: x.prod(1), make_inputs=ZEROS, shapes=((3, 4),)),
    S("prod_three_zeros", lambda m, x: x.prod(), make_inputs=_fixed([[0.0, 2.0], [0.0, 0.0]]), shapes=((2, 2),)),
    S("prod_all_one_zero", lambda m, x: x.prod(), make_inputs=_fixed([[1.5, 0.0], [2.0, -0.5]]), shapes=((2, 2),)),
    S("amax_all", lambda m, x: x.amax(), zero_dim=True, int_result="same"),
    S("amax_dim", lambda m, x: x.amax(1)),
    S("amin_tuple_keepdim", lambda m, x: m.amin(x, (0, 2), keepdim=True)),
    S("amax_ties", lambda m, x: x.amax(1), make_inputs=TIES, shapes=((3, 4),)),
    S("amin_ties_all", lambda m, x: x.amin(), make_inputs=TIES, shapes=((3, 4),)),
    S("max_all", lambda m, x: x.max(), zero_dim=True, function=_reduction.MaxAll, formerly=('jvp_rules:max_all',)),
    S("max_all_ties", lambda m, x: m.max(x), make_inputs=TIES, shapes=((3, 4),)),
    S("min_all", lambda m, x: m.min(x), zero_dim=True, function=_reduction.MinAll, formerly=('jvp_rules:min_all',)),
    S("max_dim_values", lambda m, x: x.max(1).values),
    S("max_dim_keepdim", lambda m, x: m.max(x, -1, keepdim=True)[0]),
    S("min_dim_values", lambda m, x: x.min(dim=0).values),
    S("max_dim_indices", lambda m, x: x.max(1).indices, differentiable=False, function=_reduction.MaxDim, formerly=('vmap_reduction:max_dim_indices',)),
    S("min_dim_indices_keepdim", lambda m, x: m.min(x, 2, True).indices, differentiable=False),
    S("max_dim_ties_indices", lambda m, x: x.max(1).indices, make_inputs=TIES, shapes=((3, 4),), differentiable=False),
    S("min_dim_ties_indices", lambda m, x: m.min(x, 1).indices, make_inputs=TIES, shapes=((3, 4),), differentiable=False),
    S("max_binary", lambda m, x, y: m.max(x, y), shapes=((2, 3), (3,))),
    S("argmax_flat", lambda m, x: x.argmax(), differentiable=False),
    S("argmax_dim", lambda m, x: m.argmax(x, 1), differentiable=False),
    S("argmin_dim_keepdim", lambda m, x: x.argmin(-1, keepdim=True), differentiable=False, function=_arg_reduce.NoGradReduce, formerly=('vmap_reduction:argmin_dim_keepdim',)),
    S("var_all", lambda m, x: x.var(), zero_size=True),
    S("var_dim", lambda m, x: x.var(1)),
    S("var_unbiased_false", lambda m, x: x.var(1, False)),
    S("var_correction0_keepdim", lambda m, x: m.var(x, (0, 2), correction=0, keepdim=True)),
    S("var_correction2", lambda m, x: x.var(-1, correction=2)),
    S("var_positional_bool", lambda m, x: m.var(x, False)),
    S("std_all", lambda m, x: x.std()),
    S("std_dim_keepdim", lambda m, x: x.std(2, keepdim=True)),
    S("std_unbiased_false", lambda m, x: m.std(x, 0, unbiased=False)),
    S("var_mean_dim", lambda m, x: _stack2(m, m.var_mean(x, 1))),
    S("std_mean_all", lambda m, x: _stack2(m, m.std_mean(x, correction=0))),
    S("logsumexp_dim", lambda m, x: x.logsumexp(1)),
    S("logsumexp_tuple_keepdim", lambda m, x: m.logsumexp(x, (0, 2), keepdim=True)),
    S("logsumexp_large_values", lambda m, x: m.logsumexp(x, 1), make_inputs=BIG, shapes=((2, 3),)),
    S("norm_default", lambda m, x: x.norm(), zero_size=True),
    S("norm_p1_dim", lambda m, x: x.norm(1, 1)),
    S("norm_inf_dim", lambda m, x: m.norm(x, INF, dim=-1)),
    S("norm_p3_keepdim", lambda m, x: x.norm(3, dim=0, keepdim=True)),
    S("norm_fro_dims", lambda m, x: m.norm(x, "fro", dim=(1, 2))),
    S("norm_zero_row", lambda m, x: x.norm(dim=1), make_inputs=ZERO_ROW, shapes=((2, 3),)),
    S("vector_norm_default", lambda m, x: m.linalg.vector_norm(x)),
    S("vector_norm_ord0", lambda m, x: m.linalg.vector_norm(x, 0, 1)),
    S("vector_norm_neg_inf", lambda m, x: m.linalg.vector_norm(x, -INF, (0, 1))),
    S("vector_norm_ord_half", lambda m, x: m.linalg.vector_norm(x, 0.5, -1), domain=(0.2, 2.0)),
    S("cumsum", lambda m, x: x.cumsum(1), zero_size=True, int_result="same", function=_statistics.Cumsum, formerly=('jvp_rules:cumsum', 'jvp_ops:cumsum')),
    S("cumsum_neg_dim", lambda m, x: m.cumsum(x, -1)),
    S("cumsum_0d", lambda m, x: x.cumsum(0), shapes=((),), function=_statistics.Cumsum, formerly=('vmap_reduction:cumsum_0d',)),
    S("cumprod", lambda m, x: x.cumprod(2), function=_statistics.Cumprod, formerly=('jvp_rules:cumprod', 'jvp_ops:cumprod')),
    S("cumprod_one_zero", lambda m, x: x.cumprod(1), make_inputs=ONE_ZERO, shapes=((3, 4),)),
    # second derivatives are exact for at most one zero per slice (see Cumprod's docstring)
    S("cumprod_zeros", lambda m, x: x.cumprod(1), make_inputs=ZEROS, shapes=((3, 4),), twice_differentiable=False),
    S("all_dim", lambda m, x: (x > 0).all(1), differentiable=False),
    S("any_all", lambda m, x: m.any(x > 1.5), differentiable=False),
    S("count_nonzero", lambda m, x: m.count_nonzero(x > 0, (0, 2)), differentiable=False),
]

# Ties and a zero-norm slice sit on a kink: finite differences are meaningless there; the
# golden backward test pins PyTorch's choice (even split between ties, subgradient 0).
KINKS = ("amax_ties", "amin_ties_all", "max_all_ties", "norm_zero_row")
skip(SPECS, KINKS, "inputs on a kink (ties, a zero-norm slice): finite differences are meaningless; "
     "the golden backward pins PyTorch's subgradient", "gradcheck", "gradgradcheck", "forward_ad")

skip(SPECS, ("sum_empty_tuple",), "sum(x, ()) sums every dim: PyTorch 2.13 records its dim-list overload's "
     "SumBackward1, dyngrad the full sum's SumBackward0", "node_name")
# index and boolean results: their dtype does not follow the input's
update(SPECS, ("argmax_dim", "argmax_flat", "argmin_dim_keepdim", "count_nonzero", "max_dim_indices",
               "max_dim_ties_indices", "min_dim_indices_keepdim", "min_dim_ties_indices"), out_dtype="int64")
update(SPECS, ("all_dim", "any_all"), out_dtype="bool")
