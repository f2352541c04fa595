"""``dyngrad.functorch``: the names of the ``functorch`` package that PyTorch 2.13 still
ships (``import functorch as ft`` becomes ``from dyngrad import functorch as ft``).

The transforms (``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``,
``hessian``, ``vmap``) are :mod:`dyngrad.func`'s, and ``make_functional`` /
``make_functional_with_buffers`` / ``combine_state_for_ensemble`` are built on
:func:`dyngrad.func.functional_call` and :func:`dyngrad.func.stack_module_state`. As in
PyTorch, each call warns (``FutureWarning``) that it is deprecated in favour of
``torch.func``.
"""

from __future__ import annotations

import copy
import functools
import warnings
from typing import Any

from .. import func as _func
from ..nn.module import Module

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "make_functional",
           "make_functional_with_buffers", "combine_state_for_ensemble", "FunctionalModule",
           "FunctionalModuleWithBuffers"]


def _deprecated(api: str, new_api: str | None = None) -> None:
    new_api = new_api or f"torch.func.{api}"
    warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the integration, `functorch.{api}` "
                  f"is deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch >= 2.3. "
                  f"Please use `{new_api}` instead; see the PyTorch 2.0 release notes and/or the `torch.func` "
                  "migration guide for more details https://pytorch.org/docs/main/func.migrating.html",
                  FutureWarning, stacklevel=3)


def _forward(name: str, new: str | None = None) -> Any:
    target = getattr(_func, name)

    @functools.wraps(target)
    def deprecated(*args: Any, **kwargs: Any) -> Any:
        _deprecated(name, new)
        return target(*args, **kwargs)

    return deprecated


grad = _forward("grad")
grad_and_value = _forward("grad_and_value")
vjp = _forward("vjp")
jvp = _forward("jvp")
jacrev = _forward("jacrev")
jacfwd = _forward("jacfwd")
hessian = _forward("hessian")
vmap = _forward("vmap", "torch.vmap")


def _stateless_copy(model: Module, disable_autograd_tracking: bool, with_buffers: bool) -> tuple:
    """A deep copy of ``model`` whose parameters (and buffers) moved out: the tensors, their
    names, and the copy with them on the ``meta`` device (shape-only stand-ins)."""
    stateless = copy.deepcopy(model)
    names = [n for n, _ in stateless.named_parameters()]
    params = tuple(p for _, p in stateless.named_parameters())
    if disable_autograd_tracking:
        params = tuple(p.detach() for p in params)
    bnames, buffers = [], ()
    if with_buffers:
        bnames = [n for n, _ in stateless.named_buffers()]
        buffers = tuple(b for _, b in stateless.named_buffers())
    stand_in = copy.deepcopy(stateless).to("meta")
    return stand_in, names, params, bnames, buffers


class FunctionalModule(Module):
    """What :func:`make_functional` returns: ``fmodel(params, *args, **kwargs)`` runs the
    model with ``params`` (a sequence, in ``named_parameters()`` order) as its parameters.

    Args:
        stateless_model (Module): the model, its parameters on the ``meta`` device.
        param_names (list[str]): their dotted names, in order.
    Raises:
        RuntimeError: (when called) ``params`` of the wrong length.

    Example:
        >>> import dyngrad, warnings
        >>> from dyngrad import functorch
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     fmodel, params = functorch.make_functional(dyngrad.nn.Linear(2, 3))
        >>> fmodel(params, dyngrad.ones(4, 2)).shape
        dyngrad.Size([4, 3])
    """

    def __init__(self, stateless_model: Module, param_names: list) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = list(param_names)

    def forward(self, params: Any, *args: Any, **kwargs: Any) -> Any:
        params = tuple(params)
        if len(params) != len(self.param_names):
            raise RuntimeError(f"FunctionalModule: expected {len(self.param_names)} parameters "
                               f"({', '.join(self.param_names)}), got {len(params)}")
        return _func.functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """What :func:`make_functional_with_buffers` returns: ``fmodel(params, buffers, *args,
    **kwargs)`` runs the model with those parameters and buffers (sequences, in
    ``named_parameters()`` / ``named_buffers()`` order).

    Args:
        stateless_model (Module): the model, its parameters and buffers on ``meta``.
        param_names (list[str]): the parameters' dotted names, in order.
        buffer_names (list[str]): the buffers' dotted names, in order.
    Raises:
        RuntimeError: (when called) ``params`` or ``buffers`` of the wrong length.

    Example:
        >>> import dyngrad, warnings
        >>> from dyngrad import functorch
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     fmodel, params, buffers = functorch.make_functional_with_buffers(dyngrad.nn.BatchNorm1d(3))
        >>> len(params), len(buffers), fmodel(params, buffers, dyngrad.randn(4, 3)).shape
        (2, 3, dyngrad.Size([4, 3]))
    """

    def __init__(self, stateless_model: Module, param_names: list, buffer_names: list) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = list(param_names)
        self.buffer_names = list(buffer_names)

    def forward(self, params: Any, buffers: Any, *args: Any, **kwargs: Any) -> Any:
        params, buffers = tuple(params), tuple(buffers)
        if len(params) != len(self.param_names) or len(buffers) != len(self.buffer_names):
            raise RuntimeError(f"FunctionalModuleWithBuffers: expected {len(self.param_names)} parameters and "
                               f"{len(self.buffer_names)} buffers, got {len(params)} and {len(buffers)}")
        state = dict(zip(self.param_names, params))
        state.update(zip(self.buffer_names, buffers))
        return _func.functional_call(self.stateless_model, state, args, kwargs)


def make_functional(model: Module, disable_autograd_tracking: bool = False) -> tuple:
    """``functorch.make_functional``: the model as a function of its parameters,
    ``fmodel(params, *inputs)``, and a copy of its parameters (deprecated in PyTorch in
    favour of :func:`dyngrad.func.functional_call`; warns ``FutureWarning`` as PyTorch).

    Derivative: the function is the model's forward with the parameters as inputs
    (:func:`dyngrad.func.functional_call`), so gradients and tangents reach ``params``.

    Args:
        model (Module): a module without buffers.
        disable_autograd_tracking (bool): return the parameters detached (not requiring
            grad). Default: ``False``.
    Returns:
        (FunctionalModule, tuple[Tensor, ...]): ``(fmodel, params)``; ``params`` are copies
        of the model's parameters (leaves; the model is not changed).
    Raises:
        RuntimeError: the model has buffers (use :func:`make_functional_with_buffers`).
        TypeError: ``model`` is not a Module.

    Example:
        >>> import dyngrad, warnings
        >>> from dyngrad import functorch
        >>> model = dyngrad.nn.Linear(2, 1)
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     fmodel, params = functorch.make_functional(model)
        >>> bool(dyngrad.allclose(fmodel(params, dyngrad.ones(1, 2)), model(dyngrad.ones(1, 2))))
        True
    """
    _deprecated("make_functional", "torch.func.functional_call")
    if not isinstance(model, Module):
        raise TypeError(f"make_functional(model): expected an nn.Module, got {type(model).__name__}")
    if any(True for _ in model.buffers()):
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    stand_in, names, params, _, _ = _stateless_copy(model, disable_autograd_tracking, False)
    return FunctionalModule(stand_in, names), params


def make_functional_with_buffers(model: Module, disable_autograd_tracking: bool = False) -> tuple:
    """``functorch.make_functional_with_buffers``: the model as a function of its parameters
    and buffers, ``fmodel(params, buffers, *inputs)``, with copies of both (deprecated in
    PyTorch in favour of :func:`dyngrad.func.functional_call`; warns ``FutureWarning``).

    Derivative: the function is the model's forward with parameters and buffers as inputs
    (:func:`dyngrad.func.functional_call`), so gradients and tangents reach them.

    Args:
        model (Module): any module.
        disable_autograd_tracking (bool): return the parameters detached. Default: ``False``.
    Returns:
        (FunctionalModuleWithBuffers, tuple[Tensor, ...], tuple[Tensor, ...]):
        ``(fmodel, params, buffers)``, copies of the model's (the model is not changed).
    Raises:
        TypeError: ``model`` is not a Module.

    Example:
        >>> import dyngrad, warnings
        >>> from dyngrad import functorch
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     fmodel, params, buffers = functorch.make_functional_with_buffers(dyngrad.nn.Linear(2, 1))
        >>> len(params), len(buffers)
        (2, 0)
    """
    _deprecated("make_functional_with_buffers", "torch.func.functional_call")
    if not isinstance(model, Module):
        raise TypeError(f"make_functional_with_buffers(model): expected an nn.Module, got {type(model).__name__}")
    stand_in, names, params, bnames, buffers = _stateless_copy(model, disable_autograd_tracking, True)
    return FunctionalModuleWithBuffers(stand_in, names, bnames), params, buffers


def combine_state_for_ensemble(models: Any) -> tuple:
    """``functorch.combine_state_for_ensemble``: one functional model and the parameters and
    buffers of several models of the same class stacked along a new dim 0, for
    ``vmap(fmodel)(params, buffers, x)`` (deprecated in PyTorch in favour of
    :func:`dyngrad.func.stack_module_state`; warns ``FutureWarning``).

    Derivative: the stacked parameters are new leaves (``stack`` of detached copies, as
    functorch's), requiring grad where the models' did.

    Args:
        models (Sequence[Module]): at least one, all of the same class and in the same
            training/eval mode.
    Returns:
        (FunctionalModuleWithBuffers, tuple[Tensor, ...], tuple[Tensor, ...]):
        ``(fmodel, params, buffers)``, each tensor ``(len(models), *shape)``.
    Raises:
        RuntimeError: no models, models of different classes, or mixed train/eval modes.

    Example:
        >>> import dyngrad, warnings
        >>> from dyngrad import functorch
        >>> models = [dyngrad.nn.Linear(3, 2) for _ in range(4)]
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     fmodel, params, buffers = functorch.combine_state_for_ensemble(models)
        >>> params[0].shape
        dyngrad.Size([4, 2, 3])
    """
    _deprecated("combine_state_for_ensemble", "torch.func.stack_module_state")
    models = list(models)
    if not models:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not all(m.training == models[0].training for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        fmodel, _, _ = make_functional_with_buffers(models[0])
    from ..ops import stack

    params = tuple(stack([p.detach() for p in ps]).requires_grad_(ps[0].requires_grad)
                   for ps in zip(*[list(m.parameters()) for m in models]))
    buffers = tuple(stack([b.detach() for b in bs]) for bs in zip(*[list(m.buffers()) for m in models]))
    return fmodel, params, buffers


