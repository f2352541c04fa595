"""``dyngrad.special``: PyTorch's ``torch.special`` namespace (the functions dyngrad has).

The gamma family comes from :mod:`dyngrad.ops.gamma`, the ``x log y`` terms from
:mod:`dyngrad.ops.xlogy`, the error functions from :mod:`dyngrad.ops.special`; the rest are
the top-level ops under their ``torch.special`` names. Each op's docstring states its
derivative; :mod:`dyngrad.ops._specfun` says how the values are computed.

Not here yet (PyTorch 2.13 has them): the Bessel, Airy and orthogonal-polynomial
functions, ``i0``/``i0e``/``i1``/``i1e``, ``erfcx``, ``log_ndtr``, ``ndtri``,
``zeta``, ``sinc``, ``spherical_bessel_j0``.
"""

from __future__ import annotations

import math
from typing import Any

from .ops.elementwise import sigmoid
from .ops.fused import log_softmax, softmax
from .ops.gamma import digamma, igamma, igammac, lgamma, mvlgamma, polygamma
from .ops.rounding import round  # noqa: A004 - PyTorch's name
from .ops.special import erf, erfc, erfinv, exp2, expm1, log1p, logit
from .ops.statistics import logsumexp
from .ops.xlogy import entr, xlog1py, xlogy
from .tensor import Tensor

__all__ = [
    "digamma", "psi", "polygamma", "gammaln", "multigammaln", "erf", "erfc", "erfinv", "expit",
    "exp2", "expm1", "log1p", "logit", "xlogy", "xlog1py", "entr", "ndtr", "logsumexp",
    "log_softmax", "softmax", "round", "gammainc", "gammaincc",
]

psi = digamma
gammaln = lgamma
expit = sigmoid
gammainc = igamma
gammaincc = igammac
_SQRT1_2 = 1 / math.sqrt(2.0)


def multigammaln(input: Tensor, p: int) -> Tensor:
    """``torch.special.multigammaln``: :func:`dyngrad.mvlgamma` (same arguments)."""
    return mvlgamma(input, p)


def ndtr(input: Any) -> Tensor:
    """The standard normal CDF, ``(1 + erf(input / sqrt(2))) / 2``, computed as
    ``erfc(-input / sqrt(2)) / 2`` so the lower tail keeps its relative accuracy.

    Args:
        input: a tensor ``(*)``.

    Returns:
        A tensor ``(*)`` of the input's float dtype.
    """
    return erfc(input * -_SQRT1_2) * 0.5
