"""The DataLoader's iterators: in this process (``_SingleProcessIter``) and over worker
processes (``_MultiProcessIter``).

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
import multiprocessing as mp
import multiprocessing.util  # registers its atexit hook (it terminates daemonic workers) before ours
import os
import queue
import warnings
from typing import TYPE_CHECKING, Any

from ...creation import _gen
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
from .dataset import IterableDataset

if TYPE_CHECKING:
    from .dataloader import DataLoader

_python_exiting = False


def _set_python_exiting() -> None:
    global _python_exiting
    _python_exiting = True


atexit.register(_set_python_exiting)  # registered after multiprocessing's hook, so it runs first


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
