"""Custom Functions from the seeds (/work/shared/seeds) and deliberately broken variants,
used by the gradcheck and ``dyngrad check`` tests (importable by file path for the CLI)."""

import numpy as np

import dyngrad as torch
from dyngrad.autograd import Function, once_differentiable


# ------------------------------------------------------------------ seed examples
class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class MyDropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, p=0.5):
        mask = (torch.rand_like(input) > p).float()
        ctx.save_for_backward(mask)
        ctx.p = p
        return input * mask / (1 - p)

    @staticmethod
    def backward(ctx, grad_output):
        (mask,) = ctx.saved_tensors
        return grad_output * mask / (1 - ctx.p), None


class ScalarOp(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return x * scale

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.scale, None


class SwishFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta=1.0):
        ctx.save_for_backward(x)
        ctx.beta = beta
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        beta = ctx.beta
        sigmoid = torch.sigmoid(beta * x)
        return grad_output * (sigmoid * (1 + beta * x * (1 - sigmoid))), None


class CustomGradientFunc(torch.autograd.Function):
    """The seed's alpha scales the gradient only (a deliberate custom gradient): with
    alpha=1.0 (the default) it is the true derivative of x ** 2."""

    @staticmethod
    def forward(ctx, x, alpha=1.0):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return x**2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        alpha = ctx.alpha
        return alpha * 2 * x * grad_output, None


class CustomBackward(Function):
    @staticmethod
    def forward(ctx, input_tensor):
        ctx.save_for_backward(input_tensor)
        return input_tensor**2

    @staticmethod
    def backward(ctx, grad_output):
        (input_tensor,) = ctx.saved_tensors
        return 2 * input_tensor * grad_output


class CustomActivation(torch.autograd.Function):
    """Leaky backward on purpose: forward is relu, backward lets 0.1 through for x < 0, so
    it is NOT the derivative of forward (gradcheck is right to reject it)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[x < 0] *= 0.1
        return grad_input


class LeakyReLUFn(Function):
    """CustomActivation made consistent: forward leaky too, so backward is its derivative."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0) + 0.1 * x.clamp(max=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[x < 0] *= 0.1
        return grad_input


class MulAdd(Function):
    """Two tensor inputs that broadcast: out = x * w + w."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w + w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w, g * x + g


class ExpInplace(Function):
    """In place done right: mark_dirty and return the input."""

    @staticmethod
    def forward(ctx, x):
        x.exp_()
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


class NumpyBackward(Function):
    """Backward in NumPy, declared with once_differentiable."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return torch.from_numpy(2 * x.detach().numpy() * g.numpy())


# ------------------------------------------------------------------ broken variants
class MissingGradient(Function):
    """Forgets the gradient of its first input."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return None, g * x


class TooFewGradients(Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w


class WrongShape(Function):
    """Returns the gradient transposed."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return (g * 3).t()


class TensorOnCtx(Function):
    """Stores its input as a ctx attribute instead of save_for_backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x

    @staticmethod
    def backward(ctx, g):
        return 2 * ctx.x * g


class InplaceNoMarkDirty(Function):
    """Doubles its input in place without telling autograd."""

    @staticmethod
    def forward(ctx, x):
        x.data *= 2  # (PyTorch's idiom: through .data, no version bump)
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g


class WrongSecondDerivative(Function):
    """First derivative right; backward leaves the graph (plain array), so the second
    derivative is lost."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * torch.from_numpy(np.asarray(3 * x._data**2))


class WrongGradient(Function):
    """sin with a wrong derivative (sin instead of cos)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * torch.sin(x)


class NotAFunction:
    pass
