"""Transforms as interpreters (DESIGN.md idea 6): vmap's batching and forward mode's dual
numbers, each an :class:`~dyngrad.transforms.interpreter.Interpreter` on the thread's
stack. Their public faces are :mod:`dyngrad.func` and :mod:`dyngrad.autograd.forward_ad`;
see ``docs/architecture.md`` for the layers and the path of one op."""

from .interpreter import Interpreter, active, pop, push

__all__ = ["Interpreter", "active", "pop", "push"]
