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
    """Mean squared error ``(x - y)^2``.

    Args:
        size_average: deprecated (use ``reduction``).
        reduce: deprecated (use ``reduction``).
        reduction (str): ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Shape:
        input ``(*)``, target ``(*)`` (the same shape); output ``()`` or ``(*)`` with ``"none"``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.MSELoss()(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([0.0, 4.0]))
        tensor(2.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error ``|x - y|``.

    Args:
        size_average: deprecated (use ``reduction``).
        reduce: deprecated (use ``reduction``).
        reduction (str): ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.L1Loss()(dyngrad.tensor([1.0, -1.0]), dyngrad.tensor([0.0, 1.0]))
        tensor(1.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Smooth L1 with threshold ``beta``."""

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean", beta: float = 1.0
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss with threshold ``delta``."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """KL divergence of log-probabilities ``input`` from ``target``."""

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean", log_target: bool = False
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of log-probabilities and class indices.

    Args:
        weight (Tensor, optional): a weight per class, ``(C,)``.
        size_average: deprecated (use ``reduction``).
        ignore_index (int): a target index that contributes nothing (default -100).
        reduce: deprecated (use ``reduction``).
        reduction (str): ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Shape:
        input ``(N, C)`` log-probabilities, target ``(N,)`` int64; output ``()``.

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
    """Cross entropy of logits with class indices or class probabilities.

    Args:
        weight (Tensor, optional): a weight per class, ``(C,)``.
        size_average: deprecated (use ``reduction``).
        ignore_index (int): a target class index that contributes nothing (default -100).
        reduce: deprecated (use ``reduction``).
        reduction (str): ``"mean"`` (default), ``"sum"`` or ``"none"``.
        label_smoothing (float): mix the target with the uniform distribution (0 to 1).

    Shape:
        input ``(N, C)`` or ``(C,)`` or ``(N, C, d1, ...)`` logits; target ``(N,)`` class
        indices (int64) or ``(N, C)`` probabilities; output ``()`` (or ``(N,)`` with ``"none"``).

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
    """Binary cross entropy of probabilities.

    Args:
        weight (Tensor, optional): multiplies each element's loss.
        size_average: deprecated (use ``reduction``).
        reduce: deprecated (use ``reduction``).
        reduction (str): ``"mean"`` (default), ``"sum"`` or ``"none"``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> round(nn.BCELoss()(dyngrad.tensor([0.5]), dyngrad.tensor([1.0])).item(), 4)   # log 2
        0.6931
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (stable), with optional ``pos_weight``.

    Args:
        weight (Tensor, optional): multiplies each element's loss.
        size_average: deprecated (use ``reduction``).
        reduce: deprecated (use ``reduction``).
        reduction (str): ``"mean"`` (default), ``"sum"`` or ``"none"``.
        pos_weight (Tensor, optional): a weight for positive examples, per class.

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
