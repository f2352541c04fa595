"""``torch.nn.modules.utils`` (PyTorch's module path): the argument normalisers layers use
(``_pair(3) == (3, 3)``) and ``consume_prefix_in_state_dict_if_present``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A function making an ``n``-tuple of its argument (an iterable is returned as a tuple
    unchanged), as PyTorch's ``_ntuple``: ``_ntuple(2)(3) == (3, 3)``."""

    def parse(x: Any) -> tuple:
        if isinstance(x, Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple([x] * n)

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def consume_prefix_in_state_dict_if_present(state_dict: Any, prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place (the
    ``"module."`` a ``DataParallel`` checkpoint adds), also in its ``_metadata``.

    Args:
        state_dict (dict): the state dict, changed in place (renamed keys move to the end, as
            in PyTorch).
        prefix (str): the prefix to remove.
    Returns:
        None.
    Raises:
        Nothing beyond what the mapping raises.

    Shapes: the values are not touched.

    Example:
        >>> from collections import OrderedDict
        >>> from dyngrad.nn.modules.utils import consume_prefix_in_state_dict_if_present
        >>> sd = OrderedDict([("module.w", 1), ("b", 2)])
        >>> consume_prefix_in_state_dict_if_present(sd, "module.")
        >>> list(sd)
        ['b', 'w']
    """
    keys = list(state_dict.keys())
    for key in keys:
        if key.startswith(prefix):  # (re-inserted at the end, as PyTorch)
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix):]] = metadata.pop(key)
