"""Top-level names PyTorch scripts reach for before any autograd."""

import math

import pytest

import dyngrad as torch


def test_cuda_is_reported_unavailable_so_device_selection_falls_back_to_cpu():
    assert torch.cuda.is_available() is False
    assert torch.cuda.device_count() == 0
    device = "cuda" if torch.cuda.is_available() else "cpu"
    assert torch.ones(2, device=device).to(device).device == "cpu"


def test_constants_size_and_dtype_limits():
    assert torch.inf == math.inf and math.isnan(torch.nan)
    assert torch.pi == math.pi and torch.e == math.e
    assert torch.Size([2, 3]) == torch.zeros(2, 3).shape
    assert torch.Size([2, 3]).numel() == 6
    assert torch.finfo(torch.float32).eps == 2.0**-23
    assert torch.iinfo(torch.int8).max == 127


def test_finfo_is_a_class_of_python_numbers_as_torch():
    # torch 2.13: finfo is a class whose limits are Python floats, and refuses integer dtypes
    # with TypeError (dyngrad returned NumPy's finfo: NumPy scalars, ValueError)
    f = torch.finfo(torch.float16)
    assert isinstance(f, torch.finfo) and type(f.eps) is float and f.eps == 2.0**-10
    assert (f.max, f.bits, f.dtype, f.resolution) == (65504.0, 16, "float16", 1e-3)
    assert torch.finfo().tiny == torch.finfo(torch.float32).smallest_normal == 2.0**-126
    assert repr(torch.finfo(torch.float64)) == ("finfo(resolution=1e-15, min=-1.79769e+308, max=1.79769e+308, "
                                                "eps=2.22045e-16, smallest_normal=2.22507e-308, "
                                                "tiny=2.22507e-308, dtype=float64)")
    with pytest.raises(TypeError, match="floating point input type"):
        torch.finfo(torch.int64)
