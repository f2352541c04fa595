"""Views made before an in-place change of their base get their history regenerated
(values from PyTorch 2.13, computed with the same programs)."""

import numpy as np
import pytest

import dyngrad as torch


def test_view_made_before_in_place_mul_of_base_gets_the_new_gradient():
    x = torch.arange(4.0).requires_grad_()
    y = x * 1
    a = y[:2]
    y.mul_(3)
    a.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3, 0, 0])  # torch: [3., 3., 0., 0.]


def test_view_made_before_index_assignment_sees_the_assigned_value():
    x = torch.arange(4.0).requires_grad_()
    y = x * 1
    a = y[:2]
    y[0] = 7.0
    (a * torch.tensor([1.0, 5.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 5, 0, 0])  # torch: [0., 5., 0., 0.]
    np.testing.assert_array_equal(a.detach().numpy(), [7, 1])


def test_view_of_a_plain_tensor_starts_requiring_grad_after_a_value_that_does_is_assigned():
    w = torch.tensor(2.0, requires_grad=True)
    y = torch.zeros(4)
    a = y[:2]
    y[0] = w * 3
    a.sum().backward()
    assert w.grad.item() == 3.0  # torch: tensor(3.)


def test_view_changed_through_a_sibling_view_is_regenerated():
    x = torch.arange(6.0).requires_grad_()
    y = x * 2
    a = y[:3]
    b = y[2:]
    b.mul_(10)  # overlaps a at index 2
    a.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 20, 0, 0, 0])  # torch: [2, 2, 20, 0, 0, 0]


def test_backward_called_on_a_stale_view_itself_uses_the_base_history():
    x = torch.arange(3.0).requires_grad_()
    y = x * 1
    a = y[1:]
    y.add_(y)  # y = 2 y
    a.backward(torch.ones(2))
    np.testing.assert_array_equal(x.grad.numpy(), [0, 2, 2])


def test_view_of_a_leaf_modified_under_no_grad_still_reaches_the_leaf():
    x = torch.arange(4.0).requires_grad_()
    a = x[:2]
    with torch.no_grad():
        x.mul_(2)
    (a * a).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 4, 0, 0])  # torch: [0., 4., 0., 0.]


@pytest.mark.parametrize("steps", [1, 3])
def test_refreshed_view_is_not_refreshed_again_until_the_next_change(steps):
    x = torch.arange(4.0).requires_grad_()
    y = x * 1
    a = y[:2]
    y.mul_(2)
    fns = set()
    for _ in range(steps):
        (a * 1).sum()
        fns.add(id(a.grad_fn))
    assert len(fns) == 1


def test_diagonal_is_a_writable_view_as_in_pytorch():
    import numpy as np

    import dyngrad

    o = dyngrad.zeros(3, 3)
    o.diagonal().add_(1)
    np.testing.assert_array_equal(o._data, np.eye(3))
    x = dyngrad.tensor(np.ones((3, 3)), dtype=dyngrad.float64, requires_grad=True)
    y = x * 1
    y.diagonal().mul_(2)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad._data, np.ones((3, 3)) + np.eye(3))
