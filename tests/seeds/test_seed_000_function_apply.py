"""Seed 000 ("PyTorch自定义反向传播：autograd.Function.apply()详解"): every PyTorch example
of the document, copied unchanged and run with ``import dyngrad as torch``; values are
compared with PyTorch 2.13's on the same inputs (tests/golden/seeds.npz, made by
tests/golden/gen_seeds.py).

Not run: the ``apply`` pseudo-code (illustration, not code), ``MemoryEfficientOp`` (its
forward returns an undefined ``result``) and ``torchviz.make_dot`` (a third-party package).
"""

import math
import os

import numpy as np
import pytest

import dyngrad as torch
from dyngrad.autograd import Function

GOLD = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "seeds.npz"))


# ---------------------------------------------------------------------------- the examples
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class MyDropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, p=0.5):
        mask = (torch.rand_like(input) > p).float()
        ctx.save_for_backward(mask)
        ctx.p = p  # 保存标量参数
        return input * mask / (1 - p)  # 缩放保持期望

    @staticmethod
    def backward(ctx, grad_output):
        mask, = ctx.saved_tensors
        return grad_output * mask / (1 - ctx.p), None  # 第二个梯度返回None


class FusedLinearGELU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        # 融合计算：线性变换+GELU激活
        linear = torch.nn.functional.linear(x, weight, bias)
        gelu = 0.5 * linear * (1 + torch.tanh(math.sqrt(2/math.pi) *
                            (linear + 0.044715 * torch.pow(linear, 3))))
        return gelu

    @staticmethod
    def backward(ctx, grad_output):
        x, weight, bias = ctx.saved_tensors
        # 实现融合后的复合梯度计算
        # (completed here; the seed leaves it as "..."): recompute the pre-activation,
        # d gelu/d z = 0.5 (1 + tanh u) + 0.5 z (1 - tanh² u) du/dz,
        # u = c (z + 0.044715 z³), du/dz = c (1 + 3 * 0.044715 z²), c = sqrt(2/pi).
        c = math.sqrt(2 / math.pi)
        z = torch.nn.functional.linear(x, weight, bias)
        th = torch.tanh(c * (z + 0.044715 * torch.pow(z, 3)))
        dgelu = 0.5 * (1 + th) + 0.5 * z * (1 - th * th) * c * (1 + 3 * 0.044715 * z * z)
        gz = grad_output * dgelu
        return gz @ weight, gz.t() @ x, gz.sum(0)


class BuggyFunction(Function):
    @staticmethod
    def forward(ctx, x):
        # 忘记调用ctx.save_for_backward
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        # 这里无法获取前向的输入x
        return grad_output * 2  # 可能得到错误梯度


class ScalarOp(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale  # 保存Python标量
        return x * scale

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.scale, None  # 标量对应的梯度为None


class DebugFunction(Function):
    @staticmethod
    def forward(ctx, x):
        print("Forward input:", x)
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad_output):
        print("Backward grad:", grad_output)
        x, = ctx.saved_tensors
        return grad_output * 2


class SwishFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta=1.0):
        ctx.save_for_backward(x)
        ctx.beta = beta
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        beta = ctx.beta
        sigmoid = torch.sigmoid(beta * x)
        return grad_output * (sigmoid * (1 + beta * x * (1 - sigmoid))), None

# 使用方式
def swish(x, beta=1.0):
    return SwishFunction.apply(x, beta)


# ---------------------------------------------------------------------------- the tests
def close(actual, key, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual.detach().numpy()), GOLD[key], rtol=rtol, atol=atol)


def test_myrelu_matches_pytorch_values_and_grads():
    x = torch.tensor(GOLD["myrelu/x"], requires_grad=True)
    y = MyReLU.apply(x)
    assert y.grad_fn.name() == "MyReLUBackward"
    assert y.requires_grad and y.dtype == torch.float32
    y.backward(torch.tensor(GOLD["myrelu/g"]))
    close(y, "myrelu/y")
    close(x.grad, "myrelu/gx")


def test_myrelu_direct_forward_call_is_refused_and_points_to_apply():
    # 错误做法: output = MyReLU.forward(input)
    input = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"MyReLU\.apply"):
        MyReLU.forward(input)
    output = MyReLU.apply(input)  # 正确做法
    assert output.grad_fn is not None


def test_myrelu_gradcheck_as_in_the_seed():
    from dyngrad.autograd import gradcheck
    input = torch.tensor(GOLD["myrelu/gradcheck_input"], dtype=torch.double, requires_grad=True)
    test = gradcheck(MyReLU.apply, (input,), eps=1e-6, atol=1e-4)
    assert test is True


def test_mydropout_scales_kept_units_and_grads_follow_the_mask():
    torch.manual_seed(0)
    x = torch.randn(1000, requires_grad=True)
    y = MyDropout.apply(x)  # default p=0.5
    y.sum().backward()
    xd, yd, gd = x.detach().numpy(), y.detach().numpy(), x.grad.numpy()
    kept = yd != 0
    assert 350 < kept.sum() < 650
    np.testing.assert_allclose(yd[kept], 2 * xd[kept], rtol=1e-6)
    np.testing.assert_allclose(gd, np.where(kept, 2.0, 0.0))
    assert y.grad_fn.name() == "MyDropoutBackward"


def test_mydropout_with_p_zero_is_the_identity():
    x = torch.randn(5, requires_grad=True)
    y = MyDropout.apply(x, 0.0)
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy())
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(5))


def test_mydropout_is_reproducible_under_manual_seed():
    x = torch.ones(20)
    torch.manual_seed(3)
    a = MyDropout.apply(x, 0.3)
    torch.manual_seed(3)
    b = MyDropout.apply(x, 0.3)
    assert np.array_equal(a.numpy(), b.numpy())


def test_fused_linear_gelu_completed_backward_matches_pytorch_autograd():
    x, w, b = (torch.tensor(GOLD[f"fused/{k}"], requires_grad=True) for k in "xwb")
    out = FusedLinearGELU.apply(x, w, b)
    out.backward(torch.tensor(GOLD["fused/g"]))
    close(out, "fused/out", rtol=1e-10, atol=1e-12)
    close(x.grad, "fused/gx", rtol=1e-9, atol=1e-12)
    close(w.grad, "fused/gw", rtol=1e-9, atol=1e-12)
    close(b.grad, "fused/gb", rtol=1e-9, atol=1e-12)


def test_fused_linear_gelu_gradcheck_and_gradgradcheck():
    from dyngrad.autograd import gradcheck, gradgradcheck
    args = tuple(torch.tensor(GOLD[f"fused/{k}"][:2], requires_grad=True) for k in "xwb")
    assert gradcheck(FusedLinearGELU.apply, args)
    assert gradgradcheck(FusedLinearGELU.apply, args)


def test_buggy_function_still_gives_the_right_gradient_for_a_linear_op():
    x = torch.randn(4, requires_grad=True)
    BuggyFunction.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 2.0))


def test_scalar_op_returns_none_for_the_python_scalar():
    x = torch.tensor(GOLD["scalarop/x"], requires_grad=True)
    y = ScalarOp.apply(x, 2.5)
    y.sum().backward()
    close(y, "scalarop/y")
    close(x.grad, "scalarop/gx")


def test_debug_function_prints_what_pytorch_prints(capsys):
    x = torch.tensor([1.0, -2.0, 3.5], requires_grad=True)
    DebugFunction.apply(x).sum().backward()
    assert capsys.readouterr().out == str(GOLD["debug/stdout"])
    close(x.grad, "debug/gx")


def test_swish_example_as_written():
    # 测试
    x = torch.linspace(-5, 5, 100, requires_grad=True)
    y = swish(x)
    y.sum().backward()  # 正确计算梯度
    close(x, "swish/x")
    close(y, "swish/y")
    close(x.grad, "swish/gx")


def test_swish_with_beta_matches_pytorch():
    x = torch.linspace(-5, 5, 100, requires_grad=True)
    y = swish(x, beta=1.7)
    y.sum().backward()
    close(y, "swish_beta/y")
    close(x.grad, "swish_beta/gx")


def test_swish_backward_agrees_with_numerical_gradient():
    from dyngrad.autograd import gradcheck
    x = torch.linspace(-3, 3, 7, dtype=torch.double, requires_grad=True)
    assert gradcheck(lambda t: swish(t, 1.3), (x,))
