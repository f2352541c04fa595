"""Live check with PyTorch 2.13 of the committed outcomes of
tests/autograd/test_multi_output_and_overlap.py (in-place on multi-output views, partial
overlap). Skipped when torch is not installed."""

from __future__ import annotations

import pytest

from tests.autograd.test_multi_output_and_overlap import CASES

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("case", sorted(CASES))
def test_pytorch_gives_the_committed_outcome(case) -> None:
    run, want = CASES[case]
    if want is None:
        run(torch)
    else:
        with pytest.raises(RuntimeError, match=want):
            run(torch)
