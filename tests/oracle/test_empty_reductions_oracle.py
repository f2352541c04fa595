"""Live comparison with PyTorch 2.13 of the empty-input cases of
tests/ops/test_empty_reductions.py (PyTorch's quantile messages say ``quantile()`` also for
nanquantile; dyngrad names the function called). Skipped when torch is not installed."""

from __future__ import annotations

import pytest

from tests.ops.test_empty_reductions import EMPTY_MEDIAN

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", sorted(EMPTY_MEDIAN))
def test_empty_median_values_are_pytorchs(name, dtype) -> None:
    y = getattr(torch, name)(torch.tensor([], dtype=getattr(torch, dtype)))
    assert y.item() == EMPTY_MEDIAN[dtype]


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("shape,dim", [((0,), None), ((0, 3), 0), ((0, 3), 1), ((2, 0), None)])
def test_pytorch_refuses_empty_quantiles(name, shape, dim) -> None:
    with pytest.raises(RuntimeError, match="input tensor must be non-empty"):
        getattr(torch, name)(torch.zeros(*shape), 0.5, dim=dim)
