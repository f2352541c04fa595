"""Shapes that do not broadcast raise PyTorch's RuntimeError ("The size of tensor a (3) must
match the size of tensor b (4) at non-singleton dimension 0"), not NumPy's ValueError, for
the binary ops, with and without grad mode."""

import pytest

import dyngrad

OPS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: a.abs() ** b, "maximum": dyngrad.maximum,
    "minimum": dyngrad.minimum, "atan2": dyngrad.atan2, "lt": lambda a, b: a < b, "eq": lambda a, b: a == b,
    "logical_and": dyngrad.logical_and, "hypot": dyngrad.hypot,
}
CASES = [((3,), (4,), 3, 4, 0), ((2, 3), (4,), 3, 4, 1), ((2, 1, 3), (5, 2, 4), 3, 4, 2), ((5,), (2, 3), 5, 3, 1)]


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("sa,sb,na,nb,dim", CASES)
@pytest.mark.parametrize("grad", [False, True])
def test_non_broadcastable_shapes_raise_pytorchs_runtime_error(name, sa, sb, na, nb, dim, grad):
    a = dyngrad.ones(sa, requires_grad=grad)
    b = dyngrad.ones(sb)
    msg = rf"The size of tensor a \({na}\) must match the size of tensor b \({nb}\) at non-singleton dimension {dim}"
    with pytest.raises(RuntimeError, match=msg):
        OPS[name](a, b)


def test_other_value_errors_of_ops_are_unchanged():
    with pytest.raises((ValueError, RuntimeError), match="(?i)(invalid|only|must|shape)"):
        dyngrad.ones(2, 3).reshape(4, 2)


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_", "pow_"])
@pytest.mark.parametrize("grad", [False, True])
def test_in_place_ops_raise_pytorchs_errors_and_leave_self_unchanged(op, grad):
    for sa, sb, msg in [((3,), (4,), r"The size of tensor a \(3\) must match the size of tensor b \(4\)"),
                        ((3,), (2, 3), r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"),
                        ((1, 3), (2, 3), r"output with shape \[1, 3\] doesn't match the broadcast shape \[2, 3\]")]:
        x = dyngrad.ones(sa, requires_grad=True).clone() if grad else dyngrad.ones(sa)
        version, fn = x._version, x.grad_fn
        with pytest.raises(RuntimeError, match=msg):
            getattr(x, op)(dyngrad.full(sb, 2.0))
        assert x._version == version and x.grad_fn is fn and bool((x == 1).all())
