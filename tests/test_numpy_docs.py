"""docs/numpy.md's coverage tables are generated from the dispatch tables (docs/make_numpy_table.py)."""

from __future__ import annotations

import importlib.util
import pathlib

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


def test_the_numpy_coverage_table_in_the_docs_is_up_to_date():
    spec = importlib.util.spec_from_file_location("make_numpy_table", DOCS / "make_numpy_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = (DOCS / "numpy.md").read_text(encoding="utf-8")
    assert mod.BEGIN in text and mod.END in text
    assert mod.render(text) == text, "docs/numpy.md is stale: run python docs/make_numpy_table.py"
