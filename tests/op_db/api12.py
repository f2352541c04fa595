"""The ops added for issue 12's leftovers (index_reduce, mode, nanquantile, the linalg and
statistics additions) in the op database; golden values in tests/golden/api12.npz (written
by tests/golden/gen_api12.py from PyTorch 2.13). The live comparison is
tests/oracle/test_api12_oracle.py; documented edge cases and errors are in
tests/ops/test_api12.py."""

from __future__ import annotations

import importlib
import os

import numpy as np

import dyngrad as dg
from tests.op_db.info import OpInfo as OpSpec
from tests.op_db.info import skip, update

_scatter_reduce = importlib.import_module("dyngrad.ops.scatter_reduce")  # ops.scatter_reduce is the op
GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "api12.npz")


def S(name: str, f, shapes, **kw) -> OpSpec:
    """A spec written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("zero_dim", False)
    kw.setdefault("zero_size", False)
    kw.setdefault("int_result", None)
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), shapes=shapes, **kw)


def _distinct(rng, shapes):
    # well-separated values: no ties, so max/min-based gradients are smooth
    return tuple(rng.permutation(int(np.prod(s))).reshape(s).astype(np.float64) * 0.37 + rng.uniform(-0.1, 0.1, s)
                 for s in shapes)


def _away_from_zero(rng, shapes):
    return tuple(rng.uniform(0.5, 1.5, s) * rng.choice([-1.0, 1.0], s) for s in shapes)


def _with_ties(rng, shapes):
    # small integers as floats: the most frequent value is well defined (and its index)
    return tuple(rng.integers(0, 3, s).astype(np.float64) for s in shapes)


def _with_nans(rng, shapes):
    out = []
    for s in shapes:
        a = rng.permutation(int(np.prod(s))).reshape(s).astype(np.float64) * 0.37
        a[rng.random(s) < 0.3] = np.nan
        a[..., 0] = 5.5 + np.arange(int(np.prod(s[:-1]))).reshape(s[:-1])  # every row keeps a number, no ties
        out.append(a)
    return tuple(out)


def _dominant(rng, shapes):
    # diagonally dominant columns: partial pivoting exchanges no rows, so PyTorch's pivoted
    # LU is the unpivoted one (PyTorch computes pivot=False on CUDA only)
    return tuple(rng.uniform(-0.3, 0.3, s) + 3 * np.eye(s[-2], s[-1]) for s in shapes)


def _square_and_rhs(rng, shapes):
    a, b = shapes
    return rng.uniform(-0.5, 0.5, a) + 2 * np.eye(a[-1]), rng.standard_normal(b)


def _spd(rng, shapes):
    # symmetric positive definite with well-separated eigenvalues 1..m
    (m, _), = shapes
    q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    return ((q * np.arange(1.0, m + 1)) @ q.T,)


def _lobpcg(m, a, largest=True):
    x0 = m.tensor(np.eye(a.shape[-1])[:, :3] + 0.1, dtype=m.float64)
    E, X = m.lobpcg(a, k=2, X=x0, largest=largest, tol=1e-14, niter=200)
    return _flat(m, E, X @ X.mT)  # the eigenvectors' signs are arbitrary: their projector is not


def _flat(m, *ts):
    return m.cat([t.reshape(-1) for t in ts])


def _idx(m, *i):
    return m.tensor(np.array(i, dtype=np.int64))


SPECS = [
    # ---- index_reduce (ops/scatter_reduce.py)
    S("index_reduce_prod", lambda m, x, s: x.index_reduce(0, _idx(m, 0, 2, 0), s, "prod"), ((3, 2), (3, 2)),
      make_inputs=_away_from_zero),
    S("index_reduce_prod_exclude", lambda m, x, s: x.index_reduce(1, _idx(m, 1, 1), s, "prod", include_self=False),
      ((2, 3), (2, 2)), make_inputs=_away_from_zero),
    S("index_reduce_mean", lambda m, x, s: m.index_reduce(x, 0, _idx(m, 1, 1, 2), s, "mean"), ((3, 2), (3, 2))),
    S("index_reduce_mean_exclude", lambda m, x, s: x.index_reduce(0, _idx(m, 0, 0, 2), s, "mean", include_self=False),
      ((3, 2), (3, 2))),
    S("index_reduce_amax", lambda m, x, s: x.index_reduce(0, _idx(m, 0, 2, 0), s, "amax"), ((3, 2), (3, 2)),
      make_inputs=_distinct),
    S("index_reduce_amin_exclude", lambda m, x, s: x.index_reduce(0, _idx(m, 0, 2, 0), s, "amin", include_self=False),
      ((3, 2), (3, 2)), make_inputs=_distinct),
    # ---- mode, nanquantile (ops/composite.py)
    S("mode_values", lambda m, x: m.mode(x, 1).values, ((3, 7),), make_inputs=_with_ties, check_grad=False),
    S("mode_values_dim0_keepdim", lambda m, x: x.mode(0, keepdim=True)[0], ((6, 2),), make_inputs=_with_ties,
      check_grad=False),
    S("nanquantile", lambda m, x: m.nanquantile(x, 0.3, dim=1), ((3, 6),), make_inputs=_with_nans),
    S("nanquantile_q_vector", lambda m, x: x.nanquantile(m.tensor([0.25, 0.8], dtype=m.float64), dim=0),
      ((5, 2),), make_inputs=_with_nans),
    # ---- the LU family (ops/lu.py)
    S("linalg_lu_wide", lambda m, a: _flat(m, *m.linalg.lu(a)[1:]), ((3, 5),)),
    S("linalg_lu_tall_batched", lambda m, a: _flat(m, *m.linalg.lu(a)[1:]), ((2, 4, 2),)),
    S("linalg_lu_square", lambda m, a: _flat(m, *m.linalg.lu(a)[1:]), ((3, 3),)),
    S("linalg_lu_factor_wide", lambda m, a: m.linalg.lu_factor(a).LU, ((2, 4),)),
    S("linalg_lu_factor_tall", lambda m, a: m.linalg.lu_factor(a)[0], ((4, 3),)),
    OpSpec("linalg_lu_no_pivot", lambda a: _flat(dg, *dg.linalg.lu(a, pivot=False)[1:]),
           lambda torch, a: _flat(torch, *torch.linalg.lu(a)[1:]), shapes=((4, 3),), make_inputs=_dominant,
           zero_dim=False, zero_size=False, int_result=None),
    OpSpec("linalg_lu_factor_no_pivot", lambda a: dg.linalg.lu_factor(a, pivot=False).LU,
           lambda torch, a: torch.linalg.lu_factor(a).LU, shapes=((3, 3),), make_inputs=_dominant,
           zero_dim=False, zero_size=False, int_result=None),
    S("lu_unpack", lambda m, a: _flat(m, *m.lu_unpack(*m.linalg.lu_factor(a))[1:]), ((3, 4),)),
    S("linalg_lu_solve", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), ((3, 3), (3, 2)),
      make_inputs=_square_and_rhs),
    S("linalg_lu_solve_right_adjoint", lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b.mT, left=False,
                                                                          adjoint=True), ((3, 3), (3, 2)),
      make_inputs=_square_and_rhs),
    # ---- lobpcg (ops/lobpcg.py): eigenvalues and the eigenvectors' projector
    S("lobpcg_largest", lambda m, a: _lobpcg(m, a), ((9, 9),), make_inputs=_spd),
    S("lobpcg_smallest", lambda m, a: _lobpcg(m, a, largest=False), ((9, 9),), make_inputs=_spd),
    S("nanquantile_all_midpoint", lambda m, x: m.nanquantile(x, 0.5, interpolation="midpoint"), ((3, 4),),
      make_inputs=_with_nans),
]

_INDEX_REDUCE = [s.name for s in SPECS if s.name.startswith("index_reduce")]
_LOBPCG = [s.name for s in SPECS if s.name.startswith("lobpcg")]
update(SPECS, _LOBPCG, twice_differentiable=False, rtol=1e-7, atol=1e-9,
       vmap_fallback="reads the initial vectors with NumPy outside the Function: vmap runs it once per example")
skip(SPECS, _LOBPCG, "an iterative solver on a matrix built to have separated eigenvalues: the float32 check's "
     "random inputs are not symmetric positive definite", "dtype")
_LU = [s.name for s in SPECS if s.name.startswith(("linalg_lu", "lu_"))]
update(SPECS, _INDEX_REDUCE, function=_scatter_reduce.ScatterReduce)
skip(SPECS, _INDEX_REDUCE, "index_reduce is scatter_reduce with the index broadcast: its node is "
     "ScatterReduceBackward0 (PyTorch's: IndexReduceBackward0)", "node_name")
update(SPECS, [n for n in _LU if "solve" in n or "unpack" in n or "factor" in n],
       vmap_fallback="the pivots (an integer output) are read with NumPy to build P outside a Function: vmap "
                     "runs it once per example (exact)")
skip(SPECS, [s.name for s in SPECS if not s.name.startswith("index_reduce")],
     "a composition of dyngrad ops (sort/gather/lerp, cat/tril/triu, triangular solves): its grad_fn is the last op's node, not PyTorch's fused one",
     "node_name")
update(SPECS, [s.name for s in SPECS if s.name.startswith(("mode", "nanquantile"))],
       vmap_fallback="reads the values (the most frequent value, the NaN positions) with NumPy outside a Function: "
                     "vmap runs it once per example (exact)")
skip(SPECS, [s.name for s in SPECS if s.name.startswith("mode")],
     "the mode's inputs are ties by construction: finite differences split them (the golden gradient is compared)",
     "forward_ad")
skip(SPECS, [s.name for s in SPECS if s.name.startswith(("mode", "nanquantile"))],
     "the inputs hold ties (mode) or NaNs (nanquantile): the float32 check's random inputs have neither",
     "dtype")
