"""Tensor methods that draw random numbers (``ops/random.py``, ``ops/random_fills.py``,
``ops/sampling.py``): the in-place fills (``uniform_``, ``normal_``, ``bernoulli_``,
``random_``, ``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``) and the draws
parameterised by the tensor (``bernoulli``, ``multinomial``). Each is a one-line forward to
the op of its name, reached as ``_core._ops`` (see dyngrad/_tensor/__init__.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["RandomMethods"]


class RandomMethods:
    """Random-number methods of :class:`dyngrad.Tensor` (their docstrings are their functions'
    in method form: dyngrad/_tensor/method_docs.py)."""

    __slots__ = ()

    # ---- in-place fills (ops/random_fills.py)
    def uniform_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.uniform_(self, *args, **kwargs)

    def normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.normal_(self, *args, **kwargs)

    def bernoulli_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.bernoulli_(self, *args, **kwargs)

    def random_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.random_(self, *args, **kwargs)

    def exponential_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.exponential_(self, *args, **kwargs)

    def geometric_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.geometric_(self, *args, **kwargs)

    def cauchy_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.cauchy_(self, *args, **kwargs)

    def log_normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.log_normal_(self, *args, **kwargs)

    # ---- draws parameterised by this tensor (ops/sampling.py)
    def bernoulli(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.bernoulli(self, *args, **kwargs)

    def multinomial(self, *args: Any, **kwargs: Any) -> Tensor:
        return _core._ops.multinomial(self, *args, **kwargs)
