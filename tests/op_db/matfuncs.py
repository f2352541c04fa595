"""The matfuncs family of the op database: ``matrix_exp`` (a Function) and
``linalg.householder_product`` (composed of ops); golden values in tests/golden/matfuncs.npz
(tests/golden/gen_matfuncs.py). The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import dyngrad as dg
from dyngrad.ops import matfuncs as _matfuncs
from tests.op_db.info import OpInfo as OpSpec
from tests.op_db.info import skip

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "matfuncs.npz")


def _scaled(rng, shapes):
    """Random matrices of 1-norm around 1-3 (exp stays well scaled); 1-d inputs (tau) in (0.5, 1.5)."""
    return tuple(rng.standard_normal(s) * 0.7 if len(s) >= 2 else rng.uniform(0.5, 1.5, s) for s in shapes)


def S(name: str, f, shapes, **kw) -> OpSpec:
    """A spec written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("zero_dim", False)
    kw.setdefault("zero_size", False)
    kw.setdefault("int_result", None)
    kw.setdefault("make_inputs", _scaled)
    kw.setdefault("rtol", 1e-8)
    kw.setdefault("atol", 1e-10)
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), shapes=shapes, **kw)


SPECS = [
    S("matrix_exp", lambda m, a: m.matrix_exp(a), ((3, 3),), function=_matfuncs.MatrixExp),
    S("matrix_exp_batched", lambda m, a: m.linalg.matrix_exp(a), ((2, 4, 4),), function=_matfuncs.MatrixExp),
    S("matrix_exp_skew", lambda m, a: m.matrix_exp(a - a.mT), ((3, 3),), function=_matfuncs.MatrixExp),
    S("householder_product_tall", lambda m, a, t: m.linalg.householder_product(a, t), ((5, 3), (3,))),
    S("householder_product_fewer_reflectors", lambda m, a, t: m.linalg.householder_product(a, t), ((4, 3), (2,))),
    S("householder_product_batched", lambda m, a, t: m.linalg.householder_product(a, t), ((2, 4, 4), (2, 4))),
]

skip(SPECS, ("householder_product_tall", "householder_product_fewer_reflectors", "householder_product_batched"),
     "composed of dyngrad ops (ends in a SubBackward0); PyTorch has one LinalgHouseholderProductBackward0 node",
     "node_name")
