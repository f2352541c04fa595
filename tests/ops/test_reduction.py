"""Reductions, statistics, norms and scans. Table-driven (tests/ops/harness.py): forward and
backward against golden PyTorch 2.13 values, gradcheck/gradgradcheck in float64, dtypes; then
ties, zeros, namedtuples, node names, 0-d/empty inputs and errors."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg
from dyngrad.autograd import gradcheck, gradgradcheck


# ----------------------------------------------------------------------------- semantics
def _t(a, **kw):
    return dg.tensor(np.asarray(a, dtype=np.float64), **kw)


def test_prod_gradient_is_the_product_of_the_others_with_one_zero():
    x = _t([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 6.0, 0.0])


def test_prod_gradient_is_zero_with_two_zeros():
    x = _t([2.0, 0.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("row", [[1.5, 0.0, 2.0, -0.5], [0.0, 1.5, 0.0, 2.0], [0.0, 0.0, 0.0, 2.0]])
def test_prod_second_derivative_is_exact_with_any_number_of_zeros(row):
    x = _t([row], requires_grad=True)
    assert gradgradcheck(lambda t: t.prod(1), (x,))


def test_amax_splits_the_gradient_evenly_between_ties():
    x = _t([1.0, 3.0, 3.0, 3.0], requires_grad=True)
    x.amax().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1 / 3, 1 / 3, 1 / 3])


def test_max_with_dim_sends_the_gradient_to_the_returned_index_only():
    x = _t([[1.0, 3.0, 3.0]], requires_grad=True)
    values, indices = x.max(1)
    values.sum().backward()
    assert indices.tolist() == [1]
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 1.0, 0.0]])


def test_max_with_dim_returns_a_namedtuple_with_non_differentiable_int64_indices():
    x = _t(np.arange(6.0).reshape(2, 3), requires_grad=True)
    r = dg.max(x, dim=1, keepdim=True)
    assert type(r).__name__ == "max" and r._fields == ("values", "indices")
    assert r.indices.dtype == dg.int64 and not r.indices.requires_grad
    assert r.values.requires_grad and r.values.shape == (2, 1)
    assert dg.min(x, 0).indices.tolist() == [0, 0, 0]


def test_max_and_argmax_propagate_nan_like_pytorch():
    x = _t([float("nan"), 1.0])
    v, i = x.max(0)
    assert np.isnan(v.item()) and i.item() == 0
    assert _t([1.0, float("nan")]).argmax().item() == 1
    assert np.isnan(_t([1.0, float("nan")]).amax().item())


def test_full_max_returns_a_zero_dim_tensor_not_a_tuple():
    x = _t([[1.0, 5.0], [2.0, -1.0]])
    assert isinstance(x.max(), dg.Tensor) and x.max().shape == () and x.min().item() == -1.0


def test_max_of_two_tensors_is_the_elementwise_maximum():
    a, b = _t([1.0, 5.0]), _t([3.0, 2.0])
    np.testing.assert_array_equal(dg.max(a, b).numpy(), [3.0, 5.0])
    np.testing.assert_array_equal(a.min(b).numpy(), [1.0, 2.0])


def test_vector_norm_has_subgradient_zero_at_zero():
    x = dg.zeros(3, dtype=dg.float64, requires_grad=True)
    dg.linalg.vector_norm(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_std_gradient_is_zero_for_a_constant_slice():
    x = dg.ones(2, 3, dtype=dg.float64, requires_grad=True)
    x.std(1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))


def test_var_with_too_few_elements_is_nan_or_inf_like_pytorch():
    x = _t([1.0])
    assert np.isnan(x.var().item())
    assert x.var(correction=0).item() == 0.0


def test_logsumexp_does_not_overflow_and_handles_minus_infinity():
    x = _t([1000.0, 1000.0])
    np.testing.assert_allclose(x.logsumexp(0).item(), 1000.0 + np.log(2.0))
    y = _t([-np.inf, -np.inf])
    assert y.logsumexp(0).item() == -np.inf


def test_cumprod_gradient_with_a_zero():
    x = _t([2.0, 0.0, 3.0, 4.0], requires_grad=True)
    x.cumprod(0).sum().backward()
    # d/dx0 = 1 (+0 ...), d/dx1 = x0 + x0*x2 + x0*x2*x3, later entries see the zero: 0
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0 + 6.0 + 24.0, 0.0, 0.0])


def test_cumprod_second_derivative_is_exact_without_zeros():
    x = _t([[1.5, -0.7, 2.0, 0.4]], requires_grad=True)
    assert gradgradcheck(lambda t: t.cumprod(1), (x,))


def test_sum_of_bool_and_int_inputs_is_int64():
    assert dg.tensor([True, True, False]).sum().dtype == dg.int64
    assert dg.tensor([1, 2], dtype=dg.int32).sum().dtype == dg.int64
    assert dg.tensor([1, 2], dtype=dg.int32).sum(dtype=dg.float64).dtype == dg.float64


def test_count_nonzero_all_any_give_int64_and_bool_without_grad():
    x = _t([[0.0, 1.0], [2.0, 0.0]], requires_grad=True)
    c = dg.count_nonzero(x)
    assert c.dtype == dg.int64 and c.item() == 2 and not c.requires_grad
    assert x.all().dtype == dg.bool and not x.all().item() and x.any().item()
    assert x.any(1, keepdim=True).shape == (2, 1)


@pytest.mark.parametrize(
    "fn,name",
    [
        (lambda x: x.sum(), "SumBackward0"), (lambda x: x.sum(0), "SumBackward1"),
        (lambda x: x.mean(), "MeanBackward0"), (lambda x: x.mean(1), "MeanBackward1"),
        (lambda x: x.prod(), "ProdBackward0"), (lambda x: x.prod(1), "ProdBackward1"),
        (lambda x: x.amax(), "AmaxBackward0"), (lambda x: x.amin(1), "AminBackward0"),
        (lambda x: x.max(), "MaxBackward1"), (lambda x: x.max(0).values, "MaxBackward0"),
        (lambda x: x.min(), "MinBackward1"), (lambda x: x.min(1)[0], "MinBackward0"),
        (lambda x: x.var(), "VarBackward0"), (lambda x: x.std(0), "StdBackward0"),
        (lambda x: dg.var_mean(x)[0], "VarMeanBackward0"), (lambda x: dg.std_mean(x)[1], "StdMeanBackward0"),
        (lambda x: x.logsumexp(0), "LogsumexpBackward0"), (lambda x: x.norm(), "LinalgVectorNormBackward0"),
        (lambda x: x.norm(p=1, dim=1), "LinalgVectorNormBackward0"), (lambda x: x.cumsum(0), "CumsumBackward0"),
        (lambda x: x.cumprod(0), "CumprodBackward0"),
    ],
)
def test_grad_fn_names_match_pytorch(fn, name):
    x = dg.randn(3, 4, requires_grad=True)
    assert type(fn(x).grad_fn).__name__ == name


def test_zero_dim_inputs_reduce_to_zero_dim_results():
    x = _t(2.5, requires_grad=True)
    for out in (x.sum(), x.sum(0), x.mean(), x.prod(), x.prod(0), x.amax(), x.max(), x.logsumexp(0)):
        assert out.shape == ()
    v, i = x.max(0)
    assert v.item() == 2.5 and i.item() == 0 and i.shape == ()
    assert x.argmax().item() == 0 and x.cumsum(0).shape == ()
    x.prod(0).backward()
    assert x.grad.item() == 1.0


def test_zero_size_reductions_follow_pytorch():
    x = dg.zeros(0, 3, dtype=dg.float64)
    assert x.sum().item() == 0.0 and x.prod().item() == 1.0
    np.testing.assert_array_equal(x.sum(0).numpy(), [0.0, 0.0, 0.0])
    assert np.isnan(x.mean().item())
    assert x.amax(1).shape == (0,)
    assert dg.linalg.vector_norm(x).item() == 0.0


# ----------------------------------------------------------------------------- errors
ERRORS = [
    (lambda x: x.sum(3), IndexError, r"range of \[-3, 2\], but got 3"),
    (lambda x: x.mean(-4), IndexError, "Dimension out of range"),
    (lambda x: x.sum((0, 0)), RuntimeError, "appears multiple times"),
    (lambda x: x.prod(5), IndexError, "Dimension out of range"),
    (lambda x: x.amax(7), IndexError, "Dimension out of range"),
    (lambda x: x.max(3), IndexError, "Dimension out of range"),
    (lambda x: x.argmax(3), IndexError, "Dimension out of range"),
    (lambda x: x.var(3), IndexError, "Dimension out of range"),
    (lambda x: x.logsumexp(-5), IndexError, "Dimension out of range"),
    (lambda x: x.cumsum(3), IndexError, "Dimension out of range"),
    (lambda x: x.norm(dim=4), IndexError, "Dimension out of range"),
    (lambda x: x.norm(p="nuc"), RuntimeError, "not supported"),
    (lambda x: x.var(1, unbiased=True, correction=0), RuntimeError, "both"),
    (lambda x: dg.zeros(0, 3).amax(), RuntimeError, "numel\\(\\) == 0"),  # PyTorch 2.13: RuntimeError
    (lambda x: dg.zeros(0, 3).max(0), IndexError, "non-zero size"),
    (lambda x: dg.zeros(0).argmax(), IndexError, "numel\\(\\) == 0"),
    (lambda x: dg.tensor([1, 2]).mean(), RuntimeError, "floating point"),
    (lambda x: dg.tensor([1, 2]).var(), RuntimeError, "floating point"),
    (lambda x: dg.linalg.vector_norm(dg.tensor([1, 2])), RuntimeError, "floating point"),
]


@pytest.mark.parametrize("fn,exc,words", ERRORS, ids=[f"{i}-{e[1].__name__}" for i, e in enumerate(ERRORS)])
def test_misuse_raises_pytorch_type_with_clear_message(fn, exc, words):
    with pytest.raises(exc, match=words):
        fn(dg.ones(2, 3, 4))


def test_gradcheck_with_broadcast_batch_through_a_reduction():
    x = _t(np.random.default_rng(3).standard_normal((3, 1, 4)), requires_grad=True)
    y = _t(np.random.default_rng(4).standard_normal((2, 1)), requires_grad=True)
    assert gradcheck(lambda a, b: (a * b).logsumexp((0, 2)), (x, y))
    assert gradcheck(lambda a, b: (a + b).std(0), (x, y))


def test_argmax_and_argmin_refuse_bool_input_as_torch():
    # torch 2.13: RuntimeError "argmax(): does not support bool input" (dyngrad returned an index)
    for f in (dg.argmax, dg.argmin):
        with pytest.raises(RuntimeError, match="does not support bool input"):
            f(dg.tensor([True, False]))


def test_all_and_any_of_a_uint8_tensor_give_uint8_as_torch():
    # torch keeps uint8 for all/any of uint8 input (legacy); dyngrad returned bool
    u = dg.tensor([[1, 0], [2, 3]], dtype=dg.uint8)
    r = dg.all(u, dim=1)
    assert r.dtype == dg.uint8 and r.tolist() == [0, 1]
    assert u.any().dtype == dg.uint8 and u.any().item() == 1
    assert dg.all(dg.tensor([1, 0]), dim=0).dtype == dg.bool


@pytest.mark.parametrize("p", [0.5, 1.5, 3.0])
def test_vector_norm_gradient_at_a_zero_element_is_finite_as_pytorchs(p) -> None:
    # d/dx_i ||x||_p = sign(x_i) |x_i|^(p-1) / ||x||^(p-1): 0 at x_i = 0 for p > 1, and
    # PyTorch's 0 (not the infinite slope) for p < 1; computing x |x|^(p-2) gave 0 * inf = nan
    x = dg.tensor([0.0, 1.0, -2.0], dtype=dg.float64, requires_grad=True)
    dg.linalg.vector_norm(x, p).backward()
    n = (1.0 + 2.0 ** p) ** (1 / p)
    expect = [0.0, 1.0 / n ** (p - 1), -(2.0 ** (p - 1)) / n ** (p - 1)]
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-12)
    a = dg.tensor([[0.5, 1.0, -2.0]], dtype=dg.float64, requires_grad=True)
    dg.cdist(a, dg.tensor([[0.5, 0.0, 1.0]], dtype=dg.float64), p=p).sum().backward()
    assert np.isfinite(a.grad.numpy()).all() and a.grad[0, 0].item() == 0.0


def test_cdist_refuses_integer_inputs_naming_pytorchs_scalar_type() -> None:
    with pytest.raises(RuntimeError, match="cdist only supports floating-point dtypes, X1 got: Long"):
        dg.cdist(dg.zeros(3, 2, dtype=dg.int64), dg.zeros(3, 2))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        dg.histc(dg.tensor([1, 2, 3]), bins=4)
