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
    lambda x, i: torch.take_along_dim(x, i),
], ids=["gather", "scatter", "scatter_value", "scatter_add", "scatter_reduce", "take_along_dim_flat"])
def test_gather_and_scatter_refuse_a_negative_index_as_pytorch(call):
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
        call(torch.zeros(3), torch.tensor([-1]))


@pytest.mark.parametrize("op", ["index_add", "index_copy"])
def test_index_add_and_copy_refuse_a_negative_index(op):
    with pytest.raises(IndexError, match="index -1 is out of bounds for dimension 0 with size 3"):
        getattr(torch.zeros(3), op)(0, torch.tensor([-1]), torch.ones(1))


def test_index_fill_take_and_take_along_dim_with_a_dim_count_a_negative_index_from_the_end():
    # (PyTorch's take_along_dim wraps negative indices when given a dim, not when flattening)
    assert torch.take_along_dim(torch.arange(6.0).reshape(2, 3), torch.tensor([[-1], [0]]), 1).tolist() == [[2.0], [3.0]]
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


# ---------------------------------------------------------------- NumPy warnings
_SPECIAL = [0.0, -1.0, INF, -INF, NAN, 1e300, 2.0]


@pytest.mark.parametrize("call", [
    lambda x: torch.sin(x), lambda x: torch.cos(x), lambda x: torch.frac(x), lambda x: torch.square(x),
    lambda x: torch.softmax(x, 0), lambda x: torch.log_softmax(x, 0), lambda x: torch.nn.functional.gelu(x),
    lambda x: torch.nn.functional.gelu(x, approximate="tanh"), lambda x: torch.nn.functional.silu(x),
    lambda x: torch.nn.functional.mish(x), lambda x: torch.nn.functional.softplus(x),
    lambda x: torch.nn.functional.softsign(x), lambda x: torch.nn.functional.hardswish(x),
    lambda x: torch.prod(x), lambda x: torch.cumsum(x, 0), lambda x: torch.cumprod(x, 0),
    lambda x: torch.logcumsumexp(x, 0), lambda x: torch.logaddexp(x, x.flip(0)),
    lambda x: torch.nn.functional.layer_norm(x, (7,)), lambda x: torch.nn.functional.smooth_l1_loss(x, x.flip(0)),
    lambda x: torch.nn.functional.cross_entropy(x[None], torch.tensor([1])),
    lambda x: torch.amax(x), lambda x: torch.linalg.vector_norm(x, float("inf")),
    lambda x: x.to(torch.float32), lambda x: torch.addcmul(x, x, x),
]) 
def test_ops_on_infinities_and_nans_warn_nothing_as_pytorch(call, recwarn):
    # (the forward of +, -, *, @ and sum still lets NumPy warn: see docs/from-pytorch.md)
    x = torch.tensor(_SPECIAL, dtype=torch.float64, requires_grad=True)
    out = call(x)
    if out.requires_grad:
        out.backward(torch.ones_like(out))  # the backward pass: inf * 0, inf - inf in the formulas
        assert x.grad is not None
    assert not [str(w.message) for w in recwarn if issubclass(w.category, RuntimeWarning)]


# ---------------------------------------------------------------- in-place variants
def _m(*s):
    return torch.tensor(np.random.default_rng(sum(s)).uniform(0.2, 0.9, s))


# (name, args after self, self's shape): values and gradients equal the out-of-place op's
INPLACE = [
    ("absolute_", (), (3,)), ("arccos_", (), (3,)), ("arcsin_", (), (3,)), ("arctan_", (), (3,)),
    ("arcsinh_", (), (3,)), ("arctanh_", (), (3,)), ("negative_", (), (3,)),
    ("arctan2_", (_m(3),), (3,)), ("atan2_", (_m(3),), (3,)), ("hypot_", (_m(3),), (3,)),
    ("addcdiv_", (_m(3), _m(3)), (3,)), ("addcmul_", (_m(3), _m(3)), (3,)),
    ("addmm_", (_m(2, 4), _m(4, 3)), (2, 3)), ("addmv_", (_m(2, 4), _m(4)), (2,)), ("addr_", (_m(2), _m(3)), (2, 3)),
    ("baddbmm_", (_m(2, 2, 4), _m(2, 4, 3)), (2, 2, 3)), ("addbmm_", (_m(2, 2, 4), _m(2, 4, 3)), (2, 3)),
    ("clamp_min_", (0.5,), (3,)), ("clamp_max_", (0.5,), (3,)), ("cumsum_", (0,), (3,)), ("cumprod_", (1,), (2, 3)),
    ("divide_", (_m(3),), (3,)), ("true_divide_", (2.0,), (3,)), ("multiply_", (_m(3),), (3,)),
    ("subtract_", (_m(3),), (3,)), ("float_power_", (2.0,), (3,)), ("fmod_", (0.3,), (3,)), ("remainder_", (0.3,), (3,)),
    ("lerp_", (_m(3), 0.3), (3,)), ("tril_", (), (3, 3)), ("triu_", (1,), (3, 3)),
    ("index_add_", (0, torch.tensor([0, 2]), _m(2)), (3,)), ("index_copy_", (0, torch.tensor([2, 0]), _m(2)), (3,)),
    ("index_fill_", (0, torch.tensor([1]), 2.0), (3,)),
    ("scatter_reduce_", (0, torch.tensor([0, 0, 2]), _m(3), "sum"), (3,)),
]


@pytest.mark.parametrize("name,args,shape", INPLACE, ids=[c[0] for c in INPLACE])
def test_an_inplace_variant_writes_the_out_of_place_result_and_takes_its_gradient(name, args, shape):
    base = _m(*shape)
    want = getattr(base, name[:-1])(*args)
    a = base.clone().requires_grad_()
    y = a * 1
    v0 = y._version
    r = getattr(y, name)(*args)
    assert r is y and y._version > v0
    np.testing.assert_allclose(y.detach().numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    g = torch.tensor(np.random.default_rng(3).standard_normal(shape))
    y.backward(g)
    b = base.clone().requires_grad_()
    getattr(b * 1, name[:-1])(*args).backward(g)
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_an_inplace_variant_on_a_leaf_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        torch.ones(2, 2, requires_grad=True).addmm_(torch.ones(2, 2), torch.ones(2, 2))


def test_inplace_variants_keep_pytorchs_dtype_rules():
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        torch.tensor([5, 3]).true_divide_(2)
    x = torch.tensor([5, 3])
    assert x.floor_divide_(2).tolist() == [2, 1] and x.dtype == torch.int64
    with pytest.raises(RuntimeError, match="Bad in-place call"):
        torch.ones(3, dtype=torch.int64).cumsum_(0, dtype=torch.float32)


def test_inplace_comparisons_write_ones_and_zeros_and_keep_requires_grad():
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = a * 1
    y.ge_(2.0)
    assert y.tolist() == [0.0, 1.0, 1.0] and y.requires_grad and y.dtype == torch.float32
    y.backward(torch.ones(3))
    assert a.grad.tolist() == [0.0, 0.0, 0.0]
    i = torch.tensor([1, 0, 2])
    assert i.eq_(torch.tensor([1, 1, 2])).tolist() == [1, 0, 1] and i.dtype == torch.int64
    assert torch.tensor([1.0, 0.0]).logical_not_().tolist() == [0.0, 1.0]
    for n in ("ne_", "not_equal_", "lt_", "less_", "le_", "less_equal_", "gt_", "greater_", "greater_equal_"):
        got = getattr(torch.tensor([1.0, 2.0, 3.0]), n)(2.0).tolist()
        assert got == getattr(torch.tensor([1.0, 2.0, 3.0]), n[:-1])(2.0).float().tolist()
    for n in ("logical_and_", "logical_or_", "logical_xor_"):
        got = getattr(torch.tensor([1.0, 0.0, 3.0]), n)(torch.tensor([1.0, 1.0, 0.0])).tolist()
        assert got == getattr(torch.tensor([1.0, 0.0, 3.0]), n[:-1])(torch.tensor([1.0, 1.0, 0.0])).float().tolist()


def test_inplace_logical_ops_record_nothing_as_pytorch():
    a = torch.tensor([1.0, 0.0, 3.0], requires_grad=True)
    y = a * 2
    node = y.grad_fn
    y.logical_not_()
    assert y.tolist() == [0.0, 1.0, 0.0] and y.grad_fn is node  # PyTorch keeps MulBackward0 too
    y.backward(torch.ones(3))
    assert a.grad.tolist() == [2.0, 2.0, 2.0]
    assert a.logical_and_(torch.zeros(3)).tolist() == [0.0, 0.0, 0.0] and a.is_leaf  # PyTorch allows it on a leaf


@pytest.mark.parametrize("name,args,shape,grad_fn", [
    ("unsqueeze_", (1,), (1, 1, 3), "UnsqueezeBackward0"), ("squeeze_", (), (3,), "SqueezeBackward0"),
    ("t_", (), (3, 1), "TBackward0"), ("transpose_", (0, 1), (3, 1), "TransposeBackward0"),
    ("swapdims_", (0, 1), (3, 1), None), ("swapaxes_", (0, 1), (3, 1), None),
])
def test_inplace_view_variants_change_the_shape_over_the_same_memory(name, args, shape, grad_fn):
    src = torch.arange(3.0).reshape(1, 3)
    base = src.clone()
    x = base
    assert getattr(x, name)(*args) is x and tuple(x.shape) == shape
    assert np.shares_memory(x.numpy(), base.numpy())
    a = torch.arange(3.0).reshape(1, 3).requires_grad_()
    y = a * 1
    getattr(y, name)(*args)
    assert tuple(y.shape) == shape
    if grad_fn:
        assert type(y.grad_fn).__name__ == grad_fn
    (y * torch.arange(1.0, 4.0).reshape(shape)).sum().backward()
    assert a.grad.reshape(-1).tolist() == [1.0, 2.0, 3.0]


# ---------------------------------------------------------------- mode, nanquantile, index_reduce
def test_mode_takes_the_smallest_most_frequent_value_and_its_last_index():
    x = torch.tensor([[3.0, 1.0, 3.0, 1.0, 2.0], [5.0, 5.0, 2.0, 2.0, 9.0]])
    v, i = torch.mode(x)
    assert v.tolist() == [1.0, 2.0] and i.tolist() == [3, 3] and i.dtype == torch.int64
    assert torch.mode(torch.tensor([1.0, 2.0, 3.0])).indices.item() == 0  # all once: the smallest
    v, i = torch.tensor([[1, 2, 2], [3, 3, 1]]).mode(0, keepdim=True)
    assert v.tolist() == [[1, 2, 1]] and i.tolist() == [[0, 0, 1]] and v.dtype == torch.int64
    assert torch.mode(torch.tensor(4.0)).indices.shape == () and torch.mode(torch.tensor([1.0, 1.0])).indices.shape == ()


def test_mode_with_nans_follows_pytorchs_insertion_sort():
    nan = torch.mode(torch.tensor([NAN, NAN, 1.0]))  # NaNs never equal: each counts once, the first wins
    assert math.isnan(nan.values.item()) and nan.indices.item() == 0
    assert torch.mode(torch.tensor([NAN, 1.0, 1.0])).indices.item() == 2


def test_mode_gradient_goes_to_the_returned_index():
    a = torch.tensor([1.0, 2.0, 2.0, 3.0], requires_grad=True)
    torch.mode(a).values.backward()
    assert a.grad.tolist() == [0.0, 0.0, 1.0, 0.0]


def test_mode_of_a_zero_size_dim_raises_and_of_empty_rows_is_empty():
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        torch.mode(torch.zeros(0))
    v, i = torch.mode(torch.zeros(2, 0), 0)
    assert v.shape == (0,) and i.dtype == torch.int64


def test_mode_of_a_long_slice_gives_the_mode_and_a_position_holding_it():
    x = np.random.default_rng(0).integers(0, 5, (4, 200)).astype(np.float64)
    v, i = torch.mode(torch.tensor(x))
    for r in range(4):
        vals, counts = np.unique(x[r], return_counts=True)
        assert v[r].item() == vals[np.argmax(counts)] and x[r, i[r].item()] == v[r].item()


def test_nanquantile_ignores_nans_and_gives_nan_for_an_all_nan_slice():
    x = torch.tensor([[1.0, NAN, 3.0, 2.0], [NAN] * 4, [4.0, 3.0, 2.0, 1.0]])
    out = torch.nanquantile(x, torch.tensor([0.0, 0.3, 1.0]), dim=1)
    np.testing.assert_allclose(out.numpy(), [[1.0, NAN, 1.0], [1.6, NAN, 1.9], [3.0, NAN, 4.0]], equal_nan=True)
    assert torch.nanquantile(x, 0.5).item() == 2.0  # all values, NaNs dropped
    assert torch.nanquantile(x, 0.5, dim=1, keepdim=True, interpolation="nearest").shape == (3, 1)
    # quantile gives NaN for any slice holding a NaN
    assert math.isnan(torch.quantile(x, 0.5, dim=1)[0].item())
    a = x.clone().requires_grad_()
    torch.nanquantile(a, 0.4, dim=1).nansum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [[0.2, 0, 0, 0.8], [0, 0, 0, 0], [0, 0.2, 0.8, 0]], atol=1e-6)


@pytest.mark.parametrize("call,err,match", [
    (lambda: torch.nanquantile(torch.tensor([1, 2]), 0.5), RuntimeError, "nanquantile\\(\\) input tensor must be"),
    (lambda: torch.nanquantile(torch.ones(3), 1.5), RuntimeError, "q values must be in the range"),
    (lambda: torch.nanquantile(torch.ones(3), 0.5, interpolation="cubic"), RuntimeError, "interpolation must be"),
    (lambda: torch.nanquantile(torch.ones(0), 0.5), RuntimeError, "must be non-empty"),
])
def test_nanquantile_misuse(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_index_reduce_values_match_a_loop():
    x = torch.ones(3, 2)
    src = torch.arange(1.0, 7.0).reshape(3, 2)
    i = torch.tensor([0, 2, 0])
    assert x.index_reduce(0, i, src, "prod").tolist() == [[5.0, 12.0], [1.0, 1.0], [3.0, 4.0]]
    assert x.index_reduce(0, i, src, "mean", include_self=False).tolist() == [[3.0, 4.0], [1.0, 1.0], [3.0, 4.0]]
    assert x.index_reduce(0, i, src, "amax").tolist() == [[5.0, 6.0], [1.0, 1.0], [3.0, 4.0]]
    assert x.index_reduce(0, i, src, "amin").tolist() == [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]
    # an integer mean rounds down, as PyTorch
    ints = torch.ones(3, 2, dtype=torch.int64).index_reduce(0, i, (src * 2).long(), "mean")
    assert ints.tolist() == [[4, 5], [1, 1], [3, 4]] and ints.dtype == torch.int64
    y = x.clone()
    assert y.index_reduce_(0, i, src, "prod") is y and y.tolist() == [[5.0, 12.0], [1.0, 1.0], [3.0, 4.0]]


@pytest.mark.parametrize("call,err,match", [
    (lambda x, s, i: x.index_reduce(0, i, s, "sum"), RuntimeError, "one of prod, mean, amax or amin but got sum"),
    (lambda x, s, i: x.index_reduce(0, torch.tensor([-1, 0, 0]), s, "prod"), IndexError, "index -1 is out of bounds"),
    (lambda x, s, i: x.index_reduce(0, torch.tensor([3, 0, 0]), s, "prod"), IndexError, "index 3 is out of bounds"),
    (lambda x, s, i: x.index_reduce(0, i.float(), s, "prod"), RuntimeError, "Expected dtype int32/int64 for index"),
    (lambda x, s, i: x.index_reduce(0, torch.tensor([0, 1]), s, "prod"), RuntimeError, "Number of indices \\(2\\)"),
    (lambda x, s, i: x.index_reduce(0, i, s.double(), "prod"), RuntimeError, "must have the same scalar type"),
    (lambda x, s, i: x.index_reduce(0, i[None], s, "prod"), IndexError, "Index is supposed to be a vector"),
    (lambda x, s, i: x.index_reduce(2, i, s, "prod"), IndexError, "Dimension out of range"),
    (lambda x, s, i: x.index_reduce(0, i, torch.ones(3, 3), "prod"), RuntimeError, "must have input's shape"),
])
def test_index_reduce_misuse(call, err, match):
    with pytest.raises(err, match=match):
        call(torch.ones(3, 2), torch.arange(1.0, 7.0).reshape(3, 2), torch.tensor([0, 2, 0]))


# ---------------------------------------------------------------- the LU family
@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (2, 4, 2)])
@pytest.mark.parametrize("pivot", [True, False])
def test_lu_lu_factor_and_lu_unpack_are_consistent(shape, pivot):
    a = np.random.default_rng(7).standard_normal(shape) + 3 * np.eye(*shape[-2:])
    P, L, U = torch.linalg.lu(torch.tensor(a), pivot=pivot)
    k = min(shape[-2:])
    assert L.shape == shape[:-1] + (k,) and U.shape == shape[:-2] + (k, shape[-1]) and P.shape[-1] == shape[-2]
    np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-12)
    np.testing.assert_array_equal(np.triu(L.numpy(), 1), 0)
    np.testing.assert_allclose(np.diagonal(L.numpy(), axis1=-2, axis2=-1), 1.0)
    np.testing.assert_array_equal(np.tril(U.numpy(), -1), 0)
    LU, piv = torch.linalg.lu_factor(torch.tensor(a), pivot=pivot)
    assert LU.shape == shape and piv.shape == shape[:-2] + (k,) and piv.dtype == torch.int32
    P2, L2, U2 = torch.lu_unpack(LU, piv)
    for x, y in ((P, P2), (L, L2), (U, U2)):
        np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-12)
    if not pivot:
        np.testing.assert_array_equal(piv.numpy(), np.broadcast_to(np.arange(1, k + 1), piv.shape))
        np.testing.assert_array_equal(P.numpy(), np.broadcast_to(np.eye(shape[-2]), P.shape))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
def test_lu_gradients_pass_gradcheck_in_every_shape(shape):
    a = torch.tensor(np.random.default_rng(1).standard_normal(shape) + 2 * np.eye(*shape), requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: torch.linalg.lu(x)[1:], (a,))
    assert torch.autograd.gradcheck(lambda x: torch.linalg.lu(x, pivot=False)[1:], (a,))
    assert torch.autograd.gradgradcheck(lambda x: torch.linalg.lu_factor(x).LU, (a,))


def test_lu_solve_solves_each_side_and_adjoint():
    rng = np.random.default_rng(2)
    A = torch.tensor(rng.standard_normal((3, 3)) + 2 * np.eye(3))
    B = torch.tensor(rng.standard_normal((3, 2)))
    LU, piv = torch.linalg.lu_factor(A)
    np.testing.assert_allclose((A @ torch.linalg.lu_solve(LU, piv, B)).numpy(), B.numpy(), atol=1e-12)
    np.testing.assert_allclose((A.mT @ torch.linalg.lu_solve(LU, piv, B, adjoint=True)).numpy(), B.numpy(), atol=1e-12)
    np.testing.assert_allclose((torch.linalg.lu_solve(LU, piv, B.mT, left=False) @ A).numpy(), B.mT.numpy(),
                               atol=1e-12)
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        x = torch.lu_solve(B, LU, piv)
    np.testing.assert_allclose((A @ x).numpy(), B.numpy(), atol=1e-12)
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        torch.linalg.lu_solve(LU, piv, torch.ones(2, 2))


def test_lu_factor_ex_reports_a_zero_pivot_and_torch_lu_warns():
    singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    assert torch.linalg.lu_factor_ex(singular).info.item() == 2
    assert torch.linalg.lu_factor_ex(torch.eye(2)).info.item() == 0
    with pytest.raises(RuntimeError, match="is zero"):
        torch.linalg.lu_factor_ex(singular, check_errors=True)
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        LU, piv, info = torch.lu(singular, get_infos=True)
    assert info.item() == 2 and piv.tolist() == [2, 2]


@pytest.mark.parametrize("call,err,match", [
    (lambda: torch.linalg.lu(torch.ones(3)), RuntimeError, "at least 2 dimensions"),
    (lambda: torch.linalg.lu_factor(torch.ones(2, 2, dtype=torch.int64)), RuntimeError, "floating point"),
    (lambda: torch.lu_unpack(torch.ones(2, 2), torch.ones(2)), RuntimeError, "int32"),
    (lambda: torch.lu_unpack(torch.ones(2, 3), torch.ones(3, dtype=torch.int32)), RuntimeError, "min\\(LU_data"),
    (lambda: torch.linalg.lu_solve(torch.ones(2, 3), torch.ones(2, dtype=torch.int32), torch.ones(2, 1)),
     RuntimeError, "square"),
])
def test_lu_misuse(call, err, match):
    with pytest.raises(err, match=match):
        call()


# ---------------------------------------------------------------- device="meta"
@pytest.mark.parametrize("make", [
    lambda: torch.zeros(2, 3, device="meta"), lambda: torch.ones(2, 3, device="meta"),
    lambda: torch.empty(2, 3, device="meta"), lambda: torch.full((2, 3), 7.0, device="meta"),
    lambda: torch.randn(2, 3, device="meta"), lambda: torch.rand(2, 3, device=torch.device("meta")),
    lambda: torch.randint(0, 5, (2, 3), device="meta"), lambda: torch.zeros_like(torch.ones(2, 3), device="meta"),
    lambda: torch.randn_like(torch.zeros(2, 3, device="meta")), lambda: torch.empty_like(torch.zeros(2, 3, device="meta")),
    lambda: torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device="meta"),
])
def test_creation_functions_make_shape_only_tensors_on_the_meta_device(make):
    t = make()
    assert t.device.type == "meta" and str(t.device) == "meta" and t.shape == (2, 3)
    with pytest.raises(NotImplementedError, match="meta"):
        (t + 1).numpy()


def test_meta_draws_leave_the_random_stream_untouched():
    torch.manual_seed(3)
    want = torch.randn(4)
    torch.manual_seed(3)
    torch.randn(100, device="meta")
    torch.nn.Linear(50, 50, device="meta")
    assert torch.equal(torch.randn(4), want)


@pytest.mark.parametrize("make", [
    lambda d: torch.nn.Linear(3, 4, device=d), lambda d: torch.nn.Conv2d(2, 3, 3, device=d),
    lambda d: torch.nn.BatchNorm1d(3, device=d), lambda d: torch.nn.LSTM(3, 4, device=d),
    lambda d: torch.nn.Embedding(5, 2, device=d), lambda d: torch.nn.LayerNorm(4, device=d),
])
def test_layers_built_with_device_meta_have_meta_parameters_and_buffers_of_the_cpu_shapes(make):
    meta, cpu = make("meta"), make("cpu")
    for (n1, a), (n2, b) in zip(list(meta.named_parameters()) + list(meta.named_buffers()),
                                list(cpu.named_parameters()) + list(cpu.named_buffers())):
        assert n1 == n2 and a.device.type == "meta" and b.device.type == "cpu" and a.shape == b.shape
        assert a.dtype == b.dtype
    with pytest.raises(RuntimeError, match="device 'cuda' is not available"):
        make("cuda")


def test_a_meta_model_serves_as_the_stateless_model_of_functional_call_and_vmap():
    # the model-ensembling tutorial's recipe: a meta copy, stacked states, vmap over the models
    import copy

    models = [torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.ReLU(), torch.nn.Linear(5, 3)) for _ in range(4)]
    params, buffers = torch.func.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert all(p.device.type == "meta" for p in base.parameters())
    x = torch.randn(4, 8, 6)
    out = torch.vmap(lambda p, b, xb: torch.func.functional_call(base, (p, b), (xb,)))(params, buffers, x)
    want = torch.stack([m(xb) for m, xb in zip(models, x)])
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    same = torch.vmap(lambda p, b, xb: torch.func.functional_call(base, (p, b), (xb,)), in_dims=(0, 0, None))
    np.testing.assert_allclose(same(params, buffers, x[0]).detach().numpy(),
                               torch.stack([m(x[0]) for m in models]).detach().numpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- GradientEdge of a non-leaf
def test_grad_and_backward_take_the_gradient_edge_of_a_non_leaf():
    from dyngrad.autograd.graph import get_gradient_edge

    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 2
    c = b.exp().sum()
    (g,) = torch.autograd.grad(c, (get_gradient_edge(b),), retain_graph=True)
    np.testing.assert_allclose(g.numpy(), np.exp(np.array([2.0, 4.0, 6.0])), rtol=1e-6)
    c.backward(inputs=(get_gradient_edge(b),), retain_graph=True)  # stops at b: no leaf accumulates
    assert a.grad is None
    del b  # the edge outlives its tensor: the node is what matters
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    u, v = x.unbind(0)
    out = (u * 3 + v * 5).sum()
    gv, gu = torch.autograd.grad(out, (get_gradient_edge(v), get_gradient_edge(u)))  # two outputs of one node
    assert gv.tolist() == [5.0, 5.0] and gu.tolist() == [3.0, 3.0]


# ---------------------------------------------------------------- lobpcg
def _spd_matrix(m=12, seed=0):
    q = np.linalg.qr(np.random.default_rng(seed).standard_normal((m, m)))[0]
    return (q * np.arange(1.0, m + 1)) @ q.T


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_finds_the_extreme_eigenpairs(largest):
    A = _spd_matrix()
    E, X = torch.lobpcg(torch.tensor(A), k=3, largest=largest)
    want = [12.0, 11.0, 10.0] if largest else [1.0, 2.0, 3.0]
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-7)
    np.testing.assert_allclose(A @ X.numpy(), X.numpy() * E.numpy(), atol=1e-6)
    np.testing.assert_allclose(X.numpy().T @ X.numpy(), np.eye(3), atol=1e-10)


def test_lobpcg_generalized_problem_batches_and_initial_vectors():
    A = _spd_matrix()
    Bm = 2 * np.eye(12) + 0.1 * np.ones((12, 12))
    E, X = torch.lobpcg(torch.tensor(A), k=2, B=torch.tensor(Bm))
    Li = np.linalg.inv(np.linalg.cholesky(Bm))  # the eigenvalues of L^-1 A L^-T (B = L L^T)
    np.testing.assert_allclose(E.numpy(), np.linalg.eigvalsh(Li @ A @ Li.T)[::-1][:2], rtol=1e-7)
    np.testing.assert_allclose(X.numpy().T @ Bm @ X.numpy(), np.eye(2), atol=1e-8)  # B-orthonormal
    Eb, Xb = torch.lobpcg(torch.tensor(np.stack([A, 2 * A])), X=torch.tensor(np.eye(12)[:, :3] + 0.1), k=2)
    assert Eb.shape == (2, 2) and Xb.shape == (2, 12, 2)
    np.testing.assert_allclose(Eb.numpy(), [[12.0, 11.0], [24.0, 22.0]], rtol=1e-7)


def test_lobpcg_gradient_is_symmetric_and_passes_gradcheck_without_b():
    A = torch.tensor(_spd_matrix(9), requires_grad=True)
    x0 = torch.tensor(np.eye(9)[:, :3] + 0.1)

    def f(a):
        E, X = torch.lobpcg(a, k=2, X=x0, tol=1e-14, niter=200)
        return E, X @ X.mT

    assert torch.autograd.gradcheck(f, (A,), atol=1e-6, rtol=1e-5, check_forward_ad=True)
    E, _ = torch.lobpcg(A, k=1)
    E.sum().backward()
    u = np.linalg.eigh(_spd_matrix(9))[1][:, -1]
    np.testing.assert_allclose(A.grad.numpy(), np.outer(u, u), atol=1e-7)  # d lambda_max / dA = u u^T
    (g,) = torch.autograd.grad(torch.lobpcg(A, k=1)[0].sum(), A, create_graph=True)
    with pytest.raises(RuntimeError):
        g.sum().backward()  # once differentiable


@pytest.mark.parametrize("call,err,match", [
    (lambda A: torch.lobpcg(A, k=5), ValueError, "not applicable when the number of A rows \\(=12\\)"),
    (lambda A: torch.lobpcg(A[:, :3], k=1), RuntimeError, "A must be square"),
    (lambda A: torch.lobpcg(A, k=2, method="lanczos"), ValueError, "method must be"),
    (lambda A: torch.lobpcg(A, k=3, X=torch.ones(12, 2, dtype=torch.float64)), ValueError, "must not exceed"),
    (lambda A: torch.lobpcg(A.long(), k=1), RuntimeError, "floating point"),
])
def test_lobpcg_misuse(call, err, match):
    with pytest.raises(err, match=match):
        call(torch.tensor(_spd_matrix()))


def test_lobpcg_backward_with_b_raises_as_pytorch():
    A = torch.tensor(_spd_matrix(), requires_grad=True)
    E, _ = torch.lobpcg(A, k=2, B=torch.eye(12, dtype=torch.float64) * 2)
    with pytest.raises(ValueError, match="does not support backward with B != I"):
        E.sum().backward()
