"""The older, hook-based ``nn.utils.weight_norm`` / ``remove_weight_norm`` and
``nn.utils.spectral_norm`` / ``remove_spectral_norm`` (PyTorch's
``torch/nn/utils/weight_norm.py`` and ``spectral_norm.py``): a forward pre-hook recomputes
``module.<name>`` (a plain attribute) before every forward from the parameters
``<name>_g`` / ``<name>_v`` (weight norm) or ``<name>_orig`` and the buffers ``<name>_u`` /
``<name>_v`` (spectral norm), the keys of PyTorch's state dicts made with them. New code
should use :mod:`dyngrad.nn.utils.parametrizations`.
"""

from __future__ import annotations

import warnings
from typing import Any

from ...autograd.grad_mode import no_grad
from ...ops.linalg import mv
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from ..parameter import Parameter
from .parametrizations import _norm_except_dim

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`: ``name = g * v / ||v||``."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return v * (g / _norm_except_dim(v, self.dim))

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> WeightNorm:
        warnings.warn(
            "`nn.utils.weight_norm` is deprecated in favor of `nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight.detach(), fn.dim)))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Deprecated hook version of :func:`dyngrad.nn.utils.parametrizations.weight_norm`:
    replaces the parameter ``name`` by ``name_g`` (magnitude) and ``name_v`` (direction)
    and recomputes ``module.<name> = g * v / ||v||`` before every forward.

    Args:
        module: the module.
        name: the parameter's name.
        dim: the dim that keeps its own norm (``None``: one norm for the whole tensor).
    Returns:
        ``module``.
    Raises:
        RuntimeError: ``name`` already has a weight_norm hook.
    Warns:
        FutureWarning: deprecated, as in PyTorch.
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`weight_norm`: ``name`` is a Parameter again, with the current weight.

    Raises:
        ValueError: no weight_norm hook for ``name``.
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`: ``name = name_orig / sigma``, with
    ``n_power_iterations`` steps (``v`` then ``u``, in place) in training mode."""

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                wm = weight_mat.detach()
                for _ in range(self.n_power_iterations):
                    v._data[...] = F.normalize(mv(wm.mT, u), dim=0, eps=self.eps)._data
                    v._bump()
                    u._data[...] = F.normalize(mv(wm, v), dim=0, eps=self.eps)._data
                    u._bump()
                u, v = u.clone(), v.clone()
        sigma = (u * mv(weight_mat, v)).sum()
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> SpectralNorm:
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        from ...ops.random import randn

        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = F.normalize(randn(h, dtype=weight.dtype), dim=0, eps=fn.eps)
            v = F.normalize(randn(w, dtype=weight.dtype), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(
    module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim: int | None = None
) -> Module:
    """Hook version of :func:`dyngrad.nn.utils.parametrizations.spectral_norm`: the
    parameter ``name`` becomes ``name_orig``, with buffers ``name_u``, ``name_v``, and
    ``module.<name> = name_orig / sigma`` is recomputed before every forward (power
    iteration in training mode only). Unlike the parametrization, ``u``, ``v`` start random
    without the 15 warm-up steps (as PyTorch).

    Args:
        module: the module.
        name: the parameter's name.
        n_power_iterations: power-iteration steps per forward in training mode.
        eps: the norm floor of ``normalize``.
        dim: the output dim (default 1 for ``ConvTranspose*``, else 0).
    Returns:
        ``module``.
    Raises:
        RuntimeError: ``name`` already has a spectral_norm hook.
        ValueError: ``n_power_iterations <= 0``; the parameter is None.
    """
    if dim is None:
        from ..conv_layers import _ConvTransposeNd

        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`spectral_norm`: ``name`` is a Parameter again, ``orig / sigma`` with the
    current ``u``, ``v``.

    Raises:
        ValueError: no spectral_norm hook for ``name``.
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
