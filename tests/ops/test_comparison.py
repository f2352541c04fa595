"""Comparison, logical and bitwise ops are Functions with a non-differentiable output. (Their
values against PyTorch, dtypes and vmap are the op database's: tests/op_db/comparison.py,
checked by tests/test_op_db.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function
from dyngrad.func import jacfwd, vmap
from dyngrad.ops import comparison

rng = np.random.default_rng(0)

BINARY = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"]
NUMPY = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]


@pytest.mark.parametrize("name", BINARY + BITWISE)
def test_each_binary_op_is_a_function_with_a_vmap_and_a_jvp_rule(name) -> None:  # noqa: ANN001
    cls = getattr(comparison, name).function
    assert issubclass(cls, Function)
    assert cls.vmap is not None and "jvp" in comparison._NoGrad.__dict__


@pytest.mark.parametrize("name", BINARY)
def test_a_comparison_of_a_tensor_that_requires_grad_does_not_require_grad(name) -> None:  # noqa: ANN001
    x = dyngrad.tensor(rng.standard_normal(5), requires_grad=True)
    out = getattr(dyngrad, name)(x, 0.1)
    assert out.dtype == dyngrad.bool
    assert not out.requires_grad and out.grad_fn is None
    np.testing.assert_array_equal(out.numpy(), getattr(np, NUMPY.get(name, name))(x.detach().numpy(), 0.1))


def test_vmap_of_logical_not_bitwise_not_and_isclose_match_the_unbatched_op() -> None:
    a = dyngrad.tensor(rng.integers(-3, 3, (4, 3)))
    np.testing.assert_array_equal(vmap(dyngrad.logical_not)(a).numpy(), np.logical_not(a.numpy()))
    np.testing.assert_array_equal(vmap(dyngrad.bitwise_not)(a).numpy(), np.invert(a.numpy()))
    x = dyngrad.tensor(rng.standard_normal((4, 3)))
    y = x + dyngrad.tensor([0.0, 1e-9, 1.0])
    np.testing.assert_array_equal(vmap(dyngrad.isclose)(x, y).numpy(), np.isclose(x.numpy(), y.numpy()))


def test_forward_mode_through_a_mask_gives_the_masked_derivative() -> None:
    x = dyngrad.tensor([-1.0, 0.5, 2.0], dtype=dyngrad.float64)
    jac = jacfwd(lambda t: t * (t > 0))(x)
    np.testing.assert_array_equal(jac.numpy(), np.diag([0.0, 1.0, 1.0]))


def test_a_bitwise_op_on_floating_tensors_raises_as_pytorch() -> None:
    with pytest.raises(NotImplementedError, match='"bitwise_and_cpu" not implemented for \'Float\''):
        dyngrad.bitwise_and(dyngrad.ones(2), dyngrad.ones(2))


def test_bitwise_not_of_a_float_tensor_raises_notimplementederror_as_pytorch() -> None:
    # torch 2.13: NotImplementedError "bitwise_not_cpu" not implemented for 'Float' (was TypeError)
    with pytest.raises(NotImplementedError, match="'Float'"):
        dyngrad.bitwise_not(dyngrad.ones(2))
    with pytest.raises(NotImplementedError, match="'Double'"):
        ~dyngrad.ones(2, dtype=dyngrad.float64)


def test_equal_refuses_a_non_tensor_with_typeerror_as_pytorch() -> None:
    with pytest.raises(TypeError, match=r"'other' \(position 2\) must be Tensor, not list"):
        dyngrad.equal(dyngrad.tensor([1]), [1])
    with pytest.raises(TypeError, match=r"'input' \(position 1\) must be Tensor, not int"):
        dyngrad.equal(1, dyngrad.tensor([1]))
    assert dyngrad.equal(dyngrad.tensor([1, 2]), dyngrad.tensor([1.0, 2.0])) is True
