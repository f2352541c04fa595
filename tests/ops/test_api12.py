"""Issue 12 leftovers, without PyTorch: the fixed silent differences (negative indices in
gather/scatter, searchsorted with NaN, quantile with infinities, ``Size`` slices, saved
Parameters) and the new ops' documented behaviour and errors. Gradients and golden values of
the new ops are in the op database (tests/op_db/api12.py); the live comparison is
tests/oracle/test_api12_oracle.py."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import dyngrad as torch

NAN, INF = math.nan, math.inf


# ---------------------------------------------------------------- negative indices
@pytest.mark.parametrize("call", [
    lambda x, i: torch.gather(x, 0, i),
    lambda x, i: x.scatter(0, i, torch.tensor([5.0])),
    lambda x, i: x.scatter(0, i, 5.0),
    lambda x, i: x.scatter_add(0, i, torch.tensor([5.0])),
    lambda x, i: x.scatter_reduce(0, i, torch.tensor([5.0]), "sum"),
    lambda x, i: torch.take_along_dim(x, i, 0),
], ids=["gather", "scatter", "scatter_value", "scatter_add", "scatter_reduce", "take_along_dim"])
def test_gather_and_scatter_refuse_a_negative_index_as_pytorch(call):
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
        call(torch.zeros(3), torch.tensor([-1]))


@pytest.mark.parametrize("op", ["index_add", "index_copy"])
def test_index_add_and_copy_refuse_a_negative_index(op):
    with pytest.raises(IndexError, match="index -1 is out of bounds for dimension 0 with size 3"):
        getattr(torch.zeros(3), op)(0, torch.tensor([-1]), torch.ones(1))


def test_index_fill_and_take_still_count_a_negative_index_from_the_end():
    assert torch.zeros(3).index_fill(0, torch.tensor([-1]), 1.0).tolist() == [0.0, 0.0, 1.0]
    assert torch.take(torch.arange(3.0), torch.tensor([-1])).tolist() == [2.0]


# ---------------------------------------------------------------- searchsorted with NaN
def test_searchsorted_with_nan_boundaries_follows_pytorchs_binary_search():
    # NumPy sorts NaN last (2 for the value 2.0 here); PyTorch's probes give 1 and 3
    b = torch.tensor([1.0, 2.0, NAN])
    v = torch.tensor([0.0, 2.0, NAN, 4.0])
    assert torch.searchsorted(b, v).tolist() == [0, 1, 3, 3]
    assert torch.searchsorted(torch.tensor([1.0, 2.0, 3.0]), v, right=True).tolist() == [0, 2, 3, 3]
    assert torch.bucketize(torch.tensor(NAN), torch.tensor([1.0, 2.0])).item() == 2


def test_searchsorted_without_nan_is_numpys_and_batched_rows_stay_separate():
    rng = np.random.default_rng(0)
    s = np.sort(rng.normal(size=(3, 6)), -1)
    v = rng.normal(size=(3, 4))
    for right in (False, True):
        got = torch.searchsorted(torch.tensor(s), torch.tensor(v), right=right).numpy()
        want = np.stack([np.searchsorted(a, b, side="right" if right else "left") for a, b in zip(s, v)])
        np.testing.assert_array_equal(got, want)
    s[1, 2] = NAN  # a NaN in one row only: the other rows keep NumPy's answer
    got = torch.searchsorted(torch.tensor(s), torch.tensor(v)).numpy()
    np.testing.assert_array_equal(got[0], np.searchsorted(s[0], v[0]))


# ---------------------------------------------------------------- quantile with infinities
def test_quantile_with_infinities_interpolates_with_lerps_formula():
    # sorted [-inf, 1, 2, inf]; PyTorch's lerp: a + w (b - a) below w = 0.5, b - (b - a)(1 - w) above
    x = torch.tensor([1.0, INF, 2.0, -INF])
    got = torch.quantile(x, torch.tensor([0.0, 0.25, 0.5, 0.9, 1.0])).tolist()
    assert math.isnan(got[0]) and got[1] == -INF and got[2] == 1.5 and math.isnan(got[3]) and math.isnan(got[4])
    assert math.isnan(torch.quantile(torch.tensor([1.0, INF]), 0.5).item())
    assert torch.quantile(torch.tensor([1.0, 3.0, INF]), 0.25).item() == 2.0


def test_quantile_with_infinities_warns_nothing(recwarn):
    torch.quantile(torch.tensor([-INF, INF, 1.0]), torch.tensor([0.1, 0.5, 1.0]), interpolation="midpoint")
    torch.quantile(torch.tensor([-INF, INF, 1.0]), torch.tensor([0.1, 0.5, 1.0]))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


# ---------------------------------------------------------------- torch.Size
def test_size_slices_and_concatenations_are_sizes():
    s = torch.zeros(2, 3, 4).shape
    assert type(s[1:]) is torch.Size and s[1:] == (3, 4) and repr(s[:1]) == "dyngrad.Size([2])"
    assert type(s[0]) is int and s[-1] == 4
    assert type(s + (5,)) is torch.Size and type((5,) + s) is torch.Size and (5,) + s == (5, 2, 3, 4)
    assert type(s * 2) is torch.Size and type(2 * s) is torch.Size and s * 2 == (2, 3, 4, 2, 3, 4)
    assert type(s[::-1]) is torch.Size and s[::-1] == (4, 3, 2)
    with pytest.raises(TypeError):
        s + [1]
    with pytest.raises(TypeError):
        [1] + s


# ---------------------------------------------------------------- saved Parameters
def _roundtrip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf)


def test_a_saved_parameter_loads_as_a_parameter_with_its_requires_grad():
    m = torch.nn.Linear(2, 3)
    p = _roundtrip(m.weight)
    assert type(p) is torch.nn.Parameter and p.requires_grad and p.is_leaf
    np.testing.assert_array_equal(p.detach().numpy(), m.weight.detach().numpy())
    frozen = _roundtrip(torch.nn.Parameter(torch.ones(2), requires_grad=False))
    assert type(frozen) is torch.nn.Parameter and not frozen.requires_grad
    d = _roundtrip(m.state_dict(keep_vars=True))
    assert all(type(v) is torch.nn.Parameter for v in d.values())
    # state_dict() holds detached plain tensors, which load as plain tensors (as PyTorch)
    assert all(type(v) is torch.Tensor and not v.requires_grad for v in _roundtrip(m.state_dict()).values())
    assert type(_roundtrip(torch.ones(2, requires_grad=True))) is torch.Tensor


def test_a_safetensors_file_whose_header_size_starts_with_0x80_is_not_mistaken_for_a_pickle():
    # the header's size field is little-endian: a size of 0x..80 starts the file with the
    # byte a pickle starts with; grow a key until that happens
    for n in range(1, 300):
        buf = io.BytesIO()
        torch.save({"k" * n: torch.ones(1)}, buf)
        if buf.getvalue()[:1] == b"\x80":
            buf.seek(0)
            assert torch.load(buf)["k" * n].tolist() == [1.0]
            return
    pytest.skip("no key length gave a header size with low byte 0x80")  # pragma: no cover
