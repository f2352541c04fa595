"""Tensor methods: shape and views (``view``, ``reshape``, ``permute``, ``transpose``, ``x.T``,
``squeeze``, ``expand``, ``narrow``, ``split``, ``unbind``), rearranging copies (``flip``,
``repeat``, ``roll``, ``tile``) and ``clone`` / ``contiguous``.

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from typing_extensions import Self  # for type checkers only (typing.Self is 3.11+)

    from ..tensor import Tensor

__all__ = ["ShapeMethods"]


class ShapeMethods:
    """Shape, view and copy methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()
    _data: np.ndarray  # a slot of Tensor (dyngrad/tensor.py)

    # ---- transposes
    @property
    def T(self) -> Tensor:  # noqa: N802
        """All dims reversed: ``permute(n-1, ..., 0)`` (a view; the transpose of a matrix).

        Returns:
            Tensor: ``(*reversed)``, e.g. ``(C, B, A)`` from ``(A, B, C)``.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3, 4).T.shape
            dyngrad.Size([4, 3, 2])
        """
        return _core._ops.permute(self, tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        """The last two dims swapped: a batch of matrices transposed (a view).

        Returns:
            Tensor: ``(*, n, m)`` from ``(*, m, n)``.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(5, 2, 3).mT.shape
            dyngrad.Size([5, 3, 2])
        """
        return _core._ops.transpose(self, -2, -1)

    @property
    def H(self) -> Tensor:  # noqa: N802
        """The conjugate transpose: :attr:`T` (dyngrad has no complex dtypes).

        Returns:
            Tensor: ``(*reversed)``, as :attr:`T`.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3).H.shape
            dyngrad.Size([3, 2])
        """
        return self.T

    @property
    def mH(self) -> Tensor:  # noqa: N802
        """The conjugate transpose of a batch of matrices: :attr:`mT` (no complex dtypes).

        Returns:
            Tensor: ``(*, n, m)`` from ``(*, m, n)``.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(5, 2, 3).mH.shape
            dyngrad.Size([5, 3, 2])
        """
        return self.mT

    @property
    def real(self) -> Self:
        """The real part: the tensor itself (dyngrad has no complex dtypes).

        Returns:
            Tensor: ``self``.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2)
            >>> x.real is x
            True
        """
        return self

    # ---- ops.shape
    def broadcast_to(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.broadcast_to(self, *args, **kwargs)

    def expand(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.expand(self, *args, **kwargs)

    def expand_as(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.expand_as(self, *args, **kwargs)

    def flatten(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.flatten(self, *args, **kwargs)

    def moveaxis(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.moveaxis(self, *args, **kwargs)

    def movedim(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.movedim(self, *args, **kwargs)

    def permute(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.permute(self, *args, **kwargs)

    def reshape(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.reshape(self, *args, **kwargs)

    def reshape_as(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.reshape_as(self, *args, **kwargs)

    def squeeze(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.squeeze(self, *args, **kwargs)

    def swapaxes(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.swapaxes(self, *args, **kwargs)

    def swapdims(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.swapdims(self, *args, **kwargs)

    def t(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.t(self, *args, **kwargs)

    def transpose(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.transpose(self, *args, **kwargs)

    def unflatten(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.unflatten(self, *args, **kwargs)

    def unsqueeze(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.unsqueeze(self, *args, **kwargs)

    def view(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.view(self, *args, **kwargs)

    def view_as(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.view_as(self, *args, **kwargs)

    # ---- ops.indexing (views of one slice)
    def narrow(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.narrow(self, *args, **kwargs)

    def select(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.select(self, *args, **kwargs)

    # ---- ops.splitting
    def chunk(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.chunk(self, *args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.split(self, *args, **kwargs)

    def split_with_sizes(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.split_with_sizes(self, *args, **kwargs)

    def unbind(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.unbind(self, *args, **kwargs)

    # ---- ops.rearrange
    def flip(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.flip(self, *args, **kwargs)

    def fliplr(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.fliplr(self, *args, **kwargs)

    def flipud(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.flipud(self, *args, **kwargs)

    def repeat(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.repeat(self, *args, **kwargs)

    def roll(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.roll(self, *args, **kwargs)

    def tile(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.tile(self, *args, **kwargs)

    # ---- ops.copying
    def clone(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.clone(self, *args, **kwargs)

    def contiguous(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.contiguous(self, *args, **kwargs)

    # --- apisurface: ops.composite
    def repeat_interleave(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.repeat_interleave(self, *args, **kwargs)

    # --- ops/everyday.py
    def rot90(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.rot90(self, *args, **kwargs)

    def diagflat(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.diagflat(self, *args, **kwargs)

    def tensor_split(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.tensor_split(self, *args, **kwargs)

    def hsplit(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.hsplit(self, *args, **kwargs)

    def vsplit(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.vsplit(self, *args, **kwargs)

    def dsplit(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.dsplit(self, *args, **kwargs)
