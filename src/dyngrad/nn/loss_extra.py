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
    """Ranking loss: ``max(0, -target * (input1 - input2) + margin)``, ``target`` 1 (input1 should rank
    higher) or -1. See :func:`dyngrad.nn.functional.margin_ranking_loss`.

    Derivative: ``grad_input1 = -target * grad_output`` where the hinge is active, else 0;
    ``grad_input2`` the negative (composed of ``sub``, ``mul`` and ``clamp_min``).

    Args:
        margin (float): the margin. Default: ``0.0``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) when the three tensors do not broadcast.
    Shape:
        - Input1, Input2, Target: ``(N,)`` or ``()``, the same shape.
        - Output: ``()``, or ``(N,)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.MarginRankingLoss(0.5)(dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([2.0, 1.0]), dyngrad.tensor([1.0, 1.0]))
        tensor(0.7500)
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """Hinge embedding loss: ``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target
    == -1`` (``input`` usually a distance). See :func:`dyngrad.nn.functional.hinge_embedding_loss`.

    Derivative: ``grad_input = grad_output`` for ``target == 1``, ``-grad_output`` where the hinge
    is active for ``target == -1`` (composed of ``where`` and ``clamp_min``).

    Args:
        margin (float): the margin. Default: ``1.0``.
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
        >>> nn.HingeEmbeddingLoss()(dyngrad.tensor([0.3, 2.0]), dyngrad.tensor([1.0, -1.0]))
        tensor(0.1500)
    """

    def __init__(self, margin: float = 1.0, size_average: Any = None, reduce: Any = None,
                 reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """Cosine embedding loss: ``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) -
    margin)`` where ``target == -1``. See :func:`dyngrad.nn.functional.cosine_embedding_loss`.

    Derivative: through the cosine similarity (``cos = x1 . x2 / (|x1| |x2|)``, its quotient-rule
    derivative; composed of the ops it is built from).

    Args:
        margin (float): in [-1, 1], 0 to 0.5 suggested. Default: ``0.0``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) when the shapes do not fit (``x1``/``x2`` ``(N, D)``, target
            ``(N,)``).
    Shape:
        - Input1, Input2: ``(N, D)`` or ``(D,)``.
        - Target: ``(N,)`` or ``()``, 1 or -1.
        - Output: ``()``, or ``(N,)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> x1 = dyngrad.tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> x2 = dyngrad.tensor([[0.0, 1.0], [1.0, 1.0]])
        >>> nn.CosineEmbeddingLoss()(x1, x2, dyngrad.tensor([1.0, -1.0]))
        tensor(0.8536)
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """Triplet loss: ``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the pairwise p-norm distance
    (``swap``: use ``min(d(a, n), d(p, n))``; Balntas et al. 2016). See
    :func:`dyngrad.nn.functional.triplet_margin_loss`.

    Derivative: through :func:`dyngrad.nn.functional.pairwise_distance` and ``clamp_min``
    (composed).

    Args:
        margin (float): ``> 0``. Default: ``1.0``.
        p (float): the norm degree. Default: ``2.0``.
        eps (float): added to the difference for stability. Default: ``1e-6``.
        swap (bool): the distance swap. Default: ``False``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: for ``margin <= 0`` (at construction, as PyTorch), or an invalid ``reduction``.
        RuntimeError: (at call time) when the three inputs' shapes do not fit.
    Shape:
        - Anchor, Positive, Negative: ``(N, D)`` or ``(D,)``.
        - Output: ``()``, or ``(N,)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> a, p, n = dyngrad.tensor([[0.0, 0.0]]), dyngrad.tensor([[1.0, 0.0]]), dyngrad.tensor([[1.5, 0.0]])
        >>> round(nn.TripletMarginLoss()(a, p, n).item(), 4)
        0.5
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
    """Poisson negative log likelihood: ``exp(input) - target * input`` (``log_input=True``) or ``input
    - target * log(input + eps)``; ``full`` adds Stirling's ``target * log(target) - target + 0.5 *
    log(2 pi target)`` for ``target > 1``. See :func:`dyngrad.nn.functional.poisson_nll_loss`.

    Derivative: ``grad_input = (exp(input) - target) * grad_output`` (log input) or ``(1 - target /
    (input + eps)) * grad_output`` (composed of ``exp``/``log``).

    Args:
        log_input (bool): the input is the log of the rate. Default: ``True``.
        full (bool): add the Stirling term. Default: ``False``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        eps (float): avoids ``log(0)`` when ``log_input=False``. Default: ``1e-8``.
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
        >>> nn.PoissonNLLLoss()(dyngrad.tensor([0.0, 1.0]), dyngrad.tensor([1.0, 2.0]))
        tensor(0.8591)
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average: Any = None, eps: float = 1e-8,
                 reduce: Any = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood: ``0.5 * (log(max(var, eps)) + (input - target)**2 / max(var,
    eps))`` (plus ``0.5 * log(2 pi)`` with ``full``); ``var`` is a tensor (homoscedastic: one fewer
    dim or a last dim of 1) or a float. See :func:`dyngrad.nn.functional.gaussian_nll_loss`.

    Derivative: ``grad_input = (input - target) / var * grad_output``; ``grad_var = 0.5 * (1 / var -
    (input - target)**2 / var**2) * grad_output`` where ``var > eps`` (composed; PyTorch's
    ``gaussian_nll_loss``).

    Args:
        full (bool): include the constant. Default: ``False``.
        eps (float): the clamp for ``var``. Default: ``1e-6``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        ValueError: (at call time) when ``var`` has a negative entry or a shape that does not fit
            the input.
    Shape:
        - Input: ``(N, *)`` or ``(*)``.
        - Target: the input's shape (or broadcastable).
        - Var: the input's shape, or one dim fewer / a last dim of 1, or a float.
        - Output: ``()``, or the input's shape with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.GaussianNLLLoss()(dyngrad.tensor([0.0, 1.0]), dyngrad.tensor([1.0, 1.0]), dyngrad.tensor([1.0, 2.0]))
        tensor(0.4233)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Any) -> Tensor:
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss: ``sum_{i != y} max(0, margin - x[y] + x[i]) ** p / C`` per sample (times
    ``weight[y]``). See :func:`dyngrad.nn.functional.multi_margin_loss`.

    Derivative: ``grad_x[i] = p * h_i ** (p - 1) * w / C`` and ``grad_x[y] = -sum_i`` of those over
    the active hinges ``h_i > 0`` (PyTorch's ``multi_margin_loss_backward``).

    Args:
        p (int): 1 or 2. Default: ``1``.
        margin (float): the margin. Default: ``1.0``.
        weight (Tensor, optional): ``(C,)``, a weight per class (a buffer). Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: for ``p`` not 1 or 2, a weight that is not 1-d, or an invalid ``reduction`` (at
            construction).
        RuntimeError: (at call time) for a target out of range or a target size that is not the
            batch size.
    Shape:
        - Input: ``(N, C)`` or ``(C,)``.
        - Target: ``(N,)`` or ``()``, int64 class indices.
        - Output: ``()``, or ``(N,)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> loss = nn.MultiMarginLoss()(dyngrad.tensor([[0.1, 0.2, 0.4, 0.8]]), dyngrad.tensor([3]))
        >>> round(loss.item(), 4)
        0.325
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
    """Multi-label hinge loss: for each sample, ``sum over targets j and non-targets i of max(0, 1 -
    (x[j] - x[i])) / C``; the target lists class indices, ended by the first -1. See
    :func:`dyngrad.nn.functional.multilabel_margin_loss`.

    Derivative: ``grad_x[i] = +1/C`` per active pair for a non-target, ``-1/C`` per active pair for
    a target (PyTorch's ``multilabel_margin_loss_backward``).

    Args:
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) for a target of another shape than the input, or an index out
            of range.
    Shape:
        - Input: ``(N, C)`` or ``(C,)``.
        - Target: the input's shape, int64 indices padded with -1.
        - Output: ``()``, or ``(N,)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> loss = nn.MultiLabelMarginLoss()(dyngrad.tensor([[0.1, 0.2, 0.4, 0.8]]), dyngrad.tensor([[3, 0, -1, 1]]))
        >>> round(loss.item(), 4)
        0.85
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss: ``-mean_i weight[i] * (y_i log sigmoid(x_i) + (1 -
    y_i) log sigmoid(-x_i))`` per sample. See
    :func:`dyngrad.nn.functional.multilabel_soft_margin_loss`.

    Derivative: ``grad_x = weight * (sigmoid(x) - y) / C * grad_output`` (composed of
    ``logsigmoid``).

    Args:
        weight (Tensor, optional): ``(C,)``, a weight per class (a buffer). Default: ``None``.
        size_average: deprecated (use ``reduction``). Default: ``None``.
        reduce: deprecated (use ``reduction``). Default: ``None``.
        reduction (str): ``'none'`` (per element), ``'mean'`` or ``'sum'``. Default: ``'mean'``.
    Raises:
        ValueError: when ``reduction`` is not a valid value (at construction; PyTorch raises at the
            call).
        RuntimeError: (at call time) when input and target shapes do not fit.
    Shape:
        - Input: ``(N, C)`` or ``(C,)``.
        - Target: the input's shape, 0 or 1.
        - Output: ``()``, or ``(N,)`` with ``reduction='none'``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.MultiLabelSoftMarginLoss()(dyngrad.tensor([[0.0, 1.0]]), dyngrad.tensor([[1.0, 0.0]]))
        tensor(1.0032)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss: ``log(1 + exp(-target * input))``, ``target`` 1 or -1. See
    :func:`dyngrad.nn.functional.soft_margin_loss`.

    Derivative: ``grad_input = -target * sigmoid(-target * input) * grad_output`` (PyTorch's
    ``soft_margin_loss_backward``).

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
        >>> nn.SoftMarginLoss()(dyngrad.tensor([0.0, 2.0]), dyngrad.tensor([1.0, -1.0]))
        tensor(1.4100)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CosineSimilarity(Module):
    """Cosine similarity along ``dim``: ``x1 . x2 / max(||x1|| * ||x2||, eps)``. See
    :func:`dyngrad.nn.functional.cosine_similarity`.

    Derivative: the quotient rule: ``grad_x1 = (x2 / (|x1| |x2|) - cos * x1 / |x1|**2) *
    grad_output`` (composed, as PyTorch's ``cosine_similarity``).

    Args:
        dim (int): the dimension reduced. Default: ``1``.
        eps (float): a lower bound for the norms' product. Default: ``1e-8``.
    Raises:
        IndexError: (at call time) when ``dim`` is out of range.
        RuntimeError: (at call time) when ``x1`` and ``x2`` do not broadcast.
    Shape:
        - Input1: ``(*1, D, *2)``; Input2: broadcastable to it.
        - Output: ``(*1, *2)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.CosineSimilarity()(dyngrad.tensor([[1.0, 0.0], [1.0, 1.0]]), dyngrad.tensor([[0.0, 1.0], [1.0, 1.0]]))
        tensor([0.0000, 1.0000])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The p-norm distance of rows: ``||x1 - x2 + eps||_p`` over the last dim. See
    :func:`dyngrad.nn.functional.pairwise_distance`.

    Derivative: through ``sub`` and ``norm`` (``grad = sign(d) |d|**(p-1) / ||d||_p**(p-1) *
    grad_output``).

    Args:
        p (float): the norm degree. Default: ``2.0``.
        eps (float): added to the difference (avoids a zero norm). Default: ``1e-6``.
        keepdim (bool): keep the reduced dim. Default: ``False``.
    Raises:
        RuntimeError: (at call time) when ``x1`` and ``x2`` do not broadcast.
    Shape:
        - Input1, Input2: ``(N, D)`` or ``(D,)``.
        - Output: ``(N,)`` or ``()`` (``(N, 1)`` with ``keepdim``).

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.PairwiseDistance()(dyngrad.tensor([[0.0, 0.0]]), dyngrad.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Softmax2d(Module):
    """Softmax over the channels at each location: ``softmax(input, dim=-3)``.

    Derivative: the softmax derivative along the channel dim
    (``grad_input = y * (grad_output - (grad_output * y).sum(-3, keepdim=True))``).

    Raises:
        ValueError: (at call time) for an input that is not 3-d or 4-d.
    Shape:
        - Input: ``(N, C, H, W)`` or ``(C, H, W)``.
        - Output: the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Softmax2d()(dyngrad.zeros(1, 2, 1, 1)).flatten()
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class Threshold(Module):
    """``input`` where ``input > threshold``, else ``value``, elementwise. See
    :func:`dyngrad.nn.functional.threshold`.

    Derivative: ``grad_input = grad_output * (input > threshold)`` (PyTorch's
    ``threshold_backward``).

    Args:
        threshold (float): the threshold.
        value (float): the replacement.
        inplace (bool): overwrite the input. Default: ``False``.
    Raises:
        AttributeError: (at call time) for an input that is not a Tensor (PyTorch: TypeError).
    Shape:
        - Input: ``(*)``.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Threshold(0.1, 20.0)(dyngrad.tensor([0.0, 0.1, 0.5]))
        tensor([20.0000, 20.0000,  0.5000])
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    """Gated linear unit: ``a * sigmoid(b)`` where ``a, b`` are the two halves of ``input`` along
    ``dim`` (Dauphin et al. 2016). See :func:`dyngrad.nn.functional.glu`.

    Derivative: ``grad_a = sigmoid(b) * grad_output``, ``grad_b = a * sigmoid(b) * (1 - sigmoid(b))
    * grad_output`` (PyTorch's ``glu_backward``).

    Args:
        dim (int): the dimension halved. Default: ``-1``.
    Raises:
        RuntimeError: (at call time) when that dimension's size is odd, or for a 0-d input.
        IndexError: (at call time) when ``dim`` is out of range.
    Shape:
        - Input: ``(*1, M, *2)``, ``M`` even.
        - Output: ``(*1, M / 2, *2)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.GLU()(dyngrad.tensor([1.0, 2.0, 0.0, 0.0]))
        tensor([0.5000, 1.0000])
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups: ``(N, g * c, *)`` is viewed as ``(N, g, c, *)``,
    transposed to ``(N, c, g, *)`` and flattened back (ShuffleNet, Zhang et al. 2017). See
    :func:`dyngrad.nn.functional.channel_shuffle`.

    Derivative: a permutation, so ``grad_input`` is ``grad_output`` with the inverse permutation.

    Args:
        groups (int): the number of groups, dividing the channel count.
    Raises:
        RuntimeError: (at call time) when ``groups`` is not positive or does not divide the
            channels, or the input has fewer than 3 dims.
    Shape:
        - Input: ``(N, C, *)``.
        - Output: ``(N, C, *)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ChannelShuffle(2)(dyngrad.arange(4.0).reshape(1, 4, 1, 1)).flatten()
        tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
