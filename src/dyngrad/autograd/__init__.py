"""dyngrad.autograd: Function, backward/grad, grad modes, gradcheck, graph tools.

``grad`` is defined here, as in PyTorch's ``torch.autograd``: the core (argument checks,
then the engine) is ``backprop.grad``; ``is_grads_batched`` runs it under vmap, a transform
above the core, so this public face sits above both (docs/architecture.md, the layers).
"""

from typing import Any

from ..transforms.batched_autograd import grad_batched as _grad_batched
from . import backprop as _backprop
from . import forward_ad, functional, graph, profiler
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .backprop import backward
from .checker import check_function  # noqa: E402 - verifier of custom Functions (issue 5)
from .engine import atomic_accumulation, set_strict_shapes
from .function import Function, FunctionCtx, InplaceFunction, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """Return the gradients of ``outputs`` with respect to ``inputs`` without touching
    any ``.grad`` (PyTorch's ``torch.autograd.grad``).

    The core is :func:`dyngrad.autograd.backprop.grad`; ``is_grads_batched`` is what this
    face adds, as PyTorch's does (under vmap: transforms/batched_autograd.py).

    Args:
        outputs: Tensor or sequence of Tensors.
        inputs: Tensor or sequence of Tensors (leaves or not) that require grad.
        grad_outputs: one vector per output (None means 1 for one-element outputs).
        retain_graph: defaults to create_graph.
        create_graph: make the returned gradients differentiable (higher-order derivatives).
        only_inputs: accepted for PyTorch compatibility (always True in effect).
        allow_unused: return None for inputs the outputs do not depend on instead of
            raising (defaults to materialize_grads).
        is_grads_batched: dim 0 of every grad_output is a batch of ``B`` vectors; the
            backward runs once for all of them (its formulas under vmap; one pass per
            vector where a backward cannot be batched, with a warning) and every gradient
            gets the same leading dim ``(B, *input.shape)``.
        materialize_grads: return zeros instead of None for unused inputs.
    Returns:
        tuple of Tensors (or None), one per input, shaped like it.
    Raises:
        RuntimeError: an input not used in the graph (unless allow_unused) or that does not
            require grad; with is_grads_batched, grad_outputs without a common batch dim 0.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor(3.0, requires_grad=True)
        >>> (dy,) = dyngrad.autograd.grad(x ** 3, x, create_graph=True)   # 3x^2
        >>> (d2y,) = dyngrad.autograd.grad(dy, x)                         # 6x
        >>> dy.item(), d2y.item(), x.grad is None
        (27.0, 18.0, True)
    """
    if is_grads_batched:
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    return _backprop.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused,
                          materialize_grads=materialize_grads)


class _VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        from ..tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """PyTorch's deprecated ``Variable`` (Variables and Tensors are one type since PyTorch
    0.4): ``Variable(t, requires_grad=False)`` is a new leaf sharing ``t``'s memory (as
    ``t.detach()``) with ``requires_grad`` set; every Tensor is an instance.

    Raises:
        TypeError: data that is not a Tensor (PyTorch's message).

    Example:
        >>> import dyngrad
        >>> from dyngrad.autograd import Variable
        >>> v = Variable(dyngrad.ones(2), requires_grad=True)
        >>> v.requires_grad, v.is_leaf, isinstance(dyngrad.zeros(1), Variable)
        (True, True, True)
    """

    # PyTorch's `Variable._execution_engine.queue_callback(fn)` (DDP-style end-of-backward work)
    from . import engine as _execution_engine

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        from ..tensor import Tensor

        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        return out.requires_grad_(True) if requires_grad else out


__all__ = [
    "Variable", "Function", "FunctionCtx", "InplaceFunction", "once_differentiable", "backward", "grad",
    "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
    "is_inference_mode_enabled", "gradcheck", "gradgradcheck", "GradcheckError",
    "forward_ad", "functional", "profiler", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "graph", "set_strict_shapes", "atomic_accumulation",
    "check_function",
]
