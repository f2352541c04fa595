"""Live comparison with PyTorch 2.13 of the recorded graph (node names and edge order, edges
to None left out) of ``F.linear`` in every rank/bias/requires-grad combination, of PyTorch's
neural-networks tutorial network, and of the everyday composites tutorials walk; and of
linear's gradients. Skipped when torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg
from tests.nn.test_linear_graph import walk

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("shape", [(2, 4), (5, 2, 4), (4,), (2, 1, 2, 4)])
@pytest.mark.parametrize("req", [True, False])
@pytest.mark.parametrize("bias", ["none", "1d", "2d", "nograd"])
def test_linear_graph_matches_pytorch(shape, req, bias) -> None:
    graphs = []
    for lib in (torch, dg):
        w = lib.randn(3, 4, requires_grad=True)
        b = {"none": None, "1d": lib.randn(3, requires_grad=True), "nograd": lib.randn(3),
             "2d": lib.randn(*(shape[:-1] or (1,)), 3, requires_grad=True)}[bias]
        y = lib.nn.functional.linear(lib.randn(*shape, requires_grad=req), w, b)
        graphs.append(walk(y.grad_fn))
    assert graphs[1] == graphs[0]


def _tutorial_net(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, input):
            s2 = F.max_pool2d(F.relu(self.conv1(input)), (2, 2))
            s4 = lib.flatten(F.max_pool2d(F.relu(self.conv2(s2)), 2), 1)
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(s4)))))

    return Net()


def test_tutorial_walk_matches_pytorch_down_to_the_convolution() -> None:
    walks = []
    for lib in (torch, dg):
        out = _tutorial_net(lib)(lib.randn(1, 1, 32, 32))
        loss = lib.nn.MSELoss()(out, lib.randn(10).view(1, -1))
        names = walk(loss.grad_fn)
        # up to the second convolution's node (PyTorch's holds its bias; dyngrad adds it after)
        walks.append(names[:12])
        fn = loss.grad_fn
        walks[-1] += [type(fn).__name__, type(fn.next_functions[0][0]).__name__,
                      type(fn.next_functions[0][0].next_functions[0][0]).__name__]
    assert walks[1] == walks[0]


def _cases(lib):
    F, nn = lib.nn.functional, lib.nn
    x = lib.tensor(np.linspace(-1, 1, 20).reshape(4, 5), requires_grad=True)
    t = lib.tensor([0, 2, 1, 4])
    return {
        "cross_entropy": lambda: F.cross_entropy(x, t),
        "nll_logsoftmax": lambda: F.nll_loss(F.log_softmax(x, dim=1), t),
        "mse_sum": lambda: F.mse_loss(x, lib.zeros(4, 5), reduction="sum"),
        "relu_view": lambda: F.relu(x).view(-1),
        "sig_tanh": lambda: lib.sigmoid(x).tanh().mean(),
        "softmax": lambda: F.softmax(x, dim=-1).sum(),
        "reshape_t": lambda: x.reshape(5, 4).t().sum(1),
        "bce_logits": lambda: F.binary_cross_entropy_with_logits(x, lib.ones(4, 5)),
        "l1": lambda: F.l1_loss(x, lib.zeros(4, 5)),
        "mm_add_pow": lambda: (x @ x.t() + 1).pow(2).sum(),
        "embedding": lambda: nn.Embedding(6, 3)(t).sum(),
        "gelu_leaky": lambda: F.gelu(F.leaky_relu(x)).sum(),
        "max_dim": lambda: x.max(1)[0].sum(),
        "cat_stack": lambda: lib.cat([x, x]).sum() + lib.stack([x, x]).sum(),
        "range_index": lambda: x[range(4), t].sum(),
        "clamp_abs_sqrt": lambda: x.clamp(-1, 1).abs().sqrt().sum(),
        "mlp_3d": lambda: nn.Sequential(nn.Linear(5, 6), nn.ReLU(), nn.Linear(6, 2))(x.float().unsqueeze(0)).sum(),
    }


@pytest.mark.parametrize("case", sorted(_cases(dg)))
def test_composite_graph_matches_pytorch(case) -> None:
    assert walk(_cases(dg)[case]().grad_fn) == walk(_cases(torch)[case]().grad_fn)


@pytest.mark.parametrize("shape", [(2, 4), (5, 2, 4), (4,)])
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_gradients_match_pytorch(shape, with_bias) -> None:
    rng = np.random.default_rng(1)
    arrays = [rng.normal(size=shape), rng.normal(size=(3, 4)), rng.normal(size=3)][: 3 if with_bias else 2]
    g = rng.normal(size=shape[:-1] + (3,))
    res = []
    for lib in (torch, dg):
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = lib.nn.functional.linear(*ts)
        y.backward(lib.tensor(g))
        res.append([y.detach().numpy()] + [t.grad.numpy() for t in ts])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
