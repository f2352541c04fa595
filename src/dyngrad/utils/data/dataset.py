"""Datasets (PyTorch's ``torch.utils.data.dataset``): map-style and iterable-style, and the
wrappers that combine them (concatenate, chain, stack, subset, random split)."""

from __future__ import annotations

import bisect
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ...creation import Generator
from ...ops import randperm
from ...tensor import Tensor

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
    "Subset", "random_split",
]


class Dataset:
    """Map-style dataset: subclasses implement ``__getitem__(index)`` and usually ``__len__``
    (samplers and the DataLoader's length need it). ``a + b`` is ``ConcatDataset([a, b])``.

    A subclass may also define ``__getitems__(indices) -> list`` to load a whole batch at once;
    the DataLoader then calls it instead of ``__getitem__`` once per index (as PyTorch).

    Example:
        >>> import dyngrad
        >>> from dyngrad.utils.data import Dataset
        >>> class Squares(Dataset):
        ...     def __len__(self):
        ...         return 4
        ...     def __getitem__(self, i):
        ...         return dyngrad.tensor(float(i * i))
        >>> ds = Squares()
        >>> len(ds), ds[3], len(ds + ds)
        (4, tensor(9.), 8)
    """

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Iterable-style dataset: subclasses implement ``__iter__``. ``a + b`` chains them.

    With ``num_workers > 0`` every worker process iterates its own copy of the dataset; use
    :func:`get_worker_info` inside ``__iter__`` (or in a ``worker_init_fn``) to give each worker
    its own share, otherwise every sample arrives ``num_workers`` times (as in PyTorch).

    Example:
        >>> class Range(IterableDataset):
        ...     def __init__(self, n): self.n = n
        ...     def __iter__(self):
        ...         info = get_worker_info()
        ...         if info is None: return iter(range(self.n))
        ...         return iter(range(info.id, self.n, info.num_workers))
    """

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other: Dataset) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are ``tuple(t[i] for t in tensors)``.

    Args:
        *tensors: tensors with the same first dimension ``(N, *)``.
    Raises:
        ValueError: no tensors, or first dimensions that differ (all sizes named).

    Example:
        >>> import dyngrad
        >>> from dyngrad.utils.data import TensorDataset
        >>> ds = TensorDataset(dyngrad.arange(6.0).reshape(3, 2), dyngrad.tensor([0, 1, 0]))
        >>> len(ds), ds[1]
        (3, (tensor([2., 3.]), tensor(1)))
    """

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [t.shape[0] if t.ndim else None for t in tensors]
        if None in sizes or len(set(sizes)) != 1:
            raise ValueError(f"Size mismatch between tensors: first dimensions are {sizes}")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class StackDataset(Dataset):
    """Samples of several datasets of the same length side by side: ``StackDataset(a, b)[i]
    == (a[i], b[i])``, ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}``.

    Raises:
        ValueError: both positional and keyword datasets, none at all, or lengths that differ.

    Example:
        >>> from dyngrad.utils.data import StackDataset
        >>> StackDataset(range(2), [10, 11])[1], StackDataset(x=range(2), y=[10, 11])[0]
        ((1, 11), {'x': 0, 'y': 10})
    """

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        lengths = [len(d) for d in parts]  # type: ignore[arg-type]
        if any(n != lengths[0] for n in lengths):
            raise ValueError(f"Size mismatch between datasets: lengths are {lengths}")
        self._length = lengths[0]
        self.datasets: tuple | dict = tuple(args) if args else dict(kwargs)

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset):
    """The datasets one after another: index ``i`` reaches the dataset whose cumulative size first
    exceeds ``i`` (negative indices count from the end). ``a + b`` on datasets builds one.

    Args:
        datasets (iterable of Dataset): map-style datasets with lengths.
    Raises:
        AssertionError: no datasets, or an IterableDataset among them (PyTorch's checks).
        ValueError: a negative index beyond the total length.

    Example:
        >>> from dyngrad.utils.data import ConcatDataset
        >>> ds = ConcatDataset([range(2), range(3)])
        >>> len(ds), ds[3]
        (5, 1)
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes, total = [], 0
        for d in self.datasets:
            total += len(d)  # type: ignore[arg-type]
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        if d == len(self.datasets):
            raise IndexError(f"index {idx} is out of range for a ConcatDataset of length {len(self)}")
        return self.datasets[d][idx - (self.cumulative_sizes[d - 1] if d else 0)]


class ChainDataset(IterableDataset):
    """Iterable datasets chained one after another (lazily, as ``itertools.chain``).

    Args:
        datasets (iterable of IterableDataset): the datasets, in order.
    Raises:
        AssertionError: on ``len()`` when a member is not an IterableDataset.

    Example:
        >>> from dyngrad.utils.data import ChainDataset, IterableDataset
        >>> class Count(IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(ChainDataset([Count(2), Count(3)]))
        [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            assert isinstance(d, IterableDataset), "ChainDataset only supports IterableDataset"
            total += len(d)  # type: ignore[arg-type]
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices`` (``Subset(ds, idx)[i] == ds[idx[i]]``), as
    :func:`random_split` returns.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence of int): the indices in ``dataset`` to keep, in order.
    Raises:
        IndexError: (on access) an index outside ``indices`` or an entry of ``indices`` outside the
            dataset (the dataset's own error).

    Example:
        >>> import dyngrad
        >>> from dyngrad.utils.data import Subset
        >>> [int(x) for x in Subset(dyngrad.arange(10), [2, 5])]
        [2, 5]
    """

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list:
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])  # type: ignore[attr-defined]
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int | float], generator: Generator | None = None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths.

    Args:
        dataset: the dataset to split.
        lengths: lengths that sum to ``len(dataset)``, or fractions that sum to 1 (each subset
            gets ``floor(n * frac)`` samples and the remainder is dealt out one by one from the
            first subset, as PyTorch does).
        generator: draws the permutation (``dyngrad.randperm``; default: the default Generator).
    Returns:
        list[Subset]: one Subset per length.
    Raises:
        ValueError: a fraction outside [0, 1]; lengths that do not sum to ``len(dataset)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.utils.data import random_split
        >>> parts = random_split(range(10), [0.5, 0.3, 0.2], generator=dyngrad.Generator().manual_seed(0))
        >>> [len(p) for p in parts], sorted(i for p in parts for i in p) == list(range(10))
        ([5, 3, 2], True)
    """
    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(n * frac)))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError(f"Sum of input lengths ({sum(lengths)}) does not equal the length of the input "
                         f"dataset ({n})!")
    perm = randperm(n, generator=generator).tolist()
    out, start = [], 0
    for ln in lengths:
        out.append(Subset(dataset, perm[start : start + int(ln)]))
        start += int(ln)
    return out
