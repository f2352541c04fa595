"""dyngrad.func: composable function transforms (``torch.func`` / JAX style).

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``,
``linearize``, ``vmap``, ``functional_call`` and ``stack_module_state``. They accept dyngrad Tensors and plain
NumPy arrays (results for ndarray inputs are ndarrays).
"""

from ._transforms import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._vmap import functional_call, stack_module_state, vmap

__all__ = [
    "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize",
    "vmap", "functional_call", "stack_module_state",
]
