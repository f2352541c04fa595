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


class _Act(Module):
    """An activation with keyword options stored as attributes (``_opts``)."""

    _fn = ""
    _opts: tuple = ()

    def forward(self, input: Tensor) -> Tensor:
        fn = getattr(F, self._fn, None)
        if fn is None:
            raise NotImplementedError(f"{self._get_name()}: nn.functional.{self._fn} is not available yet")
        return fn(input, **{k: getattr(self, k) for k in self._opts})


class ReLU(_Act):
    """``max(x, 0)``.

    Derivative: ``grad_input = grad_output * (input > 0)`` (0 at 0, as PyTorch).

    Args:
        inplace (bool): overwrite the input (default False).

    Shape:
        input ``(*)``, output ``(*)``.

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


class ReLU6(ReLU):
    """``min(max(x, 0), 6)``."""

    _fn = "relu6"


class SiLU(ReLU):
    """``x * sigmoid(x)``."""

    _fn = "silu"


class Mish(ReLU):
    """``x * tanh(softplus(x))``."""

    _fn = "mish"


class Hardswish(ReLU):
    """``x * relu6(x + 3) / 6``."""

    _fn = "hardswish"


class Hardsigmoid(ReLU):
    """``relu6(x + 3) / 6``."""

    _fn = "hardsigmoid"


class SELU(ReLU):
    """Scaled ELU with the self-normalising constants."""

    _fn = "selu"


class LeakyReLU(_Act):
    """``x`` for ``x >= 0`` else ``negative_slope * x``."""

    _fn, _opts = "leaky_relu", ("negative_slope", "inplace")

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(_Act):
    """``x`` for ``x > 0`` else ``alpha (exp(x) - 1)``."""

    _fn, _opts = "elu", ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class CELU(ELU):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``."""

    _fn = "celu"


class GELU(_Act):
    """Gaussian error linear unit; ``approximate='tanh'`` for the tanh form.

    Args:
        approximate (str): ``'none'`` (exact) or ``'tanh'``.

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


class Softplus(_Act):
    """``log(1 + exp(beta x)) / beta`` (linear above ``threshold``)."""

    _fn, _opts = "softplus", ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(_Act):
    """``clamp(x, min_val, max_val)``."""

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
    """``x / (1 + |x|)``."""

    _fn = "softsign"


class LogSigmoid(_NoArg):
    """``log(sigmoid(x))``, stable."""

    _fn = "logsigmoid"


class Tanhshrink(_NoArg):
    """``x - tanh(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        return input - input.tanh()


class Softmax(_Act):
    """Softmax along ``dim``.

    Args:
        dim (int): the dimension that sums to 1.

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
    """Log-softmax along ``dim``."""

    _fn = "log_softmax"


class Softmin(Softmax):
    """Softmin along ``dim``."""

    _fn = "softmin"


class PReLU(Module):
    """``max(0, x) + weight * min(0, x)`` with a learnt slope per channel (init 0.25)."""

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
        w = self.weight
        if input.ndim >= 2 and self.num_parameters > 1:
            w = w.reshape((1, -1) + (1,) * (input.ndim - 2))
        return input.relu() - w * (-input).relu()

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
