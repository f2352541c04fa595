"""Top-level names PyTorch scripts reach for before any autograd."""

import math

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
