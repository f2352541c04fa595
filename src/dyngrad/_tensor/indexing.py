"""Tensor methods: indexing (``x[i]``, ``x[i] = v``), gathering and scattering by index
(``gather``, ``index_select``, ``scatter``, ``take``), selection by a mask (``masked_fill``,
``masked_select``, ``where``) and the indices of nonzero values (``nonzero``).

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).

``x[i] = v`` changes ``x`` in place, but is here, next to ``x[i]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["IndexingMethods"]


class IndexingMethods:
    """Indexing methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()

    # ---- x[index], x[index] = value
    def __getitem__(self, index: Any) -> Tensor:
        return _core._ops.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        _core._ops.setitem_(self, index, value)

    # ---- ops.gather
    def gather(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.gather(self, *args, **kwargs)

    def index_add(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.index_add(self, *args, **kwargs)

    def index_copy(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.index_copy(self, *args, **kwargs)

    def index_select(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.index_select(self, *args, **kwargs)

    def scatter(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.scatter(self, *args, **kwargs)

    def scatter_add(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.scatter_add(self, *args, **kwargs)

    def take(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.take(self, *args, **kwargs)

    def take_along_dim(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.take_along_dim(self, *args, **kwargs)

    # ---- ops.masking
    def index_fill(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.index_fill(self, *args, **kwargs)

    def masked_fill(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.masked_fill(self, *args, **kwargs)

    def masked_select(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.masked_select(self, *args, **kwargs)

    def where(self, condition: Any, other: Any) -> Tensor:
        """``dyngrad.where(condition, self, other)``: ``self`` where ``condition``, else
        ``other`` (the method's argument order differs from the function's).

        Derivative: ``grad_self = grad_output`` where ``condition`` else 0, ``grad_other`` the
        rest, each summed over broadcast dims (see :func:`dyngrad.where`).

        Args:
            condition (Tensor): bool, broadcastable with ``self`` and ``other``.
            other (Tensor or number): the values where ``condition`` is False.
        Returns:
            Tensor: the broadcast shape of the three, e.g. ``(N, C)``; the promoted dtype.
        Raises:
            RuntimeError: when the shapes do not broadcast.
            TypeError: an ``other`` that is neither a Tensor nor a number.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.tensor([1.0, -2.0, 3.0])
            >>> x.where(x > 0, 0.0)
            tensor([1., 0., 3.])
        """
        return _core._ops.where(condition, self, other)

    # ---- ops.sorting (indices of the nonzero values)
    def argwhere(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.argwhere(self, *args, **kwargs)

    def nonzero(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.nonzero(self, *args, **kwargs)

    # --- apisurface: ops.scatter_reduce
    def index_put(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.index_put(self, *args, **kwargs)

    def scatter_reduce(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.scatter_reduce(self, *args, **kwargs)

    def index_reduce(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.index_reduce(self, *args, **kwargs)
