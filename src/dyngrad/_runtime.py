"""Process settings PyTorch scripts call as boilerplate, as dyngrad has them:
``compile`` (a pass-through), the default device (only the CPU), deterministic algorithms
(NumPy's kernels are deterministic already).
"""

from __future__ import annotations

from typing import Any

__all__ = ["compile", "set_default_device", "get_default_device", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled"]

_deterministic = [False, False]  # (mode, warn_only): reported back, nothing to change


def compile(model: Any = None, *, fullgraph: bool = False, dynamic: Any = None, backend: Any = "inductor",  # noqa: A001
            mode: Any = None, options: Any = None, disable: bool = False) -> Any:
    """``torch.compile`` as a semantics-preserving pass-through: returns ``model`` unchanged.

    Called without ``model`` it returns a decorator that does the same. dyngrad has no
    compiler; the values are the ones the compiled code would compute. Not differentiable
    itself (gradients flow through ``model`` as usual).

    Args:
        model (callable or Module, optional): what to "compile". Default: ``None`` (return a
            decorator).
        fullgraph, dynamic, backend, mode, options, disable: keyword-only; accepted and
            ignored. Defaults: ``False``, ``None``, ``'inductor'``, ``None``, ``None``,
            ``False``.
    Returns:
        callable: ``model`` itself, or a decorator returning its argument.
    Raises:
        TypeError: for a keyword that PyTorch's ``compile`` does not take here (e.g. ``name``).

    Example:
        >>> import dyngrad
        >>> f = dyngrad.compile(lambda x: x + 1)
        >>> f(dyngrad.zeros(2))
        tensor([1., 1.])
        >>> g = dyngrad.compile(fullgraph=True)(lambda x: x * 2)
        >>> g(dyngrad.ones(2))
        tensor([2., 2.])
    """
    if model is None:
        return lambda m: m
    return model


def set_default_device(device: Any) -> None:
    """Accept ``'cpu'`` (or None): the only device.

    Args:
        device (str or device or None): ``'cpu'``, ``dyngrad.device('cpu')`` or None.
    Raises:
        RuntimeError: any other device (dyngrad computes with NumPy on the CPU; PyTorch also
            takes ``'cuda'`` or ``'meta'``).

    Example:
        >>> import dyngrad
        >>> dyngrad.set_default_device("cpu")
        >>> dyngrad.get_default_device()
        device(type='cpu')
    """
    if device is None:
        return
    from .tensor import check_device

    check_device(device)


def get_default_device() -> Any:
    """``device('cpu')``: where new tensors live (always the CPU).

    Returns:
        device: ``dyngrad.device('cpu')``.
    Raises:
        Nothing: it cannot fail.

    Example:
        >>> import dyngrad
        >>> dyngrad.get_default_device()
        device(type='cpu')
    """
    from .tensor import cpu

    return cpu


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Accepted and recorded: every dyngrad kernel is deterministic already (NumPy on the CPU).

    :func:`are_deterministic_algorithms_enabled` reports what was set.

    Args:
        mode (bool): as PyTorch's flag.
        warn_only (bool): keyword only; as PyTorch's. Default: ``False``.
    Raises:
        Nothing: every value is accepted (no kernel needs refusing).

    Example:
        >>> import dyngrad
        >>> before = dyngrad.are_deterministic_algorithms_enabled()
        >>> dyngrad.use_deterministic_algorithms(True)
        >>> dyngrad.are_deterministic_algorithms_enabled()
        True
        >>> dyngrad.use_deterministic_algorithms(before)
    """
    _deterministic[0], _deterministic[1] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` last enabled deterministic mode.

    ``False`` by default, as PyTorch. The setting changes nothing in dyngrad: every kernel is
    deterministic already (NumPy on the CPU). Not differentiable (no tensors involved).

    Returns:
        bool: the mode last set.
    Raises:
        Nothing: it only reads the setting.

    Example:
        >>> import dyngrad
        >>> dyngrad.are_deterministic_algorithms_enabled()
        False
        >>> dyngrad.use_deterministic_algorithms(True)
        >>> dyngrad.are_deterministic_algorithms_enabled()
        True
        >>> dyngrad.use_deterministic_algorithms(False)
    """
    return _deterministic[0]
