"""``torch.jit`` and ``torch.compile`` as semantics-preserving pass-throughs: dyngrad has no
compiler, so ``jit.script(f)``, ``jit.trace(f, example)`` and ``compile(model)`` return what
they were given, which computes the same values (PyTorch's compiled code is meant to).
``jit.ignore``/``jit.unused``/``jit.export`` are identity decorators.

Example:
    >>> import dyngrad
    >>> f = dyngrad.jit.script(lambda x: x * 2)
    >>> f(dyngrad.ones(2))
    tensor([2., 2.])
"""

from __future__ import annotations

from typing import Any

__all__ = ["script", "trace", "ignore", "unused", "export", "is_scripting", "is_tracing", "ScriptModule"]


def script(obj: Any, *args: Any, **kwargs: Any) -> Any:
    """``obj`` unchanged (a pass-through: nothing is compiled)."""
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``func`` unchanged (a pass-through: nothing is traced)."""
    return func


def ignore(fn: Any = None, **kwargs: Any) -> Any:
    """Identity decorator."""
    return fn if fn is not None else (lambda f: f)


unused = ignore
export = ignore


def is_scripting() -> bool:
    """False: nothing runs scripted."""
    return False


def is_tracing() -> bool:
    """False: nothing runs traced."""
    return False


class ScriptModule:
    """Placeholder type so ``isinstance(m, torch.jit.ScriptModule)`` checks are False."""
