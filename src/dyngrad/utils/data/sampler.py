"""Samplers (PyTorch's ``torch.utils.data.sampler``): which indices, in which order.

The random samplers draw through dyngrad's random ops (``randperm``, ``randint``,
``multinomial``) with the sampler's Generator, following PyTorch's algorithm step for step
(the same calls, chunks and seeding). The numbers differ from PyTorch's because dyngrad's
Generator is NumPy's PCG64, not PyTorch's MT19937 (docs/data.md, "Reproducibility").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ...creation import Generator, _gen
from ...ops import multinomial, randint, randperm
from ...tensor import Tensor

__all__ = [
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
    "BatchSampler",
]


class Sampler:
    """Base class: yields dataset indices (or, for a batch sampler, lists of them); subclasses
    implement ``__iter__`` and, when they can, ``__len__``.

    Args:
        data_source (Any, optional): accepted and ignored (PyTorch 2.13's ``Sampler()`` takes no
            arguments; older versions took one). Default: ``None``.
    Raises:
        NotImplementedError: iterating the base class itself.

    Example:
        >>> from dyngrad.utils.data import Sampler
        >>> class Backwards(Sampler):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n - 1, -1, -1))
        ...     def __len__(self):
        ...         return self.n
        >>> list(Backwards(3))
        [2, 1, 0]
    """

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Indices ``0 .. len(data_source) - 1`` in order (the DataLoader's default without ``shuffle``).

    Args:
        data_source (Sized): the dataset; only its length is read, at each iteration.
    Raises:
        TypeError: (when iterated) a ``data_source`` without ``len()``.

    Example:
        >>> from dyngrad.utils.data import SequentialSampler
        >>> list(SequentialSampler(range(3)))
        [0, 1, 2]
    """

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _fresh_generator(generator: Generator | None) -> Generator:
    """``generator``, or (None) a new Generator seeded with one int64 drawn from the default
    Generator: PyTorch's RandomSampler does this so that one epoch takes exactly one draw
    from the global generator, whatever its length."""
    if generator is not None:
        return generator
    return Generator().manual_seed(int(_gen(None).integers(0, 2**63 - 1)))


class RandomSampler(Sampler):
    """Random order: a permutation per ``len(data_source)`` samples, or draws with replacement.

    Args:
        data_source: the dataset (only its length is read, at each iteration).
        replacement: draw with replacement (in chunks of 32, as PyTorch).
        num_samples: how many indices per epoch (default ``len(data_source)``); without
            replacement more than ``len`` gives whole permutations followed by part of one.
        generator: the Generator to draw from; None draws a fresh seed from the default
            Generator each epoch (so ``dyngrad.manual_seed`` makes epochs reproducible).
    Raises:
        TypeError: ``replacement`` not a bool.
        ValueError: ``num_samples`` not a positive int.

    Example:
        >>> import dyngrad
        >>> from dyngrad.utils.data import RandomSampler
        >>> sorted(RandomSampler(range(4)))                                  # a permutation
        [0, 1, 2, 3]
        >>> len(list(RandomSampler(range(4), replacement=True, num_samples=7)))
        7
    """

    def __init__(self, data_source: Any, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        ns = self.num_samples
        if isinstance(ns, bool) or not isinstance(ns, int) or ns <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={ns}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        g = _fresh_generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), generator=g).tolist()
            yield from randint(0, n, (self.num_samples % 32,), generator=g).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=g).tolist()
            yield from randperm(n, generator=g).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a fresh permutation each epoch).

    Args:
        indices: the indices to sample from.
        generator: the Generator for the permutation (default: the default Generator).

    Raises:
        TypeError: (when iterated) ``indices`` without ``len()``.

    Example:
        >>> from dyngrad.utils.data import SubsetRandomSampler
        >>> sorted(SubsetRandomSampler([3, 7, 9]))
        [3, 7, 9]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Indices ``0 .. len(weights) - 1`` drawn with probabilities proportional to ``weights``
    (``dyngrad.multinomial``).

    Args:
        weights (sequence of float or Tensor): ``(N,)``, non-negative, one per index (need not
            sum to 1).
        num_samples: indices per epoch.
        replacement: draw with replacement (default); without, each index at most once.
        generator: the Generator to draw from.
    Raises:
        ValueError: ``num_samples`` not a positive int, ``replacement`` not a bool, weights
            not 1-d.
        RuntimeError: (when iterated) negative weights, or more samples than non-zero weights
            without replacement (from ``multinomial``).

    Example:
        >>> from dyngrad.utils.data import WeightedRandomSampler
        >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 4))                 # only index 1 has weight
        [1, 1, 1, 1]
    """

    def __init__(self, weights: Sequence[float] | Tensor, num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = weights._data if isinstance(weights, Tensor) else weights
        arr = np.asarray(w, dtype=np.float64)
        if arr.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(arr.shape)}")
        self.weights = Tensor._make(arr)
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of ``batch_size``.

    Args:
        sampler: any iterable of indices (a Sampler, a list, a range).
        batch_size: indices per batch.
        drop_last: drop the last batch when it is shorter than ``batch_size``.
    Raises:
        ValueError: ``batch_size`` not a positive int, ``drop_last`` not a bool.
    Example:
        >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False))
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        if self.drop_last:
            for batch in zip(*[it] * self.batch_size):
                yield [*batch]
            return
        batch = [*itertools.islice(it, self.batch_size)]
        while batch:
            yield batch
            batch = [*itertools.islice(it, self.batch_size)]

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class _InfiniteConstantSampler(Sampler):
    """``None`` forever: the index stream of an IterableDataset (the dataset decides the end)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None
