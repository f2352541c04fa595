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
    """Random-number methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()

    # ---- in-place fills (ops/random_fills.py)
    def uniform_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with ``U[from, to)`` samples (``from=0, to=1``); returns self."""
        return _core._ops.uniform_(self, *args, **kwargs)

    def normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with ``N(mean, std^2)`` samples (``mean=0, std=1``); returns self."""
        return _core._ops.normal_(self, *args, **kwargs)

    def bernoulli_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with 1 with probability ``p`` (0.5), else 0; returns self."""
        return _core._ops.bernoulli_(self, *args, **kwargs)

    def random_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with integers uniform on ``[from, to)``; returns self."""
        return _core._ops.random_(self, *args, **kwargs)

    def exponential_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with exponential samples of rate ``lambd`` (1); returns self."""
        return _core._ops.exponential_(self, *args, **kwargs)

    def geometric_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with geometric samples of success probability ``p``; returns self."""
        return _core._ops.geometric_(self, *args, **kwargs)

    def cauchy_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with Cauchy samples (``median=0, sigma=1``); returns self."""
        return _core._ops.cauchy_(self, *args, **kwargs)

    def log_normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with ``exp(N(mean, std^2))`` samples (``mean=1, std=2``); returns self."""
        return _core._ops.log_normal_(self, *args, **kwargs)

    # ---- draws parameterised by this tensor (ops/sampling.py)
    def bernoulli(self, *args: Any, **kwargs: Any) -> Tensor:
        """``dyngrad.bernoulli(self, ...)``."""
        return _core._ops.bernoulli(self, *args, **kwargs)

    def multinomial(self, *args: Any, **kwargs: Any) -> Tensor:
        """``dyngrad.multinomial(self, ...)``."""
        return _core._ops.multinomial(self, *args, **kwargs)
