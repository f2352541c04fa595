"""dyngrad.functorch: PyTorch's deprecated functorch names (make_functional,
make_functional_with_buffers, combine_state_for_ensemble and the transforms), as the
forward-mode AD tutorial uses them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad as torch
from dyngrad import functorch as ft
from dyngrad.autograd import forward_ad as fwAD


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        yield


def test_every_name_warns_that_it_is_deprecated_as_pytorch():
    with pytest.warns(FutureWarning, match="functorch.make_functional` is deprecated"):
        ft.make_functional(torch.nn.Linear(2, 2))
    with pytest.warns(FutureWarning, match="Please use `torch.func.jvp` instead"):
        ft.jvp(lambda x: x * 2, (torch.ones(2),), (torch.ones(2),))
    with pytest.warns(FutureWarning, match="`torch.vmap`"):
        ft.vmap(lambda x: x * 2)(torch.ones(3, 2))


def test_make_functional_returns_a_function_of_copies_of_the_parameters():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    fmodel, params = ft.make_functional(model)
    assert len(params) == 4 and all(type(p) is torch.nn.Parameter and p.requires_grad and p.is_leaf for p in params)
    assert all(p is not q and np.array_equal(p.detach().numpy(), q.detach().numpy())
               for p, q in zip(params, model.parameters()))
    x = torch.randn(5, 3)
    np.testing.assert_allclose(fmodel(params, x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    doubled = tuple(p * 2 for p in params)  # the function really uses the given parameters
    ref = torch.func.functional_call(model, dict(zip([n for n, _ in model.named_parameters()], doubled)), (x,))
    np.testing.assert_allclose(fmodel(doubled, x).detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    fmodel(params, x).sum().backward()
    assert all(p.grad is not None for p in params) and all(p.grad is None for p in model.parameters())
    _, frozen = ft.make_functional(model, disable_autograd_tracking=True)
    assert not any(p.requires_grad for p in frozen)


def test_make_functional_refuses_a_model_with_buffers_and_a_non_module():
    with pytest.raises(RuntimeError, match="has buffers. Please use make_functional_with_buffers"):
        ft.make_functional(torch.nn.BatchNorm1d(3))
    with pytest.raises(TypeError, match="nn.Module"):
        ft.make_functional(lambda x: x)
    fmodel, params = ft.make_functional(torch.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="expected 2 parameters"):
        fmodel(params[:1], torch.ones(1, 2))


def test_make_functional_with_buffers_runs_batch_norm_with_the_given_buffers():
    bn = torch.nn.BatchNorm1d(3).eval()
    bn.running_mean.copy_(torch.tensor([1.0, 2.0, 3.0]))
    fmodel, params, buffers = ft.make_functional_with_buffers(bn)
    assert len(params) == 2 and len(buffers) == 3
    x = torch.randn(4, 3)
    np.testing.assert_allclose(fmodel(params, buffers, x).detach().numpy(), bn(x).detach().numpy(), rtol=1e-6)
    zero_mean = (torch.zeros(3),) + tuple(buffers[1:])
    np.testing.assert_allclose(fmodel(params, zero_mean, x).detach().numpy(),
                               (x / torch.sqrt(torch.tensor(1.0 + 1e-5))).numpy(), rtol=1e-5)


def test_jvp_through_make_functional_with_buffers_equals_dual_parameters():
    # the tutorial's two ways of a Jacobian-vector product w.r.t. a Linear's parameters
    model = torch.nn.Linear(5, 5)
    x = torch.randn(16, 5)
    tangents = tuple(torch.rand_like(p) for p in model.parameters())
    fmodel, params, buffers = ft.make_functional_with_buffers(model)
    out, jvp_out = ft.jvp(lambda ps: fmodel(ps, buffers, x), (params,), (tangents,))
    with fwAD.dual_level():
        dual = {n: fwAD.make_dual(p, t) for (n, p), t in zip(model.named_parameters(), tangents)}
        want = fwAD.unpack_dual(torch.func.functional_call(model, dual, (x,))).tangent
    np.testing.assert_allclose(jvp_out.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jvp_out.numpy(), (x @ tangents[0].T + tangents[1]).numpy(), rtol=1e-5, atol=1e-6)


def test_combine_state_for_ensemble_stacks_parameters_for_vmap():
    models = [torch.nn.Linear(3, 2) for _ in range(4)]
    fmodel, params, buffers = ft.combine_state_for_ensemble(models)
    assert [tuple(p.shape) for p in params] == [(4, 2, 3), (4, 2)] and buffers == ()
    x = torch.randn(5, 3)
    out = ft.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    want = torch.stack([m(x) for m in models])
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), rtol=1e-5)
    with pytest.raises(RuntimeError, match="at least one model"):
        ft.combine_state_for_ensemble([])
    with pytest.raises(RuntimeError, match="same class"):
        ft.combine_state_for_ensemble([torch.nn.Linear(2, 2), torch.nn.Bilinear(2, 2, 2)])
    with pytest.raises(RuntimeError, match="training/eval mode"):
        ft.combine_state_for_ensemble([torch.nn.Linear(2, 2), torch.nn.Linear(2, 2).eval()])


def test_the_transforms_are_dyngrad_funcs():
    assert ft.grad(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0])).tolist() == [2.0, 4.0]
    h = ft.hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
    assert h.tolist() == [[6.0, 0.0], [0.0, 12.0]]
    assert ft.jacrev(lambda x: x * 3)(torch.ones(2)).tolist() == [[3.0, 0.0], [0.0, 3.0]]
