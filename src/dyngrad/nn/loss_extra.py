"""More loss modules (margin, embedding, likelihood and multi-label losses) and the small
layers that go with them: CosineSimilarity, PairwiseDistance, Softmax2d, Threshold, GLU,
ChannelShuffle. Each stores its options and calls the function of the same name in
:mod:`dyngrad.nn.functional` (see there for formulas, shapes and errors); reprs as PyTorch
2.13's.

Example:
    >>> import dyngrad
    >>> from dyngrad import nn
    >>> nn.TripletMarginLoss(), nn.Threshold(0.1, 20), nn.GLU(), nn.ChannelShuffle(2)
    (TripletMarginLoss(), Threshold(threshold=0.1, value=20), GLU(dim=-1), ChannelShuffle(groups=2))
    >>> loss = nn.MultiMarginLoss()(dyngrad.tensor([[0.1, 0.2, 0.4, 0.8]]), dyngrad.tensor([3]))
    >>> round(loss.item(), 4)
    0.325
"""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .loss import _Loss, _WeightedLoss
from .module import Module

__all__ = [
    "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "PoissonNLLLoss",
    "GaussianNLLLoss", "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "SoftMarginLoss",
    "CosineSimilarity", "PairwiseDistance", "Softmax2d", "Threshold", "GLU", "ChannelShuffle",
]


class _MarginLoss(_Loss):
    def __init__(self, margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class MarginRankingLoss(_MarginLoss):
    """``max(0, -y (x1 - x2) + margin)`` (:func:`dyngrad.nn.functional.margin_ranking_loss`)."""

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """``x`` for ``y = 1``, ``max(0, margin - x)`` for ``y = -1``
    (:func:`dyngrad.nn.functional.hinge_embedding_loss`)."""

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """``1 - cos`` for ``y = 1``, ``max(0, cos - margin)`` for ``y = -1``
    (:func:`dyngrad.nn.functional.cosine_embedding_loss`)."""

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` (:func:`dyngrad.nn.functional.triplet_margin_loss`).

    Raises:
        ValueError: ``margin <= 0`` (at construction, as PyTorch).
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Poisson negative log likelihood (:func:`dyngrad.nn.functional.poisson_nll_loss`)."""

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None, eps: float = 1e-8,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood (:func:`dyngrad.nn.functional.gaussian_nll_loss`)."""

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Any) -> Tensor:
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge (:func:`dyngrad.nn.functional.multi_margin_loss`); ``weight`` a
    buffer.

    Raises:
        ValueError: ``p`` not 1 or 2. AssertionError: a weight that is not 1-D (as PyTorch).
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None, size_average: Any = None,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.ndim}D instead"
            )
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge (:func:`dyngrad.nn.functional.multilabel_margin_loss`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss
    (:func:`dyngrad.nn.functional.multilabel_soft_margin_loss`); ``weight`` a buffer."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss ``log(1 + exp(-y x))``
    (:func:`dyngrad.nn.functional.soft_margin_loss`)."""

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineSimilarity(Module):
    """Cosine similarity along ``dim`` (:func:`dyngrad.nn.functional.cosine_similarity`)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim
    (:func:`dyngrad.nn.functional.pairwise_distance`)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Softmax2d(Module):
    """Softmax over the channels of each location: ``softmax(input, dim=-3)`` of
    ``(N, C, H, W)`` or ``(C, H, W)``.

    Raises:
        ValueError: an input that is not 3-D or 4-D.
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class Threshold(Module):
    """``input`` where ``input > threshold``, else ``value``
    (:func:`dyngrad.nn.functional.threshold`)."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """Gated linear unit ``a * sigmoid(b)`` of the halves of ``dim``
    (:func:`dyngrad.nn.functional.glu`)."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups
    (:func:`dyngrad.nn.functional.channel_shuffle`)."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
