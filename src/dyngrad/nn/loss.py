"""Loss modules: each stores its options and calls the function of the same name in
:mod:`dyngrad.nn.functional` (see there for formulas, shapes and errors)."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = [
    "MSELoss",
    "L1Loss",
    "CrossEntropyLoss",
    "NLLLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
]


class _Loss(Module):
    def __init__(self, size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            from ._functional_loss import _legacy

            reduction = _legacy(size_average, reduce, reduction)
        if reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error: ``(input - target) ** 2``, reduced by ``reduction``. See
    :func:`dyngrad.nn.functional.mse_loss`.

    Derivative: ``grad_input = 2 * (input - target) * grad_output`` (divided by ``numel`` for
    ``'mean'``; PyTorch's ``mse_loss_backward``).

    Args:
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) when input and target do not broadcast.
    Shape:
        - Input: ``(*)``.
        - Target: ``(*)``, the input's shape.
        - Output: ``()``, or ``(*)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.MSELoss()(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([0.0, 4.0]))
        tensor(2.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error: ``|input - target|``, reduced by ``reduction``. See
    :func:`dyngrad.nn.functional.l1_loss`.

    Derivative: ``grad_input = sign(input - target) * grad_output`` (0 where equal; divided by
    ``numel`` for ``'mean'``).

    Args:
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) when input and target do not broadcast.
    Shape:
        - Input: ``(*)``.
        - Target: ``(*)``, the input's shape.
        - Output: ``()``, or ``(*)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.L1Loss()(dyngrad.tensor([1.0, -1.0]), dyngrad.tensor([0.0, 1.0]))
        tensor(1.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Smooth L1: ``0.5 * d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta``, with ``d =
    input - target`` (``beta = 0``: L1). See :func:`dyngrad.nn.functional.smooth_l1_loss`.

    Derivative: ``grad_input = grad_output * d / beta`` where ``|d| < beta``, else ``grad_output *
    sign(d)`` (PyTorch's ``smooth_l1_loss_backward``).

    Args:
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        beta (float): where the quadratic becomes linear, ``>= 0``. Default: ``1.0``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) for ``beta < 0``, or when input and target do not broadcast.
    Shape:
        - Input: ``(*)``.
        - Target: ``(*)``, the input's shape.
        - Output: ``()``, or ``(*)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.SmoothL1Loss(beta=0.5)(dyngrad.tensor([0.0, 0.0]), dyngrad.tensor([0.2, 2.0]))
        tensor(0.8950)
    """

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean", beta: float = 1.0
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss: ``0.5 * d**2`` where ``|d| <= delta``, else ``delta * (|d| - 0.5 * delta)``, with
    ``d = input - target`` (``delta`` times :class:`SmoothL1Loss` with ``beta = delta``). See
    :func:`dyngrad.nn.functional.huber_loss`.

    Derivative: ``grad_input = grad_output * d`` where ``|d| <= delta``, else ``grad_output * delta
    * sign(d)`` (PyTorch's ``huber_loss_backward``).

    Args:
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        delta (float): where the quadratic becomes linear, ``> 0``. Default: ``1.0``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) for ``delta <= 0``, or when input and target do not broadcast.
    Shape:
        - Input: ``(*)``.
        - Target: ``(*)``, the input's shape.
        - Output: ``()``, or ``(*)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.HuberLoss(delta=0.5)(dyngrad.tensor([0.0, 0.0]), dyngrad.tensor([0.2, 2.0]))
        tensor(0.4475)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of the target from the input: pointwise ``target * (log(target) -
    input)`` with ``input`` log-probabilities (and ``target`` log-probabilities too with
    ``log_target=True``). ``reduction='batchmean'`` (sum / batch size) is the true KL divergence;
    ``'mean'`` divides by every element, as PyTorch (with its warning). See
    :func:`dyngrad.nn.functional.kl_div`.

    Derivative: ``grad_input = -target * grad_output`` (``-exp(target) * grad_output`` with
    ``log_target``); the target gets ``(log(target) + 1 - input) * grad_output`` (PyTorch's
    ``kl_div`` composite).

    Args:
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'``, ``'batchmean'``, ``'sum'`` or ``'mean'``. Default: ``'mean'``.
        log_target (bool): the target is given as log-probabilities. Default: ``False``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) when input and target do not broadcast.
    Shape:
        - Input: ``(*)``.
        - Target: ``(*)``, the input's shape.
        - Output: ``()`` (also for ``'batchmean'``), or ``(*)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.KLDivLoss(reduction='batchmean')(dyngrad.log(dyngrad.tensor([[0.5, 0.5]])), dyngrad.tensor([[0.25, 0.75]]))
        tensor(0.1308)
    """

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of log-probabilities and class indices: ``-weight[y] * input[n, y]`` per
    sample, averaged over the weights of the non-ignored targets (``'mean'``) or summed. See
    :func:`dyngrad.nn.functional.nll_loss`.

    Derivative: ``grad_input[n, y_n] = -weight[y_n] * grad_output`` (divided by the total weight for
    ``'mean'``), 0 elsewhere (PyTorch's ``nll_loss_backward``).

    Args:
        weight (Tensor, optional): ``(C,)``, a weight per class. Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        ignore_index (int): a target value that contributes nothing. Default: ``-100``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        IndexError: (at call time) for a target outside ``[0, C)`` (other than ``ignore_index``).
        RuntimeError: (at call time) for a non-integer target or a weight without ``C`` entries.
        ValueError: (at call time) when input and target batch sizes differ.
    Shape:
        - Input: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ..., dK)`` log-probabilities.
        - Target: ``(N,)``, ``()`` or ``(N, d1, ..., dK)`` int64 class indices.
        - Output: ``()``, or the target's shape with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> logp = dyngrad.log(dyngrad.tensor([[0.5, 0.25, 0.25]]))
        >>> round(nn.NLLLoss()(logp, dyngrad.tensor([1])).item(), 4)     # -log(0.25)
        1.3863
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input, target, weight=self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits with class indices or class probabilities: ``nll_loss(log_softmax(input,
    1), target)``; ``label_smoothing = e`` mixes the target with the uniform distribution, ``(1 - e)
    * target + e / C``. See :func:`dyngrad.nn.functional.cross_entropy`.

    Derivative: ``grad_input = (softmax(input) - target_distribution) * grad_output`` (weighted, and
    divided by the total weight for ``'mean'``; PyTorch's ``cross_entropy_loss`` composite).

    Args:
        weight (Tensor, optional): ``(C,)``, a weight per class. Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        ignore_index (int): a target class index that contributes nothing. Default: ``-100``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): in [0, 1]. Default: ``0.0``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        IndexError: (at call time) for a class index outside ``[0, C)``.
        RuntimeError: (at call time) for ``label_smoothing`` outside [0, 1], or a probability target
            not of the input's shape.
        ValueError: (at call time) when input and target batch sizes differ.
    Shape:
        - Input: ``(N, C)``, ``(C,)`` or ``(N, C, d1, ..., dK)`` logits.
        - Target: ``(N,)`` (or ``()``, ``(N, d1, ..., dK)``) int64 class indices, or float
          probabilities of the input's shape.
        - Output: ``()``, or ``(N,)`` (``(N, d1, ..., dK)``) with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> logits = dyngrad.tensor([[2.0, 0.0, 0.0]], requires_grad=True)
        >>> loss = nn.CrossEntropyLoss()(logits, dyngrad.tensor([0]))
        >>> round(loss.item(), 4)
        0.2395
        >>> loss.backward()
        >>> logits.grad                           # softmax(logits) - one_hot(target)
        tensor([[-0.2130,  0.1065,  0.1065]])
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities: ``-weight * (target * log(input) + (1 - target) * log(1 -
    input))``, with each log clamped at -100 (as PyTorch). See
    :func:`dyngrad.nn.functional.binary_cross_entropy`.

    Derivative: ``grad_input = weight * (input - target) / max(input * (1 - input), 1e-12) *
    grad_output`` (PyTorch's ``binary_cross_entropy_backward``).

    Args:
        weight (Tensor, optional): multiplies each element's loss (broadcast to the input). Default:
            ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) when an input element is outside [0, 1].
        ValueError: (at call time) when target and input shapes differ.
    Shape:
        - Input: ``(*)``.
        - Target: ``(*)``, the input's shape.
        - Output: ``()``, or ``(*)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> round(nn.BCELoss()(dyngrad.tensor([0.5]), dyngrad.tensor([1.0])).item(), 4)   # log 2
        0.6931
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits, computed stably: ``-weight * (pos_weight * target *
    log(sigmoid(x)) + (1 - target) * log(1 - sigmoid(x)))``. See
    :func:`dyngrad.nn.functional.binary_cross_entropy_with_logits`.

    Derivative: ``grad_input = weight * ((pos_weight * target + 1 - target) * sigmoid(x) -
    pos_weight * target) * grad_output`` (PyTorch's ``binary_cross_entropy_with_logits`` backward).

    Args:
        weight (Tensor, optional): multiplies each element's loss (broadcast). Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        pos_weight (Tensor, optional): ``(C,)`` (broadcast over the last dim), a weight for positive
            examples. Default: ``None``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        ValueError: (at call time) when target and input shapes differ.
        RuntimeError: (at call time) when ``weight`` or ``pos_weight`` does not broadcast.
    Shape:
        - Input: ``(*)``.
        - Target: ``(*)``, the input's shape.
        - Output: ``()``, or ``(*)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> round(nn.BCEWithLogitsLoss()(dyngrad.tensor([0.0]), dyngrad.tensor([1.0])).item(), 4)
        0.6931
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, pos_weight=self.pos_weight, reduction=self.reduction
        )
