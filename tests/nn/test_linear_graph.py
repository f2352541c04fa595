"""``F.linear`` / ``nn.Linear`` record PyTorch 2.13's nodes in PyTorch's edge order
(``AddmmBackward0(bias, input, TBackward0(weight))`` for a 2-D input, ``MmBackward0`` without
a bias, the flatten/unflatten views around them for other ranks), so the walk of
``loss.grad_fn.next_functions`` in PyTorch's neural-networks tutorial prints PyTorch's names.
The expected walks were printed by PyTorch 2.13 (tests/oracle/test_linear_graph_oracle.py
compares them live); gradients are checked against the composed ``x @ w.T + b``."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
from dyngrad import nn
from dyngrad.autograd.function import Function, set_array_backward
from dyngrad.nn import functional as F


def walk(fn) -> list[str]:
    """Node names depth first, one indent per level; edges to None left out (dyngrad also lists
    a None edge for each non-Tensor argument, PyTorch does not)."""
    out: list[str] = []

    def rec(node, depth: int) -> None:
        name = node.name() if hasattr(node, "name") else type(node).__name__
        out.append("  " * depth + name.replace("torch::autograd::", ""))
        for child, _ in node.next_functions:
            if child is not None:
                rec(child, depth + 1)

    rec(fn, 0)
    return out


def _acc(d: int) -> str:
    return "  " * d + "AccumulateGrad"


# (input shape, input requires grad, with bias) -> PyTorch 2.13's walk
EXPECTED = {
    ((2, 4), True, True): ["AddmmBackward0", _acc(1), _acc(1), "  TBackward0", _acc(2)],
    ((2, 4), True, False): ["MmBackward0", _acc(1), "  TBackward0", _acc(2)],
    ((2, 4), False, True): ["AddmmBackward0", _acc(1), "  TBackward0", _acc(2)],
    ((2, 4), False, False): ["MmBackward0", "  TBackward0", _acc(2)],
    ((5, 2, 4), True, True): ["ViewBackward0", "  AddmmBackward0", _acc(2), "    ViewBackward0", _acc(3),
                              "    TBackward0", _acc(3)],
    ((5, 2, 4), True, False): ["UnsafeViewBackward0", "  MmBackward0", "    ViewBackward0", _acc(3),
                               "    TBackward0", _acc(3)],
    ((5, 2, 4), False, True): ["ViewBackward0", "  AddmmBackward0", _acc(2), "    TBackward0", _acc(3)],
    ((5, 2, 4), False, False): ["UnsafeViewBackward0", "  MmBackward0", "    TBackward0", _acc(3)],
    ((4,), True, True): ["ViewBackward0", "  AddmmBackward0", _acc(2), "    ViewBackward0", _acc(3),
                         "    TBackward0", _acc(3)],
    ((4,), True, False): ["SqueezeBackward4", "  MmBackward0", "    UnsqueezeBackward0", _acc(3),
                          "    TBackward0", _acc(3)],
    ((4,), False, False): ["SqueezeBackward4", "  MmBackward0", "    TBackward0", _acc(3)],
    ((2, 1, 2, 4), True, False): ["UnsafeViewBackward0", "  MmBackward0", "    ViewBackward0", _acc(3),
                                  "    TBackward0", _acc(3)],
}


@pytest.mark.parametrize("case", sorted(EXPECTED, key=str), ids=str)
def test_linear_records_pytorchs_nodes_in_pytorchs_order(case) -> None:
    shape, req, with_bias = case
    w = dyngrad.randn(3, 4, requires_grad=True)
    b = dyngrad.randn(3, requires_grad=True) if with_bias else None
    x = dyngrad.randn(*shape, requires_grad=req)
    assert walk(F.linear(x, w, b).grad_fn) == EXPECTED[case]


def test_addmm_edges_are_bias_input_and_the_weights_transpose() -> None:
    lin = nn.Linear(4, 3)
    x = dyngrad.randn(2, 4, requires_grad=True)
    fn = lin(x).grad_fn
    (bias_edge, _), (input_edge, _), (t_edge, _) = fn.next_functions[:3]
    assert bias_edge.variable is lin.bias
    assert input_edge.variable is x
    assert t_edge.name() == "TBackward0" and t_edge.next_functions[0][0].variable is lin.weight
    # an input that does not require grad leaves a None edge in its place, as in PyTorch
    assert lin(dyngrad.randn(2, 4)).grad_fn.next_functions[1][0] is None


def test_other_linear_graphs() -> None:
    w = dyngrad.randn(3, 4, requires_grad=True)
    x = dyngrad.randn(2, 4, requires_grad=True)
    assert walk(F.linear(x, dyngrad.randn(4, requires_grad=True)).grad_fn) == [
        "MvBackward0", _acc(1), "  TBackward0", _acc(2)]
    assert walk(F.linear(x, w, dyngrad.randn(2, 3, requires_grad=True)).grad_fn) == [
        "AddmmBackward0", _acc(1), _acc(1), "  TBackward0", _acc(2)]
    # a bias that is not 1-D with a 3-D input: the product, then an add
    assert walk(F.linear(dyngrad.randn(2, 5, 4, requires_grad=True), w, dyngrad.randn(5, 3, requires_grad=True)).grad_fn) == [
        "AddBackward0", "  UnsafeViewBackward0", "    MmBackward0", "      ViewBackward0", _acc(4),
        "      TBackward0", _acc(4), _acc(1)]


class Net(nn.Module):
    """PyTorch's neural_networks_tutorial network (LeNet-5 shaped)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = dyngrad.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        return self.fc3(f6)


def test_the_neural_networks_tutorials_walk_prints_pytorchs_names() -> None:
    net = Net()
    loss = nn.MSELoss()(net(dyngrad.randn(1, 1, 32, 32)), dyngrad.randn(10).view(1, -1))
    # the tutorial's three prints (PyTorch 2.13: MseLossBackward0, AddmmBackward0, AccumulateGrad)
    assert type(loss.grad_fn).__name__ == "MseLossBackward0"
    assert type(loss.grad_fn.next_functions[0][0]).__name__ == "AddmmBackward0"
    assert type(loss.grad_fn.next_functions[0][0].next_functions[0][0]).__name__ == "AccumulateGrad"
    assert loss.grad_fn.next_functions[0][0].next_functions[0][0].variable is net.fc3.bias
    # PyTorch 2.13's walk down to the second convolution (whose node in PyTorch also holds the
    # bias, where dyngrad adds it after the ConvolutionBackward0: README)
    assert walk(loss.grad_fn)[:12] == [
        "MseLossBackward0", "  AddmmBackward0", _acc(2), "    ReluBackward0", "      AddmmBackward0", _acc(4),
        "        ReluBackward0", "          AddmmBackward0", _acc(6), "            ViewBackward0",
        "              MaxPool2DWithIndicesBackward0", "                ReluBackward0"]


@pytest.mark.parametrize("shape", [(2, 4), (5, 2, 4), (4,), (2, 1, 3, 4), (0, 4)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_gradients_equal_the_composed_formula(shape, with_bias) -> None:
    rng = np.random.default_rng(0)
    xs, ws, bs = rng.normal(size=shape), rng.normal(size=(3, 4)), rng.normal(size=3)
    g = rng.normal(size=shape[:-1] + (3,))
    results = []
    for composed in (False, True):
        for create_graph in (False, True):  # the array forms, then the Tensor formulas
            x, w = dyngrad.tensor(xs, requires_grad=True), dyngrad.tensor(ws, requires_grad=True)
            b = dyngrad.tensor(bs, requires_grad=True) if with_bias else None
            y = (x @ w.t() + (b if with_bias else 0)) if composed else F.linear(x, w, b)
            grads = dyngrad.autograd.grad(y, [x, w] + ([b] if with_bias else []), dyngrad.tensor(g),
                                          create_graph=create_graph)
            results.append([t.detach().numpy() for t in grads] + [y.detach().numpy()])
    for other in results[1:]:
        for got, want in zip(other, results[0]):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the linear results: array forms and Tensor formulas bit for bit
    for got, want in zip(results[0], results[1]):
        np.testing.assert_array_equal(got, want)


def test_weight_grad_is_adopted_without_a_copy() -> None:
    lin = nn.Linear(4, 3)
    lin(dyngrad.randn(5, 4)).sum().backward()
    arr = lin.weight.grad.numpy()
    assert arr.flags.c_contiguous and arr.flags.owndata


def test_linear_argument_checks() -> None:
    w = dyngrad.randn(3, 4)
    with pytest.raises(TypeError, match=r"linear\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        F.linear([[1.0] * 4], w)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x5 and 4x3\)"):
        F.linear(dyngrad.randn(2, 5), w)
    with pytest.raises(RuntimeError, match="mat2 must be a matrix"):
        F.linear(dyngrad.randn(2, 4), dyngrad.randn(4), dyngrad.randn(()))


def test_subclass_defined_after_set_array_backward_gets_a_callable_array_form() -> None:
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    calls = []

    def arrays(ctx, g):
        calls.append(1)
        return (g * 2,)

    set_array_backward(Double, arrays)

    class Double2(Double):
        pass

    x = dyngrad.ones(3, requires_grad=True)
    Double2.apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    assert calls == [1]
