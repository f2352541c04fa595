"""``nn.utils.parametrize``: a tensor of a module computed from other tensors (PyTorch's
``torch.nn.utils.parametrize``).

``register_parametrization(module, "weight", P)`` moves ``module.weight`` into
``module.parametrizations.weight.original`` (``original0``, ``original1``, ... when
``P.right_inverse`` returns several tensors), swaps ``module``'s class for a subclass
``Parametrized<Class>`` with a ``weight`` property that returns ``P(original)``, and
assigning ``module.weight = X`` calls ``right_inverse``. State dicts therefore have
PyTorch's keys (``parametrizations.weight.original``, ``parametrizations.weight.0.<buffer>``).
"""

from __future__ import annotations

import collections.abc
import copyreg
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from copy import deepcopy
from typing import Any

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..container import ModuleDict, ModuleList
from ..module import Module
from ..parameter import Parameter

__all__ = [
    "cached", "ParametrizationList", "register_parametrization", "is_parametrized", "remove_parametrizations",
    "type_before_parametrizations", "transfer_parametrizations_and_params",
]

# As PyTorch: one process-wide cache, on while any cached() context is open.
_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached() -> Iterator[None]:
    """Within this context each parametrized tensor is computed once, on first use, and
    reused (e.g. a parametrized recurrent weight used at every time step); the values are
    dropped when the outermost context exits.

    Example::

        with parametrize.cached():
            out = model(x)
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, X: Tensor) -> None:
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """``dest.set_(src)``: ``dest`` keeps its identity (optimizers holding it still work)
    and takes ``src``'s values, shape and storage."""
    if src._data is not dest._data:
        dest._data = src._data
        dest._bump()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor and its original(s): ``module.parametrizations[name]``.

    Holds ``original`` (a Parameter or buffer) when the first parametrization's
    ``right_inverse`` returns one tensor (or it has none: the identity), else ``original0``,
    ``original1``, ... Calling it returns the parametrized tensor. Created by
    :func:`register_parametrization`, not by users.

    Args:
        modules: the parametrizations, applied in order.
        original: the tensor being parametrized (its identity is kept as ``original``).
        unsafe: allow a parametrization that changes the dtype or shape.
    Raises:
        ValueError: empty ``modules``; a ``right_inverse`` that returns something else than a
        tensor or a sequence of tensors, or changes the dtype; a parametrization that changes
        the dtype or shape without ``unsafe``.
    """

    unsafe: bool

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                        f"Got element {i} of the sequence with type {type(originali).__name__}."
                    )
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` flag "
                    f"is enabled.\nunparametrized dtype: {original_dtype}\nparametrized dtype: {Z.dtype}"
                )
            if Z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless `unsafe` flag "
                    f"is enabled.\nunparametrized shape: {original_shape}\nparametrized shape: {Z.shape}"
                )

    def right_inverse(self, value: Tensor) -> None:
        """Set the original(s) so that this list returns ``value`` (the ``right_inverse`` of
        each parametrization, last to first), in place and under ``no_grad``.

        Raises:
            RuntimeError: a parametrization without ``right_inverse``.
            ValueError: a result of the wrong type, count or dtype.
        """
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` has dtype "
                        f"{self.original.dtype}"
                    )
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(
                        f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. Got a sequence "
                        f"of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError(
                            f"'right_inverse' must return a sequence of tensors. Got element {i} of type "
                            f"{type(tensor).__name__}."
                        )
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while `original{i}` has "
                            f"dtype {original_i.dtype}"
                        )
                    _maybe_set(original_i, tensor)

    def forward(self) -> Tensor:
        """The parametrized tensor: ``P_n(...P_1(P_0(original)))``."""
        mods = list(self)
        if self.is_tensor:
            x = mods[0](self.original)
        else:
            x = mods[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in mods[1:]:
            x = m(x)
        return x


def _getstate(self: Module) -> Any:
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _default_deepcopy(self: Module, memo: dict) -> Module:
    obj = memo.get(id(self), None)
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):  # type: ignore[attr-defined]
        if hasattr(self, slot):
            setattr(replica, slot, deepcopy(getattr(self, slot), memo))
    return replica


def _inject_new_class(module: Module) -> None:
    """Give ``module`` its own class ``Parametrized<Class>`` (the properties go there, not on
    the shared class), as PyTorch does."""
    cls = module.__class__
    dct: dict[str, Any] = {"__getstate__": _getstate}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False) -> Module:
    """Parametrize ``module.<tensor_name>`` (a parameter, a buffer, or an already
    parametrized tensor, to which ``parametrization`` is appended) by ``parametrization``.

    Afterwards ``module.<tensor_name>`` is ``parametrization(original)``, recomputed at
    every access (see :func:`cached`); the original lives in
    ``module.parametrizations[tensor_name].original`` (``original0``, ``original1``, ...
    when ``parametrization.right_inverse`` returns a sequence), initialised with
    ``right_inverse(tensor)`` if ``parametrization`` has one (else the tensor itself).
    Assigning ``module.<tensor_name> = X`` calls ``right_inverse(X)``.

    Args:
        module: the module holding the tensor.
        tensor_name: the parameter or buffer's name.
        parametrization: a Module whose ``forward`` maps the original(s) to the tensor;
            optionally ``right_inverse``. Its training mode is set to ``module``'s.
        unsafe: skip the checks that the parametrization keeps the dtype and shape.
    Returns:
        ``module`` (its class is now ``Parametrized<Class>``).
    Raises:
        ValueError: no parameter, buffer or parametrized tensor of that name; the
        parametrization (or its ``right_inverse``) changes the dtype or shape without
        ``unsafe``, or returns something that is not a tensor.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, unless the `unsafe` flag "
                    f"is enabled.\nmodule.{tensor_name}.dtype: {Y.dtype}\n"
                    f"parametrization(module.{tensor_name}).dtype: {X.dtype}"
                )
            if X.shape != Y.shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, unless the `unsafe` flag "
                    f"is enabled.\nmodule.{tensor_name}.shape: {Y.shape}\n"
                    f"parametrization(module.{tensor_name}).shape: {X.shape}"
                )
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Tensor):
                        raise ValueError(
                            f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}"
                        )
                    if Z.dtype != Y.dtype:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the same dtype as "
                            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                            f"module.{tensor_name}.dtype: {Y.dtype}\nreturned dtype: {Z.dtype}"
                        )
                    if Z.shape != Y.shape:
                        raise ValueError(
                            "The tensor returned by parametrization.right_inverse must have the same shape as "
                            f"module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                            f"module.{tensor_name}.shape: {Y.shape}\nreturned shape: {Z.shape}"
                        )
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        if original is None:
            raise ValueError(f"Module '{module}' has parameter or buffer '{tensor_name}' set to None")
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
            f"'{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has any parametrization (``tensor_name=None``) or one on
    ``tensor_name``."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations of ``module.<tensor_name>``: it becomes a parameter (or
    buffer) again, the same object as ``original``, holding the parametrized value
    (``leave_parametrized=True``) or the original's. The module gets its class back when no
    parametrization is left.

    Args:
        module: a parametrized module.
        tensor_name: the parametrized tensor.
        leave_parametrized: keep the current parametrized value (else the original's).
    Returns:
        ``module``.
    Raises:
        ValueError: ``tensor_name`` is not parametrized; ``leave_parametrized=False`` with
        several originals (``original0``, ...).
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms of "
                "a sequence of tensors."
            )
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """``module``'s class before any parametrization (``Linear`` for a ``ParametrizedLinear``)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Register ``from_module``'s parametrizations (all, or ``tensor_name``'s) on
    ``to_module`` too, sharing the same parametrization modules and originals.

    Returns:
        ``to_module``.
    """
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            src, dst = from_module.parametrizations[name], to_module.parametrizations[name]
            if src.is_tensor:
                dst._parameters.pop("original", None)
                dst._buffers.pop("original", None)
                _register_parameter_or_buffer(dst, "original", src.original)
            else:
                for i in range(src.ntensors):
                    dst._parameters.pop(f"original{i}", None)
                    dst._buffers.pop(f"original{i}", None)
                    _register_parameter_or_buffer(dst, f"original{i}", getattr(src, f"original{i}"))
    return to_module
