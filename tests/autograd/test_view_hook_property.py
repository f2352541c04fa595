"""Property test of views + no_grad + in-place ops + retain_grad + tensor hooks + detach_:
random programs (tests/autograd/view_programs.py) replayed on dyngrad and compared with
PyTorch 2.13's results stored as golden data (values of every tensor, ``.grad`` of leaves
and retained non-leaves, and which step raised which exception type). The live version,
with hypothesis drawing new programs, is tests/oracle/test_view_hook_oracle.py."""

import json

import pytest

import dyngrad
from tests.autograd.view_programs import GOLDEN, compare, golden_programs, run

with open(GOLDEN) as f:
    _GOLD = json.load(f)["cases"]


def test_golden_programs_are_the_generators_programs():
    assert [c["program"] for c in _GOLD] == golden_programs()  # regenerate after changing it


@pytest.mark.parametrize("k", range(0, len(_GOLD), 50))
def test_random_view_in_place_hook_programs_match_pytorch(k):
    for case in _GOLD[k : k + 50]:
        compare(run(dyngrad, case["program"]), case["torch"], case["program"])


def test_golden_programs_cover_errors_hooks_retained_grads_and_no_grad_views():
    errors = {c["torch"]["error"][1] for c in _GOLD if c["torch"]["error"]}
    assert "RuntimeError" in errors
    steps = {s[0] for c in _GOLD for s in c["program"]}
    assert {"view", "inplace", "op", "retain", "hook", "detach_", "loss"} <= steps
    assert any(c["torch"]["retained"] and c["torch"]["retained"][0] is not None for c in _GOLD)
    assert any(s[0] == "view" and s[3] for c in _GOLD for s in c["program"])
