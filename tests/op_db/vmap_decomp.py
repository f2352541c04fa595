"""The decomp vmap-rule entries of the op database (moved from the table of
tests/func/test_vmap_decomp.py): rows ``(name, function of float64 tensors, per-example input
shapes[, domain], the Function whose batching rule the row was written for)``, as op-db entries
(``VMAP_DECOMP``). Rows whose op variant has a golden entry were merged into it. No golden
values (``NO_GOLDEN``); every other check of tests/test_op_db.py applies: the named Function's
jvp rule must run in forward mode, and vmap must run without a loop fallback."""

from __future__ import annotations

import dyngrad as D
from dyngrad.ops import decomp as _dc
from dyngrad.ops import spectral as _sp
from tests.op_db.info import OpInfo, rule_infos


def _spd_plus(a):  # noqa: ANN001, ANN202
    return a @ a.mT + 3 * D.eye(a.shape[-1], dtype=D.float64)


# (name, function of tensors, per-example input shapes, domain, the Function whose rule must run)
TABLE_ROWS = [
    ("qr_Q_tall", lambda a: D.linalg.qr(a).Q, [(4, 3)], "real", _dc.Qr),
    ("qr_R_tall", lambda a: D.linalg.qr(a).R, [(4, 3)], "real", _dc.Qr),
    ("qr_R_wide", lambda a: D.linalg.qr(a).R, [(2, 4)], "real", _dc.Qr),
    ("qr_Q_batched", lambda a: D.linalg.qr(a).Q, [(2, 3, 2)], "real", _dc.Qr),
    ("eigh_upper", lambda a: D.linalg.eigh(a, UPLO="U").eigenvectors, [(3, 3)], "spd", _sp.Eigh),
    ("svd_U", lambda a: D.linalg.svd(a, full_matrices=False).U, [(4, 3)], "real", _sp.Svd),
    ("svd_S", lambda a: D.linalg.svd(a, full_matrices=False).S, [(2, 4)], "real", _sp.Svd),
    ("svd_Vh", lambda a: D.linalg.svd(a, full_matrices=False).Vh, [(2, 4)], "real", _sp.Svd),
    ("svd_full_square_U", lambda a: D.linalg.svd(a).U, [(3, 3)], "real", _sp.Svd),
    ("svd_full_S", lambda a: D.linalg.svd(a).S, [(3, 2)], "real", _sp.Svd),
    ("svdvals_batched", lambda a: D.linalg.svdvals(a), [(2, 3, 2)], "real", _sp.Svd),
    ("cholesky_upper", lambda a: D.linalg.cholesky(_spd_plus(a), upper=True), [(3, 3)], "real", _dc.Cholesky),
    # solve: only the right-hand side batched (it is the first argument here)
    ("solve_rhs_first", lambda b, a: D.linalg.solve(_spd_plus(a), b), [(3, 2), (3, 3)], "real", _dc.Solve),
    ("solve_vector_rhs_first", lambda b, a: D.linalg.solve(_spd_plus(a), b), [(3,), (3, 3)], "real", _dc.Solve),
    # per-example batch ranks differ: the batch dim must not line up with a per-example dim
    ("solve_batched_A_vector_b", lambda a, b: D.linalg.solve(_spd_plus(a), b), [(2, 3, 3), (3,)], "real",
     _dc.Solve),
    ("solve_A_matrix_B_batched", lambda a, b: D.linalg.solve(_spd_plus(a), b), [(3, 3), (2, 3, 2)], "real",
     _dc.Solve),
    ("solve_B_batched_matrix_A_first", lambda b, a: D.linalg.solve(_spd_plus(a), b), [(2, 3, 2), (3, 3)], "real",
     _dc.Solve),
]

VMAP_DECOMP: list[OpInfo] = rule_infos(TABLE_ROWS, "vmap_decomp", overrides={
    "eigh_upper": {"skips": {c: "eigh reads one triangle and its gradient (as PyTorch's) assumes a symmetric input: "
                                "numerical derivatives along unsymmetric directions disagree (the decomp family "
                                "checks eigh on symmetrized inputs)" for c in ("gradcheck", "gradgradcheck", "forward_ad")}},
})

#: the families of this module (see tests/op_db/__init__.py)
FAMILIES = {"vmap_decomp": VMAP_DECOMP}
