"""The seeds' custom autograd Functions, run with ``import dyngrad as torch``.

MyReLU (hand-written backward), SwishFunction (with beta) and CustomActivation (ReLU forward,
0.1 of the gradient for negative inputs), each checked with gradcheck in float64.
Run: ``python examples/custom_function.py``.
"""

import dyngrad as torch
from dyngrad.autograd import gradcheck
from dyngrad.demo.functions import CustomActivation, MyReLU, swish

# seed 000, section 5: Swish on a grid
x = torch.linspace(-5, 5, 100, requires_grad=True)
y = swish(x)
y.sum().backward()  # 正确计算梯度
print(f"swish'({x[50].item():.3f}) =", round(float(x.grad[50].item()), 4), " swish'(5) =", round(float(x.grad[-1].item()), 4))

# seed 000, section 4.2: gradient check in double precision
input = torch.randn(3, dtype=torch.double, requires_grad=True)
test = gradcheck(MyReLU.apply, (input,), eps=1e-6, atol=1e-4)
print("Gradient check passed:", test)

# seed 004, section 4.4: the gradient the custom backward lets through
z = torch.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
CustomActivation.apply(z).sum().backward()
print("CustomActivation grad:", z.grad.tolist())
assert z.grad.tolist() == [0.10000000149011612, 0.10000000149011612, 1.0, 1.0]

# the custom backward is not the derivative of the forward, and gradcheck says so
w = torch.tensor([-1.0, -0.3, 0.4, 1.2], dtype=torch.double, requires_grad=True)
print("gradcheck(CustomActivation):", gradcheck(CustomActivation.apply, (w,), raise_exception=False))
print("gradcheck(swish, beta=1.5):", gradcheck(lambda t: swish(t, 1.5), (w,)))
