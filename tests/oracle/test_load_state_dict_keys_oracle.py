"""Live comparison with PyTorch 2.13 of ``load_state_dict``'s reported keys and their repr
(tests/nn/test_load_state_dict_keys.py). Skipped when torch is not installed."""

from __future__ import annotations

import pytest

import dyngrad as dg
from tests.nn.test_load_state_dict_keys import CASES, _model

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("strict", [False, True])
def test_load_state_dict_matches_pytorch(case, strict) -> None:
    edit, want = CASES[case]
    out = []
    for lib in (torch, dg):
        m = _model(lib)
        try:
            out.append(repr(m.load_state_dict(edit(dict(m.state_dict()), lib), strict=strict)))
        except RuntimeError as e:
            out.append(str(e).replace("dyngrad", "torch"))
    assert out[1] == out[0]
    if not strict:
        assert out[0] == want
