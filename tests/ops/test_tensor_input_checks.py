"""A Python number where PyTorch 2.13 requires a Tensor (``input`` of the binary pointwise
ops, comparisons, ``lerp``/``addcmul``/``addcdiv``; both operands of the products) is a
TypeError naming the function, the argument and its position, as PyTorch's argument parser
words it (messages printed by PyTorch 2.13; tests/oracle/test_tensor_input_checks_oracle.py
compares live). NumPy's ufuncs still take a number first (``np.maximum(0.0, t)``)."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

T = dyngrad.tensor([1.0, 2.0])
M = dyngrad.ones(2, 2)

# (function name, arguments, PyTorch 2.13's message for them)
CASES = [(name, (2.0, T), f"{name}(): argument 'input' (position 1) must be Tensor, not float") for name in (
    "maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "logaddexp", "logaddexp2", "heaviside",
    "logical_and", "logical_or", "logical_xor", "dist", "igamma", "igammac", "isclose", "allclose", "equal",
    "outer", "cross", "kron", "matmul", "dot")]
CASES += [
    ("addcmul", (1.0, T, T), "addcmul(): argument 'input' (position 1) must be Tensor, not float"),
    ("addcdiv", (1.0, T, T), "addcdiv(): argument 'input' (position 1) must be Tensor, not float"),
    ("outer", (T, 2.0), "outer(): argument 'vec2' (position 2) must be Tensor, not float"),
    ("cross", (T, 2.0), "cross(): argument 'other' (position 2) must be Tensor, not float"),
    ("kron", (T, 2.0), "kron(): argument 'other' (position 2) must be Tensor, not float"),
    ("equal", (T, 2.0), "equal(): argument 'other' (position 2) must be Tensor, not float"),
    ("mm", (M, 2.0), "mm(): argument 'mat2' (position 2) must be Tensor, not float"),
    ("bmm", (M, 2.0), "bmm(): argument 'mat2' (position 2) must be Tensor, not float"),
    ("mv", (M, 2.0), "mv(): argument 'vec' (position 2) must be Tensor, not float"),
    ("dot", (T, 2.0), "dot(): argument 'tensor' (position 2) must be Tensor, not float"),
    ("matmul", (M, 2.0), "matmul(): argument 'other' (position 2) must be Tensor, not float"),
]
# PyTorch words these "received an invalid combination of arguments - got (float, Tensor)";
# dyngrad names the argument. An alias (arctan2, greater, ...) is the function it stands for,
# and its message names that one.
INVALID_COMBINATION = [(name, name, (2.0, T)) for name in ("copysign", "fmod", "rsub", "eq", "ne", "lt", "le", "gt",
                                                           "ge")]
INVALID_COMBINATION += [("lerp", "lerp", (1.0, T, 0.5)), ("arctan2", "atan2", (2.0, T)), ("greater", "gt", (2.0, T)),
                        ("less", "lt", (2.0, T)), ("greater_equal", "ge", (2.0, T)), ("less_equal", "le", (2.0, T)),
                        ("not_equal", "ne", (2.0, T))]


@pytest.mark.parametrize("name,args,message", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_number_where_pytorch_requires_a_tensor(name, args, message) -> None:
    with pytest.raises(TypeError) as e:
        getattr(dyngrad, name)(*args)
    assert str(e.value) == message


@pytest.mark.parametrize("name,named,args", INVALID_COMBINATION, ids=[c[0] for c in INVALID_COMBINATION])
def test_number_input_is_a_type_error_naming_the_function(name, named, args) -> None:
    with pytest.raises(TypeError) as e:
        getattr(dyngrad, name)(*args)
    assert str(e.value) == f"{named}(): argument 'input' (position 1) must be Tensor, not float"


def test_what_pytorch_accepts_still_works() -> None:
    # a number second, and the ops PyTorch takes a number first in
    assert dyngrad.maximum(T, 1.5).tolist() == [1.5, 2.0]  # (dyngrad's documented extension)
    assert dyngrad.fmod(T, 2.0).tolist() == [1.0, 0.0]
    assert dyngrad.copysign(T, -1.0).tolist() == [-1.0, -2.0]
    assert dyngrad.eq(T, 2.0).tolist() == [False, True]
    assert (2.0 == T).tolist() == [False, True] and (1.5 < T).tolist() == [False, True]
    assert dyngrad.remainder(5.0, T).tolist() == [0.0, 1.0]
    assert dyngrad.pow(2.0, T).tolist() == [2.0, 4.0]
    assert dyngrad.xlogy(2.0, T).tolist() == pytest.approx([0.0, 2 * np.log(2.0)])
    assert dyngrad.sub(3.0, T).tolist() == [2.0, 1.0]
    assert (3.0 - T).tolist() == [2.0, 1.0]
    assert dyngrad.lerp(T, T * 3, 0.5).tolist() == [2.0, 4.0]


def test_numpy_ufuncs_take_a_number_first() -> None:
    t32 = dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float32)
    y = np.maximum(1.5, t32)
    assert isinstance(y, dyngrad.Tensor) and y.dtype == dyngrad.float32 and y.tolist() == [1.5, 2.0]
    np.testing.assert_allclose(np.arctan2(1.0, T).numpy(), np.arctan2(1.0, [1.0, 2.0]))
    np.testing.assert_allclose(np.hypot(3.0, T).numpy(), np.hypot(3.0, [1.0, 2.0]))
    np.testing.assert_allclose(np.fmod(5.0, T).numpy(), [0.0, 1.0])
    assert np.greater(1.5, T).tolist() == [True, False]
    x = dyngrad.tensor([1.0, 3.0], requires_grad=True)
    np.minimum(2.0, x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]
