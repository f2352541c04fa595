"""DataLoader (PyTorch's ``torch.utils.data.DataLoader``): batches from a dataset, loaded in
this process (``num_workers=0``) or in worker processes (the iterators: ``_iterators.py``)."""

from __future__ import annotations

import math
import multiprocessing as mp
import multiprocessing.context
from collections.abc import Callable, Iterator
from typing import Any

from ...creation import Generator
from ._iterators import _MultiProcessIter, _SingleProcessIter
from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _InfiniteConstantSampler

__all__ = ["DataLoader"]

_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class DataLoader:
    """Iterate over a dataset in (optionally shuffled) mini-batches, optionally loading them in
    worker processes.

    Args:
        dataset: a map-style Dataset (``__getitem__``, ``__len__``) or an IterableDataset.
        batch_size: samples per batch (a positive int), or None to yield single samples
            (each passed through ``collate_fn``, default :func:`default_convert`).
        shuffle: a new random order each epoch (a :class:`RandomSampler` over ``generator``).
        sampler: the order of indices (any iterable of indices); excludes ``shuffle``.
        batch_sampler: yields lists of indices; excludes ``batch_size``, ``shuffle``,
            ``sampler`` and ``drop_last``.
        num_workers: worker processes (0: load in this process).
        collate_fn: merges a list of samples into a batch (default :func:`default_collate`).
            With workers it runs in the workers; the start methods other than fork pickle it.
        pin_memory: accepted for compatibility; a no-op (dyngrad's tensors live in host
            memory, there is no device to pin for).
        drop_last: drop the last incomplete batch.
        timeout: with workers, seconds to wait for a batch before raising RuntimeError
            (0: wait forever, checking every second that the workers are alive).
        worker_init_fn: called as ``worker_init_fn(worker_id)`` in each worker after seeding,
            before loading.
        multiprocessing_context: a start method name (``'fork'``, ``'spawn'``,
            ``'forkserver'``) or a ``multiprocessing`` context; default: the platform's
            (fork on Linux before Python 3.14). Under spawn/forkserver the dataset,
            ``collate_fn`` and ``worker_init_fn`` must be picklable (module-level).
        generator: draws the shuffle order and, per iterator, the workers' ``base_seed``.
        prefetch_factor: batches in flight per worker (default 2 with workers; must be None
            without).
        persistent_workers: keep the workers alive between epochs.
        pin_memory_device: accepted for compatibility; ignored.
        in_order: yield batches in sampler order (default); False yields them as they arrive.
    Raises:
        ValueError: PyTorch's argument checks (batch_size not a positive int or None;
            ``shuffle`` with ``sampler``; ``batch_sampler`` with other batching options;
            ``drop_last`` without ``batch_size``; an IterableDataset with a sampler or shuffle;
            negative ``num_workers``/``timeout``/``prefetch_factor``; ``prefetch_factor``,
            ``persistent_workers``, ``multiprocessing_context`` or ``timeout`` without
            workers; an unknown start method).
        TypeError: ``multiprocessing_context`` neither a name nor a context.
    Example:
        >>> import dyngrad
        >>> from dyngrad.utils.data import TensorDataset
        >>> x, y = dyngrad.randn(100, 3), dyngrad.arange(100)
        >>> loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)  # num_workers=2: worker processes
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
        collate_fn: Callable[[Any], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and timeout != 0:
            raise ValueError("timeout option needs num_workers > 0 (it bounds the wait for a worker's batch)")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to enable "
                "multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        if isinstance(dataset, IterableDataset):
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.prefetch_factor, self.timeout = num_workers, prefetch_factor, timeout
        self.pin_memory, self.pin_memory_device, self.in_order = pin_memory, pin_memory_device, in_order
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = _check_context(multiprocessing_context, num_workers)
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_sampler is not None else default_convert)
        self._fast_tensors = collate_fn is None and type(dataset) is TensorDataset and batch_sampler is not None
        self.persistent_workers = persistent_workers
        self._iterator: _MultiProcessIter | None = None
        self._IterableDataset_len_called: int | None = None
        self._initialized = True

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__dict__.get("_initialized") and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def multiprocessing_context(self) -> Any:
        """The ``multiprocessing`` context the workers start from (None: the platform's
        default); settable with a start method name or a context, checked as in ``__init__``."""
        return self.__dict__["_mp_context"]

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx: Any) -> None:
        self.__dict__["_mp_context"] = _check_context(ctx, self.num_workers)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None or self._iterator._shutdown:  # (a dead worker shuts it down)
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._reset(self)
        return self._iterator

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = self._IterableDataset_len_called = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self._index_sampler)


def _check_context(ctx: Any, num_workers: int) -> Any:
    if ctx is None:
        return None
    if num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading (num_workers > 0), but got "
            f"num_workers={num_workers}"
        )
    if isinstance(ctx, str):
        methods = mp.get_all_start_methods()
        if ctx not in methods:
            raise ValueError(
                f"multiprocessing_context option should specify a valid start method in {methods!r}, but got "
                f"multiprocessing_context={ctx!r}"
            )
        return mp.get_context(ctx)
    if not isinstance(ctx, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a string specifying the start "
            f"method, but got multiprocessing_context={ctx}"
        )
    return ctx
