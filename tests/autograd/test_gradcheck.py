"""gradcheck / gradgradcheck: right backwards pass, wrong ones are caught with a useful
report, in float64 and float32, slow and fast mode."""

import numpy as np
import pytest

import dyngrad as torch
from dyngrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck
from tests.autograd import fn_examples as E


def _x(*shape, dtype=torch.float64, seed=0):
    torch.manual_seed(seed)
    x = torch.randn(*shape, dtype=dtype)
    # keep away from relu's kink, where finite differences are meaningless
    x._data[np.abs(x._data) < 0.05] = 0.5
    return x.requires_grad_()


def _dropout(x):
    torch.manual_seed(123)  # the same mask in every call
    return E.MyDropout.apply(x, 0.3)


RIGHT = {
    "MyReLU": E.MyReLU.apply,
    "SwishFunction": lambda x: E.SwishFunction.apply(x, 2.0),
    "CustomGradientFunc": E.CustomGradientFunc.apply,
    "CustomBackward": E.CustomBackward.apply,
    "ScalarOp": lambda x: E.ScalarOp.apply(x, 1.5),
    "MyDropout": _dropout,
    "LeakyReLUFn": E.LeakyReLUFn.apply,
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", sorted(RIGHT))
def test_gradcheck_passes_every_seed_example(name, dtype, fast):
    assert gradcheck(RIGHT[name], (_x(3, 4, dtype=dtype),), fast_mode=fast)


WRONG = {
    "WrongGradient": E.WrongGradient.apply,
    "CustomActivation (leaky backward, relu forward)": E.CustomActivation.apply,
    "SwishFunction with beta-free derivative": lambda x: E.SwishFunction.apply(x, 2.0) * 1.0 + E.WrongGradient.apply(x),
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", sorted(WRONG))
def test_gradcheck_catches_a_wrong_backward(name, dtype, fast):
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(WRONG[name], (_x(3, 4, dtype=dtype),), fast_mode=fast)


def test_failure_report_lists_worst_entries_with_indices_and_errors():
    x = _x(2, 3)
    with pytest.raises(GradcheckError) as info:
        gradcheck(E.WrongGradient.apply, (x,))
    msg = str(info.value)
    assert "input index" in msg and "output index" in msg and "abs err" in msg and "rel err" in msg
    # the worst entry is a diagonal one: its numerical value is cos(x), analytical sin(x)
    xs = x._data.ravel()
    err = np.abs(np.cos(xs) - np.sin(xs))
    j = int(np.argmax(err - 1e-3 * np.abs(np.cos(xs))))
    idx = "(" + ", ".join(str(int(v)) for v in np.unravel_index(j, (2, 3))) + ")"
    first_row = msg.splitlines()[3]
    assert first_row.strip().startswith(idx)
    assert f"{np.cos(xs[j]):.6g}" in first_row and f"{np.sin(xs[j]):.6g}" in first_row


def test_missing_gradient_is_pointed_out():
    with pytest.raises(GradcheckError, match="analytical gradient is all zeros"):
        gradcheck(E.MissingGradient.apply, (_x(3), _x(3, seed=1)))


def test_raise_exception_false_returns_false():
    assert gradcheck(E.WrongGradient.apply, (_x(3),), raise_exception=False) is False
    assert gradgradcheck(E.WrongSecondDerivative.apply, (_x(3),), raise_exception=False) is False


def test_float32_function_is_checked_against_a_float64_numerical_pass():
    # in float32 alone, central differences with eps=1e-6 are noise; the float64 pass is not
    x = _x(5, dtype=torch.float32)
    assert gradcheck(torch.exp, (x,))
    assert gradcheck(lambda t: (t * t).sum(), (x,), eps=1e-6)


def test_integer_input_is_named_as_not_floating_point():
    with pytest.raises(ValueError, match=r"input 0 \(dyngrad.int64\) is not floating point"):
        gradcheck(lambda t: t * 2, (torch.tensor([1, 2]),))


def test_no_input_requiring_grad_raises():
    with pytest.raises(ValueError, match="requires_grad=True"):
        gradcheck(torch.exp, (torch.randn(3, dtype=torch.float64),))


@pytest.mark.parametrize("flag", ["check_batched_grad", "check_batched_forward_grad"])
def test_batched_checks_pass_for_built_in_ops(flag):
    w = _x(3)
    assert gradcheck(lambda a, b: (a * b).tanh().sum(0, keepdim=True) * a, (_x(3), w), **{flag: True})


def test_check_batched_grad_fails_a_backward_written_in_numpy_and_says_why():
    class NumpyBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return torch.tensor(2 * x.detach().numpy() * g.numpy())  # reads values: cannot batch

    assert gradcheck(NumpyBackward.apply, (_x(3),))
    with pytest.raises(GradcheckError, match="backward of output 0 could not be batched.*fell back to a loop"):
        gradcheck(NumpyBackward.apply, (_x(3),), check_batched_grad=True)


def test_check_forward_ad_passes_a_right_function_and_catches_a_wrong_jvp():
    assert gradcheck(torch.sin, (_x(3),), check_forward_ad=True)

    class WrongJvp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            raise AssertionError("not reached by the forward-mode check")

        @staticmethod
        def jvp(ctx, t):
            return t  # should be 2 * x * t

    with pytest.raises(torch.autograd.GradcheckError):
        gradcheck(WrongJvp.apply, (_x(3),), check_forward_ad=True, check_backward_ad=False)


def test_non_contiguous_inputs_are_checked():
    base = torch.randn(4, 3, dtype=torch.float64)
    x = base.t().requires_grad_()
    assert not x.is_contiguous()
    assert gradcheck(lambda t: (t * t).sum(1), (x,))
    assert gradcheck(E.WrongGradient.apply, (x,), raise_exception=False) is False


def test_multiple_inputs_and_outputs_and_non_tensor_arguments():
    def f(a, b, scale):
        return a * b * scale, (a + b).sum()

    assert gradcheck(f, (_x(2, 3), _x(3, seed=1), 2.0))
    assert gradcheck(f, (_x(2, 3), _x(3, seed=1), 2.0), fast_mode=True)


class _NoisyBackward(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 + torch.randn(*g.shape, dtype=g.dtype) * 1e-9


def test_nondeterministic_backward_fails_unless_nondet_tol_allows_it():
    with pytest.raises(GradcheckError, match="not reentrant"):
        gradcheck(_NoisyBackward.apply, (_x(3),))
    assert gradcheck(_NoisyBackward.apply, (_x(3),), nondet_tol=1e-6)


class _TwoOutputsNone(Function):
    """materialize_grads off: backward gets None for an output without gradient."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        out = None
        if g1 is not None:
            out = g1 * 2
        if g2 is not None:
            out = g2 * 3 if out is None else out + g2 * 3
        return out


class _NotLinearInGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 + (g == 0).double() * 1.0


def test_check_undefined_grad_accepts_none_handling_and_rejects_nonzero_for_zero_grads():
    assert gradcheck(_TwoOutputsNone.apply, (_x(3),), check_undefined_grad=True)
    with pytest.raises(GradcheckError, match="zero output gradients returned a non-zero gradient"):
        gradcheck(_NotLinearInGrad.apply, (_x(3),), check_undefined_grad=True)


def test_check_grad_dtypes_passes_for_engine_cast_gradients():
    assert gradcheck(lambda t: t.float() * 2, (_x(3),), check_grad_dtypes=True)  # float32 output


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
def test_gradgradcheck_passes_differentiable_backwards_and_catches_a_lost_second_derivative(fast):
    for fn in (E.CustomBackward.apply, lambda x: E.SwishFunction.apply(x, 2.0), E.MyReLU.apply):
        assert gradgradcheck(fn, (_x(3),), fast_mode=fast)
    with pytest.raises(GradcheckError):
        gradgradcheck(E.WrongSecondDerivative.apply, (_x(3),), fast_mode=fast)


def test_gradgradcheck_with_float32_inputs_and_given_grad_outputs():
    x = _x(4, dtype=torch.float32)
    v = torch.randn(4).requires_grad_()
    assert gradgradcheck(E.CustomBackward.apply, (x,), (v,))


def test_gradgradcheck_forward_over_reverse_and_cumprod_with_several_zeros():
    x = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64, requires_grad=True)
    f = lambda a: (a.sin() * a.sum()).exp()  # noqa: E731
    assert gradgradcheck(f, (x,), check_fwd_over_rev=True)
    assert gradgradcheck(f, (x,), check_fwd_over_rev=True, check_rev_over_rev=False)
    for v in ([2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 1.5, 2.0], [1.0, 0.0, 2.0, 0.0, 3.0, 0.5]):
        z = torch.tensor(v, dtype=torch.float64, requires_grad=True)
        assert gradgradcheck(lambda a: a.cumprod(0), (z,))
    H = torch.autograd.functional.hessian(lambda a: a.cumprod(0).sum(), torch.tensor([2.0, 0.0, 3.0, 0.0], dtype=torch.float64))
    np.testing.assert_allclose(H.numpy()[3], [0.0, 6.0, 0.0, 0.0])  # PyTorch 2.13's value
