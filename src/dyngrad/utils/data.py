"""Datasets and a minimal DataLoader (PyTorch's ``torch.utils.data``, single process)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..creation import Generator, _gen
from ..tensor import Tensor

__all__ = [
    "Dataset", "TensorDataset", "DataLoader", "Sampler", "SequentialSampler", "RandomSampler",
    "BatchSampler", "default_collate", "random_split", "Subset",
]


class Dataset:
    """Map-style dataset: subclasses implement ``__getitem__(index)`` and ``__len__``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")


class TensorDataset(Dataset):
    """Samples are ``tuple(t[i] for t in tensors)``.

    Args:
        *tensors: tensors with the same first dimension ``(N, *)``.
    Raises:
        ValueError: no tensors, or first dimensions that differ (all sizes named).
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


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int], generator: Generator | None = None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths.

    Raises:
        ValueError: lengths that do not sum to ``len(dataset)``.
    """
    n = len(dataset)  # type: ignore[arg-type]
    if sum(lengths) != n:
        raise ValueError(f"Sum of input lengths ({sum(lengths)}) does not equal the length of the dataset ({n})")
    perm = _gen(generator).permutation(n).tolist()
    out, start = [], 0
    for ln in lengths:
        out.append(Subset(dataset, perm[start : start + ln]))
        start += ln
    return out


class Sampler:
    """Yields dataset indices."""

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices ``0 .. len(data_source) - 1`` in order."""

    def __init__(self, data_source: Any) -> None:
        self.n = len(data_source)

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.n))

    def __len__(self) -> int:
        return self.n


class RandomSampler(Sampler):
    """A fresh random permutation per epoch, drawn from ``generator`` (default: dyngrad's
    default Generator, so ``dyngrad.manual_seed`` makes epochs reproducible)."""

    def __init__(self, data_source: Any, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:
        self.n = len(data_source)
        self.replacement, self.generator = replacement, generator
        self.num_samples = self.n if num_samples is None else num_samples

    def __iter__(self) -> Iterator[int]:
        rng = _gen(self.generator)
        if self.replacement:
            return iter(rng.integers(0, self.n, self.num_samples).tolist())
        return iter(rng.permutation(self.n)[: self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of ``batch_size``.

    Raises:
        ValueError: ``batch_size`` not a positive int.
    """

    def __init__(self, sampler: Any, batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch, like PyTorch's ``default_collate``.

    Tensors and ndarrays are stacked along a new dim 0; Python ints/floats/bools become
    int64/float64/bool tensors; strings stay a list; tuples/lists are collated per position
    and dicts per key (recursively).

    Raises:
        TypeError: an element type it cannot collate, or samples of different structure.
        RuntimeError: tensors of different shapes (from ``stack``).
    """
    from ..ops import stack

    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        return Tensor._make(np.stack(batch))
    if isinstance(elem, bool):
        return Tensor._make(np.array(batch, dtype=np.bool_))
    if isinstance(elem, (int, np.integer)):
        return Tensor._make(np.array(batch, dtype=np.int64))
    if isinstance(elem, (float, np.floating)):
        return Tensor._make(np.array(batch, dtype=np.float64))
    if isinstance(elem, str):
        return list(batch)
    if isinstance(elem, dict):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, (tuple, list)):
        n = len(elem)
        if any(len(s) != n for s in batch):
            raise TypeError("default_collate: each element in list of batch should be of equal size")
        cols = [default_collate([s[i] for s in batch]) for i in range(n)]
        return tuple(cols) if isinstance(elem, tuple) else cols
    raise TypeError(
        f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {type(elem).__name__}"
    )


class DataLoader:
    """Iterate over a dataset in (optionally shuffled) mini-batches, in this process.

    Args:
        dataset: a map-style dataset (``__getitem__`` and ``__len__``).
        batch_size: samples per batch (a positive int), or None to yield single samples.
        shuffle: draw a new random order each epoch (from ``generator``).
        sampler: a custom index sampler (excludes ``shuffle``).
        num_workers: accepted for compatibility; only 0 (loading in this process).
        collate_fn: merges a list of samples into a batch (default :func:`default_collate`).
        drop_last: drop the last incomplete batch.
        generator: the Generator used for shuffling.
    Raises:
        ValueError: ``batch_size <= 0``; ``shuffle`` together with ``sampler``;
            ``num_workers != 0``.
    Example:
        >>> import dyngrad
        >>> x, y = dyngrad.randn(100, 3), dyngrad.arange(100)
        >>> loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
        >>> [tuple(xb.shape) for xb, yb in loader]
        [(32, 3), (32, 3), (32, 3), (4, 3)]
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Any = None,
        generator: Generator | None = None,
        **kwargs: Any,
    ) -> None:
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if num_workers != 0:
            raise ValueError(f"dyngrad's DataLoader loads in this process only; num_workers must be 0, got {num_workers}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.generator = generator
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        self.sampler = sampler
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_sampler = batch_sampler
        self._default_collate = collate_fn is None
        self.collate_fn = collate_fn or default_collate

    def __iter__(self) -> Iterator[Any]:
        if self.batch_sampler is None:
            for i in self.sampler:
                yield self.dataset[i]
            return
        fast = self._default_collate and type(self.dataset) is TensorDataset
        for idx in self.batch_sampler:
            if fast:  # one fancy-index per tensor instead of stacking samples one by one
                ix = np.asarray(idx, dtype=np.int64)
                yield tuple(t[Tensor._make(ix)] if t.requires_grad else Tensor._make(t._data[ix])
                            for t in self.dataset.tensors)
            else:
                yield self.collate_fn([self.dataset[i] for i in idx])

    def __len__(self) -> int:
        if self.batch_sampler is None:
            return len(self.sampler)
        return len(self.batch_sampler)
