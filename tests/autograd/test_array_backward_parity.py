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
import dyngrad.nn.functional as F
from dyngrad.ops import _array_backward  # noqa: F401 - registers the array forms

_T = dyngrad.tensor([2, 0])  # class targets of the (2, 3) inputs
_W = dyngrad.tensor([0.5, 2.0, 1.5])  # class weights

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
    "div": (lambda a, b: a / b, "DivBackward0"),
    "div_scalars": (lambda a, b: a / 2.5 + 1.5 / b, "DivBackward0"),
    "div_broadcast": (lambda a, b: a / b[:1], "DivBackward0"),
    "pow_int": (lambda a, b: a ** 3 * b, "PowBackward0"),
    "pow_float": (lambda a, b: a ** 0.5 - b ** -1.5, "PowBackward0"),
    "pow_zero": (lambda a, b: a ** 0 + b, "PowBackward0"),
    "pow_base": (lambda a, b: 2.0 ** a * b, "PowBackward0"),
    "log": (lambda a, b: a.log() * b, "LogBackward0"),
    "sigmoid": (lambda a, b: a.sigmoid() * b, "SigmoidBackward0"),
    "sqrt": (lambda a, b: a.sqrt() * b, "SqrtBackward0"),
    "mean_all": (lambda a, b: (a * b).mean(), "MeanBackward0"),
    "mean_dim": (lambda a, b: (a * b).mean(1), "MeanBackward1"),
    "mean_keepdim": (lambda a, b: (a * b).mean((0, 1), keepdim=True), "MeanBackward1"),
    "view": (lambda a, b: (a * b).view(3, 2), "ViewBackward0"),
    "reshape_t": (lambda a, b: a.t().reshape(6) * b.reshape(6), "ViewBackward0"),
    "unsqueeze": (lambda a, b: (a * b).unsqueeze(1), "UnsqueezeBackward0"),
    "squeeze": (lambda a, b: a[None] * b, "UnsqueezeBackward0"),
    "t": (lambda a, b: a.t() * b.t(), "TBackward0"),
    "transpose": (lambda a, b: (a * b).transpose(0, 1), "TransposeBackward0"),
    "permute": (lambda a, b: a.reshape(1, 2, 3).permute(2, 0, 1) * b.t()[:, None], "PermuteBackward0"),
    "expand": (lambda a, b: a[:1].expand(2, 3) * b, "ExpandBackward0"),
    "expand_new_dim": (lambda a, b: a[0].expand(2, 2, 3) * b, "ExpandBackward0"),
    "slice": (lambda a, b: a[:, 1:] * b[:, :2], "SliceBackward0"),
    "select": (lambda a, b: a[1] * b[0], "SelectBackward0"),
    "index_repeated": (lambda a, b: a[[0, 0, 1]] * b[[1, 0, 1]], "IndexBackward0"),
    "mm": (lambda a, b: a @ b.t(), "MmBackward0"),
    "matmul_broadcast": (lambda a, b: a.reshape(1, 2, 3) @ b.t(), "UnsafeViewBackward0"),
    "bmm": (lambda a, b: a.unsqueeze(0).bmm(b.t().unsqueeze(0)), "BmmBackward0"),
    "linear": (lambda a, b: F.linear(a, b), "MmBackward0"),
    "linear_bias": (lambda a, b: F.linear(a, b, b[0, :2]), "AddmmBackward0"),
    "linear_3d": (lambda a, b: F.linear(a.t().reshape(3, 1, 2), b.t(), a[0]), "AddmmBackward0"),
    "softmax": (lambda a, b: a.softmax(1) * b, "SoftmaxBackward0"),
    "log_softmax": (lambda a, b: a.log_softmax(0) * b, "LogSoftmaxBackward0"),
    "nll_mean": (lambda a, b: F.nll_loss(a * b, _T), "NllLossBackward0"),
    "nll_weighted_ignore": (lambda a, b: F.nll_loss(a - b, _T, weight=_W, ignore_index=0), "NllLossBackward0"),
    "nll_none": (lambda a, b: F.nll_loss(a * b, _T, reduction="none"), "NllLossBackward0"),
    "cross_entropy_sum": (lambda a, b: F.cross_entropy(a + b, _T, reduction="sum"), "LogSoftmaxBackward0"),
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
def test_the_array_form_runs(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The case's array form computes its gradient (does not hand it to the Tensor formula
    with NotImplemented), so the parity check below compares two different computations."""
    fn, name = CASES[case]
    x = dyngrad.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
    y = dyngrad.tensor(np.arange(6.0, 0.0, -1.0).reshape(2, 3), requires_grad=True)
    out = fn(x, y)
    stack, seen, hits = [out.grad_fn], set(), []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__ == name:
            form = type(node)._backward_arrays

            def spy(ctx, *g, form=form):  # noqa: ANN001, ANN202
                r = form(ctx, *g)
                hits.append(r is not NotImplemented)
                return r

            monkeypatch.setattr(type(node), "_backward_arrays", staticmethod(spy))
        stack.extend(f for f, _ in node.next_functions)
    out.backward(dyngrad.ones_like(out))
    assert hits and all(hits), f"{case}: the array form of {name} returned NotImplemented ({hits})"


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


def test_array_forms_skip_dask_arrays() -> None:
    """A Dask-backed graph runs the Tensor formulas (its gradients stay lazy)."""
    da = pytest.importorskip("dask.array")
    x = dyngrad.tensor(da.from_array(np.arange(1.0, 7.0).reshape(2, 3), chunks=(1, 3)), requires_grad=True)
    w = dyngrad.tensor(np.ones((4, 3)), requires_grad=True)
    F.log_softmax(F.linear(x.sqrt() / 2.0, w).t(), 0).mean().backward()
    assert type(x.grad._data) is not np.ndarray and type(w.grad._data) is not np.ndarray
    xn = dyngrad.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
    wn = dyngrad.tensor(np.ones((4, 3)), requires_grad=True)
    F.log_softmax(F.linear(xn.sqrt() / 2.0, wn).t(), 0).mean().backward()
    np.testing.assert_allclose(np.asarray(x.grad._data), xn.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(w.grad._data), wn.grad.numpy(), rtol=1e-12)


def test_relu_gradient_passes_at_nan_on_the_array_path() -> None:
    x = dyngrad.tensor([np.nan, -1.0, 0.0, 2.0], requires_grad=True)
    dyngrad.relu(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 0.0, 1.0])
