"""Parameter initialisation (PyTorch's ``nn.init``). Every function fills its tensor in
place without recording a graph, draws from dyngrad's Generator (``generator=`` or the
default one) and returns the tensor."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.grad_mode import no_grad
from ..creation import Generator, _gen
from ..tensor import Tensor

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "trunc_normal_",
    "orthogonal_",
    "sparse_",
    "_calculate_fan_in_and_fan_out",
    # PyTorch's deprecated names without the trailing underscore (FutureWarning)
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]


def _fill(tensor: Tensor, values: Any) -> Tensor:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init: expected a Tensor, got {type(tensor).__name__}")
    if type(tensor._data) is not np.ndarray:
        B.writeable(tensor._data)  # a Dask tensor is immutable: refused (docs/backends.md)
    np.copyto(tensor._data, values, casting="unsafe")
    tensor._bump()
    return tensor


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for ``nonlinearity`` (PyTorch's table: linear/conv/sigmoid 1,
    tanh 5/3, relu sqrt(2), leaky_relu sqrt(2 / (1 + slope^2)), selu 3/4).

    Raises: ValueError for an unknown nonlinearity or a bad ``param``."""
    linear = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``fan_in = size(1) * receptive``, ``fan_out = size(0) * receptive``.

    Raises: ValueError for fewer than 2 dims."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fi, fo = _calculate_fan_in_and_fan_out(tensor)
    return fi if mode == "fan_in" else fo


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with ``U(a, b)``: the in-place random fill ``Tensor.uniform_`` without recording
    (a random op, so vmap's ``randomness`` modes apply, as in torch.func)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init: expected a Tensor, got {type(tensor).__name__}")
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with ``N(mean, std^2)``: the in-place random fill ``Tensor.normal_`` without
    recording (vmap's ``randomness`` modes apply)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init: expected a Tensor, got {type(tensor).__name__}")
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fill with ``N(mean, std^2)`` truncated to ``[a, b]``, by PyTorch's inverse-CDF method:
    ``u ~ U(2 Phi(alpha) - 1, 2 Phi(beta) - 1)``, ``x = mean + std sqrt(2) erfinv(u)``, clamped
    to ``[a, b]`` (``Phi`` the standard normal CDF, ``alpha = (a - mean) / std``). Every step
    is an in-place op on ``tensor`` without recording, so vmap's randomness modes apply.

    Raises:
        TypeError: ``tensor`` is not a Tensor.
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init: expected a Tensor, got {type(tensor).__name__}")

    def cdf(v: float) -> float:
        return (1.0 + math.erf(v / math.sqrt(2.0))) / 2.0

    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
    with no_grad():
        tensor.uniform_(2 * lo - 1, 2 * hi - 1, generator=generator)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.0))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    return _fill(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 1)


def zeros_(tensor: Tensor) -> Tensor:
    return _fill(tensor, 0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity. Raises ValueError for other ranks."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3/4/5-D conv weight with the Dirac delta (identity convolution)."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_g = tensor.shape[0] // groups
    mn = min(out_g, tensor.shape[1])
    w = np.zeros(tensor.shape)
    centre = tuple(s // 2 for s in tensor.shape[2:])
    for g in range(groups):
        for d in range(mn):
            w[(g * out_g + d, d) + centre] = 1
    return _fill(tensor, w)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """``U(-a, a)``, ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio 2010)."""
    fi, fo = _calculate_fan_in_and_fan_out(tensor)
    a = gain * math.sqrt(6.0 / float(fi + fo))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """``N(0, std^2)``, ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fi, fo = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fi + fo)), generator)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """``U(-b, b)``, ``b = gain * sqrt(3 / fan)`` (He et al. 2015). With ``a = sqrt(5)``
    (the Linear/Conv default) ``b = 1 / sqrt(fan_in)``.

    Raises: ValueError for an unknown mode or nonlinearity."""
    if 0 in tensor.shape:
        return tensor
    bound = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / _fan(tensor, mode))
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """``N(0, std^2)``, ``std = gain / sqrt(fan)`` (He et al. 2015)."""
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a Gaussian one (Saxe et al. 2013)."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _gen(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator: Generator | None = None) -> Tensor:
    """Fill a 2-D tensor as a sparse matrix (Martens 2010, "Deep learning via Hessian-free
    optimization"): every entry from ``N(0, std^2)``, then in each column
    ``ceil(sparsity * rows)`` entries, at rows chosen by a random permutation, set to zero.

    As in PyTorch, the values come from ``generator`` (or the default one) and the rows to
    zero from the default generator (``dyngrad.randperm``). Nothing is recorded (no
    gradient; it is an initialiser), and the tensor's version counter is bumped.

    Args:
        tensor (Tensor): the ``(rows, cols)`` tensor to fill in place.
        sparsity (float): the fraction of each column set to zero, in ``[0, 1]``.
        std (float, optional): the standard deviation of the non-zero values.
            Default: ``0.01``.
        generator (Generator, optional): where the normal values come from. Default: the
            default generator.

    Returns:
        Tensor: ``tensor`` itself, ``(rows, cols)``.

    Raises:
        TypeError: ``tensor`` is not a Tensor.
        ValueError: ``tensor`` is not 2-D ("Only tensors with 2 dimensions are supported",
            PyTorch's message).

    Example:
        >>> import dyngrad
        >>> w = dyngrad.nn.init.sparse_(dyngrad.empty(4, 3), sparsity=0.5)
        >>> (w == 0).sum(0).tolist()
        [2, 2, 2]
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init: expected a Tensor, got {type(tensor).__name__}")
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    if getattr(tensor, "is_meta", False):
        return tensor
    from ..ops.random import randperm

    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0.0, std, generator=generator)
        for col in range(cols):
            zero_rows = randperm(rows)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


#: the call each deprecated name's docstring example makes
_EXAMPLE_CALL = {
    "constant": "dyngrad.empty(2, 3), 0.5",
    "eye": "dyngrad.empty(2, 3)",
    "sparse": "dyngrad.empty(2, 3), 0.5",
}


def _make_deprecated(new: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """PyTorch's backward-compatible name without the trailing underscore: warns
    (FutureWarning, PyTorch's message) and calls ``new``."""
    new_name = new.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"""Deprecated name of :func:`{new_name}` (kept, as in PyTorch, for old code).

    Emits ``FutureWarning("`nn.init.{old_name}` is now deprecated in favor of
    `nn.init.{new_name}`.")`` and then behaves exactly as ``{new_name}``.

    Args:
        *args: ``{new_name}``'s positional arguments (the tensor first).
        **kwargs: ``{new_name}``'s keyword arguments.

    Returns:
        Tensor: what ``{new_name}`` returns: the filled tensor itself, same shape ``(*)``.

    Raises:
        TypeError, ValueError: whatever ``{new_name}`` raises for those arguments.

    Example:
        >>> import warnings, dyngrad
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter("always")
        ...     _ = dyngrad.nn.init.{old_name}({_EXAMPLE_CALL.get(old_name, "dyngrad.empty(2, 3, 3)")})
        >>> w[0].category.__name__
        'FutureWarning'
    """
    return deprecated_init


uniform = _make_deprecated(uniform_)
normal = _make_deprecated(normal_)
constant = _make_deprecated(constant_)
eye = _make_deprecated(eye_)
dirac = _make_deprecated(dirac_)
xavier_uniform = _make_deprecated(xavier_uniform_)
xavier_normal = _make_deprecated(xavier_normal_)
kaiming_uniform = _make_deprecated(kaiming_uniform_)
kaiming_normal = _make_deprecated(kaiming_normal_)
orthogonal = _make_deprecated(orthogonal_)
sparse = _make_deprecated(sparse_)
