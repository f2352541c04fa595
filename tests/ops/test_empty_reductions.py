"""Empty inputs of median/nanmedian/quantile/nanquantile as PyTorch 2.13: the quantiles refuse
any empty input naming the function; median of an empty tensor without ``dim`` is NaN, and for
integer dtypes the value PyTorch 2.13 prints (its NaN cast to the dtype).
tests/oracle/test_empty_reductions_oracle.py compares live."""

from __future__ import annotations

import math

import pytest

import dyngrad

# dtype -> PyTorch 2.13's median (and nanmedian) of an empty tensor of it
EMPTY_MEDIAN = {"int64": -(2**63), "int32": -(2**31), "int16": 0, "int8": 0, "uint8": 0, "bool": True}


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", sorted(EMPTY_MEDIAN))
def test_median_of_an_empty_integer_tensor_is_pytorchs_value(name, dtype) -> None:
    y = getattr(dyngrad, name)(dyngrad.tensor([], dtype=getattr(dyngrad, dtype)))
    assert y.dtype == getattr(dyngrad, dtype) and y.shape == () and y.item() == EMPTY_MEDIAN[dtype]


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_an_empty_float_tensor_is_nan(name) -> None:
    assert math.isnan(getattr(dyngrad, name)(dyngrad.tensor([])).item())
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        getattr(dyngrad, name)(dyngrad.zeros(0, 3, dtype=dyngrad.int64), dim=0)
    assert getattr(dyngrad, name)(dyngrad.zeros(0, 3), dim=1).values.shape == (0,)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("shape,dim", [((0,), None), ((0, 3), 0), ((0, 3), 1), ((2, 0), None)])
def test_quantiles_refuse_any_empty_input_naming_the_function(name, shape, dim) -> None:
    with pytest.raises(RuntimeError, match=rf"^{name}\(\) input tensor must be non-empty$"):
        getattr(dyngrad, name)(dyngrad.zeros(*shape), 0.5, dim=dim)
