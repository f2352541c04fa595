"""The pointwise vmap-rule entries of the op database (moved from the table of
tests/func/test_vmap_pointwise.py): rows ``(name, function of float64 tensors, per-example input
shapes[, domain], the Function whose batching rule the row was written for)``, as op-db entries
(``VMAP_POINTWISE``). Rows whose op variant has a golden entry were merged into it. No golden
values (``NO_GOLDEN``); every other check of tests/test_op_db.py applies: the named Function's
jvp rule must run in forward mode, and vmap must run without a loop fallback."""

from __future__ import annotations

import dyngrad
from dyngrad.ops import arithmetic as _ar
from dyngrad.ops import copying as _cp
from dyngrad.ops import elementwise as _el
from dyngrad.ops import masking as _mk
from dyngrad.ops import pointwise as _pw
from dyngrad.ops import rounding as _rd
from dyngrad.ops import thresholding as _th
from tests.op_db.info import OpInfo, rule_infos

D = dyngrad
F = dyngrad.nn.functional
_MASK = [[True, False, True], [False, False, True]]
# (name, function of float64 tensors, per-example input shapes, domain, Function whose rule must run)
TABLE_ROWS = [
    ("prelu_4d_channel_weight", lambda a, w: F.prelu(a, w), [(2, 3, 2, 2), (3,)], "real", _th.Prelu),
    ("prelu_one_weight", lambda a, w: F.prelu(a, w), [(2, 3), (1,)], "real", _th.Prelu),
    ("prelu_1d_input", lambda a, w: F.prelu(a, w), [(4,), (1,)], "real", _th.Prelu),
    ("glu_negative_dim", lambda a: F.glu(a, -1), [(2, 3, 4)], "real", _th.Glu),
    ("clamp_tensor_max_only", lambda a, h: D.clamp(a, max=h), [(2, 3), (3,)], "real", _el.ClampTensor),
    ("clamp_tensor_bound_of_higher_rank", lambda a, lo: D.clamp(a, min=lo), [(3,), (2, 3)], "real", _el.ClampTensor),
    ("clamp_min_number", lambda a: D.clamp_min(a, 0.1), [(2, 3)], "real", _el.Clamp),
    ("sub_alpha", lambda a, b: D.sub(a, b, alpha=0.5), [(3,), (2, 3)], "real", _ar.Sub),
    ("div_trunc", lambda a, b: D.div(a * 5, b, rounding_mode="trunc"), [(3,), (2, 3)], "pos", _ar.Div),
    ("fmod_tensors", lambda a, b: D.fmod(a * 5, b), [(2, 3), (3,)], "pos", _ar.Remainder),
    ("pow_zero_dim_exponent", lambda a, b: a ** b, [(2, 3), ()], "pos", _ar.Pow),
    ("pow_zero_dim_base", lambda a, b: a ** b, [(), (2, 3)], "pos", _ar.Pow),
    ("addcdiv_three_ranks", lambda a, b, c: D.addcdiv(a, b, c, value=2.0), [(2, 1), (3,), (2, 3)], "pos",
     _pw.Addcdiv),
    ("lerp_weight_broadcast", lambda a, b, w: D.lerp(a, b, w), [(3,), (2, 3), (1,)], "real", _pw.Lerp),
    ("where_constant_condition", lambda a, b: D.where(D.tensor([True, False, True]), a, b), [(2, 3), (3,)], "real",
     _pw.Where),
    ("round_negative_decimals", lambda a: D.round(a * 100, decimals=-1), [(3,)], "real", _rd.RoundDecimals),
    ("fill_shared_value", lambda a: _cp.Fill.apply(a, 2.5), [(2, 3)], "real", _cp.Fill),
    ("fill_unbatched_target", lambda v: _cp.Fill.apply(D.zeros(2, 3, dtype=D.float64), v), [()], "real", _cp.Fill),
    ("copy_zero_dim_src", lambda a, s: _cp.Copy.apply(a, s), [(2, 3), ()], "real", _cp.Copy),
    ("copy_into_unbatched_target", lambda s: _cp.Copy.apply(D.zeros(2, 3, dtype=D.float64), s), [(3,)], "real",
     _cp.Copy),
    ("masked_fill_constant_mask", lambda a: D.masked_fill(a, D.tensor(_MASK), -1.0), [(2, 3)], "real",
     _mk.MaskedFill),
    ("masked_fill_tensor_value_constant_mask", lambda a, v: D.masked_fill(a, D.tensor(_MASK), v), [(2, 3), ()],
     "real", _mk.MaskedFill),
    ("masked_fill_value_only", lambda v: D.masked_fill(D.ones(2, 3, dtype=D.float64), D.tensor(_MASK), v), [()],
     "real", _mk.MaskedFill),
    ("masked_fill_mask_broadcasts_x", lambda a: D.masked_fill(a, D.tensor(_MASK), 0.5), [(3,)], "real",
     _mk.MaskedFill),
    ("to_float32", lambda a: a.to(D.float32) * 2, [(3,)], "real", _cp.ToDtype),
]

VMAP_POINTWISE: list[OpInfo] = rule_infos(TABLE_ROWS, "vmap_pointwise", overrides={
    # a float32 result: float64 finite differences need a large step and loose tolerances
    "to_float32": {"eps": 1e-2, "grad_rtol": 1e-3, "grad_atol": 1e-4,
                   "skips": {c: "a float32 result: gradcheck's float64 finite differences are meaningless"
                             for c in ("gradcheck", "gradgradcheck")}},
})

#: the families of this module (see tests/op_db/__init__.py)
FAMILIES = {"vmap_pointwise": VMAP_POINTWISE}
