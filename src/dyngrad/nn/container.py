"""Containers: Sequential, ModuleList, ModuleDict."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from .module import Module

__all__ = ["Sequential", "ModuleList", "ModuleDict", "DataParallel"]


def _index(idx: Any, n: int, who: str) -> int:
    idx = int(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range for {who} of length {n}")
    return idx % n


class Sequential(Module):
    """Runs its modules in order, each on the previous one's output.

    ``Sequential(m1, m2)`` names them '0', '1'; ``Sequential(OrderedDict(name=m))`` keeps
    the names. Supports ``len``, indexing, slicing (a new Sequential), iteration, ``append``,
    ``insert``, ``extend`` and ``del``.

    Args:
        *args: modules, in order, or one ``OrderedDict`` of named modules.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        >>> model(dyngrad.randn(3, 4)).shape
        dyngrad.Size([3, 2])
        >>> len(model), type(model[1]).__name__, len(model[:2])
        (3, 'ReLU', 2)
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for k, m in args[0].items():
                self.add_module(k, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            input = m(input)
        return input

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self), "Sequential")]
        self.add_module(key, module)

    def __delitem__(self, idx: Any) -> None:
        keys = list(self._modules)
        targets = keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(self), "Sequential")]]
        for k in targets:
            del self._modules[k]
        if all(k.isdigit() for k in self._modules):
            items = list(self._modules.values())
            self._modules.clear()
            for i, m in enumerate(items):
                self._modules[str(i)] = m

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        items = list(self._modules.values())
        n = len(items)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        items.insert(index % (n + 1) if index < 0 else index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)
        return self


class ModuleList(Module):
    """A list of modules, registered (so their parameters are the container's); indexing, slicing (a
    new ModuleList), ``append``, ``extend``, ``insert``, ``+=``, ``len`` and iteration as a Python
    list.

    Args:
        modules (iterable of Module, optional): the initial modules. Default: ``None``.
    Raises:
        TypeError: when an element is not a Module, or ``modules`` is not iterable.
        IndexError: when an index is out of range.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        >>> len(layers), len(list(layers.parameters()))
        (3, 6)
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx: Any) -> None:
        items = list(self._modules.values())
        del items[idx]
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys (so their parameters are the
    container's, named ``key.param``); ``[]``, ``in``, ``keys``, ``values``, ``items``, ``pop``,
    ``clear`` and ``update`` as a dict.

    Args:
        modules (mapping or iterable of (str, Module) pairs, optional): the initial modules.
            Default: ``None``.
    Raises:
        TypeError: when a value is not a Module or a key is not a string (or an element of
            ``modules`` is not a pair).
        KeyError: when a key contains ``"."`` or is empty, and when looking up a missing key.

    Example:
        >>> from dyngrad import nn
        >>> d = nn.ModuleDict({"enc": nn.Linear(2, 3), "act": nn.ReLU()})
        >>> list(d), "act" in d, [n for n, _ in d.named_parameters()]
        (['enc', 'act'], True, ['enc.weight', 'enc.bias'])
    """

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules: Any) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for k, m in items:
            self[k] = m


class DataParallel(Module):
    """PyTorch's ``nn.DataParallel`` on a machine without accelerators: it holds ``module``
    (so state-dict keys get PyTorch's ``module.`` prefix) and calls it on the whole batch, as
    PyTorch's does when no GPU is available (``device_ids`` is then empty).

    Args:
        module: the module to wrap.
        device_ids: accepted and ignored (there are no devices to scatter to).
        output_device: accepted and ignored.
        dim: the batch dimension PyTorch would scatter along (ignored here).
    Raises:
        Nothing of its own: calls raise what ``module`` raises (like PyTorch, a ``module``
        that is not a Module is accepted and fails when called).

    Example:
        >>> import dyngrad
        >>> net = dyngrad.nn.DataParallel(dyngrad.nn.Linear(2, 3))
        >>> net(dyngrad.ones(4, 2)).shape, list(net.state_dict())
        (dyngrad.Size([4, 3]), ['module.weight', 'module.bias'])
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[int] = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
