"""Reusable scratch arrays for the big-op kernels (convolution's im2col and col2im buffers).

Why: a training step allocates the same few large temporaries every step (several MiB
each). glibc returns freed large blocks to the operating system (heap trimming, and
``mmap``/``munmap`` for the largest), so each step faults every page in again: ~2,000 minor
page faults and a few ms of system time per conv step on this machine (benchmarks/RESULTS.md).
Keeping the buffers and handing them out again removes that without changing the
process's allocator settings (no ``mallopt``, no environment variables).

Safety: a buffer is handed out again only when nothing but the pool references it
(``sys.getrefcount``; every NumPy view of a buffer holds a reference to it, so a live view,
a Tensor wrapping it, or a node's saved im2col matrix keeps it taken). Under CPython this is
exact. The pool keeps at most ``_MAX_BYTES`` of buffers (least recently used dropped first)
and only buffers of at least ``_MIN_BYTES`` (smaller ones come from NumPy's own cache).
:func:`clear` drops everything.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

import numpy as np

__all__: list[str] = []

_MIN_BYTES = 1 << 18  # 256 KiB: below this malloc keeps the block and reuse gains nothing
_MAX_BYTES = 96 << 20  # the most the pool keeps alive (the conv benchmark step needs ~40 MiB)
_PER_KEY = 4  # buffers kept per (nbytes, dtype)

_lock = threading.Lock()
_pool: OrderedDict[tuple, list[np.ndarray]] = OrderedDict()
_held = [0]  # bytes held by the pool


def empty(shape: tuple, dtype: np.dtype | type) -> np.ndarray:
    """An uninitialised C-contiguous array of ``shape`` and ``dtype``, from the pool when a
    free buffer of the same size exists (else newly allocated and remembered)."""
    dt = np.dtype(dtype)
    n = 1
    for s in shape:
        n *= int(s)
    nbytes = n * dt.itemsize
    if nbytes < _MIN_BYTES:
        return np.empty(shape, dt)
    key = (nbytes, dt)
    with _lock:
        bufs = _pool.get(key)
        if bufs is not None:
            _pool.move_to_end(key)
            for b in bufs:
                # 3: the list, the loop variable and getrefcount's argument
                if sys.getrefcount(b) == 3:
                    return b.reshape(shape)
        if _held[0] + nbytes > _MAX_BYTES:
            _evict(nbytes)
        b = np.empty(n, dt)
        if bufs is None:
            bufs = _pool[key] = []
        if len(bufs) < _PER_KEY and _held[0] + nbytes <= _MAX_BYTES:
            bufs.append(b)
            _held[0] += nbytes
        return b.reshape(shape)


def zeros(shape: tuple, dtype: np.dtype | type) -> np.ndarray:
    """:func:`empty` filled with zeros (a memset of memory already mapped, where
    ``np.zeros`` of a large block gets fresh pages from the OS and faults each one in)."""
    out = empty(shape, dtype)
    out.fill(0)
    return out


def _evict(need: int) -> None:
    """Drop free buffers, least recently used first, until ``need`` more bytes fit."""
    for key in list(_pool):
        bufs = _pool[key]
        for i in range(len(bufs) - 1, -1, -1):
            if _held[0] + need <= _MAX_BYTES:
                return
            if sys.getrefcount(bufs[i]) == 2:  # the list and the argument: free
                del bufs[i]
                _held[0] -= key[0]
        if not bufs:
            del _pool[key]


def clear() -> None:
    """Forget every buffer (those still in use stay valid: they are ordinary arrays)."""
    with _lock:
        _pool.clear()
        _held[0] = 0
