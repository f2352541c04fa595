"""Activation modules: thin Modules over :mod:`dyngrad.nn.functional` (looked up at call
time, so they follow the op library)."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import functional as F
from .module import Module

__all__ = [
    "ReLU",
    "ReLU6",
    "LeakyReLU",
    "GELU",
    "SiLU",
    "Sigmoid",
    "Tanh",
    "Softmax",
    "LogSoftmax",
    "Softmin",
    "ELU",
    "SELU",
    "CELU",
    "Softplus",
    "Hardtanh",
    "Mish",
    "Hardswish",
    "Hardsigmoid",
    "Softsign",
    "LogSigmoid",
    "Tanhshrink",
    "PReLU",
]


def _inplace_repr(inplace: bool) -> str:
    return "inplace=True" if inplace else ""


def _elementwise(cls: type) -> type:
    """Complete the docstring of an elementwise activation module: its Raises and Shape sections,
    the same for all of them, go before its Example."""
    doc = cls.__doc__ or ""
    i = doc.index("    Example:")
    cls.__doc__ = doc[:i] + _ELEMENTWISE_SECTIONS + "\n" + doc[i:]
    return cls


_ELEMENTWISE_SECTIONS = """    Raises:
        TypeError: when the input is not a Tensor.
    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.
"""


class _Act(Module):
    """An activation with keyword options stored as attributes (``_opts``)."""

    _fn = ""
    _opts: tuple = ()

    def forward(self, input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(f"{self._get_name()}: input must be a Tensor, got {type(input).__name__}")
        fn = getattr(F, self._fn, None)
        if fn is None:
            raise NotImplementedError(f"{self._get_name()}: nn.functional.{self._fn} is not available yet")
        return fn(input, **{k: getattr(self, k) for k in self._opts})


@_elementwise
class ReLU(_Act):
    """Rectified linear unit, elementwise: ``max(input, 0)``.

    Derivative: ``grad_input = grad_output * (input > 0)`` (0 at 0; PyTorch's
    ``threshold_backward``, which passes the gradient where the input is NaN).

    Args:
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReLU()(dyngrad.tensor([-1.0, 0.0, 2.0]))
        tensor([0., 0., 2.])
    """

    _fn, _opts = "relu", ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return _inplace_repr(self.inplace)


@_elementwise
class ReLU6(ReLU):
    """``min(max(input, 0), 6)``, elementwise.

    Derivative: ``grad_input = grad_output * (0 < input < 6)`` (0 at both kinks; PyTorch's
    ``hardtanh_backward``).

    Args:
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ReLU6()(dyngrad.tensor([-1.0, 3.0, 7.0]))
        tensor([0., 3., 6.])
    """

    _fn = "relu6"


@_elementwise
class SiLU(ReLU):
    """Sigmoid linear unit (swish), elementwise: ``input * sigmoid(input)``.

    Derivative: ``grad_input = grad_output * s * (1 + input * (1 - s))`` with ``s = sigmoid(input)``
    (PyTorch's ``silu_backward``; Elfwing et al. 2017).

    Args:
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.SiLU()(dyngrad.tensor([0.0, 1.0]))
        tensor([0.0000, 0.7311])
    """

    _fn = "silu"


@_elementwise
class Mish(ReLU):
    """Mish, elementwise: ``input * tanh(softplus(input))`` (Misra 2019).

    Derivative: ``grad_input = grad_output * (t + input * sigmoid(input) * (1 - t**2))`` with ``t =
    tanh(softplus(input))`` (PyTorch's ``mish_backward``).

    Args:
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Mish()(dyngrad.tensor([1.0]))
        tensor([0.8651])
    """

    _fn = "mish"


@_elementwise
class Hardswish(ReLU):
    """Hard swish, elementwise: ``input * relu6(input + 3) / 6`` (MobileNetV3, Howard et al. 2019).

    Derivative: ``grad_input = 0`` for ``input <= -3``, ``grad_output * (input / 3 + 1/2)`` for ``-3
    < input < 3``, ``grad_output`` for ``input >= 3`` (PyTorch's ``hardswish_backward``).

    Args:
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Hardswish()(dyngrad.tensor([-4.0, 0.5, 4.0]))
        tensor([-0.0000, 0.2917, 4.0000])
    """

    _fn = "hardswish"


@_elementwise
class Hardsigmoid(ReLU):
    """Hard sigmoid, elementwise: ``relu6(input + 3) / 6``.

    Derivative: ``grad_input = grad_output / 6`` for ``-3 < input < 3``, else 0 (PyTorch's
    ``hardsigmoid_backward``).

    Args:
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Hardsigmoid()(dyngrad.tensor([-4.0, 0.5, 4.0]))
        tensor([0.0000, 0.5833, 1.0000])
    """

    _fn = "hardsigmoid"


@_elementwise
class SELU(ReLU):
    """Scaled ELU, elementwise: ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with the
    self-normalising ``alpha = 1.6733``, ``scale = 1.0507`` (Klambauer et al. 2017).

    Derivative: ``grad_input = grad_output * scale`` for ``input > 0``, ``grad_output * scale *
    alpha * exp(input)`` otherwise (PyTorch's ``elu_backward``).

    Args:
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.SELU()(dyngrad.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """

    _fn = "selu"


@_elementwise
class LeakyReLU(_Act):
    """Leaky ReLU, elementwise: ``input`` where ``input >= 0``, else ``negative_slope * input``.

    Derivative: ``grad_input = grad_output`` for ``input > 0``, ``grad_output * negative_slope``
    otherwise (at 0 too; PyTorch's ``leaky_relu_backward``).

    Args:
        negative_slope (float): the slope for negative inputs. Default: ``0.01``.
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.LeakyReLU(0.2)(dyngrad.tensor([-1.0, 1.0]))
        tensor([-0.2000,  1.0000])
    """

    _fn, _opts = "leaky_relu", ("negative_slope", "inplace")

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


@_elementwise
class ELU(_Act):
    """Exponential linear unit, elementwise: ``input`` for ``input > 0``, else ``alpha * (exp(input) -
    1)`` (Clevert et al. 2015).

    Derivative: ``grad_input = grad_output`` for ``input > 0``, ``grad_output * alpha * exp(input)``
    otherwise (PyTorch's ``elu_backward``).

    Args:
        alpha (float): the negative saturation value. Default: ``1.0``.
        inplace (bool): overwrite the input and return it. Default: ``False``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.ELU()(dyngrad.tensor([-1.0, 1.0]))
        tensor([-0.6321,  1.0000])
    """

    _fn, _opts = "elu", ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """Continuously differentiable ELU, elementwise: ``max(0, x) + min(0, alpha * (exp(x / alpha) -
    1))`` (Barron 2017).

    Derivative: ``grad_input = grad_output`` for ``input > 0``, ``grad_output * exp(input / alpha)``
    otherwise (PyTorch's ``elu_backward`` with ``input_scale = 1 / alpha``).

    Args:
        alpha (float): the negative saturation value, not 0. Default: ``1.0``.
        inplace (bool): overwrite the input and return it. Default: ``False``.
    Raises:
        TypeError: when the input is not a Tensor.
        RuntimeError: (at call time) when ``alpha == 0``.
    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.CELU(2.0)(dyngrad.tensor([-1.0, 1.0]))
        tensor([-0.7869,  1.0000])
    """

    _fn = "celu"


class GELU(_Act):
    """Gaussian error linear unit, elementwise: ``input * Phi(input)`` with ``Phi`` the standard normal
    CDF; ``approximate='tanh'`` uses ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``
    (Hendrycks & Gimpel 2016).

    Derivative: ``grad_input = grad_output * (Phi(x) + x * phi(x))`` with ``phi`` the normal density
    (the tanh form: its exact derivative; PyTorch's ``gelu_backward``).

    Args:
        approximate (str): ``'none'`` (exact, erf) or ``'tanh'``. Default: ``'none'``.
    Raises:
        TypeError: when the input is not a Tensor.
        RuntimeError: (at call time) when ``approximate`` is neither ``'none'`` nor ``'tanh'``.
    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.GELU()(dyngrad.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8413])
    """

    _fn, _opts = "gelu", ("approximate",)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


@_elementwise
class Softplus(_Act):
    """Softplus, elementwise: ``log(1 + exp(beta * input)) / beta``, and ``input`` itself where ``beta
    * input > threshold`` (for stability).

    Derivative: ``grad_input = grad_output * sigmoid(beta * input)`` (1 above the threshold;
    PyTorch's ``softplus_backward``).

    Args:
        beta (float): the sharpness. Default: ``1.0``.
        threshold (float): above ``beta * input > threshold`` the result is linear. Default:
            ``20.0``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Softplus(beta=2.0)(dyngrad.tensor([-1.0, 1.0, 30.0]))
        tensor([ 0.0635,  1.0635, 30.0000])
    """

    _fn, _opts = "softplus", ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(_Act):
    """``clamp(input, min_val, max_val)``, elementwise.

    Derivative: ``grad_input = grad_output * (min_val < input < max_val)`` (0 at the kinks;
    PyTorch's ``hardtanh_backward``).

    Args:
        min_val (float): the lower bound. Default: ``-1.0``.
        max_val (float): the upper bound. Default: ``1.0``.
        inplace (bool): overwrite the input and return it. Default: ``False``.
    Raises:
        ValueError: when ``max_val <= min_val`` (PyTorch raises AssertionError).
        TypeError: when the input is not a Tensor.
    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Hardtanh()(dyngrad.tensor([-2.0, 0.5, 2.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """

    _fn, _opts = "hardtanh", ("min_val", "max_val", "inplace")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class _NoArg(_Act):
    def __init__(self) -> None:
        super().__init__()


class Sigmoid(_NoArg):
    """``1 / (1 + exp(-x))``.

    Shape:
        input ``(*)``, output ``(*)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Sigmoid()(dyngrad.tensor([0.0]))
        tensor([0.5000])
    """

    _fn = "sigmoid"


class Tanh(_NoArg):
    """``tanh(x)``.

    Shape:
        input ``(*)``, output ``(*)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Tanh()(dyngrad.tensor([0.0]))
        tensor([0.])
    """

    _fn = "tanh"


class Softsign(_NoArg):
    """Softsign, elementwise: ``input / (1 + |input|)``.

    Derivative: ``grad_input = grad_output / (1 + |input|)**2`` (the quotient rule; PyTorch composes
    it the same way).


    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Softsign()(dyngrad.tensor([-1.0, 1.0]))
        tensor([-0.5000,  0.5000])
    """

    _fn = "softsign"


class LogSigmoid(_NoArg):
    """``log(sigmoid(input))``, elementwise, computed stably as ``-softplus(-input)``.

    Derivative: ``grad_input = grad_output * (1 - sigmoid(input))`` (PyTorch's
    ``log_sigmoid_backward``).


    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.LogSigmoid()(dyngrad.tensor([0.0]))
        tensor([-0.6931])
    """

    _fn = "logsigmoid"


class Tanhshrink(_NoArg):
    """``input - tanh(input)``, elementwise.

    Derivative: ``grad_input = grad_output * tanh(input)**2`` (from ``1 - (1 - tanh**2)``; composed
    of ``sub`` and ``tanh``).


    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Tanhshrink()(dyngrad.tensor([1.0]))
        tensor([0.2384])
    """

    def forward(self, input: Tensor) -> Tensor:
        return input - input.tanh()


class Softmax(_Act):
    """Softmax along ``dim``: ``exp(x_i) / sum_j exp(x_j)``, so each slice along ``dim`` sums to 1.

    Derivative: ``grad_input = y * (grad_output - (grad_output * y).sum(dim, keepdim=True))`` with
    ``y`` the output (PyTorch's ``_softmax_backward_data``).

    Args:
        dim (int, optional): the dimension that sums to 1; ``None`` picks one by PyTorch's legacy
            rule (0 for 0-, 1- and 3-d inputs, else 1) with a warning. Default: ``None``.
    Raises:
        IndexError: (at call time) when ``dim`` is out of range for the input.
        TypeError: when the input is not a Tensor.
    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Softmax(dim=1)(dyngrad.zeros(1, 4))
        tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
    """

    _fn, _opts = "softmax", ("dim",)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """Log-softmax along ``dim``: ``x_i - log(sum_j exp(x_j))``, computed stably.

    Derivative: ``grad_input = grad_output - exp(y) * grad_output.sum(dim, keepdim=True)`` with
    ``y`` the output (PyTorch's ``_log_softmax_backward_data``).

    Args:
        dim (int, optional): the dimension normalised over; ``None`` picks one as :class:`Softmax`
            does, with a warning. Default: ``None``.
    Raises:
        IndexError: (at call time) when ``dim`` is out of range for the input.
        TypeError: when the input is not a Tensor.
    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.LogSoftmax(dim=0)(dyngrad.tensor([0.0, 0.0]))
        tensor([-0.6931, -0.6931])
    """

    _fn = "log_softmax"


class Softmin(Softmax):
    """Softmin along ``dim``: ``softmax(-input, dim)``.

    Derivative: the softmax derivative applied to ``-input`` (composed of ``neg`` and ``softmax``).

    Args:
        dim (int, optional): the dimension that sums to 1; ``None`` picks one as :class:`Softmax`
            does, with a warning. Default: ``None``.
    Raises:
        IndexError: (at call time) when ``dim`` is out of range for the input.
        TypeError: when the input is not a Tensor.
    Shape:
        - Input: ``(*)``, any number of dimensions.
        - Output: ``(*)``, the input's shape.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> nn.Softmin(dim=0)(dyngrad.tensor([0.0, 1.0]))
        tensor([0.7311, 0.2689])
    """

    _fn = "softmin"


class PReLU(Module):
    """Parametric ReLU: ``max(0, x) + weight * min(0, x)`` with a learnt slope, one per channel (dim 1)
    or one shared (He et al. 2015).

    Derivative: ``grad_input = grad_output`` for ``input > 0``, else ``weight * grad_output`` (the
    slope at 0 too); ``grad_weight = sum(grad_output * input * (input <= 0))`` over all but the
    channel dimension (PyTorch's ``_prelu_kernel_backward``).

    Args:
        num_parameters (int): 1 (a shared slope) or the number of channels ``C``. Default: ``1``.
        init (float): the slopes' initial value. Default: ``0.25``.
        device: accepted for PyTorch compatibility (CPU only). Default: ``None``.
        dtype (dyngrad.dtype, optional): the weight's dtype. Default: the default dtype.
    Raises:
        RuntimeError: (at call time) when ``num_parameters`` is neither 1 nor the input's channel
            count (``input.shape[1]``; 1 for a 1-d input).
    Shape:
        - Input: ``(N, C, *)`` or ``(*)`` when ``num_parameters == 1``.
        - Output: the input's shape.
        - weight: ``(num_parameters,)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> m = nn.PReLU()
        >>> m(dyngrad.tensor([-1.0, 1.0])).tolist()
        [-0.25, 1.0]
        >>> m.weight.shape
        dyngrad.Size([1])
    """

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        from .layers import _empty

        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = _empty((num_parameters,), dtype)
        self.weight._data[...] = init

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
