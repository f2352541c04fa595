"""DataLoader (PyTorch's ``torch.utils.data.DataLoader``): batches from a dataset, loaded in
this process (``num_workers=0``) or in worker processes.

The multi-process iterator is PyTorch's design, step for step: one index queue per worker
and one shared result queue; batch ``k`` goes to worker ``k % num_workers`` (skipping workers
whose IterableDataset copy ended); at most ``prefetch_factor`` batches per worker are in
flight; results that arrive early wait in a dict so batches come out in sampler order (equal
to ``num_workers=0``) unless ``in_order=False``. Shutdown (end of epoch, error, ``break``,
``del``, KeyboardInterrupt, garbage collection) sets an event, sends None to every worker,
joins them with a timeout and terminates any that do not exit, so no process outlives the
iterator (or, with ``persistent_workers``, the loader).
"""

from __future__ import annotations

import atexit
import itertools
import math
import multiprocessing as mp
import multiprocessing.context
import multiprocessing.util  # registers its atexit hook (it terminates daemonic workers) before ours
import os
import queue
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from ...creation import Generator, _gen
from ._worker import (
    MP_STATUS_CHECK_INTERVAL,
    ExceptionWrapper,
    _Fetcher,
    _IterableDatasetStopIteration,
    _ResumeIteration,
    _worker_loop,
    dumps,
    loads,
)
from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _InfiniteConstantSampler

__all__ = ["DataLoader"]

_python_exiting = False


def _set_python_exiting() -> None:
    global _python_exiting
    _python_exiting = True


atexit.register(_set_python_exiting)  # registered after multiprocessing's hook, so it runs first

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
        >>> loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True, num_workers=2)
        >>> for xb, yb in loader: ...
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


class _BaseIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._iterable = isinstance(loader.dataset, IterableDataset)
        self._auto_collation, self._drop_last = loader._auto_collation, loader.drop_last
        self._index_sampler, self._collate_fn = loader._index_sampler, loader.collate_fn
        self._fast_tensors, self._num_workers, self._timeout = loader._fast_tensors, loader.num_workers, loader.timeout
        self._sampler_iter = iter(self._index_sampler)
        # one int64 from the loader's generator per iterator, as PyTorch (also without workers,
        # so that the generator's stream is the same whatever num_workers)
        self._base_seed = int(_gen(loader.generator).integers(0, 2**63))
        self._num_yielded = 0
        self._len_called = loader._IterableDataset_len_called

    def _reset(self, loader: DataLoader) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._len_called = loader._IterableDataset_len_called

    def __iter__(self) -> _BaseIter:
        return self

    def _next_data(self) -> Any:
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if self._iterable and self._len_called is not None and self._num_yielded > self._len_called:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._len_called} (when accessing "
                   f"len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker (see get_worker_info).")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = _Fetcher(self._dataset, self._iterable, self._auto_collation, self._collate_fn,
                                 self._drop_last, self._fast_tensors)

    def _next_data(self) -> Any:
        return self._fetcher.fetch(next(self._sampler_iter))  # StopIteration ends the epoch


class _MultiProcessIter(_BaseIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor or 0
        if self._prefetch_factor <= 0:
            raise ValueError("prefetch_factor must be greater than 0 when num_workers > 0")
        self._in_order, self._persistent = loader.in_order, loader.persistent_workers
        self._shutdown, self._pid = False, os.getpid()
        self._workers: list[Any] = []
        self._index_queues: list[Any] = []
        ctx = loader.multiprocessing_context or mp.get_context()
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        triple = (self._dataset, self._collate_fn, loader.worker_init_fn)
        pickled = ctx.get_start_method() != "fork"  # fork shares memory: nothing to pickle
        try:
            payload = dumps(triple) if pickled else triple
        except Exception as e:
            if hasattr(e, "add_note"):  # Python >= 3.11
                e.add_note(f"DataLoader: the '{ctx.get_start_method()}' start method pickles the dataset, collate_fn and "
                           "worker_init_fn for the workers; define them at module level (no lambdas or local "
                           "classes), or use multiprocessing_context='fork' where available")
            raise
        try:
            for i in range(self._num_workers):
                iq = ctx.Queue()
                iq.cancel_join_thread()
                w = ctx.Process(
                    target=_worker_loop,
                    args=(payload, pickled, iq, self._result_queue, self._done_event, self._iterable,
                          self._auto_collation, self._drop_last, self._fast_tensors, self._base_seed, i,
                          self._num_workers),
                    daemon=True,
                )
                w.start()
                self._index_queues.append(iq)
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:  # type: ignore[override]
        super()._reset(loader)
        self._send_idx = self._rcvd_idx = 0
        self._task_info: dict[int, tuple] = {}  # idx -> (worker,) outstanding, (worker, data) arrived early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: a new epoch; wait until every worker acknowledged
            for q in self._index_queues:
                q.put(_ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout: float) -> tuple[bool, Any]:
        try:
            return True, self._result_queue.get(timeout=timeout)
        except queue.Empty:
            failed = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            if failed:
                for i, w in enumerate(self._workers):
                    if w in failed:
                        self._mark_worker_unavailable(i)
                pids = ", ".join(str(w.pid) for w in failed)
                self._shutdown_workers()
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from None
            return False, None

    def _get_data(self) -> Any:
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            ok, data = self._try_get_data(MP_STATUS_CHECK_INTERVAL)
            if ok:
                return data

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except KeyboardInterrupt:  # Ctrl-C while waiting: stop the workers now, not when the
            if not self._persistent:  # traceback that holds this iterator is freed (a notebook
                self._shutdown_workers()  # keeps it as sys.last_traceback)
            raise

    def _next_data(self) -> Any:
        while True:
            while self._rcvd_idx < self._send_idx:  # skip tasks of workers whose iterable ended
                info = self._task_info.get(self._rcvd_idx)
                if info and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                worker, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process(data, worker)
            assert not self._shutdown and self._tasks_outstanding > 0
            idx, raw = self._get_data()
            self._tasks_outstanding -= 1
            data = loads(raw)
            if isinstance(data, _IterableDatasetStopIteration):
                if self._persistent:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    return self._process(data, self._task_info.pop(idx)[0])
                self._task_info[idx] += (data,)
            else:
                worker = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process(data, worker)

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next worker still active (and with capacity)
            w = next(self._worker_cycle)
            if self._workers_status[w] and (
                    self._in_order or self._workers_num_tasks[w] < max_tasks // sum(self._workers_status)):
                break
        else:
            return
        self._index_queues[w].put((self._send_idx, index))
        self._task_info[self._send_idx] = (w,)
        self._workers_num_tasks[w] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process(self, data: Any, worker: int) -> Any:
        self._workers_num_tasks[worker] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            if not self._persistent:  # the epoch is over: stop the workers now, not when the
                self._shutdown_workers()  # traceback (which holds this iterator) is collected
            data.reraise()
        return data

    def _mark_worker_unavailable(self, worker: int) -> None:
        self._index_queues[worker].put(None)
        self._workers_status[worker] = False

    def _shutdown_workers(self) -> None:
        if _python_exiting or self._shutdown or os.getpid() != self._pid:
            # at exit, multiprocessing terminates the (daemonic) workers itself; and a forked
            # worker that garbage-collects its copy of an old iterator must not touch it
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for q in self._index_queues:
                q.put(None)
            for w in self._workers:
                w.join(timeout=5 * MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=MP_STATUS_CHECK_INTERVAL)
            self._result_queue.cancel_join_thread()
            self._result_queue.close()

    def __del__(self) -> None:
        if hasattr(self, "_shutdown"):
            self._shutdown_workers()

    def __getstate__(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__} cannot be pickled")
