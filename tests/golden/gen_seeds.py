"""Generate tests/golden/seeds.npz: PyTorch 2.13 values of the seed documents' examples.

Inputs are drawn with NumPy (dyngrad's random numbers differ from PyTorch's) and saved in
the npz, so the tests in tests/seeds/ feed the very same inputs to dyngrad. The example
classes are copied from /work/shared/seeds/*.txt unchanged (plus the backward of
FusedLinearGELU, which the seed leaves as ``...``, and the gradient-clipping Function that
replaces the seed's TensorFlow snippet). Run with torch installed::

    python tests/golden/gen_seeds.py
"""

from __future__ import annotations

import io
import math
import os
from contextlib import redirect_stdout

import numpy as np
import torch
from torch.autograd import Function

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds.npz")
rng = np.random.default_rng(4242)
data: dict[str, np.ndarray] = {}


def away_from_zero(shape, lo=0.2, hi=2.0):
    return rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


# ============================================================================ seed 000
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


x = away_from_zero((7,)).astype(np.float32)
g = rng.standard_normal(7).astype(np.float32)
tx = torch.tensor(x, requires_grad=True)
y = MyReLU.apply(tx)
y.backward(torch.tensor(g))
data.update({"myrelu/x": x, "myrelu/g": g, "myrelu/y": y.detach().numpy(), "myrelu/gx": tx.grad.numpy()})
data["myrelu/gradcheck_input"] = away_from_zero((3,))


class FusedLinearGELU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight, bias)
        linear = torch.nn.functional.linear(x, weight, bias)
        gelu = 0.5 * linear * (1 + torch.tanh(math.sqrt(2/math.pi) *
                            (linear + 0.044715 * torch.pow(linear, 3))))
        return gelu


fx, fw, fb = rng.standard_normal((4, 5)), rng.standard_normal((3, 5)), rng.standard_normal(3)
fg = rng.standard_normal((4, 3))
# reference: PyTorch's own autograd through the same composite forward
tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (fx, fw, fb))
lin = torch.nn.functional.linear(tx, tw, tb)
out = 0.5 * lin * (1 + torch.tanh(math.sqrt(2 / math.pi) * (lin + 0.044715 * torch.pow(lin, 3))))
out.backward(torch.tensor(fg))
data.update({
    "fused/x": fx, "fused/w": fw, "fused/b": fb, "fused/g": fg, "fused/out": out.detach().numpy(),
    "fused/gx": tx.grad.numpy(), "fused/gw": tw.grad.numpy(), "fused/gb": tb.grad.numpy(),
})


class ScalarOp(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale  # 保存Python标量
        return x * scale

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.scale, None  # 标量对应的梯度为None


sx = rng.standard_normal((2, 3)).astype(np.float32)
tx = torch.tensor(sx, requires_grad=True)
y = ScalarOp.apply(tx, 2.5)
y.sum().backward()
data.update({"scalarop/x": sx, "scalarop/y": y.detach().numpy(), "scalarop/gx": tx.grad.numpy()})


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


buf = io.StringIO()
with redirect_stdout(buf):
    tx = torch.tensor([1.0, -2.0, 3.5], requires_grad=True)
    DebugFunction.apply(tx).sum().backward()
data["debug/stdout"] = np.array(buf.getvalue())
data["debug/gx"] = tx.grad.numpy()


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


def swish(x, beta=1.0):
    return SwishFunction.apply(x, beta)


x = torch.linspace(-5, 5, 100, requires_grad=True)
y = swish(x)
y.sum().backward()
data.update({"swish/x": x.detach().numpy(), "swish/y": y.detach().numpy(), "swish/gx": x.grad.numpy()})
x = torch.linspace(-5, 5, 100, requires_grad=True)
y = swish(x, beta=1.7)
y.sum().backward()
data.update({"swish_beta/y": y.detach().numpy(), "swish_beta/gx": x.grad.numpy()})

# ============================================================================ seed 004
x = torch.tensor(2.0, requires_grad=True)
y = x ** 2 + 3 * x + 1
y.backward()
data["poly/y"] = y.detach().numpy()
data["poly/gx"] = x.grad.numpy()
data["poly/print"] = np.array(repr(x.grad))

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
y.backward()
data["square/gx"] = x.grad.numpy()
data["square/grad_fn"] = np.array(type(y.grad_fn).__name__)

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
z = y ** 2
z.backward(retain_graph=True)
data["retain/first"] = x.grad.numpy().copy()
x.grad.zero_()
z.backward()
data["retain/second"] = x.grad.numpy()


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


cx = rng.standard_normal(5).astype(np.float32)
for alpha in (1.0, 0.5):
    tx = torch.tensor(cx, requires_grad=True)
    y = CustomGradientFunc.apply(tx, alpha)
    y.sum().backward()
    data[f"cgf/{alpha}/y"] = y.detach().numpy()
    data[f"cgf/{alpha}/gx"] = tx.grad.numpy()
data["cgf/x"] = cx


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


bx = rng.standard_normal((3, 4)).astype(np.float32)
bg = rng.standard_normal((3, 4)).astype(np.float32)
tx = torch.tensor(bx, requires_grad=True)
y = CustomBackward.apply(tx)
y.backward(torch.tensor(bg))
data.update({"cb/x": bx, "cb/g": bg, "cb/y": y.detach().numpy(), "cb/gx": tx.grad.numpy()})


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


ax = away_from_zero((10,)).astype(np.float32)
ag = rng.standard_normal(10).astype(np.float32)
tx = torch.tensor(ax, requires_grad=True)
y = CustomActivation.apply(tx)
y.backward(torch.tensor(ag))
data.update({"act/x": ax, "act/g": ag, "act/y": y.detach().numpy(), "act/gx": tx.grad.numpy()})


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


clx = rng.standard_normal((2, 3))
for nm, scale in (("big", 5.0), ("small", 0.05)):
    clg = rng.standard_normal((2, 3)) * scale
    tx = torch.tensor(clx, requires_grad=True)
    ClipGradNorm.apply(tx, 1.0).backward(torch.tensor(clg))
    data[f"clip/{nm}/g"] = clg
    data[f"clip/{nm}/gx"] = tx.grad.numpy()
data["clip/x"] = clx

np.savez_compressed(OUT, **data)
print(f"wrote {OUT}: {len(data)} arrays, {os.path.getsize(OUT)} bytes")
