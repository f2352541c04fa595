"""``torch.nn.modules.activation`` (PyTorch's module path): the names dyngrad has, re-exported from :mod:`dyngrad.nn`,
so ``from dyngrad.nn.modules.activation import ...`` works as in PyTorch."""

from __future__ import annotations

from .. import (  # noqa: F401
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    MultiheadAttention,
    PReLU,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)

__all__ = ['CELU', 'ELU', 'GELU', 'GLU', 'Hardsigmoid', 'Hardswish', 'Hardtanh', 'LeakyReLU', 'LogSigmoid', 'LogSoftmax', 'Mish', 'MultiheadAttention', 'PReLU', 'ReLU', 'ReLU6', 'SELU', 'SiLU', 'Sigmoid', 'Softmax', 'Softmax2d', 'Softmin', 'Softplus', 'Softsign', 'Tanh', 'Tanhshrink', 'Threshold']
