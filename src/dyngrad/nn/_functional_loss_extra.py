"""More loss functions of :mod:`dyngrad.nn.functional` (re-exported there): margin,
embedding, Poisson/Gaussian likelihood and multi-label losses, each PyTorch 2.13's formula
(aten/src/ATen/native/Loss*.cpp, torch/nn/functional.py) composed of differentiable ops,
so double backward and forward mode work. Hinges use ``relu`` where PyTorch's kernels test
``z > 0`` (no gradient at the kink), ``clamp_min`` where PyTorch composes with it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd import grad_mode
from ..ops import fused as _fused
from ..ops.gather import gather
from ..tensor import Tensor
from ._functional_loss import _legacy, _reduce

__all__ = [
    "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "poisson_nll_loss", "gaussian_nll_loss", "multi_margin_loss", "multilabel_margin_loss",
    "multilabel_soft_margin_loss", "soft_margin_loss",
]


def _zeros_like(t: Tensor) -> Tensor:
    return Tensor._make(B.zeros_like(t._data))


def _red(size_average: Any, reduce: Any, reduction: str, op: str) -> str:
    reduction = _legacy(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``, reduced.

    Args:
        input1, input2 (Tensor): ``(N)`` or ``()``; target (Tensor): ``1`` or ``-1``, same dims.
    Returns:
        Tensor: a scalar, or ``(N)`` for ``reduction='none'``.
    Raises:
        RuntimeError: inputs of different ranks. ValueError: a bad reduction.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.margin_ranking_loss(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([2.0, 0.0]), dyngrad.tensor([1.0, 1.0])).item()
        0.5
    """
    reduction = _red(size_average, reduce, reduction, "margin_ranking_loss")
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {list(input1.shape)}, input2: {list(input2.shape)}, target: {list(target.shape)} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction, "margin_ranking_loss")


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average: Any = None,
                         reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``x`` where ``target == 1``, ``max(0, margin - x)`` where ``target == -1`` (other target values
    add both, as PyTorch), reduced.

    Derivative: ``grad_input = grad_output`` for ``target == 1``, ``-grad_output`` where the hinge
    is active for ``target == -1``.

    Args:
        input (Tensor): ``(*)``, usually distances.
        target (Tensor): ``(*)``, 1 or -1.
        margin (float): Default: ``1.0``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: a bad reduction.
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.hinge_embedding_loss(dyngrad.tensor([0.3, 2.0]), dyngrad.tensor([1.0, -1.0]), margin=3.0)
        tensor(0.6500)
    """
    reduction = _red(size_average, reduce, reduction, "hinge_embedding_loss")
    zeros = _zeros_like(input)
    margin_clamp = (margin - input).clamp(min=0)
    out = margin_clamp.where(target != 1, zeros) + input.where(target != -1, zeros)
    return _reduce(out, reduction, "hinge_embedding_loss")


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))``, reduced (PyTorch's formula: it overflows to inf where
    ``-target * input`` is above ~88 in float32, as PyTorch's does).

    Derivative: ``grad_input = -target * sigmoid(-target * input) * grad_output`` (PyTorch's
    ``soft_margin_loss_backward``).

    Args:
        input (Tensor): ``(*)``.
        target (Tensor): ``(*)``, 1 or -1.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: a bad reduction.
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.soft_margin_loss(dyngrad.tensor([0.0, 2.0]), dyngrad.tensor([1.0, -1.0]), reduction='sum')
        tensor(2.8201)
    """
    reduction = _red(size_average, reduce, reduction, "soft_margin_loss")
    return _reduce((-input * target).exp().log1p(), reduction, "soft_margin_loss")


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where ``target ==
    -1``; ``cos = <x1, x2> / sqrt((|x1|^2 + 1e-12) (|x2|^2 + 1e-12))`` (PyTorch's).

    Derivative: through the cosine (the quotient rule), composed of the ops it is built from.

    Args:
        input1 (Tensor): ``(N, D)`` or ``(D,)``.
        input2 (Tensor): the same shape.
        target (Tensor): ``(N,)`` (or ``()``), 1 or -1.
        margin (float): in [-1, 1]. Default: ``0``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or ``(N,)`` with ``reduction='none'``.
    Raises:
        RuntimeError: a target of rank > 1 or inputs of the wrong rank.
        ValueError: a bad reduction.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.cosine_embedding_loss(dyngrad.tensor([[1.0, 0.0]]), dyngrad.tensor([[1.0, 1.0]]), dyngrad.tensor([1.0]))
        tensor(0.2929)
    """
    reduction = _red(size_average, reduce, reduction, "cosine_embedding_loss")
    td = target.ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(
            f"{td}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}."
        )
    eps = 1e-12
    prod = (input1 * input2).sum(td)
    m1 = (input1 * input1).sum(td) + eps
    m2 = (input2 * input2).sum(td) + eps
    cos = prod / (m1 * m2).sqrt()
    zeros = _zeros_like(cos)
    out = (1 - cos).where(target == 1, zeros) + (cos - margin).clamp(min=0).where(target == -1, zeros)
    return _reduce(out, reduction, "cosine_embedding_loss")


def _pdist(a: Tensor, b: Tensor, p: float, eps: float) -> Tensor:
    """``||a - b + eps||_p`` over the last dim (``at::pairwise_distance``)."""
    from .functional import pairwise_distance

    return pairwise_distance(a, b, p, eps)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the pairwise ``p``-distance (``swap``: ``d(a,
    n)`` replaced by ``min(d(a, n), d(p, n))``; Balntas et al. 2016).

    Derivative: through :func:`pairwise_distance` and ``clamp_min`` (composed).

    Args:
        anchor (Tensor): ``(N, D)`` or ``(D,)``.
        positive (Tensor): the same rank.
        negative (Tensor): the same rank.
        margin (float): ``> 0``. Default: ``1.0``.
        p (float): the norm degree. Default: ``2``.
        eps (float): added to the differences. Default: ``1e-6``.
        swap (bool): the distance swap. Default: ``False``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or ``(N,)`` with ``reduction='none'``.
    Raises:
        ValueError: ``margin <= 0``, a bad reduction.
        RuntimeError: different ranks.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> a, p, n = dyngrad.tensor([[0.0, 0.0]]), dyngrad.tensor([[1.0, 0.0]]), dyngrad.tensor([[1.5, 0.0]])
        >>> F.triplet_margin_loss(a, p, n, swap=True)
        tensor(1.5000)
    """
    reduction = _red(size_average, reduce, reduction, "triplet_margin_loss")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, "
            f"but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    d_pos = _pdist(anchor, positive, p, eps)
    d_neg = _pdist(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(_pdist(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction, "triplet_margin_loss")


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """Poisson negative log likelihood: ``exp(input) - target * input`` (``log_input``) or ``input -
    target * log(input + eps)``; ``full`` adds the Stirling term ``t log t - t + 0.5 log(2 pi t)``
    where ``target > 1``.

    Derivative: ``grad_input = (exp(input) - target) * grad_output`` (log input) or ``(1 - target /
    (input + eps)) * grad_output`` (composed).

    Args:
        input (Tensor): ``(*)``, the (log) rate.
        target (Tensor): ``(*)``, counts.
        log_input (bool): the input is the log of the rate. Default: ``True``.
        full (bool): add the Stirling term. Default: ``False``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        eps (float): avoids ``log(0)`` without ``log_input``. Default: ``1e-8``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: a bad reduction.
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.poisson_nll_loss(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([1.0, 3.0]), log_input=False, full=True, reduction='none')
        tensor([1.0000, 1.6846])
    """
    reduction = _red(size_average, reduce, reduction, "poisson_nll_loss")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        small = target.detach() <= 1
        safe = target.masked_fill(small, 1.0)  # no nan gradient from log(0) where masked
        stirling = safe * safe.log() - safe + (safe * (2 * math.pi)).log() * 0.5
        loss = loss + stirling.masked_fill(small, 0.0)
    return _reduce(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Any, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Gaussian negative log likelihood ``0.5 (log(var) + (input - target)^2 / var)`` (+ ``0.5 log(2
    pi)`` with ``full``); ``var`` is clamped to ``>= eps`` without changing its gradient (as
    PyTorch's no-grad clamp).

    Derivative: ``grad_input = (input - target) / var * grad_output``, ``grad_var = 0.5 * (1 / var -
    (input - target)^2 / var^2) * grad_output`` (composed).

    Args:
        input (Tensor): ``(N, *)`` or ``(*)``, the predicted means.
        target (Tensor): the input's shape.
        var (Tensor or float): ``input``'s shape, or one dim short / with one size-1 dim
            (homoscedastic), or a float.
        full (bool): add the constant. Default: ``False``.
        eps (float): the clamp of ``var``. Default: ``1e-6``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: negative variances, a var of incorrect size, a bad reduction.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.gaussian_nll_loss(dyngrad.tensor([0.0, 1.0]), dyngrad.tensor([1.0, 1.0]), 2.0, full=True)
        tensor(1.3905)
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = Tensor._make(np.full(tuple(input.shape), float(var), input._data.dtype))
    elif bool((var.detach() < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")


def _class_target(input: Tensor, target: Tensor, op: str) -> tuple[Tensor, Tensor, bool]:
    """The ``(N, C)`` view of ``input`` (a 0-D or 1-D input is one sample), checks as
    PyTorch's."""
    if input.ndim > 2:
        raise RuntimeError(
            f"{op}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: {list(input.shape)}"
        )
    one = input.ndim <= 1
    x = input.reshape(1, -1) if one else input
    if target.dtype.np.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {target.dtype.name.capitalize()}")
    return x, target, one


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge: ``sum_{i != y} w[y] max(0, margin - x[y] + x[i]) ** p / C`` per sample.

    Derivative: ``grad_x[i] = p * h_i^(p-1) * w[y] / C`` for each active hinge ``h_i > 0``,
    ``grad_x[y]`` minus their sum (PyTorch's ``multi_margin_loss_backward``).

    Args:
        input (Tensor): ``(N, C)`` or ``(C,)``.
        target (Tensor): int64 ``(N,)`` or ``()``.
        p (int): 1 or 2. Default: ``1``.
        margin (float): Default: ``1.0``.
        weight (Tensor, optional): ``(C,)``. Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or ``(N,)`` with ``reduction='none'``.
    Raises:
        ValueError: ``p`` not 1 or 2, a weight not 1-D, a bad reduction.
        RuntimeError: a target of the wrong size or out of range.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.multi_margin_loss(dyngrad.tensor([[0.1, 0.2, 0.4, 0.8]]), dyngrad.tensor([3]), p=2, weight=dyngrad.tensor([1.0, 1.0, 1.0, 2.0]))
        tensor(0.3050)
    """
    reduction = _red(size_average, reduce, reduction, "multi_margin_loss")
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, target, one = _class_target(input, target, "multi_margin_loss")
    n, c = x.shape
    t = target.reshape(-1)
    if t.shape[0] != n:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size [{n}], but got {list(target.shape)}. Input has shape {list(input.shape)}."
        )
    td = t._data
    xp = B.xp_for(td)
    if td.size and bool(xp.any(td < 0) or xp.any(td >= c)):
        raise RuntimeError("target out of range")
    xy = gather(x, 1, t.reshape(n, 1))
    z = (margin - xy + x).relu()
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.detach()[t].reshape(n, 1)  # PyTorch has no gradient for weight
    if xp is np:
        mask = np.zeros((n, c), dtype=bool)
        mask[np.arange(n), td] = True
    else:  # an Array API array: the one-hot comparison (no index assignment)
        mask = xp.reshape(xp.arange(c, dtype=td.dtype), (1, c)) == xp.reshape(td, (n, 1))
    loss = z.masked_fill(Tensor._make(mask), 0.0).sum(1) / c
    if one and target.ndim == 0 and reduction == "none":
        loss = loss.reshape(())
    return _reduce(loss, reduction, "multi_margin_loss")


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge: ``sum_{j in y} sum_{i not in y} max(0, 1 - (x[j] - x[i])) / C``, the labels
    ``y`` of a sample being its target's entries before the first ``-1``.

    Derivative: ``+1/C`` per active pair to a non-label, ``-1/C`` per active pair to a label
    (PyTorch's ``multilabel_margin_loss_backward``).

    Args:
        input (Tensor): ``(N, C)`` or ``(C,)``.
        target (Tensor): int64, ``input``'s shape, padded with -1.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or ``(N,)`` with ``reduction='none'``.
    Raises:
        RuntimeError: a target of another size, a float target, labels out of range.
        ValueError: a bad reduction.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> loss = F.multilabel_margin_loss(dyngrad.tensor([[0.1, 0.2, 0.4, 0.8]]), dyngrad.tensor([[3, 0, -1, 1]]))
        >>> round(loss.item(), 4)
        0.85
    """
    reduction = _red(size_average, reduce, reduction, "multilabel_margin_loss")
    x, target, one = _class_target(input, target, "multilabel_margin_loss")
    n, c = x.shape
    if tuple(target.reshape(-1).shape) != (n * c,) or (input.ndim == 2 and tuple(target.shape) != (n, c)):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    td = target._data.reshape(n, c)
    valid = np.cumprod(td != -1, axis=1).astype(bool)  # labels before the first -1
    if np.any((td[valid] < 0) | (td[valid] >= c)):
        raise RuntimeError("argument #2 'target' is out of range")
    labels = np.where(valid, td, 0)
    is_target = np.zeros((n, c), dtype=bool)
    rows = np.nonzero(valid)
    is_target[rows[0], td[rows]] = True
    xj = gather(x, 1, Tensor._make(labels.astype(np.int64)))  # (N, C_j)
    z = (1 - xj.unsqueeze(2) + x.unsqueeze(1)).relu()  # (N, C_j, C_i)
    keep = valid[:, :, None] & ~is_target[:, None, :]
    loss = z.masked_fill(Tensor._make(~keep), 0.0).sum((1, 2)) / c
    if one and reduction == "none":
        loss = loss.reshape(())
    return _reduce(loss, reduction, "multilabel_margin_loss")


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``-mean_c(w_c (t log(sigmoid(x)) + (1 - t) log(sigmoid(-x))))`` over the class (last) dim,
    reduced over samples.

    Derivative: ``grad_x = w * (sigmoid(x) - t) / C * grad_output`` (composed of ``logsigmoid``).

    Args:
        input (Tensor): ``(N, C)`` or ``(C,)``.
        target (Tensor): the input's shape, 0 or 1.
        weight (Tensor, optional): ``(C,)``. Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or ``(N,)`` with ``reduction='none'``.
    Raises:
        ValueError: a bad reduction.
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.multilabel_soft_margin_loss(dyngrad.tensor([[0.0, 1.0]]), dyngrad.tensor([[1.0, 0.0]]), weight=dyngrad.tensor([1.0, 2.0]))
        tensor(1.6598)
    """
    reduction = _legacy(size_average, reduce, reduction)
    loss = -(target * _fused.log_sigmoid(input) + (1 - target) * _fused.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cdim = input.ndim - 1
    loss = loss.sum(cdim) / input.shape[cdim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction, "multilabel_soft_margin_loss")

