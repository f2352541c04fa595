"""``custom_gradient``: TensorFlow's decorator for a function with a hand-written gradient.

The decorated function returns ``(output, grad_fn)``; ``grad_fn(*upstream)`` returns one
gradient per input (a Tensor, or None for inputs that need none)::

    @dyngrad.custom_gradient
    def log1pexp(x):
        e = x.exp()
        def grad_fn(upstream):
            return upstream * (1 - 1 / (1 + e))     # numerically stable gradient
        return (1 + e).log(), grad_fn

It is built on :class:`dyngrad.autograd.Function` (one generated subclass per decorated
function, whose node is named ``<function name>Backward``), so it composes with
everything: ``backward``, ``autograd.grad``, ``create_graph`` (the function body runs with
grad mode on, so values ``grad_fn`` closes over stay connected to the inputs and the
gradient is itself differentiable when written with dyngrad ops), forward mode (tangents
come from ``grad_fn`` through the double-vjp construction, so ``jacfwd`` and ``jacrev``
agree even when ``grad_fn`` is deliberately not the true derivative, as in TensorFlow; the
body runs with tangents propagating, so forward-over-reverse through ``grad_fn`` is exact),
``dyngrad.func`` transforms and ``gradcheck``. Cost: the body's graph is recorded when an
input requires grad, and kept alive by ``grad_fn``'s closure until the node is freed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .autograd import grad_mode
from .autograd.function import Function
from .autograd.grad_mode import state as _ctx
from .tensor import Tensor

__all__ = ["custom_gradient"]


def custom_gradient(f: Callable) -> Callable:
    """Decorate ``f(*inputs, **kwargs) -> (output, grad_fn)``: a function with a hand-written gradient.

    TensorFlow's ``tf.custom_gradient``, built on :class:`dyngrad.autograd.Function` (see the
    module docstring for how it composes with double backward, forward mode and the
    ``dyngrad.func`` transforms).

    Derivative: whatever ``grad_fn`` returns: ``grad_input_i = grad_fn(*grad_outputs)[i]``
    (deliberately not checked against the true derivative).

    Args:
        f (callable): returns a Tensor (or a tuple of Tensors) and ``grad_fn(*upstream)``, which
            gets one gradient per output and returns one gradient per positional input (a
            single Tensor when there is one input, else a tuple/list; None where there is none).
    Returns:
        callable: a function with ``f``'s signature returning only the output(s); its node is
        named ``<f's name>Backward``.
    Raises:
        TypeError: when ``f`` does not return ``(output, grad_fn)``.
        RuntimeError: at backward, when ``grad_fn`` returns the wrong number of gradients
            (naming ``f``).

    Example:
        >>> import dyngrad
        >>> @dyngrad.custom_gradient
        ... def log1pexp(x):
        ...     e = x.exp()
        ...     def grad_fn(upstream):
        ...         return upstream * (1 - 1 / (1 + e))  # stable where exp(x) overflows
        ...     return (1 + e).log(), grad_fn
        >>> x = dyngrad.tensor([0.0, 100.0], requires_grad=True)
        >>> log1pexp(x).sum().backward()
        >>> x.grad
        tensor([0.5000, 1.0000])
    """
    name = getattr(f, "__name__", "custom_gradient")

    def forward(ctx: Any, kwargs: dict, *args: Any) -> Any:
        # In forward mode, run f at the caller's levels (the stack before forward mode
        # lowered this call: context.resume_stack), so values grad_fn closes over carry
        # tangents too: forward-over-reverse through grad_fn is then exact. The output
        # tangents themselves come from grad_fn (the double-vjp construction), so forward
        # and reverse mode agree, as in TensorFlow.
        resume = _ctx.resume_stack
        stack = _ctx.interpreters
        if resume is not None:
            _ctx.interpreters, _ctx.resume_stack = resume, None
        try:
            with grad_mode.enable_grad():
                res = f(*args, **kwargs)
        finally:
            if resume is not None:
                _ctx.interpreters, _ctx.resume_stack = stack, resume
        if not (isinstance(res, (tuple, list)) and len(res) == 2 and callable(res[1])):
            raise TypeError(
                f"custom_gradient: {name} must return (output, grad_fn) with a callable grad_fn, "
                f"got {type(res).__name__}"
            )
        out, gfn = res
        ctx.grad_fn_ = gfn
        ctx.n_inputs = len(args)
        if isinstance(out, list):
            out = tuple(out)
        return out

    def backward(ctx: Any, *grads: Any) -> tuple:
        gs = ctx.grad_fn_(*grads)
        if isinstance(gs, Tensor) or gs is None:
            gs = (gs,)
        gs = tuple(gs)
        if len(gs) != ctx.n_inputs:
            raise RuntimeError(
                f"custom_gradient: the grad_fn of {name} returned {len(gs)} gradient(s) but "
                f"{name} took {ctx.n_inputs} positional input(s); return one per input (None "
                "where there is none)"
            )
        return (None, *gs)

    cls = type(
        name if name.isidentifier() else "CustomGradient",
        (Function,),
        {
            "forward": staticmethod(forward),
            "backward": staticmethod(backward),
            "__doc__": f"Function generated by custom_gradient for {name}.",
            "__module__": getattr(f, "__module__", __name__),
        },
    )

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return cls.apply(kwargs, *args)

    wrapper.function_class = cls  # type: ignore[attr-defined]
    return wrapper
