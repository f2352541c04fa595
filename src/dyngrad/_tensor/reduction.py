"""Tensor methods: reductions and statistics along dimensions (``sum``, ``mean``, ``max``,
``argmax``, ``any``, ``std``, ``var``, ``norm``, ``logsumexp``, ``cumsum``), normalisation along
a dimension (``softmax``, ``log_softmax``) and sorting (``sort``, ``topk``).

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).
"""

from __future__ import annotations

from typing import Any

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

__all__ = ["ReductionMethods"]


class ReductionMethods:
    """Reduction, statistics and sorting methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()

    # ---- ops.arg_reduce
    def all(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.all(self, *args, **kwargs)

    def any(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.any(self, *args, **kwargs)

    def argmax(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.argmax(self, *args, **kwargs)

    def argmin(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.argmin(self, *args, **kwargs)

    def count_nonzero(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.count_nonzero(self, *args, **kwargs)

    # ---- ops.reduction
    def amax(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.amax(self, *args, **kwargs)

    def amin(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.amin(self, *args, **kwargs)

    def max(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.max(self, *args, **kwargs)

    def mean(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mean(self, *args, **kwargs)

    def min(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.min(self, *args, **kwargs)

    def prod(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.prod(self, *args, **kwargs)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sum(self, *args, **kwargs)

    def sum_to_size(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sum_to_size(self, *args, **kwargs)

    # ---- ops.statistics
    def cumprod(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cumprod(self, *args, **kwargs)

    def cumsum(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cumsum(self, *args, **kwargs)

    def logsumexp(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logsumexp(self, *args, **kwargs)

    def norm(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.norm(self, *args, **kwargs)

    def std(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.std(self, *args, **kwargs)

    def var(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.var(self, *args, **kwargs)

    # ---- ops.fused (normalise along a dimension)
    def log_softmax(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.log_softmax(self, *args, **kwargs)

    def softmax(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.softmax(self, *args, **kwargs)

    # ---- ops.sorting (order along a dimension)
    def argsort(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.argsort(self, *args, **kwargs)

    def msort(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.msort(self, *args, **kwargs)

    def sort(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.sort(self, *args, **kwargs)

    def topk(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.topk(self, *args, **kwargs)

    # --- apisurface: ops.scan, ops.composite (median, quantile, nan-reductions), ops.counting
    def cummax(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cummax(self, *args, **kwargs)

    def cummin(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cummin(self, *args, **kwargs)

    def logcumsumexp(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logcumsumexp(self, *args, **kwargs)

    def median(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.median(self, *args, **kwargs)

    def nanmean(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.nanmean(self, *args, **kwargs)

    def nanmedian(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.nanmedian(self, *args, **kwargs)

    def nansum(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.nansum(self, *args, **kwargs)

    def quantile(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.quantile(self, *args, **kwargs)

    def nanquantile(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.nanquantile(self, *args, **kwargs)

    def mode(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mode(self, *args, **kwargs)

    def kthvalue(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.kthvalue(self, *args, **kwargs)

    def diff(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.diff(self, *args, **kwargs)

    def unique(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.unique(self, *args, **kwargs)

    def unique_consecutive(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.unique_consecutive(self, *args, **kwargs)

    def bincount(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bincount(self, *args, **kwargs)

    def histc(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.histc(self, *args, **kwargs)

    # --- ops/everyday.py
    def cov(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cov(self, *args, **kwargs)

    def corrcoef(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.corrcoef(self, *args, **kwargs)

    def aminmax(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.aminmax(self, *args, **kwargs)

    def dist(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.dist(self, *args, **kwargs)
