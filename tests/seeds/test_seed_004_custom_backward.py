"""Seed 004 ("如何用PyTorch实现自定义反向传播？这一篇就够了"): every PyTorch example of the
document, copied unchanged and run with ``import dyngrad as torch``; values are compared
with PyTorch 2.13's on the same inputs (tests/golden/seeds.npz).

The document's TensorFlow ``tf.custom_gradient`` clipping snippet is not ours: the same
clipping (``tf.clip_by_norm`` of the incoming gradient) is implemented here as a dyngrad
Function. Its plain-NumPy ``forward``/``numerical_gradient`` helpers are used to check
dyngrad's gradients the way the document suggests. The Redis/Go/microservice code of its
last chapter is not PyTorch and is not run.
"""

import os

import numpy as np
import pytest

import dyngrad as torch
from dyngrad.autograd import Function

GOLD = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "seeds.npz"))


def close(actual, key, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual.detach().numpy()), GOLD[key], rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------- chapter 1-2
def test_chapter1_polynomial_gradient_is_seven(capsys):
    # 创建需要梯度的张量
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2 + 3 * x + 1

    # 自动求导
    y.backward()

    # 输出梯度（dy/dx = 2x + 3）
    print(x.grad)  # 输出: tensor(7.0)
    assert capsys.readouterr().out.strip() == str(GOLD["poly/print"])
    close(x.grad, "poly/gx")
    close(y, "poly/y")


def test_chapter2_square_gradient_and_its_node():
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2  # 创建Function: Power
    y.backward()
    print(x.grad)  # 输出: 4.0 (dy/dx = 2x)
    close(x.grad, "square/gx")
    assert y.grad_fn.name() == str(GOLD["square/grad_fn"])


def test_chapter2_5_graph_building_example():
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2 + 3 * x
    y.backward()
    print(x.grad)  # 输出: 7.0
    assert x.grad.item() == 7.0


class CustomReLU(torch.autograd.Function):
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


def test_custom_relu_zeroes_negative_gradients():
    x = torch.tensor(GOLD["myrelu/x"], requires_grad=True)
    y = CustomReLU.apply(x)
    y.backward(torch.tensor(GOLD["myrelu/g"]))
    close(y, "myrelu/y")
    close(x.grad, "myrelu/gx")


# ---------------------------------------------------------------------------- chapter 3
class CustomGradientFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha=1.0):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return x ** 2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        alpha = ctx.alpha
        return alpha * 2 * x * grad_output, None


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_custom_gradient_func_scales_the_gradient_by_alpha(alpha):
    x = torch.tensor(GOLD["cgf/x"], requires_grad=True)
    y = CustomGradientFunc.apply(x, alpha)
    y.sum().backward()
    close(y, f"cgf/{alpha}/y")
    close(x.grad, f"cgf/{alpha}/gx")


def test_custom_gradient_func_alpha_by_keyword_and_default():
    x = torch.tensor(GOLD["cgf/x"], requires_grad=True)
    CustomGradientFunc.apply(x, alpha=0.5).sum().backward()
    close(x.grad, "cgf/0.5/gx")
    x.grad = None
    CustomGradientFunc.apply(x).sum().backward()
    close(x.grad, "cgf/1.0/gx")


def forward(x, weights, bias):
    # x: 输入数据 (batch_size, input_dim)
    # weights: 权重矩阵 (input_dim, output_dim)
    # bias: 偏置向量 (output_dim,)
    z = np.dot(x, weights) + bias  # 线性变换
    a = sigmoid(z)                # 激活函数
    return a, z                   # 返回激活值和线性输出


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def numerical_gradient(f, x, eps=1e-5):
    grad = np.zeros_like(x)
    for i in range(x.size):
        tmp = x.flat[i]
        x.flat[i] = tmp + eps
        f_plus = f(x)
        x.flat[i] = tmp - eps
        f_minus = f(x)
        grad.flat[i] = (f_plus - f_minus) / (2 * eps)
        x.flat[i] = tmp
    return grad


def test_numpy_layer_numerical_gradient_matches_dyngrad_analytic_gradient():
    rng = np.random.default_rng(0)
    xv, wv, bv = rng.standard_normal((4, 3)), rng.standard_normal((3, 2)), rng.standard_normal(2)
    num = numerical_gradient(lambda w: forward(xv, w, bv)[0].sum(), wv.copy())
    w = torch.tensor(wv, requires_grad=True)
    a = torch.sigmoid(torch.tensor(xv) @ w + torch.tensor(bv))
    a.sum().backward()
    ana = w.grad.numpy()
    rel = np.linalg.norm(num - ana) / np.linalg.norm(num + ana)
    assert rel < 1e-7  # 若误差小于1e-7，则认为梯度实现正确
    np.testing.assert_allclose(a.detach().numpy(), forward(xv, wv, bv)[0], rtol=1e-12)


# ---------------------------------------------------------------------------- chapter 4
def test_retain_graph_example_backwards_twice():
    x = torch.tensor(2.0, requires_grad=True)
    y = x ** 2
    z = y ** 2

    z.backward(retain_graph=True)  # 第一次反向传播
    print(x.grad)  # grad = 16  (the document's comment is wrong: 4 x**3 = 32, as PyTorch says)
    close(x.grad, "retain/first")

    x.grad.zero_()  # 清零梯度
    z.backward()   # 第二次反向传播
    close(x.grad, "retain/second")


def test_retain_graph_example_without_retain_graph_fails_the_second_time():
    x = torch.tensor(2.0, requires_grad=True)
    z = (x ** 2) ** 2
    z.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        z.backward()


def test_higher_order_derivatives_with_autograd_grad():
    x = torch.tensor(2.0, requires_grad=True)
    z = (x ** 2) ** 2
    (d1,) = torch.autograd.grad(z, x, create_graph=True)  # 一阶导数 4x³
    (d2,) = torch.autograd.grad(d1, x)  # 二阶导数 12x²
    assert d1.item() == 32.0 and d2.item() == 48.0


class CustomBackward(Function):
    @staticmethod
    def forward(ctx, input_tensor):
        ctx.save_for_backward(input_tensor)
        return input_tensor ** 2

    @staticmethod
    def backward(ctx, grad_output):
        input_tensor, = ctx.saved_tensors
        grad_input = 2 * input_tensor * grad_output  # 链式法则
        return grad_input


def test_custom_backward_square_matches_pytorch():
    x = torch.tensor(GOLD["cb/x"], requires_grad=True)
    y = CustomBackward.apply(x)
    y.backward(torch.tensor(GOLD["cb/g"]))
    close(y, "cb/y")
    close(x.grad, "cb/gx")


def test_custom_backward_is_twice_differentiable():
    from dyngrad.autograd import gradgradcheck
    x = torch.tensor(GOLD["cb/x"][0].astype(np.float64), requires_grad=True)
    assert gradgradcheck(CustomBackward.apply, (x,))


class CustomActivation(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)  # 类似ReLU

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[x < 0] *= 0.1  # 负区梯度衰减
        return grad_input


def test_custom_activation_leaky_backward_scales_negative_side_by_a_tenth():
    x = torch.tensor(GOLD["act/x"], requires_grad=True)
    y = CustomActivation.apply(x)
    g = torch.tensor(GOLD["act/g"])
    y.backward(g)
    close(y, "act/y")
    close(x.grad, "act/gx")
    neg = GOLD["act/x"] < 0
    np.testing.assert_allclose(x.grad.numpy()[neg], 0.1 * GOLD["act/g"][neg], rtol=1e-6)
    assert g.numpy()[0] == GOLD["act/g"][0]  # the caller's gradient was not modified


class ClipGradNorm(Function):
    """The seed's ``tf.custom_gradient`` clipping layer as a Function: identity forward,
    backward ``dy * clip / max(||dy||_2, clip)`` (``tf.clip_by_norm``)."""

    @staticmethod
    def forward(ctx, x, clip_norm=1.0):
        ctx.clip_norm = clip_norm
        return x.clone()

    @staticmethod
    def backward(ctx, dy):
        norm = dy.pow(2).sum().sqrt()
        return dy * (ctx.clip_norm / torch.clamp(norm, min=ctx.clip_norm)), None


@pytest.mark.parametrize("case", ["big", "small"])
def test_gradient_clipping_function_clips_the_l2_norm_to_one(case):
    x = torch.tensor(GOLD["clip/x"], requires_grad=True)
    y = ClipGradNorm.apply(x, 1.0)
    np.testing.assert_array_equal(y.detach().numpy(), GOLD["clip/x"])
    y.backward(torch.tensor(GOLD[f"clip/{case}/g"]))
    close(x.grad, f"clip/{case}/gx", rtol=1e-12, atol=1e-14)
    norm = np.linalg.norm(x.grad.numpy())
    if case == "big":
        assert abs(norm - 1.0) < 1e-12
    else:
        np.testing.assert_allclose(x.grad.numpy(), GOLD["clip/small/g"])


def test_checkpoint_sequential_example_if_available():
    cp = pytest.importorskip("dyngrad.utils.checkpoint")
    if not hasattr(cp, "checkpoint_sequential") or not hasattr(torch.nn, "Linear") or not hasattr(torch.nn, "Module"):
        pytest.skip("dyngrad.utils.checkpoint.checkpoint_sequential / nn.Linear not built yet")
    import dyngrad.utils.checkpoint as cp  # noqa: F811 - the seed's own import line

    class CheckpointedBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = torch.nn.Linear(512, 512)
            self.linear2 = torch.nn.Linear(512, 512)

        def forward(self, x):
            return cp.checkpoint_sequential([self.linear1, self.linear2], 2, x)

    torch.manual_seed(0)
    block = CheckpointedBlock()
    x = torch.randn(4, 512, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):  # as PyTorch's
        block(x).sum().backward()
    # the same gradients as without checkpointing
    ref_x = x.detach().clone().requires_grad_()
    block.linear2(block.linear1(ref_x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ref_x.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_no_grad_block_records_no_graph():
    w = torch.randn(3, 3, requires_grad=True)
    input_tensor = torch.randn(2, 3)
    with torch.no_grad():
        output = input_tensor @ w
        # 此处不构建计算图，节省内存
    assert output.grad_fn is None and not output.requires_grad
    y = (input_tensor @ w).detach_()
    assert y.grad_fn is None and not y.requires_grad
