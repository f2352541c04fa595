"""The op database (tests/op_db/, every entry) on Dask arrays: each entry's base case, forward
and backward, with its arrays as Dask arrays (two chunks along the first dimension), must
return Dask arrays (lazy: nothing pulled to NumPy) equal to the NumPy run
(tests/backends/opdb_backend.py). The entries in known_not_yet_dask.txt do not yet; that
list only shrinks: a listed entry that passes fails here (strict xfail: delete its line),
and so does any other entry that fails. Marked slow: CI runs it in its backends step
(with the dask extra installed)."""

from __future__ import annotations

import pytest

from tests.backends.opdb_backend import BACKENDS, check_entry, entry_id, known_failing
from tests.op_db import OP_DB

dask = pytest.importorskip("dask")

NOT_YET = known_failing("dask")


def _params() -> list:
    return [pytest.param(i, id=entry_id(i), marks=[pytest.mark.slow] + (
        [pytest.mark.xfail(strict=True, reason="known not yet on Dask (known_not_yet_dask.txt)")]
        if entry_id(i) in NOT_YET else [])) for i in OP_DB]


@pytest.mark.parametrize("info", _params())
def test_entry_runs_lazily_on_dask_and_equals_numpy(info) -> None:  # noqa: ANN001
    convert, is_dask = BACKENDS["dask"]
    with dask.config.set(scheduler="synchronous"):
        check_entry(info, convert, is_dask)


def test_the_known_not_yet_list_names_only_entries_of_the_database() -> None:
    ids = {entry_id(i) for i in OP_DB}
    assert NOT_YET <= ids, sorted(NOT_YET - ids)
    assert len(ids) == len(OP_DB), "two entries share an id"
