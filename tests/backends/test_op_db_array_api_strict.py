"""The op database (tests/op_db/, every entry) on array-api-strict arrays (the Python Array API
standard and nothing else): each entry's base case, forward and backward, must return
array-api-strict arrays (an op that reached past the standard, or the documented table of
_backend.NONSTANDARD, would have pulled them to NumPy or failed) equal to the NumPy run
(tests/backends/opdb_backend.py). The entries in known_not_yet_array_api_strict.txt do not
yet; that list only shrinks (strict xfail), and any other entry that fails fails here.
Marked slow: CI runs it in its backends step."""

from __future__ import annotations

import pytest

from tests.backends.opdb_backend import BACKENDS, check_entry, entry_id, known_failing
from tests.op_db import OP_DB

pytest.importorskip("array_api_strict")

NOT_YET = known_failing("array_api_strict")


def _params() -> list:
    return [pytest.param(i, id=entry_id(i), marks=[pytest.mark.slow] + (
        [pytest.mark.xfail(strict=True, reason="known not yet on array-api-strict (known_not_yet_array_api_strict.txt)")]
        if entry_id(i) in NOT_YET else [])) for i in OP_DB]


@pytest.mark.parametrize("info", _params())
def test_entry_runs_on_array_api_strict_and_equals_numpy(info) -> None:  # noqa: ANN001
    convert, is_strict = BACKENDS["array_api_strict"]
    check_entry(info, convert, is_strict)


def test_the_known_not_yet_list_names_only_entries_of_the_database() -> None:
    ids = {entry_id(i) for i in OP_DB}
    assert NOT_YET <= ids, sorted(NOT_YET - ids)
    assert len(ids) == len(OP_DB), "two entries share an id"
