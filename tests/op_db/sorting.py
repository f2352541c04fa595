"""The sorting family of the op database (moved from tests/ops/test_sorting.py); golden values
in tests/golden/sorting.npz. The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import numpy as np

import dyngrad as dg
from dyngrad.ops import sorting as _sorting
from tests.op_db.info import OpInfo as OpSpec
from tests.op_db.info import skip, update

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "sorting.npz")


def S(name: str, f, **kw) -> OpSpec:
    kw.setdefault("int_result", "same")
    kw.setdefault("zero_dim", True)
    kw.setdefault("zero_size", True)
    kw.setdefault("shapes", ((3, 4),))
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), **kw)


def _ties(rng, shapes):
    # values on a coarse grid so that ties occur: checks stability of the indices
    return tuple(rng.integers(-2, 3, size=s).astype(np.float64) for s in shapes)


SPECS = [
    S("sort_values", lambda m, x: m.sort(x).values),
    S("sort_dim0_desc", lambda m, x: x.sort(0, descending=True)[0]),
    S("sort_indices", lambda m, x: m.sort(x, -1).indices, differentiable=False, function=_sorting.Sort, formerly=('vmap_reduction:sort_indices',)),
    S("sort_indices_desc", lambda m, x: x.sort(dim=0, descending=True).indices, differentiable=False),
    S("sort_stable_ties", lambda m, x: m.sort(x, stable=True).indices, make_inputs=_ties,
      shapes=((3, 8),), differentiable=False),
    S("sort_stable_ties_desc", lambda m, x: m.sort(x, descending=True, stable=True).indices,
      make_inputs=_ties, shapes=((3, 8),), differentiable=False),
    S("argsort", lambda m, x: m.argsort(x, dim=0), differentiable=False, function=_sorting.Sort, formerly=('vmap_reduction:argsort',)),
    S("argsort_desc", lambda m, x: x.argsort(descending=True), differentiable=False),
    S("msort", lambda m, x: m.msort(x)),
    S("topk_values", lambda m, x: m.topk(x, 2).values, zero_size=False, zero_dim=False),
    S("topk_smallest_dim0", lambda m, x: x.topk(2, 0, largest=False)[0], zero_dim=False, zero_size=False),
    S("topk_indices", lambda m, x: x.topk(3).indices, differentiable=False, zero_dim=False, zero_size=False),
    S("topk_k0", lambda m, x: x.topk(0).values, zero_dim=False),
    S("topk_0d", lambda m, x: x.topk(1).values, shapes=((),), zero_size=False),
]

skip(SPECS, ("topk_k0",), "k=0 gives an empty output: gradcheck has nothing to compare", "gradcheck", "gradgradcheck")

update(SPECS, ("argsort", "argsort_desc", "sort_indices", "sort_indices_desc", "sort_stable_ties",
               "sort_stable_ties_desc", "topk_indices"), out_dtype="int64")  # indices whatever the input dtype
