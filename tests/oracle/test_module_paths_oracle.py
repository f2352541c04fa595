"""Each dyngrad module path of tests/test_module_paths.py is PyTorch 2.13's: ``torch.<path>``
exists and has the names. Skipped when torch is not installed."""

from __future__ import annotations

import importlib

import pytest

from tests.test_module_paths import PATHS

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("path,names,home", PATHS, ids=[p[0] for p in PATHS])
def test_the_path_is_pytorchs(path, names, home) -> None:
    mod = importlib.import_module(f"torch.{path}")
    for n in names:
        assert hasattr(mod, n), f"torch.{path}.{n}"
