"""dyngrad.func: composable function transforms (``torch.func`` / JAX style).

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``,
``linearize``, ``vmap`` and ``functional_call``. They accept dyngrad Tensors and plain
NumPy arrays (results for ndarray inputs are ndarrays).
"""

from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._vmap import functional_call, vmap

__all__ = [
    "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize",
    "vmap", "functional_call",
]
