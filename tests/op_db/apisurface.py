"""The ops added for issue 12 (scans, compositions, scatter_reduce/index_put, linalg extras)
in the op database; golden values in tests/golden/apisurface.npz (written by
tests/golden/gen_apisurface.py from PyTorch 2.13). The counting ops (unique, bincount,
searchsorted, bucketize, histc) have no gradient and are checked against live PyTorch in
tests/oracle/test_apisurface_ops_oracle.py and in tests/ops/test_apisurface_ops.py."""

from __future__ import annotations

import importlib
import os

import numpy as np

import dyngrad as dg
from dyngrad.ops import linalg_extra as _linalg_extra
from dyngrad.ops import scan as _scan
from tests.op_db.info import OpInfo as OpSpec
from tests.op_db.info import skip, update

_scatter_reduce = importlib.import_module("dyngrad.ops.scatter_reduce")  # ops.scatter_reduce is the op
GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "apisurface.npz")


def S(name: str, f, shapes, **kw) -> OpSpec:
    """A spec written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("zero_dim", False)
    kw.setdefault("zero_size", False)
    kw.setdefault("int_result", None)
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), shapes=shapes, **kw)


def _distinct(rng, shapes):
    # well-separated values: no ties, so max/median/sort-based gradients are smooth
    return tuple(rng.permutation(int(np.prod(s))).reshape(s).astype(np.float64) * 0.37 + rng.uniform(-0.1, 0.1, s)
                 for s in shapes)


def _chol(rng, shapes):
    b, (n, _) = rng.standard_normal(shapes[0]), shapes[1]
    return b, np.tril(rng.uniform(-0.5, 0.5, (n, n))) + 2 * np.eye(n)


def _well_conditioned(rng, shapes):
    return tuple(rng.uniform(-0.5, 0.5, s) + 2 * np.eye(s[-2], s[-1]) for s in shapes)


def _idx(m, *i):
    return m.tensor(np.array(i, dtype=np.int64))


SPECS = [
    # ---- scans (ops/scan.py)
    S("logcumsumexp", lambda m, x: m.logcumsumexp(x, 1), ((3, 4),), function=_scan.Logcumsumexp),
    S("logcumsumexp_dim0", lambda m, x: x.logcumsumexp(0), ((4, 2),), function=_scan.Logcumsumexp),
    S("cummax_values", lambda m, x: m.cummax(x, 1).values, ((3, 5),), make_inputs=_distinct, function=_scan.Cummax),
    S("cummin_values", lambda m, x: x.cummin(0)[0], ((4, 3),), make_inputs=_distinct, function=_scan.Cummin),
    # ---- compositions (ops/composite.py)
    S("addmm", lambda m, i, a, b: m.addmm(i, a, b, beta=0.5, alpha=2.0), ((3,), (2, 4), (4, 3))),
    S("addmv", lambda m, i, a, b: m.addmv(i, a, b, alpha=3), ((2,), (2, 4), (4,))),
    S("addr", lambda m, i, a, b: m.addr(i, a, b), ((2, 3), (2,), (3,))),
    S("baddbmm", lambda m, i, a, b: m.baddbmm(i, a, b, beta=2), ((2, 3, 5), (2, 3, 4), (2, 4, 5))),
    S("addbmm", lambda m, i, a, b: m.addbmm(i, a, b), ((3, 5), (2, 3, 4), (2, 4, 5))),
    S("kron", lambda m, a, b: m.kron(a, b), ((2, 3), (2, 1, 2))),
    S("meshgrid_xy_stacked", lambda m, a, b: m.stack(m.meshgrid(a, b, indexing="xy")), ((3,), (2,))),
    S("cross", lambda m, a, b: m.cross(a, b, dim=0), ((3, 2), (3, 2))),
    S("linalg_cross", lambda m, a, b: m.linalg.cross(a, b), ((2, 1, 3), (1, 2, 3))),
    S("repeat_interleave", lambda m, x: m.repeat_interleave(x, _idx(m, 2, 0, 1), dim=1), ((2, 3),)),
    S("repeat_interleave_flat", lambda m, x: x.repeat_interleave(2), ((2, 2),)),
    S("nanmean", lambda m, x: m.nanmean(x, 1), ((3, 4),)),
    S("nansum", lambda m, x: m.nansum(x, 0, keepdim=True), ((3, 4),)),
    S("median_all", lambda m, x: m.median(x), ((3, 4),), make_inputs=_distinct),
    S("median_dim", lambda m, x: m.median(x, 1).values, ((3, 5),), make_inputs=_distinct),
    S("nanmedian_dim", lambda m, x: m.nanmedian(x, 0, keepdim=True).values, ((4, 2),), make_inputs=_distinct),
    S("quantile", lambda m, x: m.quantile(x, 0.3, dim=1), ((3, 6),), make_inputs=_distinct),
    S("quantile_midpoint", lambda m, x: m.quantile(x, 0.5, 0, interpolation="midpoint"), ((4, 2),),
      make_inputs=_distinct),
    # ---- scatter_reduce / index_put (ops/scatter_reduce.py)
    S("scatter_reduce_sum", lambda m, x, s: x.scatter_reduce(0, _idx(m, 0, 0, 2), s, "sum"), ((3,), (3,)),
      function=_scatter_reduce.ScatterReduce),
    S("scatter_reduce_mean", lambda m, x, s: m.scatter_reduce(x, 0, _idx(m, 0, 0, 2), s, "mean", include_self=False),
      ((3,), (3,))),
    S("scatter_reduce_prod", lambda m, x, s: m.scatter_reduce(x, 0, _idx(m, 1, 1, 2), s, "prod"), ((3,), (3,))),
    S("scatter_reduce_amax", lambda m, x, s: m.scatter_reduce(x, 0, _idx(m, 0, 0, 1, 1), s, "amax"), ((3,), (4,)),
      make_inputs=_distinct),
    S("index_put", lambda m, x, v: m.index_put(x, (_idx(m, 0, 2),), v), ((3, 2), (2, 2))),
    S("index_put_accumulate", lambda m, x, v: x.index_put((_idx(m, 0, 0, 1), _idx(m, 1, 1, 0)), v, accumulate=True),
      ((2, 3), (3,))),
    # ---- linalg extras (ops/linalg_extra.py)
    S("linalg_pinv", lambda m, a: m.linalg.pinv(a), ((4, 3),), function=_linalg_extra.Pinv),
    S("linalg_pinv_wide", lambda m, a: m.linalg.pinv(a), ((2, 3),), function=_linalg_extra.Pinv),
    S("linalg_lstsq", lambda m, a, b: m.linalg.lstsq(a, b).solution, ((4, 2), (4, 2)), make_inputs=_well_conditioned),
    S("linalg_matrix_power", lambda m, a: m.linalg.matrix_power(a, 3), ((3, 3),)),
    S("linalg_matrix_power_neg", lambda m, a: m.linalg.matrix_power(a, -2), ((3, 3),), make_inputs=_well_conditioned),
    S("cholesky_solve", lambda m, b, low: m.cholesky_solve(b, low), ((3, 2), (3, 3)), make_inputs=_chol),
    S("linalg_lu_factor", lambda m, a: m.linalg.lu_factor(a).LU, ((4, 4),), function=_linalg_extra.LuFactor),
    S("linalg_lu_factor_batched", lambda m, a: m.linalg.lu_factor(a)[0], ((2, 3, 3),), function=_linalg_extra.LuFactor),
]

_COMPOSITE = [s.name for s in SPECS if s.function is None and not s.name.startswith("scatter_reduce")]
skip(SPECS, _COMPOSITE, "a composition of dyngrad ops: its grad_fn is the last op's node, not PyTorch's fused one "
     "(ops/composite.py)", "node_name")
update(SPECS, ("nanmean", "nansum", "median_all", "median_dim", "nanmedian_dim", "quantile", "quantile_midpoint"),
       vmap_fallback="reads the values (NaN positions, the median's index) with NumPy outside a Function: vmap runs "
                     "it once per example (exact)")
update(SPECS, ("linalg_lstsq",), vmap_fallback="the rank (NumPy's SVD of the values) is computed outside a Function: "
                                               "vmap runs it once per example (exact)")
