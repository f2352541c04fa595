"""The seeds' custom autograd Functions, kept as the tutorials wrote them (with ``import
dyngrad as torch``), so the demo trains exactly the code the seeds show.

* ``MyReLU``: ReLU with a hand-written backward (seed 000, section 1).
* ``SwishFunction`` / ``swish``: Swish with a ``beta`` parameter (seed 000, section 5);
  Ramachandran, Zoph & Le, "Searching for Activation Functions" (2017).
* ``CustomActivation``: forward is ReLU, backward lets 0.1 of the gradient through for
  negative inputs (seed 004, section 4.4). Its backward is deliberately NOT the derivative
  of its forward, so gradcheck must fail for it: that is the point of the seed's example.
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
