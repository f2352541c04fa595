"""DistributedDataParallel on dyngrad.distributed (MPI).

How the gradients travel (PyTorch's reducer, in Python):

* At construction the parameters are split into buckets (reverse registration order, the
  order gradients usually become ready; one dtype per bucket; the first bucket 1 MiB, or
  ``bucket_cap_mb`` if smaller,
  the others ``bucket_cap_mb``), each with one flat NumPy buffer. Every parameter's shape is
  compared across the ranks, then parameters and buffers are broadcast from rank 0. After
  the first synchronised backward the buckets are rebuilt once in the order rank 0's
  gradients became ready (PyTorch does the same).
* Each parameter has a post-accumulate-grad hook. When it fires, the parameter's ``.grad``
  is copied into its bucket; when a bucket is full, its non-blocking all-reduce (MPI
  ``Iallreduce``) starts, buckets strictly in index order on every rank (MPI matches
  collectives by order). The first hook of a pass queues a callback at the end of the
  backward pass (``autograd.engine.queue_callback``) that waits for the all-reduces and
  writes ``sum / world_size`` back into every ``.grad``.
* Overlap: dyngrad's engine adds into an existing ``.grad`` as soon as it is complete but
  sets a ``.grad`` that was None only after the whole pass (engine.py, invariant 4). So the
  all-reduces overlap the rest of backward when the gradients exist at backward time
  (``optimizer.zero_grad(set_to_none=False)``, gradient accumulation); after
  ``zero_grad()`` (set to None) they start one after the other at the end of the pass and
  overlap only each other and the copies.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from ... import distributed as dist
from ...autograd import grad_mode
from ...autograd.engine import queue_callback
from ...tensor import Tensor
from ..module import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024
_DEFAULT_BUCKET_MB = 25.0


class _Bucket:
    __slots__ = ("index", "params", "offsets", "flat", "pending", "work")

    def __init__(self, index: int, params: list, dtype: np.dtype) -> None:
        self.index = index
        self.params = params  # indices into DDP._params
        self.offsets: list[int] = []
        self.flat = np.empty(0, dtype=dtype)
        self.pending = 0
        self.work: Any = None


class DistributedDataParallel(Module):
    """Data parallelism across processes (PyTorch's ``nn.parallel.DistributedDataParallel``):
    every rank holds a replica of ``module`` and runs it on its share of the batch; during
    ``backward()`` the gradients are all-reduced in buckets so that after it every rank's
    ``.grad`` is the average over the ranks, and the optimizer steps keep the replicas equal.

    Each rank's gradient is the one of its local loss; with a mean loss over equal local
    batches the averaged gradient equals the single-process gradient of the concatenated
    batch. ``state_dict()`` keys carry PyTorch's ``module.`` prefix (save
    ``ddp.module.state_dict()`` to load into a bare model).

    Args:
        module (Module): the model (the same architecture on every rank).
        device_ids: accepted and ignored (no accelerators).
        output_device: accepted and ignored.
        dim (int): accepted and ignored (each process feeds its own batch).
        broadcast_buffers (bool): broadcast the module's buffers (BatchNorm statistics) from
            rank 0 at every forward. Default: ``None`` (True, as PyTorch).
        init_sync (bool): broadcast parameters and buffers from rank 0 at construction.
            Default: ``True``.
        process_group (ProcessGroup): the group to average over. Default: ``None`` (the
            default group).
        bucket_cap_mb (float): the size of a gradient bucket in MiB (the first one is 1
            MiB). Default: ``None`` (25).
        find_unused_parameters (bool): allow parameters that get no gradient in a backward
            pass (found when the pass ends; they contribute zeros, and a parameter no rank
            used keeps its ``.grad``). One extra small all-reduce per pass. Default:
            ``False``.
        check_reduction (bool): ignored (deprecated in PyTorch).
        gradient_as_bucket_view (bool): every ``.grad`` that is None at a synchronised
            forward becomes a zeroed view into its bucket's buffer (PyTorch's option):
            no copy into the bucket, no second copy of the gradients, and, because the
            engine then adds into an existing ``.grad`` as soon as it is complete, the
            all-reduces start during backward instead of at its end. A parameter no rank
            used gets its ``.grad`` None back. Default: ``False``.
        static_graph (bool): accepted and ignored.
        **kwargs: PyTorch's newer arguments (``mixed_precision``, ``device_mesh``, ...)
            are not supported: giving one raises.
    Raises:
        ValueError: the default process group is not initialised.
        RuntimeError: the ranks' models differ (a parameter count, shape or dtype; the
            message names the rank and the parameter); after a backward pass,
            parameters that got no gradient without ``find_unused_parameters`` (names them).
        TypeError: an unsupported keyword argument.

    Shape:
        - Input: whatever ``module`` takes (this rank's part of the batch).
        - Output: what ``module`` returns.

    Example:
        >>> import dyngrad, dyngrad.distributed as dist
        >>> from dyngrad.nn.parallel import DistributedDataParallel
        >>> if dist.is_initialized():                    # under mpiexec, after init_process_group
        ...     model = DistributedDataParallel(dyngrad.nn.Linear(4, 2))
        >>> DistributedDataParallel.__name__
        'DistributedDataParallel'
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 broadcast_buffers: bool | None = None, init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 **kwargs: Any) -> None:
        super().__init__()
        unsupported = {k: v for k, v in kwargs.items() if v not in (None, False)}
        if unsupported:
            raise TypeError(f"DistributedDataParallel: unsupported arguments {sorted(unsupported)}")
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be an nn.Module, got {type(module).__name__}")
        self.world_size = dist.get_world_size(process_group)  # raises when not initialised
        if self.world_size < 1:
            raise ValueError("DistributedDataParallel: this rank is not in process_group")
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = bool(gradient_as_bucket_view)
        self.static_graph = bool(static_graph)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_MB if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        object.__setattr__(self, "_names", [n for n, _ in named])
        object.__setattr__(self, "_params", [p for _, p in named])
        self._verify_same_model()
        if init_sync:
            self._broadcast([t for _, t in module.state_dict(keep_vars=True).items() if isinstance(t, Tensor)])
        self._build_buckets()
        self._armed = False
        self._rebuilt = False
        self._ready_order: list[int] = []  # the first synchronised backward's order (bucket rebuild)
        self._comm_seconds = 0.0  # time spent starting and waiting for all-reduces (examples report it)
        self._started_in_pass = 0
        self._reset()
        self._handles = [p.register_post_accumulate_grad_hook(self._make_hook(i)) for i, p in enumerate(self._params)]

    # -------------------------------------------------------------- construction
    def _verify_same_model(self) -> None:
        mine = [(n, tuple(p.shape), str(p.dtype)) for n, p in zip(self._names, self._params)]
        every: list = [None] * self.world_size
        dist.all_gather_object(every, mine, group=self.process_group)
        ranks = dist.get_process_group_ranks(self.process_group)
        for r, theirs in zip(ranks, every):
            if theirs == every[0]:
                continue
            if len(theirs) != len(every[0]):
                raise RuntimeError(
                    f"DistributedDataParallel expects the same model on every rank, but rank {r} has "
                    f"{len(theirs)} parameters that require grad while rank {ranks[0]} has {len(every[0])}")
            k = next(i for i, (a, b) in enumerate(zip(every[0], theirs)) if a != b)
            raise RuntimeError(
                f"DistributedDataParallel expects the same model on every rank, but parameter {k} is "
                f"{theirs[k][0]} {list(theirs[k][1])} {theirs[k][2]} on rank {r} and {every[0][k][0]} "
                f"{list(every[0][k][1])} {every[0][k][2]} on rank {ranks[0]}")

    def _broadcast(self, tensors: list) -> None:
        """Rank 0's values of ``tensors`` on every rank: one broadcast per dtype."""
        by_dtype: dict = {}
        for t in tensors:
            by_dtype.setdefault(t._data.dtype, []).append(t)
        for dtype, ts in by_dtype.items():
            flat = np.concatenate([t._data.ravel() for t in ts]) if ts else np.empty(0, dtype)
            dist.broadcast(Tensor._make(flat), src=dist.get_global_rank(self.process_group, 0)
                           if self.process_group is not None else 0, group=self.process_group)
            o = 0
            for t in ts:
                n = t._data.size
                np.copyto(t._data, flat[o:o + n].reshape(t._data.shape))
                t._vc[0] += 1
                o += n

    def _build_buckets(self, order: list[int] | None = None) -> None:
        """Buckets in ``order`` (parameter indices; default: reverse registration order)."""
        buckets: list[_Bucket] = []
        current: dict = {}  # dtype -> (param indices, bytes)
        cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
        for i in (reversed(range(len(self._params))) if order is None else order):
            p = self._params[i]
            dt = p._data.dtype
            idx, size = current.get(dt, ([], 0))
            idx.append(i)
            size += p._data.nbytes
            current[dt] = (idx, size)
            if size >= cap:
                buckets.append(_Bucket(len(buckets), idx, dt))
                del current[dt]
                cap = self.bucket_bytes_cap
        for dt, (idx, _) in current.items():
            buckets.append(_Bucket(len(buckets), idx, dt))
        bucket_of = [0] * len(self._params)
        for b in buckets:
            offsets, o = [], 0
            for i in b.params:
                offsets.append(o)
                o += self._params[i]._data.size
                bucket_of[i] = b.index
            b.offsets = offsets
            b.flat = np.empty(o, dtype=self._params[b.params[0]]._data.dtype)
        object.__setattr__(self, "_buckets", buckets)
        object.__setattr__(self, "_bucket_of", bucket_of)
        object.__setattr__(self, "_slot", {i: k for b in buckets for k, i in enumerate(b.params)})

    # -------------------------------------------------------------- forward
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Broadcast the buffers from rank 0 (``broadcast_buffers``), note whether this
        forward's backward synchronises (not under ``no_sync()``), run the module.

        Args:
            *inputs: the module's positional inputs.
            **kwargs: its keyword inputs.
        Returns:
            what the module returns.
        """
        if not self._rebuilt and len(self._ready_order) == len(self._params):
            self._rebuild_buckets()
        if self.broadcast_buffers and self.require_forward_param_sync:
            bufs = [b for b in self.module.buffers() if isinstance(b, Tensor)]
            if bufs:
                self._broadcast(bufs)
        self._armed = self.require_backward_grad_sync and grad_mode.is_grad_enabled()
        if self._armed and self.gradient_as_bucket_view:
            self._view_grads()
        return self.module(*inputs, **kwargs)

    def _rebuild_buckets(self) -> None:
        """Once, after the first synchronised backward (PyTorch's bucket rebuild): buckets in
        the order rank 0's gradients became ready, so an all-reduce can start as soon as
        its gradients are done (the buckets must be launched in order on every rank)."""
        order = [self._ready_order]
        dist.broadcast_object_list(order, src=dist.get_global_rank(self.process_group, 0)
                                   if self.process_group is not None else 0, group=self.process_group)
        old = {i: self._params[i].grad for i in range(len(self._params))}
        views = {i for i, g in old.items() if g is not None and any(
            np.shares_memory(g._data, b.flat) for b in self._buckets)}
        self._build_buckets(order[0])
        self._rebuilt = True
        self._reset()
        for i in views:  # gradient_as_bucket_view: move the .grad into its new slot
            b = self._buckets[self._bucket_of[i]]
            o, n = b.offsets[self._slot[i]], self._params[i]._data.size
            view = b.flat[o:o + n].reshape(self._params[i]._data.shape)
            view[...] = old[i]._data
            self._params[i].grad = Tensor._make(view)

    def _view_grads(self) -> None:
        """``gradient_as_bucket_view``: each ``.grad`` that is None becomes a zeroed view of
        its slot in the bucket buffer (noted in ``_viewed`` to undo for unused ones)."""
        for b in self._buckets:
            for k, i in enumerate(b.params):
                p = self._params[i]
                if p.grad is None:
                    o, n = b.offsets[k], p._data.size
                    view = b.flat[o:o + n].reshape(p._data.shape)
                    view[...] = 0
                    p.grad = Tensor._make(view)
                    self._viewed.add(i)

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside the block, forward passes' backward passes only accumulate local
        gradients (no all-reduce); the first synchronised backward after it averages the
        accumulated ones (PyTorch's gradient accumulation with DDP).

        Returns:
            A context manager.

        Example:
            >>> from dyngrad.nn.parallel import DistributedDataParallel
            >>> callable(DistributedDataParallel.no_sync)
            True
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # -------------------------------------------------------------- backward
    def _reset(self) -> None:
        self._viewed: set = set()
        n = len(self._params)
        self._ready = [False] * n
        self._used = np.zeros(n, dtype=np.int32)
        for b in self._buckets:
            b.pending = len(b.params)
            b.work = None
        self._next_bucket = 0
        self._queued = False

    def _make_hook(self, i: int) -> Any:
        def hook(p: Tensor) -> None:
            if self._armed:
                self._mark_ready(i, p)
        hook.__name__ = "ddp_allreduce_hook"
        return hook

    def _mark_ready(self, i: int, p: Tensor) -> None:
        if not self._queued:
            self._queued = True
            queue_callback(self._finish)
        if self._ready[i]:
            return
        self._used[i] = 1
        if not self._rebuilt:
            self._ready_order.append(i)
        self._fill(i, p.grad)
        for b in self._buckets[:self._next_bucket]:  # MPI progresses started all-reduces only inside
            if b.work is not None:                   # MPI calls: give them a turn at every hook
                b.work.is_completed()

    def _fill(self, i: int, grad: Tensor | None) -> None:
        b = self._buckets[self._bucket_of[i]]
        k = self._slot[i]
        o = b.offsets[k]
        n = self._params[i]._data.size
        if grad is None:
            b.flat[o:o + n] = 0
        elif not np.shares_memory(grad._data, b.flat):  # (a bucket view already is the slot)
            b.flat[o:o + n] = grad._data.ravel()
        self._ready[i] = True
        b.pending -= 1
        if b.pending == 0:
            self._launch_ready()

    def _launch_ready(self) -> None:
        t0 = time.perf_counter()
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            b = self._buckets[self._next_bucket]
            b.work = dist.all_reduce(Tensor._make(b.flat), group=self.process_group, async_op=True)
            self._next_bucket += 1
        self._comm_seconds += time.perf_counter() - t0

    def _finish(self) -> None:
        """At the end of backward: handle unused parameters, wait for every bucket, write
        the averages into ``.grad``."""
        t0 = time.perf_counter()
        self._started_in_pass = self._next_bucket  # buckets whose all-reduce began during backward
        try:
            missing = [i for i, r in enumerate(self._ready) if not r]
            if missing and not self.find_unused_parameters:
                names = ", ".join(self._names[i] for i in missing)
                raise RuntimeError(
                    "DistributedDataParallel: parameters got no gradient in this backward pass on rank "
                    f"{dist.get_rank()}: {names} (indices {missing}). Pass find_unused_parameters=True "
                    "if the model does not use every parameter in every forward, or make sure the loss "
                    "depends on all of them.")
            for i in missing:
                if not self._rebuilt:
                    self._ready_order.append(i)
                self._fill(i, self._params[i].grad)
            used_work = None
            if self.find_unused_parameters:
                used = Tensor._make(self._used)
                used_work = dist.all_reduce(used, op=dist.ReduceOp.MAX, group=self.process_group, async_op=True)
            for b in self._buckets:
                b.work.wait()
            if used_work is not None:
                used_work.wait()
            ws = self.world_size
            for b in self._buckets:
                for k, i in enumerate(b.params):
                    p = self._params[i]
                    if self.find_unused_parameters and not self._used[i]:
                        if i in self._viewed:  # no rank used it: its .grad stays as it was (None)
                            p.grad = None
                        continue
                    o = b.offsets[k]
                    avg = b.flat[o:o + p._data.size].reshape(p._data.shape)
                    if p.grad is not None and p.grad._data.base is b.flat and np.shares_memory(p.grad._data, avg):
                        np.divide(avg, ws, out=avg)  # the .grad is this bucket view
                        p.grad._vc[0] += 1
                    elif p.grad is None:
                        p.grad = Tensor._make(avg / ws)
                    else:
                        g = p.grad
                        np.divide(avg, ws, out=g._data, casting="unsafe")
                        g._vc[0] += 1
        finally:
            self._reset()
            self._comm_seconds += time.perf_counter() - t0
