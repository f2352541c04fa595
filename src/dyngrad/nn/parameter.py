"""Parameter: a Tensor that a Module registers as a learnable weight."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A leaf Tensor that, assigned as a Module attribute, is registered in the Module's
    ``parameters()``. ``requires_grad`` is True by default.

    ``Parameter(t)`` shares ``t``'s memory (as PyTorch). Operations on a Parameter return
    plain Tensors.

    Args:
        data: a Tensor or array (default: an empty float tensor).
        requires_grad: whether the parameter is trained.
    Raises:
        RuntimeError: ``requires_grad=True`` on a non-floating dtype.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> class Scale(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.alpha = nn.Parameter(dyngrad.tensor(2.0))
        ...     def forward(self, x):
        ...         return self.alpha * x
        >>> m = Scale()
        >>> [name for name, _ in m.named_parameters()], m.alpha.requires_grad
        (['alpha'], True)
    """

    __slots__ = ()

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            arr = np.empty((0,), dtype=B.get_default_dtype().np)
        elif isinstance(data, Tensor):
            arr = data._data
        else:
            arr = B.asarray(data)
        t = cls._make(arr)
        if isinstance(data, Tensor):
            t._vc = data._vc
        if requires_grad:
            t.requires_grad = True
        return t

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:  # noqa: D107
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Parameter:
        t = Parameter(Tensor._make(self._data.copy()), self._requires_grad)
        if self._grad is not None:
            t._grad = Tensor._make(self._grad._data.copy())
        memo[id(self)] = t
        return t


class Buffer(Tensor):
    """Marker for a Tensor that a Module registers as a buffer when assigned
    (``self.x = nn.Buffer(t, persistent=False)``), as PyTorch's ``nn.Buffer``.

    Not differentiable (a buffer holds state such as running statistics, not parameters).

    Args:
        data (Tensor or array-like): the values (a Tensor's data is shared, not copied);
            dyngrad also accepts array-likes, where PyTorch needs a Tensor.
        persistent (bool): whether ``state_dict`` includes it; keyword-only. Default: ``True``.
    Raises:
        TypeError: when ``data`` cannot be made into a tensor.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> class Counter(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.count = nn.Buffer(dyngrad.zeros(()))
        ...         self.scratch = nn.Buffer(dyngrad.zeros(2), persistent=False)
        >>> m = Counter()
        >>> [n for n, _ in m.named_buffers()], list(m.state_dict())
        (['count', 'scratch'], ['count'])
    """

    __slots__ = ("persistent",)

    def __new__(cls, data: Any, *, persistent: bool = True) -> Buffer:
        arr = data._data if isinstance(data, Tensor) else B.asarray(data)
        t = cls._make(arr)
        t.persistent = persistent
        return t

    def __init__(self, data: Any, *, persistent: bool = True) -> None:  # noqa: D107
        pass
