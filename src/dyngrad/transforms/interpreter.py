"""The interpreter stack: how a transform takes part in every ``Function.apply``.

A transform that is active in this thread (a ``vmap`` call, a forward-mode dual level) is
an :class:`Interpreter` on ``context.interpreters`` (autograd/_context.py), innermost
last. ``Function.apply`` asks one question, "is an interpreter active?", and if so offers
the call to each interpreter from the innermost outwards::

    Function.apply(cls, *args)
        └─ stack empty? ── yes ──► plain path: run forward, record the node
                        └─ no ───► for interp in reversed(stack):
                                       out = interp.process(cls, args, kwargs)
                                       if out is not NotImplemented: return out
                                   plain path

An interpreter that finds no argument of its own level answers ``NotImplemented`` and the
call goes on down. One that does *lowers* the call: it rewrites the arguments (unwraps a
batch, splits primal from tangent) and calls ``apply`` again for the level below, usually
with itself taken off the stack (:meth:`Interpreter.lowered`). This is functorch's
interpreter stack and JAX's traces: each level sees only its own wrapping.

Order. vmap levels (``BatchInterpreter``) always sit above forward-mode levels
(``DualInterpreter``): a tangent lives on the unbatched values, and the rules of a batched
call reach forward mode with those values. Batching and taking a jvp commute, so the
order in which the user entered ``vmap`` and ``dual_level`` does not change any result;
it only fixes which interpreter rewrites a call first.

In-place ops (``ops/_util.inplace``) go through the same stack with two more questions:
:meth:`Interpreter.process_inplace` (vmap writes into the batched values) and
:meth:`Interpreter.after_inplace` (forward mode gives the modified tensor the result's
tangent). Ops never test which transform is active.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd._context import context

__all__ = ["Interpreter", "push", "pop", "active"]


class Interpreter:
    """One active transform level (base class).

    Attributes:
        kind (str): ``"vmap"`` or ``"dual"`` for the built-in interpreters.

    Example (an interpreter that only watches the calls, passing each one down):
        >>> import dyngrad
        >>> from dyngrad.transforms.interpreter import Interpreter, active, pop, push
        >>> class Tracer(Interpreter):
        ...     kind = "tracer"
        ...     def __init__(self):
        ...         self.seen = []
        ...     def process(self, cls, args, kwargs):
        ...         self.seen.append(cls.__name__)
        ...         return NotImplemented  # the next level down (here: the plain path) runs it
        >>> t = push(Tracer())
        >>> y = (dyngrad.ones(2) * 3).exp()
        >>> active(Tracer) == (t,)
        True
        >>> pop(t)
        >>> t.seen
        ['Mul', 'Exp']
    """

    kind = "interpreter"
    below_batching = False  # True for forward-mode levels: they sit below every vmap level

    def process(self, cls: type, args: tuple, kwargs: dict) -> Any:
        """Run ``cls.apply(*args, **kwargs)`` at this level, or return ``NotImplemented``
        when no argument belongs to this level (the next interpreter down gets it)."""
        return NotImplemented

    def process_inplace(self, fn: Callable, self_: Any, args: tuple, kwargs: dict) -> Any:
        """An in-place op ``fn`` (out of place, written back into ``self_``) at this level,
        or ``NotImplemented`` when none of its tensors belongs to this level."""
        return NotImplemented

    def after_inplace(self, src: Any, dst: Any) -> None:
        """``dst``'s values were just replaced by those of ``src`` (the out-of-place result
        of an in-place op, or the history-carrying copy of ``dst``): move this level's
        per-tensor state (a tangent) along."""

    def process_grad(self, grad: Callable, outputs: Any, inputs: Any, grad_outputs: Any, **kw: Any) -> Any:
        """``autograd.grad(outputs, inputs, grad_outputs, **kw)`` when some of these tensors
        belong to this level, or ``NotImplemented``. ``grad`` is ``autograd.grad``."""
        return NotImplemented

    def before_random(self) -> None:
        """Called before a random draw (``rand``, ``dropout``...): raise to refuse it."""

    def share(self, src: Any, dst: Any) -> None:
        """``dst`` now stands for ``src`` (same values; a leaf or alias made for it):
        give it this level's per-tensor state."""

    def owns_leaf(self, t: Any) -> bool:
        """True when ``t`` is a leaf this interpreter made to stand for a real input (so an
        in-place change of it is not a change of a user's leaf)."""
        return False

    def lowered(self, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """Run ``fn`` with this interpreter off the stack (the levels below stay), the full
        stack kept as ``context.resume_stack`` for a Function that must run at the caller's
        levels (``custom_gradient``)."""
        ctx = context
        saved, resume = ctx.interpreters, ctx.resume_stack
        ctx.interpreters = tuple(i for i in saved if i is not self)
        ctx.resume_stack = saved
        try:
            return fn(*args, **kwargs)
        finally:
            ctx.interpreters, ctx.resume_stack = saved, resume


def push(interp: Interpreter) -> Interpreter:
    """Make ``interp`` active (innermost of its kind; see the module docstring on order)."""
    stack = context.interpreters
    if interp.below_batching:
        k = 0
        while k < len(stack) and stack[k].below_batching:
            k += 1
        context.interpreters = (*stack[:k], interp, *stack[k:])
    else:
        context.interpreters = (*stack, interp)
    return interp


def pop(interp: Interpreter) -> None:
    """Leave ``interp``'s level (a no-op if it is not active)."""
    context.interpreters = tuple(i for i in context.interpreters if i is not interp)


def active(kind: type) -> tuple:
    """The active interpreters of class ``kind``, outermost first."""
    return tuple(i for i in context.interpreters if isinstance(i, kind))
