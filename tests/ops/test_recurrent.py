"""The fused LSTM step (ops/recurrent.py): values against the composition of ops, first
and second derivatives (both backward paths), forward mode, vmap and batched gradients."""

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import gradcheck, gradgradcheck
from dyngrad.ops.recurrent import lstm_gates


def _composed(xw, hw, c):
    i, f, g, o = (xw + hw).chunk(4, -1)
    c2 = dyngrad.sigmoid(f) * c + dyngrad.sigmoid(i) * dyngrad.tanh(g)
    return dyngrad.sigmoid(o) * dyngrad.tanh(c2), c2


def _inputs(lead=(3,), H=2, seed=0, c_lead=None):
    rng = np.random.default_rng(seed)
    mk = lambda s: dyngrad.tensor(rng.standard_normal(s) * 2, requires_grad=True)  # noqa: E731
    return mk((*lead, 4 * H)), mk((*lead, 4 * H)), mk((*(lead if c_lead is None else c_lead), H))


@pytest.mark.parametrize("lead,c_lead", [((3,), None), ((2, 3), None), ((), None), ((2, 3), (3,))])
def test_fused_step_equals_the_composition_of_ops_with_gradients(lead, c_lead):
    a = _inputs(lead, c_lead=c_lead)
    b = [t.detach().clone().requires_grad_() for t in a]
    h1, c1 = lstm_gates(*a)
    h2, c2 = _composed(*b)
    np.testing.assert_allclose(h1.detach().numpy(), h2.detach().numpy(), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(c1.detach().numpy(), c2.detach().numpy(), rtol=1e-13, atol=1e-15)
    (h1.sin().sum() + c1.cos().sum()).backward()
    (h2.sin().sum() + c2.cos().sum()).backward()
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert h1.grad_fn.name() == "LSTMGatesBackward0"


def test_fused_step_passes_gradcheck_gradgradcheck_and_forward_mode_checks():
    xs = _inputs((2,), H=2, seed=1)
    assert gradcheck(lstm_gates, xs, check_forward_ad=True, check_batched_grad=True)
    assert gradgradcheck(lstm_gates, xs)


def test_only_one_output_used_gets_the_same_gradients_as_the_composition():
    a = _inputs(seed=2)
    b = [t.detach().clone().requires_grad_() for t in a]
    lstm_gates(*a)[0].sum().backward()
    _composed(*b)[0].sum().backward()
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_vmap_of_the_fused_step_equals_a_loop():
    xw, hw, c = (t.detach() for t in _inputs((4, 3), seed=3))
    out = dyngrad.func.vmap(lstm_gates, in_dims=(0, 0, None))(xw, hw, c[0])
    for k in range(4):
        h, c2 = lstm_gates(xw[k], hw[k], c[0])
        np.testing.assert_allclose(out[0][k].numpy(), h.numpy(), rtol=1e-14)
        np.testing.assert_allclose(out[1][k].numpy(), c2.numpy(), rtol=1e-14)


def test_gates_of_the_wrong_width_raise():
    with pytest.raises(RuntimeError, match=r"4 \* hidden \(8\), got 6"):
        lstm_gates(dyngrad.zeros(2, 6), dyngrad.zeros(2, 6), dyngrad.zeros(2, 2))


def test_extreme_pre_activations_saturate_without_overflow_warnings():
    big = dyngrad.tensor([[800.0, -800.0, 800.0, -800.0]], requires_grad=True)
    with np.errstate(all="raise"):
        h, c = lstm_gates(big, dyngrad.zeros(1, 4), dyngrad.ones(1, 1))
        (h + c).sum().backward()
    assert np.isfinite(big.grad.numpy()).all()
