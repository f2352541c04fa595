"""Collation (PyTorch's ``torch.utils.data._utils.collate``): a list of samples to a batch
(``default_collate``), and a single sample's arrays to tensors (``default_convert``)."""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ops import stack
from ...tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_STR_OBJ = re.compile(r"[SaUO]")  # numpy dtype codes of strings and objects: not collated
_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data: Any) -> Any:
    """Convert NumPy arrays (and NumPy scalars) in ``data`` to tensors, keeping the structure:
    what a DataLoader with ``batch_size=None`` applies to each sample.

    Mappings are converted per value, namedtuples per field, tuples become lists (PyTorch's
    backwards-compatible choice), other sequences keep their type; everything else (tensors,
    numbers, strings, string arrays) is returned unchanged.

    Args:
        data: a sample.
    Returns:
        the sample with its arrays as tensors.

    Raises:
        Nothing of its own: any value it cannot convert is returned unchanged.

    Example:
        >>> import numpy as np
        >>> from dyngrad.utils.data import default_convert
        >>> default_convert({"a": np.array([1.0, 2.0])}), default_convert((np.int64(3), "s"))
        ({'a': tensor([1., 2.], dtype=dyngrad.float64)}, [tensor(3), 's'])
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (np.ndarray, np.generic)) and not isinstance(data, (np.str_, np.bytes_)):
        if _STR_OBJ.search(data.dtype.str) is not None:
            return data
        return Tensor._make(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            return type(data)({k: default_convert(v) for k, v in data.items()})  # type: ignore[call-arg]
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])  # type: ignore[call-arg]
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch, like PyTorch's ``default_collate``.

    ======================== ===========================================================
    sample element           batch
    ======================== ===========================================================
    Tensor ``(*)``           ``stack`` along a new dim 0: ``(B, *)`` (the graph is kept)
    ndarray ``(*)``          a Tensor ``(B, *)``, dtype kept
    NumPy scalar             a Tensor ``(B,)``, dtype kept (``np.float32`` -> float32)
    bool / int / float       bool / int64 / float64 Tensor ``(B,)``
    str / bytes              the list of them
    Mapping                  the same mapping type, collated per key
    namedtuple               the same namedtuple, collated per field
    tuple                    a *list*, collated per position (PyTorch's choice)
    other Sequence (list)    the same type, collated per position
    ======================== ===========================================================

    Args:
        batch: a list of samples of one structure.
    Returns:
        the batch.
    Raises:
        TypeError: an element type it cannot collate (strings or objects in an ndarray, an
            arbitrary object), with PyTorch's message.
        RuntimeError: sequences of different lengths; tensors of different shapes (``stack``).
    Example:
        >>> default_collate([{"x": [1.0, 2.0], "y": 1}, {"x": [3.0, 4.0], "y": 0}])
        {'x': [tensor([1., 3.], dtype=dyngrad.float64), tensor([2., 4.], dtype=dyngrad.float64)], 'y': tensor([1, 0])}
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, (np.ndarray, np.generic)) and not isinstance(elem, (np.str_, np.bytes_)):
        if _STR_OBJ.search(elem.dtype.str) is not None:
            raise TypeError(_ERR.format(elem.dtype))
        if isinstance(elem, np.ndarray) and elem.ndim:
            return default_collate([Tensor._make(np.asarray(b)) for b in batch])
        return Tensor._make(np.array(batch))
    if isinstance(elem, bool):
        return Tensor._make(np.array(batch, dtype=np.bool_))
    if isinstance(elem, int):
        return Tensor._make(np.array(batch, dtype=np.int64))
    if isinstance(elem, float):
        return Tensor._make(np.array(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(out)
                return clone
            return type(elem)(out)  # type: ignore[call-arg]
        except TypeError:
            return out
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(s) != n for s in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        cols = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return cols
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, c in enumerate(cols):
                    clone[i] = c
                return clone
            return type(elem)(cols)  # type: ignore[call-arg]
        except TypeError:
            return cols
    raise TypeError(_ERR.format(type(elem)))
