"""The op database: one :class:`~tests.op_db.info.OpInfo` entry per op variant, grouped in one
module per family, and the checks each entry drives (all in ``tests/test_op_db.py``).

A family module is any module of this package (besides ``info``) that exposes either
``SPECS`` (one family named after the module; with ``GOLDEN`` or ``GOLDEN_PATH``, the path of
its ``tests/golden/<family>.npz`` written by ``tests/golden/gen_<family>.py`` from the same
entries, the family has golden values from PyTorch 2.13) or ``FAMILIES`` (family name -> its
entries, without golden values). Modules are found by listing the package, so a new family is
a new file; ``test_every_module_of_the_op_database_registers_entries`` fails for a module that
exposes neither.

Every entry drives golden values (forward, backward, node name), gradcheck, gradgradcheck,
dtypes, forward mode (through the op's own jvp rule), vmap against a loop (several placements
of the batch dim, no loop fallback), gradients through vmap and batched gradients, unless its
``skips`` say why not; ``python -m tests.op_db`` prints the coverage table and every skip.

Example::

    from tests.op_db import OP_DB, select
    for info in select("forward_ad"):
        ...
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence
from types import ModuleType

from tests.op_db.info import CHECKS, OpInfo

__all__ = ["CHECKS", "FAMILIES", "GOLDEN_FAMILIES", "MODULES", "OP_DB", "OpInfo", "golden_path", "params", "select",
           "xfail_marks"]

NOT_FAMILIES = ("info", "__main__")

#: every family module of the package: name -> module
MODULES: dict[str, ModuleType] = {
    m.name: importlib.import_module(f"{__name__}.{m.name}")
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name) if m.name not in NOT_FAMILIES}

#: the families with golden values: name -> its module (``SPECS`` and the golden file's path)
GOLDEN_FAMILIES: dict[str, ModuleType] = {
    name: mod for name, mod in MODULES.items()
    if hasattr(mod, "SPECS") and (hasattr(mod, "GOLDEN") or hasattr(mod, "GOLDEN_PATH"))}

#: every family: name -> its entries
FAMILIES: dict[str, list[OpInfo]] = {}
for _name, _mod in MODULES.items():
    _own = {_name: _mod.SPECS} if hasattr(_mod, "SPECS") else dict(getattr(_mod, "FAMILIES", {}))
    for _fam, _infos in _own.items():
        if _fam in FAMILIES:
            raise ValueError(f"family {_fam!r} is registered twice (again by tests/op_db/{_name}.py)")
        FAMILIES[_fam] = _infos
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
