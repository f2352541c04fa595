"""Module: the base class of layers and models (PyTorch's ``nn.Module``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..autograd.graph import RemovableHandle, _HookDict
from ..tensor import Tensor
from .hooks import (
    _add_hook,
    _BackwardHookFn,
    _HookState,
    _KwargsHook,
    _wrap_outputs,
    attach_non_full_backward_hooks,
)
from .module_state import _StateMixin
from .parameter import Buffer, Parameter

__all__ = ["Module", "Parameter", "Buffer"]


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


class Module(_StateMixin):
    """Base class of all layers and models.

    Assigning a :class:`Parameter`, a Module or a registered buffer as an attribute
    registers it; ``parameters()``, ``state_dict()``, ``to()``, ``train()`` and friends then
    walk the tree. Subclasses call ``super().__init__()`` first and define ``forward``.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> class MLP(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = nn.Linear(3, 8)
        ...         self.out = nn.Linear(8, 1)
        ...     def forward(self, x):
        ...         return self.out(dyngrad.relu(self.hidden(x)))
        >>> model = MLP()
        >>> [name for name, _ in model.named_parameters()]
        ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
        >>> model(dyngrad.randn(5, 3)).shape
        dyngrad.Size([5, 1])
    """

    training: bool
    _version = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments {args} {kwargs}")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = {}
        d["_forward_pre_hooks"] = _HookDict()
        d["_forward_hooks"] = _HookDict()
        d["_backward_hooks"] = _HookDict()
        d["_backward_pre_hooks"] = _HookDict()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ------------------------------------------------------------------ registration
    def _check_name(self, name: Any, kind: str) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Register a non-parameter tensor (e.g. running statistics) saved in ``state_dict``
        unless ``persistent=False``.

        Raises:
            TypeError: not a Tensor/None. KeyError: bad name or an existing attribute.
        """
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (dyngrad Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            tensor = _plain(tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Register ``param`` (a Parameter or None) under ``name``.

        Raises:
            TypeError: not a Parameter. KeyError: bad name or an existing attribute.
        """
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' (dyngrad.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Register a child module under ``name``.

        Raises: TypeError: not a Module. KeyError: bad name or an existing attribute.
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(d, name, "_buffers", "_modules")
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' (dyngrad.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _remove_from(d, name, "_parameters", "_buffers")
            d.pop(name, None)
            d["_modules"][name] = value
        elif d.get("_modules") is not None and name in d["_modules"]:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}' (dyngrad.nn.Module or None expected)"
                )
            d["_modules"][name] = value
        elif isinstance(value, Buffer):
            if params is None:
                raise AttributeError("cannot assign buffers before Module.__init__() call")
            _remove_from(d, name, "_parameters", "_modules")
            d.pop(name, None)
            self.register_buffer(name, value, value.persistent)
        elif d.get("_buffers") is not None and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}' (dyngrad.Tensor or None expected)"
                )
            d["_buffers"][name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in ("_parameters", "_buffers", "_modules"):
            s = self.__dict__[store]
            if name in s:
                del s[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        return sorted(
            set(object.__dir__(self)) | set(self._parameters) | set(self._buffers) | set(self._modules)
        )

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` ('' is self). Raises AttributeError."""
        mod = self
        for item in target.split(".") if target else ():
            if item not in mod._modules:
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``. Raises AttributeError."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._parameters:
            raise AttributeError(f"{mod._get_name()} has no parameter `{name}`")
        return mod._parameters[name]

    # ------------------------------------------------------------------ traversal
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for this module and every descendant, depth first (pre-order);
        a module reachable twice is yielded once unless ``remove_duplicate=False``."""
        memo = set() if memo is None else memo
        stack: list = [(prefix, self)]
        while stack:
            p, m = stack.pop()
            if remove_duplicate:
                if id(m) in memo:
                    continue
                memo.add(id(m))
            yield p, m
            kids = [(p + ("." if p else "") + k, c) for k, c in m._modules.items() if c is not None]
            stack.extend(reversed(kids))

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for k, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield k, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named_members(self, store: str, prefix: str, recurse: bool, remove_duplicate: bool) -> Iterator:
        mods = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        seen: set = set()
        for mp, m in mods:
            for k, v in getattr(m, store).items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                yield mp + ("." if mp else "") + k, v

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted_name, parameter)`` pairs; shared parameters appear once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ------------------------------------------------------------------ modes and state
    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and its descendants; returns self.

        Raises: ValueError when ``mode`` is not a bool."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            m.__dict__["training"] = mode
        return self

    def eval(self) -> Module:
        """``train(False)``: dropout off, batch norm uses running statistics."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default, else to zeros)."""
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
            else:
                g = p._grad
                if g.grad_fn is not None:
                    g = p._grad = g.detach()
                g._data[...] = 0
                g._bump()

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every descendant (children first) and then on self; returns self."""
        stack: list = [(self, False)]
        seen: set = set()
        while stack:  # iterative post-order: children (left to right) before their parent
            m, expanded = stack.pop()
            if expanded:
                fn(m)
                continue
            if id(m) in seen:
                continue
            seen.add(id(m))
            stack.append((m, True))
            stack.extend((c, False) for c in reversed(list(m.children())))
        return self

    # ------------------------------------------------------------------ hooks and calling
    def register_forward_pre_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """``hook(module, args) -> None | new args`` runs before ``forward``; with
        ``with_kwargs``: ``hook(module, args, kwargs) -> None | (new args, new kwargs)``."""
        if with_kwargs:
            hook = _KwargsHook(hook)
        return _add_hook(self._forward_pre_hooks, hook, prepend)

    def register_forward_hook(
        self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        """``hook(module, args, output) -> None | new output`` runs after ``forward``; with
        ``with_kwargs``: ``hook(module, args, kwargs, output)``."""
        if with_kwargs:
            hook = _KwargsHook(hook)
        return _add_hook(self._forward_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output) -> None | new grad_input`` runs when the
        gradients w.r.t. the module's positional tensor inputs are computed (``grad_input``
        entries are None for inputs that need no gradient)."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated (as in PyTorch): ``hook(module, grad_input, grad_output)`` on the node
        that produced the module's output; ``grad_input`` are that node's input gradients,
        which are the module's only when its forward is a single op (a FutureWarning says so
        otherwise). Use :meth:`register_full_backward_hook`. See nn/hooks.py."""
        if "_non_full_backward_hooks" not in self.__dict__:
            self.__dict__["_non_full_backward_hooks"] = _HookDict()
        return _add_hook(self.__dict__["_non_full_backward_hooks"], hook, False)

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output) -> None | new grad_output`` runs when the gradients
        w.r.t. the module's outputs are computed, before the module's backward."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for hook in list(self._forward_pre_hooks.values()):
            if isinstance(hook, _KwargsHook):
                r = hook.fn(self, args, kwargs)
                if r is not None:
                    if not (isinstance(r, tuple) and len(r) == 2):
                        raise RuntimeError(
                            f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {r}."
                        )
                    args, kwargs = r
                    args = args if isinstance(args, tuple) else (args,)
                continue
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        state = None
        if self._backward_hooks or self._backward_pre_hooks:
            args, state = self._wrap_inputs(args)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            r = hook.fn(self, args, kwargs, out) if isinstance(hook, _KwargsHook) else hook(self, args, out)
            if r is not None:
                out = r
        if state is not None:
            out = _wrap_outputs(out, state)
        if "_non_full_backward_hooks" in self.__dict__:  # register_backward_hook (deprecated form)
            attach_non_full_backward_hooks(self, args, out)
        return out

    def _wrap_inputs(self, args: tuple) -> tuple[tuple, _HookState]:
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        state = _HookState(self, len(args), pos)
        if pos:
            outs = _BackwardHookFn.apply(state.on_input, *[args[i] for i in pos])
            args = list(args)
            for i, o in zip(pos, outs):
                args[i] = o
            args = tuple(args)
        return args, state

    def extra_repr(self) -> str:
        """Extra text inside this module's repr (override in layers)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({k}): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        lines = extra_lines + child_lines
        s = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                s += extra_lines[0]
            else:
                s += "\n  " + "\n  ".join(lines) + "\n"
        return s + ")"


def _remove_from(d: dict, name: str, *stores: str) -> None:
    for s in stores:
        st = d.get(s)
        if st is not None and name in st:
            del st[name]


def _plain(t: Tensor) -> Tensor:
    p = Tensor._make(t._data)
    p._vc = t._vc
    return p
