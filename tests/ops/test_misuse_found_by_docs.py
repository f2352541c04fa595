"""Behaviours that differed from PyTorch 2.13, found while writing the docstrings of the
``dyngrad.[g-z]*`` functions (issue 17), each now PyTorch's."""

import pytest

import dyngrad


@pytest.mark.parametrize("kw", ["rtol", "atol"])
def test_isclose_refuses_a_negative_tolerance(kw):
    x = dyngrad.tensor([1.0])
    with pytest.raises(RuntimeError, match=f"{kw} must be greater than or equal to zero"):
        dyngrad.isclose(x, x, **{kw: -1.0})


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isposinf", "isneginf"])
def test_float_predicates_refuse_a_non_tensor(name):
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'input'"):
        getattr(dyngrad, name)([1.0])


def test_logit_with_eps_has_zero_gradient_at_0_and_1_not_nan():
    # PyTorch's logit_backward: 0 outside [eps, 1 - eps]; 1 / (x (1 - x)) is infinite at 0 and 1
    x = dyngrad.tensor([0.5, 0.0, 1.0, 0.05], requires_grad=True)
    dyngrad.logit(x, eps=0.1).sum().backward()
    assert x.grad.tolist() == [4.0, 0.0, 0.0, 0.0]
    x64 = dyngrad.tensor([0.3, 0.02, 0.6], dtype=dyngrad.float64, requires_grad=True)
    assert dyngrad.autograd.gradgradcheck(lambda t: dyngrad.logit(t, eps=0.1), (x64,))


def test_rrelu_refuses_lower_above_upper():
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        dyngrad.rrelu(dyngrad.tensor([-1.0]), 0.5, 0.1)


@pytest.mark.parametrize("name", ["index_add", "index_copy"])
def test_index_add_and_copy_refuse_a_source_of_another_dtype(name):
    # PyTorch raises; dyngrad used to promote (index_add) or silently cast (index_copy)
    x, i = dyngrad.zeros(3), dyngrad.tensor([0])
    with pytest.raises(RuntimeError, match=f"{name}\\(\\): self"):
        getattr(dyngrad, name)(x, 0, i, dyngrad.tensor([1.0], dtype=dyngrad.float64))
    assert getattr(dyngrad, name)(x, 0, i, dyngrad.tensor([1.0])).tolist() == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_reducing_an_empty_tensor_without_a_dim_is_a_runtime_error(name):
    # PyTorch: RuntimeError without a dim, IndexError for an empty dim
    with pytest.raises(RuntimeError, match="Expected reduction dim to be specified"):
        getattr(dyngrad, name)(dyngrad.zeros(0, 2))
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        getattr(dyngrad, name)(dyngrad.zeros(2, 0), 1)


def test_masked_fill_inplace_with_a_mask_larger_than_input_is_a_runtime_error():
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        dyngrad.zeros(3).masked_fill_(dyngrad.tensor([[True], [False]]), 1.0)


def test_nonzero_refuses_a_non_tensor():
    with pytest.raises(TypeError, match="nonzero\\(\\): argument 'input'"):
        dyngrad.nonzero([1, 0])


@pytest.mark.parametrize("call", [
    lambda: dyngrad.iinfo(dyngrad.float32),
    lambda: dyngrad.iinfo(dyngrad.bool),
    lambda: dyngrad.is_floating_point([1.0]),
    lambda: dyngrad.numel([1]),
    lambda: dyngrad.set_rng_state(3),
])
def test_namespace_helpers_raise_type_error_for_a_wrong_argument_type(call):
    # PyTorch's TypeError (dyngrad raised ValueError / AttributeError)
    with pytest.raises(TypeError):
        call()


def test_iinfo_still_gives_integer_limits():
    assert (dyngrad.iinfo(dyngrad.int8).min, dyngrad.iinfo(dyngrad.uint8).max) == (-128, 255)


def test_repr_of_all_true_and_of_empty_integer_tensors_is_pytorchs():
    # PyTorch pads to the widest printed element and names the dtype of an empty tensor
    assert repr(dyngrad.tensor([True, True])) == "tensor([True, True])"
    assert repr(dyngrad.tensor([True, False])) == "tensor([ True, False])"
    assert repr(dyngrad.tensor([], dtype=dyngrad.int64)) == "tensor([], dtype=dyngrad.int64)"
    assert repr(dyngrad.zeros(1, 0, dtype=dyngrad.int64)) == "tensor([], size=(1, 0), dtype=dyngrad.int64)"
    assert repr(dyngrad.tensor([], dtype=dyngrad.bool)) == "tensor([], dtype=dyngrad.bool)"
    assert repr(dyngrad.zeros(2, 0)) == "tensor([], size=(2, 0))"
    assert repr(dyngrad.tensor([1, 2])) == "tensor([1, 2])"
