"""The array forms of backward formulas (ops/_array_backward.py, engine invariant 6) give
bit-for-bit the gradients of the ops' Tensor formulas, which a create_graph=True pass runs.

A merge once paired Mul's array form with the old order of its saved operands (silently
wrong gradients for ``a * b`` with ``a != b``) and ReLU's with the old ``out > 0`` mask (0 at
NaN): each registered op is checked here with operands that differ, with NaN, inf and zeros."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dyngrad
from dyngrad.ops import _array_backward  # noqa: F401 - registers the array forms

_VALUES = st.one_of(st.floats(-3, 3, allow_nan=False, width=64), st.sampled_from([0.0, -0.0, np.nan, np.inf, -np.inf]))
_ARRAYS = hnp.arrays(np.float64, (2, 3), elements=_VALUES)

# name -> (function of two tensors, the grad_fn class name whose array form it exercises)
CASES = {
    "mul": (lambda a, b: a * b, "MulBackward0"),
    "mul_scalar": (lambda a, b: a * 2.5 + b * -0.5, "MulBackward0"),
    "add": (lambda a, b: a + b, "AddBackward0"),
    "sub": (lambda a, b: a - b, "SubBackward0"),
    "neg": (lambda a, b: -a + b, "NegBackward0"),
    "tanh": (lambda a, b: a.tanh() * b, "TanhBackward0"),
    "exp": (lambda a, b: a.exp() - b, "ExpBackward0"),
    "relu": (lambda a, b: dyngrad.relu(a) * b, "ReluBackward0"),
    "sum_dim": (lambda a, b: (a * b).sum(1), "SumBackward1"),
    "sum_keepdim": (lambda a, b: (a * b).sum(0, keepdim=True), "SumBackward1"),
    "broadcast_mul": (lambda a, b: a * b[:1], "MulBackward0"),
}


def _grads(fn, a: np.ndarray, b: np.ndarray, create_graph: bool) -> tuple:
    x = dyngrad.tensor(a, requires_grad=True)
    y = dyngrad.tensor(b, requires_grad=True)
    out = fn(x, y)
    g = dyngrad.tensor(np.linspace(-1.5, 2.0, out.numel()).reshape(out.shape))
    gx, gy = dyngrad.autograd.grad(out, (x, y), g, create_graph=create_graph, allow_unused=True)
    return tuple(None if t is None else t.detach().numpy() for t in (gx, gy))


def _has_array_form(fn, name: str) -> bool:
    x = dyngrad.ones(2, 3, requires_grad=True)
    seen, stack = set(), [fn(x, dyngrad.ones(2, 3, requires_grad=True)).grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__ == name:
            return getattr(type(node), "_backward_arrays", None) is not None
        stack.extend(f for f, _ in node.next_functions)
    return False


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_case_reaches_an_op_with_an_array_form(case: str) -> None:
    fn, name = CASES[case]
    assert _has_array_form(fn, name), f"{case}: no {name} with an array form in its graph"


@pytest.mark.parametrize("case", sorted(CASES))
@settings(max_examples=30, deadline=None)
@given(a=_ARRAYS, b=_ARRAYS)
def test_array_form_equals_the_tensor_formula(case: str, a: np.ndarray, b: np.ndarray) -> None:
    fn = CASES[case][0]
    with np.errstate(all="ignore"):
        first = _grads(fn, a, b, create_graph=False)  # the array forms
        second = _grads(fn, a, b, create_graph=True)  # the Tensor formulas, as recorded ops
    for got, want in zip(first, second):
        assert (got is None) == (want is None)
        if got is not None:
            np.testing.assert_array_equal(got, want)


def test_mul_gradients_are_not_swapped() -> None:
    a = dyngrad.tensor([2.0, 3.0], requires_grad=True)
    b = dyngrad.tensor([5.0, 7.0], requires_grad=True)
    (a * b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(b.grad.numpy(), [2.0, 3.0])


def test_relu_gradient_passes_at_nan_on_the_array_path() -> None:
    x = dyngrad.tensor([np.nan, -1.0, 0.0, 2.0], requires_grad=True)
    dyngrad.relu(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 0.0, 1.0])
