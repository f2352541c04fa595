"""What runs in a DataLoader worker process, and what crosses the process boundary.

Crossing the boundary: a batch is pickled (protocol 5) by :class:`_TensorPickler`, which
writes a Tensor as its ndarray (plus requires_grad): one copy of the array's bytes into the
pipe, one out. Tensors are otherwise never pickled (``Tensor.__reduce_ex__`` refuses, so that
``pickle`` cannot smuggle them past ``dyngrad.save``); this pickler is private to the loader.
Shared memory would save one copy per batch but needs lifetime management across processes
(PyTorch's file-descriptor passing); at the batch sizes a NumPy loader sees the copy costs
little next to the transform (benchmarks/dataloader_throughput.py).

Seeding (PyTorch's ``_worker_loop``): worker ``i`` gets ``seed = base_seed + i``, where
``base_seed`` is one int64 drawn from the loader's generator per iterator; it seeds Python's
``random`` and dyngrad's default Generator with ``seed``, and NumPy's legacy global RNG with
PyTorch's ``_generate_state(base_seed, i)`` (four 32-bit words, a SeedSequence-style hash), so
``np.random`` in a worker draws exactly what it draws under PyTorch 2.13 for that base seed.
"""

from __future__ import annotations

import io
import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...creation import manual_seed
from ...tensor import Tensor

MP_STATUS_CHECK_INTERVAL = 1.0
"""Seconds between checks that the other side is alive (PyTorch uses 5)."""


# --------------------------------------------------------------------- worker info
@dataclass(frozen=True)
class WorkerInfo:
    """What :func:`get_worker_info` returns in a worker process (a frozen dataclass; PyTorch keeps its
    class private, ``torch.utils.data._utils.worker.WorkerInfo``).

    Args:
        id (int): this worker's index in ``[0, num_workers)``.
        num_workers (int): the loader's number of workers.
        seed (int): the seed this worker's ``random`` and dyngrad's default Generator got
            (``base_seed + id``).
        dataset (Any): this worker's copy of the dataset.
    Raises:
        dataclasses.FrozenInstanceError: when an attribute is assigned.

    Example:
        >>> from dyngrad.utils.data import WorkerInfo
        >>> info = WorkerInfo(id=1, num_workers=4, seed=7, dataset=None)
        >>> info.id, info.num_workers
        (1, 4)
    """

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker process, the worker's :class:`WorkerInfo`; None in the main
    process. Use it in an IterableDataset's ``__iter__`` or a ``worker_init_fn`` to give each
    worker its own share of the data, or to seed other libraries from ``seed``.

    Returns:
        WorkerInfo or None.

    Example:
        >>> from dyngrad.utils.data import get_worker_info
        >>> get_worker_info() is None                     # in the main process
        True
    """
    return _worker_info


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """PyTorch's ``torch.utils.data._utils.worker._generate_state`` (adapted there from NumPy's
    SeedSequence, MIT licence): the four 32-bit words that seed ``np.random`` in a worker."""
    INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R, XSHIFT, MASK32 = 0xCA01F9DD, 0x4973F715, 16, 0xFFFFFFFF
    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    hash_a = INIT_A

    def hash_(value: int) -> int:
        nonlocal hash_a
        value = (value ^ hash_a) & MASK32
        hash_a = (hash_a * MULT_A) & MASK32
        value = (value * hash_a) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x: int, y: int) -> int:
        r = (((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)) & MASK32
        return (r ^ (r >> XSHIFT)) & MASK32

    pool = [hash_(e) for e in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash_(pool[i_src]))
    hash_b, state = INIT_B, []
    for v in pool:
        v = (v ^ hash_b) & MASK32
        hash_b = (hash_b * MULT_B) & MASK32
        v = (v * hash_b) & MASK32
        state.append((v ^ (v >> XSHIFT)) & MASK32)
    return state


def _seed_worker(base_seed: int, worker_id: int) -> int:
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


# --------------------------------------------------------------------- the boundary
def _rebuild_tensor(cls: type, data: np.ndarray, requires_grad: bool) -> Tensor:
    t = cls._make(data)  # type: ignore[attr-defined]
    t._requires_grad = requires_grad
    return t


class _TensorPickler(pickle.Pickler):
    """A pickler that writes a Tensor (any subclass) as ``(type, ndarray, requires_grad)``."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Tensor):
            if obj.grad_fn is not None:
                raise RuntimeError(
                    "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
                    "autograd does not support crossing process boundaries.  If you just want to "
                    "transfer the data, call detach() on the tensor before serializing (e.g., "
                    "putting it on the queue)."
                )
            return _rebuild_tensor, (type(obj), obj._data, obj._requires_grad)
        return NotImplemented


def dumps(obj: Any) -> bytes:
    buf = io.BytesIO()
    _TensorPickler(buf, protocol=5).dump(obj)
    return buf.getvalue()


def loads(data: bytes) -> Any:
    return pickle.loads(data)


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its traceback text
    (PyTorch's ``ExceptionWrapper``); ``reraise`` raises it there."""

    def __init__(self, where: str) -> None:
        exc_type, exc, tb = sys.exc_info()
        self.exc_type: type | None = exc_type
        self.exc_name = exc_type.__name__ if exc_type is not None else "Exception"
        self.exc_msg = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where

    def reraise(self) -> None:
        """Raise the worker's exception type with "Caught <Type> in DataLoader worker process
        <i>." and the original traceback as its message (RuntimeError where the type cannot be
        built from one string)."""
        msg = f"Caught {self.exc_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is None:  # a type the worker could not send (defined in a function)
            raise RuntimeError(msg)
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    """KeyError quotes its message with repr(); this keeps the traceback's newlines."""

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Sent to persistent workers at a new epoch: rebuild the fetcher, then acknowledge."""


# --------------------------------------------------------------------- fetching
class _Fetcher:
    """Turns one index (or list of indices) into one batch, in whichever process loads."""

    def __init__(self, dataset: Any, iterable: bool, auto_collation: bool, collate_fn: Any, drop_last: bool,
                 fast_tensors: bool) -> None:
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        self.drop_last, self.fast_tensors, self.ended = drop_last, fast_tensors, False
        self.dataset_iter = iter(dataset) if iterable else None

    def fetch(self, index: Any) -> Any:
        if self.dataset_iter is not None:
            return self._fetch_iterable(index)
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self.fast_tensors:  # TensorDataset + default_collate: one fancy-index per tensor
            ix = np.asarray(index, dtype=np.int64)
            return [t[Tensor._make(ix)] if t.requires_grad else Tensor._make(t._data[ix])
                    for t in self.dataset.tensors]
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        return self.collate_fn(data)

    def _fetch_iterable(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        assert self.dataset_iter is not None
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


# --------------------------------------------------------------------- the loop
def _worker_loop(payload: Any, pickled: bool, index_queue: Any, data_queue: Any, done_event: Any,
                 iterable: bool, auto_collation: bool, drop_last: bool, fast_tensors: bool,
                 base_seed: int, worker_id: int, num_workers: int) -> None:
    """A worker: seed, run ``worker_init_fn``, then answer ``(idx, index)`` requests with
    ``(idx, dumps(batch or ExceptionWrapper))`` until it receives None. Exits by itself when
    the main process dies (its parent pid changes)."""
    global _worker_info
    try:
        parent = os.getppid()
        seed = _seed_worker(base_seed, worker_id)
        init_error: ExceptionWrapper | None = None
        fetcher = None
        try:
            dataset, collate_fn, init_fn = loads(payload) if pickled else payload
            _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _Fetcher(dataset, iterable, auto_collation, collate_fn, drop_last, fast_tensors)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        iteration_end = False
        while os.getppid() == parent:
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                if fetcher is not None:
                    fetcher = _Fetcher(dataset, iterable, auto_collation, collate_fn, drop_last, fast_tensors)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            data: Any
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    assert fetcher is not None
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not iterable:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                    else:
                        data, iteration_end = _IterableDatasetStopIteration(worker_id), True
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            try:
                out = dumps(data)
            except Exception:
                if isinstance(data, ExceptionWrapper):  # an exception type pickle cannot reach
                    data.exc_type = None
                else:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id} (sending the batch)")
                out = dumps(data)
            data_queue.put((idx, out))
            del data, out, r, index
    except KeyboardInterrupt:
        pass  # the main process gets its own KeyboardInterrupt and shuts the workers down
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
