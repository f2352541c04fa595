"""Loss functions of :mod:`dyngrad.nn.functional` (re-exported there; import from there).

Each follows PyTorch's formula (aten/src/ATen/native/Loss*.cpp) and is built from
Functions with differentiable backwards, so double backward works."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..ops import fused as _fused
from ..ops._util import to_tensor
from ..tensor import Tensor

__all__ = [
    "nll_loss",
    "cross_entropy",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
]

_REDUCTIONS = ("none", "mean", "sum")


def _legacy(size_average: Any, reduce: Any, reduction: str) -> str:
    """Map the deprecated ``size_average``/``reduce`` pair to ``reduction`` (as PyTorch)."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn(
        "size_average and reduce args will be deprecated, please use reduction instead.", stacklevel=3
    )
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _reduce(loss: Tensor, reduction: str, op: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{op}: {reduction} is not a valid value for reduction (expected one of {_REDUCTIONS})")


def _check_reduction(reduction: str, op: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(
            f"{op}: {reduction} is not a valid value for reduction (expected one of {_REDUCTIONS})"
        )


def _same_size(input: Tensor, target: Tensor, op: str) -> None:
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(
            f"{op}: Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            stacklevel=3,
        )


def _class_weight_view(weight: Tensor, ndim: int) -> Tensor:
    """``(C)`` -> broadcastable against input ``(N, C, d1, ...)`` / ``(C)``."""
    if ndim <= 1:
        return weight
    return weight.reshape((1, -1) + (1,) * (ndim - 2))


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log likelihood: ``l_n = -weight[t_n] * input[n, t_n]``; ``'mean'`` divides the sum by
    the summed weights of the non-ignored targets.

    Derivative: ``grad_input[n, t_n] = -weight[t_n] * grad_output`` (divided by the summed weights
    for ``'mean'``), 0 elsewhere (PyTorch's ``nll_loss_backward``).

    Args:
        input (Tensor): log-probabilities ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``.
        target (Tensor): int64 class indices ``(N,)``, ``()`` or ``(N, d1, ...)``.
        weight (Tensor, optional): ``(C,)`` per-class weights. Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        ignore_index (int): targets with this value add nothing. Default: ``-100``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or ``target``'s shape for ``'none'``.
    Raises:
        ValueError: mismatched batch sizes, bad reduction.
        RuntimeError: a float target, bad dims or weight size.
        IndexError: a target outside ``[0, C)``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> logp = dyngrad.log(dyngrad.tensor([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]]))
        >>> F.nll_loss(logp, dyngrad.tensor([1, -100]))          # the second is ignored: -log(0.25)
        tensor(1.3863)
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction, "nll_loss")
    if not isinstance(target, Tensor) or target.dtype.np.kind not in "iu":
        raise RuntimeError(
            f"nll_loss: expected target of an integer dtype (class indices), got "
            f"{getattr(target, 'dtype', type(target).__name__)}"
        )
    if input.ndim < 1:
        raise ValueError(f"nll_loss: input must have at least 1 dimension, got shape {list(input.shape)}")
    if input.ndim == 1 and target.ndim != 0:
        raise ValueError(
            f"nll_loss: 1-D input {list(input.shape)} needs a 0-d target, got {list(target.shape)}"
        )
    if input.ndim >= 2:
        exp = (input.shape[0],) + tuple(input.shape[2:])
        if tuple(target.shape) != exp:
            if target.shape[:1] != input.shape[:1]:
                raise ValueError(
                    f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                    f"({target.shape[0] if target.ndim else 0})."
                )
            raise RuntimeError(f"nll_loss: expected target of shape {list(exp)}, got {list(target.shape)}")
    C = input.shape[0 if input.ndim == 1 else 1]
    if weight is not None and tuple(weight.shape) != (C,):
        raise RuntimeError(
            f"nll_loss: weight tensor should be defined either for all {C} classes or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    return _fused.NllLoss.apply(input, target, weight, int(ignore_index), reduction)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy of logits: ``nll_loss(log_softmax(input, 1), target)`` for class
    indices, or ``-sum(target * log_softmax(input, 1))`` for class probabilities (a float
    ``target`` of ``input``'s shape). With ``label_smoothing = e`` the target mixes with the
    uniform distribution: ``(1 - e) * target + e / C``.

    Args:
        input: logits ``(N, C)``, ``(C)`` or ``(N, C, d1, ...)``.
        target: int64 indices (``input`` without the class dim) or float probabilities
            (``input``'s shape).
        weight, ignore_index, reduction: as :func:`nll_loss` (ignore_index only for indices).
        label_smoothing: in ``[0, 1]``.
    Returns:
        A scalar, or per-sample losses for 'none'.
    Raises:
        RuntimeError: label_smoothing outside [0, 1] (as PyTorch).
        ValueError: bad reduction, mismatched batch sizes.
    Formula source: aten/src/ATen/native/LossNLL.cpp (cross_entropy_loss_*).

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> logits = dyngrad.zeros(2, 4)
        >>> round(F.cross_entropy(logits, dyngrad.tensor([0, 3])).item(), 4)   # log(4)
        1.3863
    """
    reduction = _legacy(size_average, reduce, reduction)
    _check_reduction(reduction, "cross_entropy")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(
            f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
        )
    cdim = 0 if input.ndim == 1 else 1
    logp = _fused.log_softmax(input, cdim)
    C = input.shape[cdim]
    if isinstance(target, Tensor) and target.is_floating_point():
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(
                f"cross_entropy: class-probability target must have the input's shape "
                f"{list(input.shape)}, got {list(target.shape)}"
            )
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / C
        prod = logp * target
        if weight is not None:
            prod = prod * _class_weight_view(weight, input.ndim)
        if reduction == "none":
            return -prod.sum(cdim)
        if reduction == "sum":
            return -prod.sum()
        return -prod.sum() / (input.numel() // C if C else 0)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing <= 0:
        return nll
    ignored = target == ignore_index  # tensor ops only (no ._data): vmap batches this
    if weight is not None:
        smooth = -(logp * _class_weight_view(weight, input.ndim)).sum(cdim)
    else:
        smooth = -logp.sum(cdim)
    # masked_fill (not `* keep`): no nan gradient reaches ignored elements when all are ignored
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        keep = (~ignored).to(logp.dtype)
        if weight is not None:
            ret = smooth.sum() / (weight.detach()[target.masked_fill(ignored, 0)] * keep).sum()
        else:
            ret = smooth.sum() / keep.sum()
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return nll * (1 - label_smoothing) + ret * (label_smoothing / C)


def _weighted(loss: Tensor, weight: Tensor | None) -> Tensor:
    return loss if weight is None else loss * weight


def _elementwise_weighted(loss: Tensor, input: Tensor, weight: Tensor | None, reduction: str, op: str,
                          mean_over_weights: bool) -> Tensor:
    """``loss * weight`` reduced as PyTorch 2.13's weighted ``mse_loss``/``l1_loss``
    (``'mean'`` = ``sum(w * loss) / sum(w)``) or ``huber_loss`` (``'mean'`` over elements);
    ``weight`` must have ``input``'s shape (ValueError, as PyTorch)."""
    if weight is None:
        return _reduce(loss, reduction, op)
    _check_reduction(reduction, op)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(
            f"{op}: Weights and input must have the same size (weight {list(weight.shape)}, input {list(input.shape)})"
        )
    w = loss * weight
    if reduction == "mean" and mean_over_weights:
        return w.sum() / weight.sum()
    return _reduce(w, reduction, op)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Squared error ``(input - target)^2`` (times ``weight``), reduced.

    Shapes: ``input (*)``, ``target (*)`` (broadcast, with a warning when shapes differ).
    Raises: ValueError for a bad reduction or a ``weight`` not of ``input``'s shape.

    Derivative: ``grad_input = 2 * (input - target) * grad_output`` (divided by the number of
    elements for ``'mean'``); ``target`` gets the negative.

    Args:
        input (Tensor): ``(*)``.
        target (Tensor): ``(*)``, broadcastable with ``input``.
        size_average: deprecated (use ``reduction``).
        reduce: deprecated (use ``reduction``).
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
        weight (Tensor, optional): ``input``'s shape; multiplies each squared error, and
            ``'mean'`` then divides by ``weight.sum()`` (PyTorch 2.13). Default: ``None``.
    Returns:
        Tensor: ``()``, or ``(*)`` with ``'none'``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> loss = F.mse_loss(x, dyngrad.tensor([0.0, 0.0]))
        >>> loss.item()
        2.5
        >>> loss.backward()
        >>> x.grad                                   # 2 (x - y) / 2
        tensor([1., 2.])
    """
    reduction = _legacy(size_average, reduce, reduction)
    _same_size(input, target, "mse_loss")
    if weight is None and isinstance(input, Tensor) and isinstance(target, Tensor):
        _check_reduction(reduction, "mse_loss")
        return _fused.MseLoss.apply(input, target, reduction)  # one node: MseLossBackward0
    d = input - target
    return _elementwise_weighted(d * d, input, weight, reduction, "mse_loss", True)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Absolute error ``|input - target|`` (times ``weight``), reduced.

    Derivative: ``grad_input = sign(input - target) * grad_output`` (0 where equal; divided by
    ``numel`` for ``'mean'``, or by ``weight.sum()`` with a weight); ``target`` gets the negative.

    Args:
        input (Tensor): ``(*)``.
        target (Tensor): ``(*)``, broadcastable (a warning when the shapes differ).
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        weight (Tensor, optional): ``input``'s shape; multiplies each error, and ``'mean'`` divides
            by ``weight.sum()`` (PyTorch 2.13). Default: ``None``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: a bad reduction. ValueError: a ``weight`` not of ``input``'s shape.
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.l1_loss(dyngrad.tensor([1.0, -1.0]), dyngrad.tensor([0.0, 1.0]))
        tensor(1.5000)
    """
    reduction = _legacy(size_average, reduce, reduction)
    _same_size(input, target, "l1_loss")
    return _elementwise_weighted((input - target).abs(), input, weight, reduction, "l1_loss", True)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """Smooth L1: ``0.5 d^2 / beta`` for ``|d| < beta`` else ``|d| - 0.5 beta``, with ``d = input -
    target`` (``beta = 0`` is L1; Girshick 2015).

    Derivative: ``grad_input = d / beta * grad_output`` where ``|d| < beta``, else ``sign(d) *
    grad_output`` (PyTorch's ``smooth_l1_loss_backward``).

    Args:
        input (Tensor): ``(*)``.
        target (Tensor): ``(*)``, broadcastable.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        beta (float): where the quadratic becomes linear, ``>= 0``. Default: ``1.0``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        RuntimeError: ``beta < 0``.
        ValueError: a bad reduction.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.smooth_l1_loss(dyngrad.tensor([0.0, 0.0]), dyngrad.tensor([0.2, 2.0]), beta=0.5)
        tensor(0.8950)
    """
    reduction = _legacy(size_average, reduce, reduction)
    _same_size(input, target, "smooth_l1_loss")
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _common(input, target)
    return _reduce(_fused.SmoothL1.apply(input, target, float(beta)), reduction, "smooth_l1_loss")


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """Huber loss: ``0.5 d^2`` for ``|d| <= delta`` else ``delta (|d| - 0.5 delta)``, i.e. ``delta *
    smooth_l1(beta=delta)`` (Huber 1964).

    Derivative: ``grad_input = d * grad_output`` where ``|d| <= delta``, else ``delta * sign(d) *
    grad_output`` (PyTorch's ``huber_loss_backward``).

    Args:
        input (Tensor): ``(*)``.
        target (Tensor): ``(*)``, broadcastable.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        delta (float): where the quadratic becomes linear, ``> 0``. Default: ``1.0``.
        weight (Tensor, optional): ``input``'s shape; multiplies each element's loss (``'mean'``
            stays over elements, as PyTorch). Default: ``None``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        RuntimeError: ``delta <= 0``.
        ValueError: a bad reduction. ValueError: a ``weight`` not of ``input``'s shape.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.huber_loss(dyngrad.tensor([0.0, 0.0]), dyngrad.tensor([0.2, 2.0]), weight=dyngrad.tensor([1.0, 2.0]))
        tensor(1.5100)
    """
    _same_size(input, target, "huber_loss")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _common(input, target)
    loss = _fused.SmoothL1.apply(input, target, float(delta)) * delta
    return _elementwise_weighted(loss, input, weight, reduction, "huber_loss", False)


def _common(a: Tensor, b: Any) -> tuple[Tensor, Tensor]:
    """Broadcast both operands to one shape and dtype (for the elementwise fused losses)."""
    b = to_tensor(b, like=a)
    shape = np.broadcast_shapes(a.shape, b.shape)
    if a.dtype != b.dtype:
        dt = a.dtype if a.is_floating_point() else b.dtype
        a, b = a.to(dt), b.to(dt)
    if tuple(a.shape) != shape:
        a = a.expand(shape)
    if tuple(b.shape) != shape:
        b = b.expand(shape)
    return a, b


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross entropy of probabilities: ``-w (t log(x) + (1 - t) log(1 - x))`` with the logs
    clamped at -100 (as PyTorch).

    Derivative: ``grad_input = w * (x - t) / max(x * (1 - x), 1e-12) * grad_output`` (PyTorch's
    ``binary_cross_entropy_backward``).

    Args:
        input (Tensor): probabilities ``(*)`` in [0, 1].
        target (Tensor): ``(*)``, the same shape.
        weight (Tensor, optional): broadcastable to the input. Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: a target shape that differs from the input's; a bad reduction.
        RuntimeError: input outside [0, 1].

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.binary_cross_entropy(dyngrad.tensor([0.8, 0.2]), dyngrad.tensor([1.0, 0.0]))
        tensor(0.2231)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    loss = _fused.BinaryCrossEntropy.apply(input, target.to(input.dtype))
    return _reduce(_weighted(loss, weight), reduction, "binary_cross_entropy")


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross entropy of logits: ``-w (pos_weight t log(sigmoid(x)) + (1 - t) log(1 -
    sigmoid(x)))``, computed from a stable ``log_sigmoid``.

    Derivative: ``grad_input = w * ((pos_weight * t + 1 - t) * sigmoid(x) - pos_weight * t) *
    grad_output`` (PyTorch's ``binary_cross_entropy_with_logits`` backward).

    Args:
        input (Tensor): logits ``(*)``.
        target (Tensor): ``(*)``, the same shape.
        weight (Tensor, optional): broadcastable. Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        pos_weight (Tensor, optional): ``(C,)``, broadcast along the last dim. Default: ``None``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: a target shape that differs from the input's; a bad reduction.
        RuntimeError: a weight or pos_weight that does not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.binary_cross_entropy_with_logits(dyngrad.tensor([2.0, -1.0]), dyngrad.tensor([1.0, 0.0]), pos_weight=dyngrad.tensor([3.0]))
        tensor(0.3470)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({list(target.shape)}) must be the same as input size ({list(input.shape)})"
        )
    if weight is None and pos_weight is None and isinstance(target, Tensor):
        _check_reduction(reduction, "binary_cross_entropy_with_logits")
        return _fused.BinaryCrossEntropyWithLogits.apply(input, target, reduction)  # one node, as PyTorch's
    ls_pos = _fused.log_sigmoid(input)
    ls_neg = ls_pos - input
    if pos_weight is None:
        loss = -(target * ls_pos + (1 - target) * ls_neg)
    else:
        loss = -(pos_weight * target * ls_pos + (1 - target) * ls_neg)
    return _reduce(_weighted(loss, weight), reduction, "binary_cross_entropy_with_logits")


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """Kullback-Leibler divergence with ``input`` as log-probabilities: ``target * (log(target) -
    input)`` (0 where ``target == 0``), or ``exp(target) * (target - input)`` when ``log_target``.

    Derivative: ``grad_input = -target * grad_output`` (``-exp(target) * grad_output`` with
    ``log_target``); the target gets ``(log(target) + 1 - input) * grad_output`` (PyTorch's
    ``kl_div`` composite).

    Args:
        input (Tensor): ``(*)``, log-probabilities.
        target (Tensor): ``(*)``, probabilities (log-probabilities with ``log_target``).
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'batchmean'`` (sum / N, the mathematically correct KL),
            ``'sum'`` or ``'mean'`` (over all elements, with PyTorch's warning). Default:
            ``'mean'``.
        log_target (bool): the target is given as log-probabilities. Default: ``False``.
    Returns:
        Tensor: ``()``, or the loss per element (``(*)``) with ``reduction='none'``.
    Raises:
        ValueError: a bad reduction.
        RuntimeError: shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.kl_div(dyngrad.log(dyngrad.tensor([0.5, 0.5])), dyngrad.tensor([0.25, 0.75]), reduction='sum')
        tensor(0.1308)
    """
    reduction = _legacy(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            stacklevel=2,
        )
    if log_target:
        loss = target.exp() * (target - input)
    else:
        safe = target.masked_fill(target.detach() <= 0, 1.0) if isinstance(target, Tensor) else target
        loss = target * safe.log() - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction, "kl_div")
