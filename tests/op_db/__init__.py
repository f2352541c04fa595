"""The op database: one :class:`~tests.op_db.info.OpInfo` entry per op (or per notable
argument setting), grouped in one module per family, and the checks each entry drives.

Every entry of a golden family drives golden values from PyTorch 2.13
(``tests/golden/<family>.npz``, written by ``tests/golden/gen_<family>.py`` from these same
entries), gradcheck, gradgradcheck and dtypes (``tests/ops/test_<family>.py``), and the forward-mode, vmap-vs-loop and batched-grad
checks (``tests/test_op_db.py``). The transform-rule tables (``rules.py``, ``vmap_*.py``:
rows naming the Function whose own jvp / batching rule must run) are entries too: their
tables' tests check forward mode and vmap, and every entry takes the batched-grad check. An
entry says which checks do not apply, and why, in ``skips``; ``python -m tests.op_db`` prints
the coverage table.

Example::

    from tests.op_db import OP_DB, select
    for info in select("forward_ad"):
        ...
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.op_db import (
    activation,
    comparison,
    decomp,
    elementwise,
    indexing,
    linalg,
    nn_functional,
    reduction,
    rules,
    shape,
    sorting,
    vmap_decomp,
    vmap_index,
    vmap_linalg,
    vmap_pointwise,
    vmap_reduction,
    vmap_shape,
)
from tests.op_db.info import CHECKS, OpInfo

__all__ = ["CHECKS", "FAMILIES", "GOLDEN_FAMILIES", "OP_DB", "OpInfo", "golden_path", "params", "select", "xfail_marks"]

#: the families with golden values: name -> its module (``SPECS`` and the golden file's path)
GOLDEN_FAMILIES = {m.__name__.rsplit(".", 1)[1]: m for m in
                   (elementwise, activation, reduction, linalg, decomp, shape, indexing, sorting, nn_functional,
                  comparison)}

for _fam, _mod in GOLDEN_FAMILIES.items():
    for _info in _mod.SPECS:
        _info.family = _fam

#: every family: name -> its entries (the golden families, then the transform-rule tables)
FAMILIES: dict[str, list[OpInfo]] = {fam: mod.SPECS for fam, mod in GOLDEN_FAMILIES.items()}
FAMILIES.update({"jvp_rules": rules.RULES, "vmap_arith": rules.VMAP_ARITH,
                 "vmap_pointwise": vmap_pointwise.VMAP_POINTWISE, "vmap_reduction": vmap_reduction.VMAP_REDUCTION,
                 "vmap_shape": vmap_shape.VMAP_SHAPE, "vmap_linalg": vmap_linalg.VMAP_LINALG,
                 "vmap_decomp": vmap_decomp.VMAP_DECOMP, "vmap_index": vmap_index.VMAP_INDEX})

for _fam, _infos in FAMILIES.items():
    for _info in _infos:
        _info.family = _fam

#: every entry of every family
OP_DB: list[OpInfo] = [info for infos in FAMILIES.values() for info in infos]


def golden_path(family: str) -> str:
    """The golden ``.npz`` of a golden family."""
    mod = GOLDEN_FAMILIES[family]
    return getattr(mod, "GOLDEN", None) or mod.GOLDEN_PATH


def select(check: str, infos: Sequence[OpInfo] | None = None) -> list[OpInfo]:
    """The entries (of ``infos``, default all of :data:`OP_DB`) that ``check`` applies to."""
    return [i for i in (OP_DB if infos is None else infos) if i.applies(check)]


def params(check: str, infos: Sequence[OpInfo] | None = None) -> list:
    """``pytest.param(info, id="family-name")`` for every entry ``check`` applies to."""
    import pytest

    return [pytest.param(i, id=f"{i.family}-{i.name}", marks=xfail_marks(i, check)) for i in select(check, infos)]


def xfail_marks(info: OpInfo, key: str) -> list:
    """A strict xfail mark when ``info.xfail`` names ``key`` (a known bug), else none."""
    import pytest

    reason = info.xfail.get(key)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
