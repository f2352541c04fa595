"""The op database: one :class:`~tests.op_db.info.OpInfo` entry per op (or per notable
argument setting), grouped in one module per family, and the checks each entry drives.

Every entry drives golden values from PyTorch 2.13 (``tests/golden/<family>.npz``, written
by ``tests/golden/gen_<family>.py`` from these same entries), gradcheck, gradgradcheck and
dtypes (``tests/ops/test_<family>.py``), and the forward-mode, vmap-vs-loop and batched-grad
checks (``tests/test_op_db.py``). An entry says which checks do not apply, and why, in
``skips``. ``python -m tests.op_db`` prints the coverage table.

Example::

    from tests.op_db import OP_DB, select
    for info in select("forward_ad"):
        ...
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.op_db import activation, decomp, elementwise, indexing, linalg, reduction, shape, sorting
from tests.op_db.info import CHECKS, OpInfo

__all__ = ["CHECKS", "FAMILIES", "OP_DB", "OpInfo", "golden_path", "params", "select"]

#: family name -> its module (each has ``SPECS`` and the path of its golden file)
FAMILIES = {m.__name__.rsplit(".", 1)[1]: m for m in
            (elementwise, activation, reduction, linalg, decomp, shape, indexing, sorting)}

for _fam, _mod in FAMILIES.items():
    for _info in _mod.SPECS:
        _info.family = _fam

#: every entry of every family
OP_DB: list[OpInfo] = [info for mod in FAMILIES.values() for info in mod.SPECS]


def golden_path(family: str) -> str:
    """The golden ``.npz`` of ``family``."""
    mod = FAMILIES[family]
    return getattr(mod, "GOLDEN", None) or mod.GOLDEN_PATH


def select(check: str, infos: Sequence[OpInfo] | None = None) -> list[OpInfo]:
    """The entries (of ``infos``, default all of :data:`OP_DB`) that ``check`` applies to."""
    return [i for i in (OP_DB if infos is None else infos) if i.applies(check)]


def params(check: str, infos: Sequence[OpInfo] | None = None) -> list:
    """``pytest.param(info, id="family-name")`` for every entry ``check`` applies to."""
    import pytest

    return [pytest.param(i, id=f"{i.family}-{i.name}") for i in select(check, infos)]
