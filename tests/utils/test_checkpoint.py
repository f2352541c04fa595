"""utils.checkpoint: gradients equal the un-checkpointed ones exactly, dropout masks are
replayed, activations are not kept, and autograd.grad / create_graph work."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.checkpoint import checkpoint, checkpoint_sequential


class MyDropout(dyngrad.autograd.Function):
    """The seed's custom dropout: draws its mask from the default Generator."""

    @staticmethod
    def forward(ctx, input, p=0.5):
        mask = (dyngrad.rand_like(input) > p).float()
        ctx.save_for_backward(mask)
        ctx.p = p
        return input * mask / (1 - p)

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return grad_output * mask / (1 - ctx.p), None


def _params(seed=0, n=4, width=6):
    g = dyngrad.Generator().manual_seed(seed)
    return [dyngrad.randn(width, width, generator=g, dtype=dyngrad.float64, requires_grad=True) for _ in range(n)]


def _block(W, dropout=False):
    def f(x):
        h = (x @ W).tanh()
        if dropout:
            h = MyDropout.apply(h, 0.3)
        return h * 2 + x

    return f


def _grads(ps, x):
    return [p.grad._data.copy() for p in ps] + ([x.grad._data.copy()] if x.grad is not None else [])


def _run(use_ckpt, reentrant=False, dropout=False, x_requires_grad=True):
    dyngrad.manual_seed(7)
    ps = _params()
    x = dyngrad.randn(3, 6, dtype=dyngrad.float64, requires_grad=x_requires_grad)
    h = x
    for W in ps:
        f = _block(W, dropout)
        h = checkpoint(f, h, use_reentrant=reentrant) if use_ckpt else f(h)
    (h**2).sum().backward()
    return _grads(ps, x), h._data.copy()


@pytest.mark.parametrize("reentrant", [False, True])
@pytest.mark.parametrize("dropout", [False, True])
def test_gradients_equal_the_uncheckpointed_ones_exactly(reentrant, dropout):
    g0, out0 = _run(False, dropout=dropout)
    g1, out1 = _run(True, reentrant=reentrant, dropout=dropout)
    assert np.array_equal(out0, out1)
    assert len(g0) == len(g1) == 5
    for a, b in zip(g0, g1):
        assert np.array_equal(a, b)


def test_input_that_does_not_require_grad_still_gives_parameter_gradients():
    g0, _ = _run(False, x_requires_grad=False)
    g1, _ = _run(True, x_requires_grad=False)
    assert len(g1) == 4
    for a, b in zip(g0, g1):
        assert np.array_equal(a, b)


def test_backward_restores_the_generator_state_it_found():
    dyngrad.manual_seed(3)
    (W,) = _params(n=1)
    x = dyngrad.randn(3, 6, dtype=dyngrad.float64, requires_grad=True)
    y = checkpoint(_block(W, dropout=True), x, use_reentrant=False)
    after_forward = dyngrad.get_rng_state()._data.copy()
    y.sum().backward()
    assert np.array_equal(dyngrad.get_rng_state()._data, after_forward)


def test_activations_inside_the_segment_are_not_kept():
    (W,) = _params(n=1)
    seen = []

    def f(x):
        h = (x @ W).tanh()
        seen.append(weakref.ref(h))
        return h.exp()

    x = dyngrad.randn(3, 6, dtype=dyngrad.float64, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=False)
    gc.collect()
    assert seen[0]() is None  # freed although y's graph is alive
    y.sum().backward()
    assert x.grad is not None and W.grad is not None


def test_autograd_grad_reaches_inputs_and_closed_over_parameters():
    ps = _params(n=2)
    x = dyngrad.randn(3, 6, dtype=dyngrad.float64, requires_grad=True)
    plain = _block(ps[1])(_block(ps[0])(x)).sum()
    want = dyngrad.autograd.grad(plain, [x, *ps])
    ck = checkpoint(_block(ps[1]), checkpoint(_block(ps[0]), x, use_reentrant=False), use_reentrant=False).sum()
    got = dyngrad.autograd.grad(ck, [x, *ps])
    for a, b in zip(want, got):
        assert np.array_equal(a._data, b._data)
    assert all(p.grad is None for p in ps)  # grad() must not touch .grad


def test_double_backward_through_a_checkpoint():
    (W,) = _params(n=1)
    x = dyngrad.randn(2, 6, dtype=dyngrad.float64, requires_grad=True)
    f = _block(W)
    (gx,) = dyngrad.autograd.grad(f(x).pow(3).sum(), x, create_graph=True)
    (ggx,) = dyngrad.autograd.grad(gx.sum(), x)
    (cx,) = dyngrad.autograd.grad(checkpoint(f, x, use_reentrant=False).pow(3).sum(), x, create_graph=True)
    (cgx,) = dyngrad.autograd.grad(cx.sum(), x)
    np.testing.assert_allclose(cgx._data, ggx._data, rtol=1e-12)


def test_gradcheck_passes_through_checkpoint():
    (W,) = _params(n=1)
    x = dyngrad.randn(2, 6, dtype=dyngrad.float64, requires_grad=True)
    assert dyngrad.autograd.gradcheck(lambda t, w: checkpoint(lambda a: (a @ w).tanh(), t, use_reentrant=False), (x, W))


def test_checkpoint_sequential_matches_plain_sequence():
    ps = _params(n=6)
    fs = [_block(W) for W in ps]
    x = dyngrad.randn(3, 6, dtype=dyngrad.float64, requires_grad=True)
    h = x
    for f in fs:
        h = f(h)
    h.sum().backward()
    want = _grads(ps, x)
    for p in [*ps, x]:
        p.grad = None
    checkpoint_sequential(fs, 3, x, use_reentrant=False).sum().backward()
    for a, b in zip(want, _grads(ps, x)):
        assert np.array_equal(a, b)


def test_tuple_outputs_and_keyword_arguments():
    (W,) = _params(n=1)
    x = dyngrad.randn(2, 6, dtype=dyngrad.float64, requires_grad=True)
    a, b = checkpoint(lambda t, scale=1.0: (t @ W * scale, t.exp()), x, scale=2.0, use_reentrant=False)
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad._data, (2 * W._data.sum(1))[None, :] + np.exp(x._data), rtol=1e-12)


def test_no_grad_mode_just_runs_the_function():
    (W,) = _params(n=1)
    x = dyngrad.randn(2, 6, dtype=dyngrad.float64)
    with dyngrad.no_grad():
        y = checkpoint(_block(W), x, use_reentrant=False)
    assert y.grad_fn is None


def test_bad_return_and_bad_segments_raise():
    x = dyngrad.randn(2, requires_grad=True)
    with pytest.raises(TypeError, match="Tensor"):
        checkpoint(lambda t: [t], x, use_reentrant=False)
    with pytest.raises(ValueError, match="segments"):
        checkpoint_sequential([lambda t: t], 2, x, use_reentrant=False)


def test_checkpoint_sequential_over_an_nn_sequential_gives_module_parameters_grads():
    nn = dyngrad.nn
    dyngrad.manual_seed(0)
    model = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(8, 8), nn.Tanh())]).double()
    x = dyngrad.randn(5, 8, dtype=dyngrad.float64)
    model(x).pow(2).sum().backward()
    want = [p.grad._data.copy() for p in model.parameters()]
    model.zero_grad()
    checkpoint_sequential(model, 2, x, use_reentrant=False).pow(2).sum().backward()
    for a, p in zip(want, model.parameters()):
        assert np.array_equal(a, p.grad._data)


def test_seed_004_checkpointed_block_matches_the_plain_block():
    import dyngrad as torch
    import dyngrad.utils.checkpoint as cp

    class CheckpointedBlock(torch.nn.Module):  # seed 004, section 4.3 (sizes reduced)
        def __init__(self):
            super().__init__()
            self.linear1 = torch.nn.Linear(16, 16)
            self.linear2 = torch.nn.Linear(16, 16)

        def forward(self, x):
            return cp.checkpoint_sequential([self.linear1, self.linear2], 2, x, use_reentrant=False)

    block = CheckpointedBlock()
    x = torch.randn(4, 16, requires_grad=True)
    block(x).pow(2).sum().backward()
    got = [p.grad._data.copy() for p in block.parameters()] + [x.grad._data.copy()]
    block.zero_grad()
    x.grad = None
    block.linear2(block.linear1(x)).pow(2).sum().backward()
    want = [p.grad._data for p in block.parameters()] + [x.grad._data]
    assert len(got) == 5
    for a, b in zip(got, want):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("reentrant", [False, True])
def test_integer_outputs_are_non_differentiable(reentrant):
    x = dyngrad.randn(3, requires_grad=True)
    a, idx = checkpoint(lambda t: (t * 3, t.argmax()), x, use_reentrant=reentrant)
    assert not idx.requires_grad and int(idx) == int(x._data.argmax())
    a.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_identity_function_and_non_tensor_arguments():
    x = dyngrad.randn(3, requires_grad=True)
    (checkpoint(lambda t: t, x, use_reentrant=False) * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    x.grad = None
    checkpoint(lambda t, s: t * s, x, 5.0, use_reentrant=False).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0, 5.0]


def test_closed_over_non_leaf_tensor_gets_the_same_gradients():
    (W,) = _params(n=1)
    x = dyngrad.randn(3, 6, dtype=dyngrad.float64, requires_grad=True)

    def loss(use_ckpt):
        z = W.tanh() * 2  # non-leaf, built before the checkpoint and used inside and outside it
        f = lambda t: (t @ z).sin()  # noqa: E731
        y = checkpoint(f, x, use_reentrant=False) if use_ckpt else f(x)
        return y.sum() + z.sum()

    loss(False).backward()
    want = (W.grad._data.copy(), x.grad._data.copy())
    W.grad = x.grad = None
    loss(True).backward()
    assert np.array_equal(x.grad._data, want[1])
    # W's two contributions are chained through tanh separately instead of summed at z first:
    # equal up to rounding, not bit for bit
    np.testing.assert_allclose(W.grad._data, want[0], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("use_reentrant", [False])
def test_tensor_hook_of_a_leaf_used_inside_and_outside_a_checkpoint_runs_once(use_reentrant):
    x = dyngrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    calls = []

    def hook(g):
        calls.append(g.numpy().copy())
        return g * 2

    x.register_hook(hook)
    y = checkpoint(lambda a: a * x, x, use_reentrant=use_reentrant)  # x as argument and closed over
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4, -8, 12])  # torch: [4., -8., 12.]
    assert len(calls) == 1


def test_tensor_hook_of_a_closed_over_leaf_runs_once_under_autograd_grad():
    x = dyngrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    w = dyngrad.tensor([2.0, 2.0, 2.0], requires_grad=True)
    calls = []
    w.register_hook(lambda g: calls.append(1) or g * 3)
    y = checkpoint(lambda a: a * w, x, use_reentrant=False)
    (gw,) = dyngrad.autograd.grad((y + w).sum(), w)
    np.testing.assert_array_equal(gw.numpy(), [6, -3, 12])  # 3 * (x + 1); torch: [6., -3., 12.]
    assert len(calls) == 1
