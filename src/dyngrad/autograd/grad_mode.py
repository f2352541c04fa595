"""Grad modes: whether operations record a graph. Thread-local, as in PyTorch.

Each mode is a context manager and a decorator::

    with dyngrad.no_grad():
        y = x * 2          # y.requires_grad is False

    @dyngrad.no_grad()
    def evaluate(model, x): ...
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ._context import context

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])


# grad mode's state is the thread's context (autograd/_context.py): ``state.enabled``,
# ``state.inference``
state = context


def is_grad_enabled() -> bool:
    """Whether graph recording is on in this thread.

    Returns:
        bool: False inside ``no_grad()`` / ``inference_mode()`` / ``set_grad_enabled(False)``.

    Example:
        >>> import dyngrad
        >>> with dyngrad.no_grad():
        ...     print(dyngrad.is_grad_enabled())
        False
    """
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (this thread).

    Returns:
        bool: whether inference mode is on.

    Example:
        >>> import dyngrad
        >>> with dyngrad.inference_mode():
        ...     print(dyngrad.autograd.is_inference_mode_enabled())
        True
    """
    return state.inference


class _DecoratorContextManager:
    """Base: subclasses define ``__enter__``/``__exit__``; instances also decorate."""

    if TYPE_CHECKING:  # defined by every subclass

        def __enter__(self) -> Any: ...

        def __exit__(self, *exc: Any) -> Any: ...

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            import warnings

            warnings.warn("Decorating classes is deprecated and will be disabled in future versions. You should only "
                          "decorate functions or methods. To preserve the current behavior of class decoration, you "
                          "can directly decorate the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
        if not callable(func):
            raise TypeError(f"{type(self).__name__} decorates callables, got {func!r}")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def _wrap_generator(self, func: F) -> F:
        """A generator runs in the mode each time it resumes, not only when created (as
        PyTorch); the caller's mode is restored at every ``yield``."""

        @functools.wraps(func)
        def generator(*args: Any, **kwargs: Any) -> Any:
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException:
                        with self.clone():
                            response = gen.throw(*sys.exc_info())
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as e:
                return e.value

        return generator  # type: ignore[return-value]

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # ``@no_grad`` without parentheses (PyTorch allows it for the parameterless modes):
        # a single callable argument is the decorated function.
        if cls in _NO_PARAM and len(args) == 1 and not kwargs and callable(args[0]):
            return cls()(args[0])
        return super().__new__(cls)

    def clone(self) -> _DecoratorContextManager:
        return type(self)()


class no_grad(_DecoratorContextManager):  # noqa: N801
    """Disable graph recording in this thread; results do not require grad.

    A context manager and a decorator; it nests, and restores the previous mode on exit.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, requires_grad=True)
        >>> with dyngrad.no_grad():
        ...     y = x * 2
        >>> y.requires_grad, y.grad_fn
        (False, None)
        >>> @dyngrad.no_grad()
        ... def doubled(t):
        ...     return t * 2
        >>> doubled(x).requires_grad
        False
    """

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc: Any) -> None:
        state.enabled = self.prev


class enable_grad(_DecoratorContextManager):  # noqa: N801
    """Enable graph recording in this thread (inside a ``no_grad`` block, say).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, requires_grad=True)
        >>> with dyngrad.no_grad():
        ...     with dyngrad.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc: Any) -> None:
        state.enabled = self.prev


_NO_PARAM: tuple = ()  # filled below: the modes usable as bare decorators


class set_grad_enabled(_DecoratorContextManager):  # noqa: N801
    """Set grad mode to ``mode``. Takes effect at once (as a function call) and is undone
    when used as a context manager and the block exits.

    Args:
        mode (bool): True to record graphs, False not to.
    Raises:
        TypeError: when ``mode`` is not a bool.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, requires_grad=True)
        >>> with dyngrad.set_grad_enabled(False):
        ...     y = x * 2
        >>> y.requires_grad, dyngrad.is_grad_enabled()
        (False, True)
    """

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled expects a bool, got {type(mode).__name__}")
        self.prev = state.enabled
        self.mode = mode
        state.enabled = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        state.enabled = self.prev

    def __call__(self, func: F) -> F:
        # Used as a decorator: __init__ already switched the mode; undo that, as PyTorch
        # does, so that only calls of the decorated function run in ``mode``.
        state.enabled = self.prev
        return super().__call__(func)

    def clone(self) -> set_grad_enabled:
        return _Deferred(self.mode)  # type: ignore[return-value]


class _Deferred(_DecoratorContextManager):
    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc: Any) -> None:
        state.enabled = self.prev


class inference_mode(_DecoratorContextManager):  # noqa: N801
    """Like ``no_grad`` (dyngrad has no separate inference tensors; the mode only disables
    recording and is reported by ``is_inference_mode_enabled``).

    Args:
        mode (bool): True (default) to enter inference mode, False to do nothing.
    Raises:
        Nothing: any ``mode`` is accepted, its truth value deciding (as in PyTorch).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(2, requires_grad=True)
        >>> with dyngrad.inference_mode():
        ...     y = x * 2
        ...     print(dyngrad.autograd.is_inference_mode_enabled())
        True
        >>> y.requires_grad
        False
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled = False
            state.inference = True

    def __exit__(self, *exc: Any) -> None:
        state.enabled, state.inference = self.prev

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)


_NO_PARAM = (no_grad, enable_grad, inference_mode)
