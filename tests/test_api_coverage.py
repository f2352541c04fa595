"""docs/from-pytorch.md is generated from PyTorch's API list (committed) and dyngrad's namespace."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "api_coverage.py"


def _tool():
    spec = importlib.util.spec_from_file_location("api_coverage", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_from_pytorch_table_is_up_to_date_with_the_namespace():
    # a fresh interpreter, so that nothing another test added to a namespace leaks into the table
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, str(TOOL), "--check"], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, (
        "docs/from-pytorch.md is stale: run `python tools/api_coverage.py` to refresh it\n" + proc.stderr
    )


def test_signature_comparison_names_missing_extra_and_changed_defaults():
    tool = _tool()
    theirs = [["input", "POSITIONAL_OR_KEYWORD", None], ["dim", "POSITIONAL_OR_KEYWORD", "0"],
              ["out", "KEYWORD_ONLY", "None"]]
    ours = [["input", "POSITIONAL_OR_KEYWORD", None], ["dim", "POSITIONAL_OR_KEYWORD", "1"],
            ["scale", "POSITIONAL_OR_KEYWORD", "1.0"]]
    diffs = tool.compare_signatures(theirs, ours)
    assert "no parameter `out`" in diffs
    assert "extra parameter `scale`" in diffs
    assert "`dim` default 0 vs 1" in diffs
    assert tool.compare_signatures(theirs, theirs) == []


def test_signature_comparison_treats_equal_numbers_as_equal_defaults_and_skips_varargs_wrappers():
    tool = _tool()
    assert tool.compare_signatures([["lr", "POSITIONAL_OR_KEYWORD", "0"]],
                                   [["lr", "POSITIONAL_OR_KEYWORD", "0.0"]]) == []
    wrapper = [["args", "VAR_POSITIONAL", None], ["kwargs", "VAR_KEYWORD", None]]
    assert tool.compare_signatures(wrapper, [["x", "POSITIONAL_OR_KEYWORD", None]]) == []


def test_collect_filters_private_names_and_imported_helpers():
    tool = _tool()
    import dyngrad

    api = tool.collect(dyngrad)
    assert "tensor" in api["torch"] and api["torch"]["tensor"]["kind"] == "function"
    assert all(not name.startswith("_") for names in api.values() for name in names)
    assert "annotations" not in api["nn.functional"]  # `from __future__ import annotations`
    assert "Linear" in api["nn"] and api["nn"]["Linear"]["kind"] == "class"


def test_the_committed_pytorch_list_covers_every_module_of_the_table():
    import json

    tool = _tool()
    data = json.loads(tool.DATA.read_text())
    assert data["version"] == "2.13.0"
    for key, _ in tool.MODULES:
        assert len(data["modules"][key]) > 10, key
    assert "Linear" in data["modules"]["nn"] and "backward" in data["modules"]["Tensor"]
