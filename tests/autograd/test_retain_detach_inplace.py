"""``retain_grad()``, then ``detach_()``, then an in-place op that gives the tensor a history
again: PyTorch 2.13 raises RuntimeError at the in-place step (the values are written first);
through a view (``x[1:].add_(y)``, ``x[0] = y``) it raises nothing and retains no gradient.
Found by the live oracle (tests/oracle/test_view_hook_oracle.py); the same programs are
compared with live torch in tests/oracle/test_retain_detach_oracle.py."""

import pytest

import dyngrad


def _retained_then_detached():
    a = dyngrad.ones(4, dtype=dyngrad.float64, requires_grad=True)
    c = (a * 2).clone()
    c.retain_grad()
    c.detach_()
    return a, c


@pytest.mark.parametrize("op", [
    lambda c, a: c.add_(a),
    lambda c, a: c.mul_(a),
    lambda c, a: c.addcmul_(a, a),
    lambda c, a: c.copy_(a),
])
def test_in_place_op_that_records_history_raises_after_writing(op):
    a, c = _retained_then_detached()
    with pytest.raises(RuntimeError, match="retain_grad.*detach_"):
        op(c, a)
    assert c.requires_grad and c.grad_fn is not None  # the new history is kept, as PyTorch


def test_values_are_written_before_the_error_as_pytorch():
    a, c = _retained_then_detached()
    with pytest.raises(RuntimeError):
        c.add_(a)
    assert c.tolist() == [3.0, 3.0, 3.0, 3.0]


def test_no_grad_in_place_then_grad_in_place_raises_at_the_second():
    a, c = _retained_then_detached()
    with dyngrad.no_grad():
        c.add_(a)  # records nothing: allowed
    c.add_(1.0)  # nothing requires grad: allowed
    assert not c.requires_grad
    with pytest.raises(RuntimeError, match="retain_grad"):
        c.add_(a)


def test_custom_function_marking_it_dirty_raises():
    class F(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            return x.add_(y)

        @staticmethod
        def backward(ctx, g):
            return g, g

    a, c = _retained_then_detached()
    with pytest.raises(RuntimeError, match="retain_grad"):
        F.apply(c, a)


@pytest.mark.parametrize("write", ["view", "setitem", "setitem_slice"])
def test_through_a_view_no_error_and_no_retained_grad(write):
    a, c = _retained_then_detached()
    if write == "view":
        c[1:].mul_(a[1:])
    elif write == "setitem":
        c[0] = a[0] * 3
    else:
        c[1:] = a[1:] * 3
    assert c.requires_grad and c.retains_grad
    (c * dyngrad.arange(4.0, dtype=dyngrad.float64)).sum().backward()
    assert c.grad is None  # PyTorch 2.13 retains nothing here either
    want = {"view": [0, 2, 4, 6], "setitem": [0, 0, 0, 0], "setitem_slice": [0, 3, 6, 9]}[write]
    assert a.grad.tolist() == want


def test_without_retain_grad_or_without_detach_nothing_changes():
    a = dyngrad.ones(4, dtype=dyngrad.float64, requires_grad=True)
    c = (a * 2).clone()
    c.detach_()
    c.add_(a)  # no retain_grad: allowed, c records a new history
    assert c.grad_fn is not None
    d = (a * 2).clone()
    d.retain_grad()
    d.add_(a)  # no detach_: retain_grad follows the new value
    d.sum().backward()
    assert d.grad.tolist() == [1.0] * 4
