"""PyTorch's misuse checks and warnings (issue 12): which of them dyngrad raises or emits, with
PyTorch's wording. The live comparison is tests/oracle/test_misuse_oracle.py."""

from __future__ import annotations

import warnings

import pytest

import dyngrad as torch
from dyngrad.autograd import Function


def _twice(f):
    x = torch.randn(3, requires_grad=True)
    y = f(x).sum()
    y.backward()
    y.backward()
    return x.grad


@pytest.mark.parametrize("f", [lambda x: x * x, lambda x: x.exp(), lambda x: x.relu(),
                               lambda x: x @ torch.ones(3, 3)], ids=["mul", "exp", "relu", "matmul"])
def test_a_second_backward_through_saved_values_without_retain_graph_raises(f):
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _twice(f)


@pytest.mark.parametrize("f", [lambda x: x + 1, lambda x: x[1:], lambda x: x.view(3, 1)], ids=["add", "index", "view"])
def test_a_second_backward_through_ops_that_save_nothing_is_allowed_as_in_pytorch(f):
    assert _twice(f) is not None


def test_reading_a_saved_tensor_after_the_graph_was_freed_raises():
    x = torch.randn(3, requires_grad=True)
    y = x * x
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = y.grad_fn._saved_self


class _ViewFn(Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, g):
        return g.view(3)


class _Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g


@pytest.mark.parametrize("fn", [_ViewFn, _Identity])
def test_modifying_in_place_a_view_returned_by_a_custom_function_raises(fn):
    x = torch.randn(3, requires_grad=True)
    y = fn.apply(x * 1)
    with pytest.raises(RuntimeError, match=f"Output 0 of {fn.__name__} is a view and is being modified inplace"):
        y.mul_(2)
    z = fn.apply(x * 1).clone()  # the documented fix
    z.mul_(2)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_a_custom_function_output_that_is_not_a_view_can_be_modified_in_place():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.randn(3, requires_grad=True)
    y = Double.apply(x)
    y.add_(1)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_backward_with_create_graph_on_leaves_warns_about_the_reference_cycle():
    x = torch.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
        (x * x).sum().backward(create_graph=True)
    y = x * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (y * y).sum().backward(create_graph=True, inputs=[y])  # no leaf: no cycle, no warning
        torch.autograd.grad((x * x).sum(), x, create_graph=True)


def test_decorating_a_class_with_no_grad_warns():
    with pytest.warns(FutureWarning, match="Decorating classes is deprecated"):
        @torch.no_grad()
        class A:
            pass


def test_saved_variables_warns_that_it_is_deprecated():
    class SV(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_variables
            return g * 2

    x = torch.randn(3, requires_grad=True)
    with pytest.warns(DeprecationWarning, match="'saved_variables' is deprecated; use 'saved_tensors'"):
        SV.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_checkpoint_without_use_reentrant_warns_and_explicit_values_do_not():
    from dyngrad.utils.checkpoint import checkpoint, checkpoint_sequential

    x = torch.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda a: a.sin(), x)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([torch.nn.ReLU(), torch.nn.ReLU()], 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda a: a.sin(), x, use_reentrant=False).sum().backward()


def test_enabling_anomaly_detection_warns():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with torch.autograd.detect_anomaly():
            pass


def test_jacobian_refuses_strict_with_vectorize():
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
        torch.autograd.functional.jacobian(lambda a: a * 2, torch.randn(2), vectorize=True, strict=True)


def test_gradcheck_never_perturbs_an_input_that_does_not_require_grad():
    seen = []

    def f(a, b):
        seen.append(tuple(b.detach().numpy().tolist()))
        return a * b

    a = torch.randn(2, dtype=torch.float64, requires_grad=True)
    b = torch.randn(2, dtype=torch.float64)
    assert torch.autograd.gradcheck(f, (a, b))
    assert len(set(seen)) == 1


def test_hooks_run_in_pytorchs_order_and_post_accumulate_hooks_run_with_grad_mode_off():
    order = []
    x = torch.randn(2, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: order.append("tensor_pre"))
    y.grad_fn.register_prehook(lambda go: order.append("node_pre"))
    y.grad_fn.register_hook(lambda gi, go: order.append("node_post"))
    x.register_hook(lambda g: order.append("leaf_tensor"))
    x.register_post_accumulate_grad_hook(lambda t: order.append(("post_acc", torch.is_grad_enabled())))
    y.sum().backward()
    assert order == ["tensor_pre", "node_pre", "node_post", "leaf_tensor", ("post_acc", False)]


def test_a_gradient_left_undefined_for_an_unused_output_reaches_backward_as_none():
    seen = []

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1 * 2

    x = torch.randn(3, requires_grad=True)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert seen == [None] and x.grad.tolist() == [2.0, 2.0, 2.0]
