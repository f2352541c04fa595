"""The custom autograd Functions from the PyTorch tutorials this project reproduces (the
tutorials are kept in the project's "seeds" folder), written exactly as the tutorials wrote
them (with ``import dyngrad as torch``), so the demo trains the code the tutorials show.

* ``MyReLU``: ReLU with a hand-written backward ("PyTorch自定义反向传播：
  autograd.Function.apply()详解", section 1).
* ``SwishFunction`` / ``swish``: Swish, ``x * sigmoid(beta * x)``, with a ``beta`` parameter
  (same tutorial, section 5); Ramachandran, Zoph & Le, "Searching for Activation Functions" (2017).
* ``CustomActivation``: forward is ReLU, backward passes 0.1 of the gradient for negative
  inputs ("如何用PyTorch实现自定义反向传播？这一篇就够了", section 4.4). Its backward is
  deliberately NOT the derivative of its forward, so gradcheck must fail for it: that is the
  point of the tutorial's example.
"""

import dyngrad as torch

__all__ = ["MyReLU", "SwishFunction", "swish", "CustomActivation"]


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
