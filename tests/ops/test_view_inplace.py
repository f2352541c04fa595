"""In-place ops on views (ops/_view_inplace.py): views made under no_grad, the modified
view's own history after an in-place op, and custom Functions that mark a view dirty.
Expected behaviour is PyTorch 2.13's (checked with the same programs)."""

import numpy as np
import pytest

import dyngrad as torch

NOGRAD_VIEW = "A view was created in no_grad mode and is being modified inplace with grad mode enabled"


@pytest.mark.parametrize("clone", [False, True])
def test_in_place_op_on_a_view_made_under_no_grad_raises_with_grad_mode_on(clone):
    x = torch.ones(3, requires_grad=True)
    base = x.clone() if clone else x
    with torch.no_grad():
        v = base[1:]
    assert v.requires_grad and v.grad_fn is None  # torch: True, None
    with pytest.raises(RuntimeError, match=NOGRAD_VIEW):
        v.mul_(2)
    np.testing.assert_array_equal(x.detach().numpy(), [1, 1, 1])  # nothing was written


@pytest.mark.parametrize(
    "op",
    [
        lambda v: v.add_(1),
        lambda v: v.mul_(torch.ones(2, requires_grad=True)),
        lambda v: v.zero_(),
        lambda v: v.fill_(3.0),
        lambda v: v.copy_(torch.zeros(2)),
        lambda v: v.__setitem__(0, 5.0),
        lambda v: v.sin_(),
    ],
)
def test_every_in_place_form_on_a_no_grad_view_raises(op):
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        v = x[1:]
    with pytest.raises(RuntimeError, match=NOGRAD_VIEW):
        op(v)


def test_in_place_op_on_a_no_grad_view_under_no_grad_is_allowed():
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        v = x[1:]
    with torch.no_grad():
        v.mul_(2)
    np.testing.assert_array_equal(x.detach().numpy(), [1, 2, 2])  # torch: [1., 2., 2.]


def test_in_place_op_on_a_view_of_a_no_grad_view_raises():
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        v = x[1:]
    w = v[:1]
    assert w.requires_grad and w.grad_fn is not None  # torch: True, SliceBackward0
    with pytest.raises(RuntimeError, match="view of a view which was created in no_grad mode"):
        w.mul_(2)


def test_no_grad_view_used_after_its_base_changed_in_place_with_grad_mode_on_raises():
    x = torch.ones(3, requires_grad=True).clone()
    with torch.no_grad():
        v = x[1:]
    x.mul_(2)
    with pytest.raises(RuntimeError, match="its base or another view of its base has been modified inplace"):
        v * 2


@pytest.mark.parametrize("leaf", [True, False])
def test_no_grad_view_used_after_an_in_place_change_under_no_grad_raises_too(leaf):
    x = torch.ones(3, requires_grad=True)
    base = x if leaf else x.clone()
    with torch.no_grad():
        v = base[1:]
        base.mul_(2)
    with pytest.raises(RuntimeError, match="its base or another view of its base has been modified inplace"):
        v * 2  # torch 2.13: the same error


def test_no_grad_view_of_a_base_detached_in_place_since_may_be_modified_in_place():
    c = torch.ones(3, requires_grad=True).clone()
    with torch.no_grad():
        v = c[1:]
    c.detach_()
    v.add_(0.5)  # torch 2.13: allowed (the view no longer requires grad)
    assert not v.requires_grad
    np.testing.assert_array_equal(c.numpy(), [1, 1.5, 1.5])


def test_gradient_reaching_a_no_grad_view_is_dropped_as_in_pytorch():
    x = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        v = x[1:]
    (v * 2).sum().backward()
    assert v.grad is None and x.grad is None  # torch: None, None


def test_retained_grad_of_a_view_modified_in_place_is_none_after_a_backward_from_its_base():
    a = torch.ones(3, requires_grad=True).clone()
    v = a[:2]
    v.retain_grad()
    v.mul_(2)
    (a * 1).sum().backward()
    assert v.grad is None  # torch: None (v's history is a view of a's new history)


def test_retained_grad_of_a_view_modified_in_place_is_its_gradient_after_a_backward_from_it():
    x = torch.ones(3, requires_grad=True)
    a = x.clone()
    v = a[:2]
    v.retain_grad()
    v.mul_(2)
    (v * torch.tensor([3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [3, 4])  # torch: [3., 4.]
    np.testing.assert_array_equal(x.grad.numpy(), [6, 8, 0])  # torch: [6., 8., 0.]


class MulDirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, g):
        return g * 2, (g * 3).sum()


def test_custom_function_marking_a_view_dirty_runs_its_backward_and_rebases_the_base():
    x = torch.ones(3, requires_grad=True)
    base = x.clone()
    b = torch.ones((), requires_grad=True)
    out = MulDirty.apply(base[:2], b)
    np.testing.assert_array_equal(base.detach().numpy(), [2, 2, 1])
    out.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), 6.0)  # torch: 6.
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 0])  # torch: [2., 2., 0.]


def test_custom_function_marking_a_view_dirty_rebases_the_base_for_a_backward_from_the_base():
    x = torch.ones(3, requires_grad=True)
    base = x.clone()
    b = torch.ones((), requires_grad=True)
    MulDirty.apply(base[1:], b)
    (base * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), 15.0)  # torch: 15.
    np.testing.assert_array_equal(x.grad.numpy(), [1, 4, 6])  # torch: [1., 4., 6.]


def test_custom_function_marking_a_view_of_a_leaf_dirty_raises():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        MulDirty.apply(x[:2], torch.ones((), requires_grad=True))


def test_in_place_op_on_a_view_whose_base_got_a_history_after_it_was_made_raises():
    y = torch.zeros(4, 4)
    v = y.t()
    y.add_(torch.ones(4, 4, requires_grad=True))
    with pytest.raises(RuntimeError, match="in-place operation"):
        v.mul_(2)  # torch 2.13: RuntimeError (never a base history missing the *2)



def test_fill_with_an_int_converts_as_torch():
    # torch 2.13: a negative int wraps into uint8; otherwise out of range is a RuntimeError
    # (dyngrad raised NumPy's OverflowError for uint8 fill_(-1))
    assert torch.ones(2, dtype=torch.uint8).fill_(-1).tolist() == [255, 255]
    assert torch.ones(1, dtype=torch.uint8).fill_(-200).tolist() == [56]
    for dt, v in ((torch.uint8, 256), (torch.int8, 128), (torch.int8, -129)):
        with pytest.raises(RuntimeError, match="without overflow"):
            torch.ones(1, dtype=dt).fill_(v)
    assert torch.ones(2, dtype=torch.int64).fill_(-2.7).tolist() == [-2, -2]
