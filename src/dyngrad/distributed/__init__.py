"""dyngrad.distributed: PyTorch's ``torch.distributed`` names on MPI (mpi4py).

One process per rank, started by an MPI launcher (``mpiexec -n 2 python train.py`` on a
laptop, ``srun`` or the site's ``mpiexec`` on a cluster); ``init_process_group("mpi")``
takes the rank and world size from it. Collectives work in place on Tensors: the MPI call
reads and writes the tensor's NumPy array through the buffer protocol (no copy when it is
C-contiguous). Every call has a timeout (``init_process_group(timeout=...)``): a rank that
raises or stops makes the others raise a ``RuntimeError`` naming it instead of hanging
(docs/distributed.md).

This module imports without mpi4py (``is_available()`` is then False); mpi4py itself is
imported by ``init_process_group``, which raises ``ImportError`` naming the extra,
``pip install "dyngrad[distributed]"``, when it is missing.
"""

from __future__ import annotations

import datetime
import enum
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import _group as G
from ._group import Backend, DebugLevel, GroupMember, ProcessGroup
from .. import _backend as B

__all__ = [
    "Backend", "DebugLevel", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "default_pg_timeout",
    "is_available", "is_mpi_available", "is_initialized", "init_process_group", "destroy_process_group",
    "get_rank", "get_world_size", "get_backend", "get_debug_level", "set_debug_level", "new_group",
    "get_group_rank", "get_global_rank", "get_process_group_ranks",
    "barrier", "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce",
    "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter", "all_to_all_single",
    "send", "recv", "isend", "irecv", "all_gather_object", "broadcast_object_list",
]

#: PyTorch's default timeout of a process group's collectives (30 minutes).
default_pg_timeout = datetime.timedelta(minutes=30)

_NOT_INIT = "Default process group has not been initialized, please make sure to call init_process_group."


class RedOpType(enum.IntEnum):
    """The reduction operations (PyTorch's ``ReduceOp.RedOpType``)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


class ReduceOp:
    """How ``all_reduce``, ``reduce`` and ``reduce_scatter`` combine the ranks' tensors:
    ``ReduceOp.SUM``, ``AVG`` (the sum divided by the group size; integer tensors truncate,
    as NCCL's), ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR`` (integers and
    bool). On bool tensors SUM and MAX are a logical or, PRODUCT and MIN a logical and.

    Example:
        >>> from dyngrad.distributed import ReduceOp
        >>> ReduceOp.SUM, ReduceOp.AVG.name
        (<RedOpType.SUM: 0>, 'AVG')
    """

    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR


class Work:
    """A collective started with ``async_op=True`` (PyTorch's ``Work``): the tensors are
    valid only after ``wait()`` (or once ``is_completed()`` said True).

    Args:
        reqs (list): the MPI requests.
        op (str): the operation's name (for error messages).
        group (ProcessGroup): the group it runs on.
        seq (int): the call's number on the group.
        finish: run once the requests completed (writes results back into the tensors).
        result (list[Tensor]): what ``result()`` returns.
    Raises:
        RuntimeError: from ``wait()``, when the collective times out or another rank failed
            (naming the operation and the ranks).

    Example:
        >>> import dyngrad.distributed as dist
        >>> hasattr(dist.Work, "wait") and hasattr(dist.Work, "is_completed")
        True
    """

    def __init__(self, reqs: list, op: str, group: ProcessGroup, seq: int,
                 finish: Callable[[], None] | None = None, result: list | None = None,
                 check: Any = None) -> None:
        self._reqs, self._op, self._group, self._seq, self._check = reqs, op, group, seq, check
        self._finish, self._result = finish, result or []
        self._done = False
        self._exc: BaseException | None = None

    def _complete(self) -> None:
        self._done = True
        if self._check is not None:
            self._check.verify()
        if self._finish is not None:
            self._finish()
            self._finish = None

    def wait(self, timeout: datetime.timedelta | None = None) -> bool:
        """Block until the operation completed and its results are in the tensors.

        Args:
            timeout (datetime.timedelta): overrides the group's timeout for this wait.
        Returns:
            bool: True.
        Raises:
            RuntimeError: the timeout passed, or another rank failed (the message names
                the ranks).
        """
        if not self._done:
            try:
                G.wait_requests(self._reqs, self._op, self._group, self._seq,
                                None if timeout is None else G.timeout_seconds(timeout, 0.0), check=self._check)
            except RuntimeError as exc:
                self._exc = exc
                raise
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the operation completed (non-blocking; the results are written back
        when it returns True).

        Returns:
            bool: True once finished.
        """
        if not self._done and G.mpi().Request.Testall(self._reqs):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        """Whether the operation completed without an error.

        Returns:
            bool: True when completed and no error was raised.
        """
        return self.is_completed() and self._exc is None

    def exception(self) -> BaseException | None:
        """The error the wait raised, or None.

        Returns:
            BaseException or None.
        """
        return self._exc

    def result(self) -> list:
        """The output tensors of the operation (PyTorch's ``Work.result()``).

        Returns:
            list[Tensor]: the tensors the operation wrote.
        """
        return list(self._result)


# ------------------------------------------------------------------ availability, init

def is_available() -> bool:
    """Whether dyngrad.distributed can run: mpi4py is installed (checked without importing
    it, so without starting MPI).

    Returns:
        bool: True when ``import mpi4py`` would succeed.

    Example:
        >>> import dyngrad.distributed as dist
        >>> isinstance(dist.is_available(), bool)
        True
    """
    if G._MPI is not None:
        return True
    try:
        return importlib.util.find_spec("mpi4py") is not None
    except (ImportError, ValueError):  # a blocked import (sys.modules["mpi4py"] = None)
        return False


def is_mpi_available() -> bool:
    """PyTorch's name for the MPI backend's availability: ``is_available()``.

    Returns:
        bool: True when mpi4py is installed.

    Example:
        >>> import dyngrad.distributed as dist
        >>> dist.is_mpi_available() == dist.is_available()
        True
    """
    return is_available()


def is_initialized() -> bool:
    """Whether ``init_process_group`` was called (and not undone by
    ``destroy_process_group``).

    Returns:
        bool: True once the default group exists.

    Example:
        >>> import dyngrad.distributed as dist
        >>> dist.is_initialized()
        False
    """
    return G.state.world is not None


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: datetime.timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:
    """Join the default process group: all processes the MPI launcher started.

    The rank and world size come from MPI (``mpiexec -n N``, ``srun``); ``RANK`` and
    ``WORLD_SIZE`` in the environment (PyTorch's ``env://``), and the ``rank`` and
    ``world_size`` arguments, are checked against them. ``MASTER_ADDR`` / ``MASTER_PORT``
    are not needed (MPI does the rendezvous) and are ignored, as is ``init_method``. Run
    with plain ``python``, it is a world of one process. After this call an uncaught
    exception on any rank makes the others fail with an error naming it, then aborts the
    MPI job (``MPI_Abort``), so ``mpiexec`` never hangs. Ranks sharing a machine get
    ``cores // ranks_on_it`` BLAS threads each (as torchrun's ``OMP_NUM_THREADS=1``)
    unless ``OMP_NUM_THREADS`` is set.

    Args:
        backend (str): ``"mpi"`` (or None). Default: ``None``.
        init_method (str): accepted and ignored (MPI does the rendezvous).
        timeout (datetime.timedelta): how long a collective may wait for the other ranks
            before it raises. Default: 30 minutes (``default_pg_timeout``).
        world_size (int): when given (not -1), must equal MPI's world size.
        rank (int): when given (not -1), must equal MPI's rank.
        store: not supported (must be None).
        group_name (str): accepted and ignored.
        pg_options: accepted and ignored.
        device_id: accepted and ignored (no accelerators).
    Raises:
        ImportError: mpi4py is not installed (the message names the extra).
        ValueError: a backend other than ``"mpi"`` (``"gloo"`` and ``"nccl"`` do not exist
            here), a ``store``, or a call when the group is already initialised.
        RuntimeError: ``rank``/``world_size`` (or ``RANK``/``WORLD_SIZE``) disagree with MPI.

    Example:
        >>> import dyngrad.distributed as dist
        >>> try:
        ...     dist.init_process_group(backend="nccl")
        ... except ValueError as e:
        ...     print(str(e)[:56])
        init_process_group: dyngrad.distributed has only the 'mp
    """
    if backend is not None and (not isinstance(backend, str) or backend.lower() != "mpi"):
        raise ValueError(f"init_process_group: dyngrad.distributed has only the 'mpi' backend (on mpi4py), got "
                         f"backend={backend!r}; NCCL and gloo are not available")
    if store is not None:
        raise ValueError("init_process_group: store= is not supported; the MPI launcher does the rendezvous")
    if G.state.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    MPI = G.mpi()
    comm = MPI.COMM_WORLD.Dup()
    n, me = comm.Get_size(), comm.Get_rank()
    G.env_rank_check(me, n)
    if world_size not in (-1, None) and world_size != n:
        raise RuntimeError(f"init_process_group: world_size={world_size}, but MPI started {n} processes")
    if rank not in (-1, None) and rank != me:
        raise RuntimeError(f"init_process_group: rank={rank}, but MPI started this process as rank {me}")
    seconds = G.timeout_seconds(timeout, default_pg_timeout.total_seconds())
    G.state.world = ProcessGroup(comm, list(range(n)), seconds, "default")
    G.state.ctl = MPI.COMM_WORLD.Dup()
    G.state.broken = None
    G.state.notified = False
    level = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    G.state.debug = DebugLevel[level] if level in DebugLevel.__members__ else DebugLevel.OFF
    if sys.excepthook is not G.excepthook:
        G.state.prev_excepthook = sys.excepthook
        sys.excepthook = G.excepthook
    _share_cores(MPI, comm)


def _share_cores(MPI: Any, comm: Any) -> None:
    """Ranks on one machine share its cores: each gets ``cores // ranks_here`` BLAS threads
    (as torchrun sets ``OMP_NUM_THREADS``), unless ``OMP_NUM_THREADS`` was set. Without it,
    two ranks each running a BLAS pool as wide as the machine slow each other down many
    times over (benchmarks/RESULTS.md)."""
    if "OMP_NUM_THREADS" in os.environ or comm.Get_size() == 1:
        return
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    here = local.Get_size()
    local.Free()
    if here > 1:
        import warnings

        from ..threads import set_num_threads

        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # without threadpoolctl it changes nothing
            set_num_threads(max(1, cores // here))


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free a group's communicator; with no argument, every group and the default one
    (then ``is_initialized()`` is False and ``init_process_group`` may be called again).

    Args:
        group (ProcessGroup): the group to destroy. Default: ``None`` (all).
    Raises:
        ValueError: the default group is not initialised.

    Example:
        >>> import dyngrad.distributed as dist
        >>> try:
        ...     dist.destroy_process_group()
        ... except ValueError as e:
        ...     print(str(e)[:43])
        Default process group has not been initiali
    """
    st = G.state
    if st.world is None:
        raise ValueError(_NOT_INIT)
    if group is not None and group is not st.world:
        if group is not GroupMember.NON_GROUP_MEMBER and group in st.groups:
            st.groups.remove(group)
            group._comm.Free()
        return
    for g in st.groups:
        g._comm.Free()
    st.groups = []
    st.world._comm.Free()
    st.world = None
    for req in st.pending_sends:  # fault reports nobody read
        if not req.Test():
            req.Cancel()
    st.pending_sends = []
    st.ctl.Free()
    st.ctl = None
    if sys.excepthook is G.excepthook:
        sys.excepthook = st.prev_excepthook or sys.__excepthook__


def _resolve(group: Any) -> ProcessGroup | None:
    """The group a call runs on; None for a rank that is not a member."""
    if G.state.world is None:
        raise ValueError(_NOT_INIT)
    if group is None:
        return G.state.world
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup made by new_group (or None), got {type(group).__name__}")
    return group


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the default group when None); -1 on a rank that
    is not in the group.

    Args:
        group (ProcessGroup): Default: ``None``.
    Returns:
        int: the rank.
    Raises:
        ValueError: the default group is not initialised.

    Example:
        >>> import dyngrad.distributed as dist
        >>> try:
        ...     dist.get_rank()
        ... except ValueError as e:
        ...     print(str(e)[:43])
        Default process group has not been initiali
    """
    g = _resolve(group)
    return -1 if g is None else g.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of ranks in ``group`` (the default group when None); -1 on a rank that
    is not in the group.

    Args:
        group (ProcessGroup): Default: ``None``.
    Returns:
        int: the size.
    Raises:
        ValueError: the default group is not initialised.

    Example:
        >>> import dyngrad.distributed as dist
        >>> dist.is_initialized() or "not initialised"
        'not initialised'
    """
    g = _resolve(group)
    return -1 if g is None else g.size()


def get_backend(group: ProcessGroup | None = None) -> Backend:
    """The group's backend: always ``"mpi"``.

    Args:
        group (ProcessGroup): Default: ``None``.
    Returns:
        Backend: ``Backend.MPI``.
    Raises:
        ValueError: the default group is not initialised.

    Example:
        >>> import dyngrad.distributed as dist
        >>> dist.Backend.MPI
        'mpi'
    """
    _resolve(group)
    return Backend("mpi")


def get_debug_level() -> DebugLevel:
    """The checking level of collectives (``TORCH_DISTRIBUTED_DEBUG`` at init, or
    ``set_debug_level``).

    Returns:
        DebugLevel: OFF, INFO or DETAIL.

    Example:
        >>> import dyngrad.distributed as dist
        >>> dist.get_debug_level() in tuple(dist.DebugLevel)
        True
    """
    return G.state.debug


def set_debug_level(level: DebugLevel) -> None:
    """Set the checking level of collectives; ``DebugLevel.DETAIL`` keeps the per-call
    check (every rank passed the same operation, shape and dtype, else a RuntimeError
    naming the rank) on even when ``DYNGRAD_DISTRIBUTED_CHECKS=0`` turned it off.

    Args:
        level (DebugLevel): the new level.
    Raises:
        TypeError: ``level`` is not a DebugLevel.

    Example:
        >>> import dyngrad.distributed as dist
        >>> old = dist.get_debug_level()
        >>> dist.set_debug_level(dist.DebugLevel.DETAIL)
        >>> dist.get_debug_level().name
        'DETAIL'
        >>> dist.set_debug_level(old)
    """
    if not isinstance(level, DebugLevel):
        raise TypeError(f"set_debug_level: expected a DebugLevel, got {type(level).__name__}")
    G.state.debug = level


def new_group(ranks: Sequence[int] | None = None, timeout: datetime.timedelta | None = None, backend: Any = None,
              pg_options: Any = None, use_local_synchronization: bool = False, group_desc: str | None = None,
              device_id: Any = None, sort_ranks: bool = True) -> Any:
    """A group of some of the ranks (all when None), with its own MPI communicator. As in
    PyTorch, every rank of the default group must call it, in the same order.

    Args:
        ranks (list[int]): world ranks of the members. Default: ``None`` (all).
        timeout (datetime.timedelta): the group's timeout. Default: the default group's.
        backend: ``"mpi"`` or None.
        pg_options: ignored.
        use_local_synchronization (bool): must be False (MPI's split is collective over
            the world).
        group_desc (str): the group's name in error messages.
        device_id: ignored.
        sort_ranks (bool): sort ``ranks`` (the group ranks follow that order).
    Returns:
        ProcessGroup, or ``GroupMember.NON_GROUP_MEMBER`` on a rank not in ``ranks``.
    Raises:
        ValueError: the default group is not initialised; a rank outside the world or
            listed twice.

    Example:
        >>> import dyngrad.distributed as dist
        >>> try:
        ...     dist.new_group([0])
        ... except ValueError as e:
        ...     print(str(e)[:43])
        Default process group has not been initiali
    """
    world = G.state.world
    if world is None:
        raise ValueError(_NOT_INIT)
    if backend is not None:
        Backend(backend)
    if use_local_synchronization:
        raise ValueError("new_group: use_local_synchronization=True is not supported by the MPI backend")
    n = world.size()
    members = list(range(n)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        members = sorted(members)
    if len(set(members)) != len(members) or any(r < 0 or r >= n for r in members):
        raise ValueError(f"new_group: ranks must be distinct ranks in [0, {n}), got {list(ranks or [])}")
    me = world.rank()
    MPI = G.mpi()
    color = 0 if me in members else MPI.UNDEFINED
    key = members.index(me) if me in members else 0
    G.check_usable("new_group")
    comm = world._comm.Split(color, key)
    if comm == MPI.COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    seconds = G.timeout_seconds(timeout, world._timeout)
    g = ProcessGroup(comm, members, seconds, group_desc or f"group{len(G.state.groups) + 1}{members}")
    G.state.groups.append(g)
    return g


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The world ranks of a group's members, in group-rank order.

    Args:
        group (ProcessGroup): None for the default group.
    Returns:
        list[int]: the ranks.
    Raises:
        ValueError: the default group is not initialised.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.get_process_group_ranks)
        True
    """
    g = _resolve(group)
    return [] if g is None else list(g._ranks)


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """A world rank's rank inside ``group``.

    Args:
        group (ProcessGroup): the group.
        global_rank (int): a world rank.
    Returns:
        int: its group rank.
    Raises:
        ValueError: the rank is not in the group.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.get_group_rank)
        True
    """
    g = _resolve(group)
    if g is None or global_rank not in g._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {g!r}")
    return g._ranks.index(global_rank)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """A group rank's rank in the world.

    Args:
        group (ProcessGroup): the group.
        group_rank (int): a rank in the group.
    Returns:
        int: its world rank.
    Raises:
        ValueError: ``group_rank`` is outside the group.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.get_global_rank)
        True
    """
    g = _resolve(group)
    if g is None or not 0 <= group_rank < len(g._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {g!r}")
    return g._ranks[group_rank]


# ------------------------------------------------------------------ the collectives

def _tensor(t: Any, op: str, name: str) -> np.ndarray:
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: Invalid function argument. Expected parameter `{name}` of type Tensor, "
                        f"got {type(t).__name__}")
    a = t._data
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{op}: `{name}` holds a {type(a).__name__}, not a NumPy array; MPI reads NumPy buffers")
    return a


def _tensor_list(ts: Any, op: str, name: str) -> list[np.ndarray]:
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{op}: Invalid function argument. Expected parameter `{name}` of type List[Tensor], "
                        f"got {type(ts).__name__}")
    return [_tensor(t, op, f"{name}[{i}]") for i, t in enumerate(ts)]


def _contig(a: np.ndarray) -> np.ndarray:
    """``a`` itself when MPI can write it in place (zero-copy), else a contiguous copy."""
    return a if a.flags.c_contiguous and a.flags.writeable else np.ascontiguousarray(a)


def _written(t: Tensor, a: np.ndarray, buf: np.ndarray) -> None:
    """The result in ``buf`` is the new value of ``t`` (array ``a``): copy back when it was
    a copy, and count the in-place change (autograd's version counter)."""
    if buf is not a:
        np.copyto(a, buf.reshape(a.shape))
    t._vc[0] += 1


def _mpi_op(op: Any, dtype: np.dtype, name: str) -> Any:
    MPI = G.mpi()
    try:
        op = RedOpType(op)
    except ValueError:
        raise ValueError(f"{name}: op must be a ReduceOp (SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR), "
                         f"got {op!r}") from None
    if dtype == np.bool_:
        if op is RedOpType.AVG:
            raise TypeError(f"{name}: ReduceOp.AVG is not defined for bool tensors")
        return {RedOpType.SUM: MPI.LOR, RedOpType.MAX: MPI.LOR, RedOpType.BOR: MPI.LOR,
                RedOpType.PRODUCT: MPI.LAND, RedOpType.MIN: MPI.LAND, RedOpType.BAND: MPI.LAND,
                RedOpType.BXOR: MPI.LXOR}[op]
    if op in (RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR) and dtype.kind not in "iu":
        raise TypeError(f"{name}: ReduceOp.{op.name} needs an integer or bool tensor, got {dtype}")
    if op in (RedOpType.MIN, RedOpType.MAX) and dtype.kind == "c":
        raise TypeError(f"{name}: ReduceOp.{op.name} is not defined for complex tensors")
    return {RedOpType.SUM: MPI.SUM, RedOpType.AVG: MPI.SUM, RedOpType.PRODUCT: MPI.PROD, RedOpType.MIN: MPI.MIN,
            RedOpType.MAX: MPI.MAX, RedOpType.BAND: MPI.BAND, RedOpType.BOR: MPI.BOR, RedOpType.BXOR: MPI.BXOR}[op]


def _average(buf: np.ndarray, n: int) -> None:
    if B.kind(buf) in "iu":
        np.copyto(buf, np.trunc(buf / n).astype(buf.dtype))
    else:
        np.divide(buf, n, out=buf)


def _begin(op: str, g: ProcessGroup, arr: np.ndarray | None) -> tuple[int, G.SignatureCheck | None]:
    """Number the call and post its signature check (``_group.SignatureCheck``: every rank
    must pass the same operation, shape and dtype) unless checks are off."""
    G.check_usable(op)
    seq = g._seq
    g._seq += 1
    check = G.SignatureCheck(op, g, seq, arr) if g.size() > 1 and G.checks_enabled() else None
    return seq, check


def _run(reqs: list, op: str, g: ProcessGroup, seq: Any, async_op: bool,
         finish: Callable[[], None] | None, result: list) -> Work | None:
    seq, check = seq
    if check is not None:
        reqs = [check.req, *reqs]
    work = Work(reqs, op, g, seq, finish, result, check)
    if async_op:
        return work
    work.wait()
    return None


def _root(g: ProcessGroup, global_rank: int | None, group_rank: int | None, what: str, op: str) -> int:
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"{op}: Can't specify both {what} and group_{what}")
    if group_rank is None:
        global_rank = 0 if global_rank is None else int(global_rank)
        if global_rank not in g._ranks:
            raise ValueError(f"{op}: {what}={global_rank} is not a rank of group {g._name!r} (ranks {g._ranks})")
        return g._ranks.index(global_rank)
    if not 0 <= group_rank < g.size():
        raise ValueError(f"{op}: group_{what}={group_rank} is outside [0, {g.size()})")
    return int(group_rank)


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids: Any = None,
            timeout: datetime.timedelta | None = None) -> Work | None:
    """Wait until every rank of the group reached the barrier.

    Args:
        group (ProcessGroup): Default: ``None`` (the default group).
        async_op (bool): return a Work instead of waiting. Default: ``False``.
        device_ids: ignored.
        timeout (datetime.timedelta): overrides the group's timeout.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        ValueError: the default group is not initialised.
        RuntimeError: the timeout passed (naming the ranks that did not arrive).

    Example:
        >>> import dyngrad.distributed as dist
        >>> dist.is_initialized() and dist.barrier()
        False
    """
    g = _resolve(group)
    if g is None:
        return None
    seq, check = _begin("barrier", g, None)
    work = Work([g._comm.Ibarrier()] if check is None else [check.req, g._comm.Ibarrier()], "barrier", g, seq,
                check=check)
    if async_op:
        return work
    work.wait(timeout)
    return None


def all_reduce(tensor: Tensor, op: Any = ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Combine ``tensor`` across the group with ``op``; every rank gets the result, in
    place (MPI ``Allreduce`` on the tensor's array; zero-copy when contiguous).

    Not differentiable (as in PyTorch: the tensor's values change in place; autograd's
    version counter is bumped).

    Args:
        tensor (Tensor): ``(*)``, the same shape and dtype on every rank.
        op (ReduceOp): Default: ``ReduceOp.SUM``.
        group (ProcessGroup): Default: ``None`` (the default group).
        async_op (bool): return a Work instead of waiting. Default: ``False``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        TypeError: ``tensor`` is not a Tensor; an op the dtype does not support.
        ValueError: the default group is not initialised.
        RuntimeError: a timeout, a failed rank, or (``DebugLevel.DETAIL``) shapes that
            differ across ranks, naming the ranks.

    Example:
        >>> import dyngrad, dyngrad.distributed as dist
        >>> t = dyngrad.ones(3)
        >>> if dist.is_initialized():
        ...     dist.all_reduce(t, op=dist.ReduceOp.AVG)
        >>> t
        tensor([1., 1., 1.])
    """
    a = _tensor(tensor, "all_reduce", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    mop = _mpi_op(op, a.dtype, "all_reduce")
    seq = _begin("all_reduce", g, a)
    buf = _contig(a)

    def finish() -> None:
        if op == RedOpType.AVG:
            _average(buf, g.size())
        _written(tensor, a, buf)

    req = g._comm.Iallreduce(G.mpi().IN_PLACE, buf, mop)
    return _run([req], "all_reduce", g, seq, async_op, finish, [tensor])


def broadcast(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, async_op: bool = False,
              group_src: int | None = None) -> Work | None:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank, in place.

    Not differentiable.

    Args:
        tensor (Tensor): ``(*)``, the same shape and dtype on every rank.
        src (int): the world rank that sends. Default: ``None`` (rank 0).
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
        group_src (int): ``src`` as a rank in ``group`` (give one of the two).
    Returns:
        Work when ``async_op``, else None.
    Raises:
        TypeError: ``tensor`` is not a Tensor.
        ValueError: the default group is not initialised; ``src`` not in the group.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad, dyngrad.distributed as dist
        >>> t = dyngrad.arange(3)
        >>> if dist.is_initialized():
        ...     dist.broadcast(t, src=0)
        >>> t
        tensor([0, 1, 2])
    """
    a = _tensor(tensor, "broadcast", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src", "broadcast")
    seq = _begin("broadcast", g, a)
    buf = _contig(a)
    req = g._comm.Ibcast(buf, root=root)
    return _run([req], "broadcast", g, seq, async_op, lambda: _written(tensor, a, buf), [tensor])


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Every rank's ``tensor``, rank ``i``'s into ``tensor_list[i]``, on every rank.

    Not differentiable.

    Args:
        tensor_list (list[Tensor]): ``world_size`` tensors shaped like ``tensor``.
        tensor (Tensor): ``(*)``, this rank's contribution.
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        TypeError: not Tensors.
        ValueError: the list's length is not the group size, or an entry's shape or dtype
            differs from ``tensor``'s.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad, dyngrad.distributed as dist
        >>> out = [dyngrad.zeros(2)]
        >>> if not dist.is_initialized():
        ...     out[0].copy_(dyngrad.ones(2))   # what all_gather does with one rank
        tensor([1., 1.])
    """
    outs = _tensor_list(tensor_list, "all_gather", "tensor_list")
    a = _tensor(tensor, "all_gather", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    if len(outs) != g.size():
        raise ValueError(f"all_gather: tensor_list has {len(outs)} tensors, the group has {g.size()} ranks")
    for i, o in enumerate(outs):
        if o.shape != a.shape or o.dtype != a.dtype:
            raise ValueError(f"all_gather: tensor_list[{i}] is {list(o.shape)} {o.dtype}, tensor is "
                             f"{list(a.shape)} {a.dtype}")
    seq = _begin("all_gather", g, a)
    send = np.ascontiguousarray(a)
    recv = np.empty((g.size(), *a.shape), dtype=a.dtype)

    def finish() -> None:
        for t, o, r in zip(tensor_list, outs, recv):
            np.copyto(o, r)
            t._vc[0] += 1

    req = g._comm.Iallgather(send, recv)
    return _run([req], "all_gather", g, seq, async_op, finish, list(tensor_list))


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: ProcessGroup | None = None,
                           async_op: bool = False) -> Work | None:
    """Every rank's ``input_tensor`` concatenated (``(world_size * N, *)``) or stacked
    (``(world_size, N, *)``) into ``output_tensor`` (zero-copy when it is contiguous).

    Not differentiable.

    Args:
        output_tensor (Tensor): ``(world_size * N, *)`` or ``(world_size, N, *)``.
        input_tensor (Tensor): ``(N, *)``.
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        TypeError: not Tensors.
        ValueError: sizes or dtypes that do not fit.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.all_gather_into_tensor)
        True
    """
    out = _tensor(output_tensor, "all_gather_into_tensor", "output_tensor")
    a = _tensor(input_tensor, "all_gather_into_tensor", "input_tensor")
    g = _resolve(group)
    if g is None:
        return None
    if out.size != a.size * g.size() or out.dtype != a.dtype:
        raise ValueError(f"all_gather_into_tensor: output_tensor is {list(out.shape)} {out.dtype}; it must hold "
                         f"{g.size()} x input_tensor {list(a.shape)} {a.dtype}")
    seq = _begin("all_gather_into_tensor", g, a)
    buf = _contig(out)
    req = g._comm.Iallgather(np.ascontiguousarray(a), buf)
    return _run([req], "all_gather_into_tensor", g, seq, async_op, lambda: _written(output_tensor, out, buf),
                [output_tensor])


def reduce(tensor: Tensor, dst: int | None = None, op: Any = ReduceOp.SUM, group: ProcessGroup | None = None,
           async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Combine ``tensor`` across the group with ``op`` into rank ``dst``'s ``tensor`` (the
    other ranks' tensors are left unchanged).

    Not differentiable.

    Args:
        tensor (Tensor): ``(*)``.
        dst (int): the world rank that receives. Default: ``None`` (rank 0).
        op (ReduceOp): Default: ``ReduceOp.SUM``.
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
        group_dst (int): ``dst`` as a rank in ``group``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        TypeError: not a Tensor; an op the dtype does not support.
        ValueError: ``dst`` not in the group.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.reduce)
        True
    """
    a = _tensor(tensor, "reduce", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst", "reduce")
    mop = _mpi_op(op, a.dtype, "reduce")
    seq = _begin("reduce", g, a)
    buf = _contig(a)
    is_root = g.rank() == root
    if is_root:
        req = g._comm.Ireduce(G.mpi().IN_PLACE, buf, mop, root=root)
    else:
        req = g._comm.Ireduce(buf, None, mop, root=root)

    def finish() -> None:
        if is_root:
            if op == RedOpType.AVG:
                _average(buf, g.size())
            _written(tensor, a, buf)

    return _run([req], "reduce", g, seq, async_op, finish, [tensor])


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: Any = ReduceOp.SUM,
                   group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Rank ``i`` gets ``op`` over the ranks of their ``input_list[i]``, in ``output``.

    Not differentiable.

    Args:
        output (Tensor): ``(*)``.
        input_list (list[Tensor]): ``world_size`` tensors shaped like ``output``.
        op (ReduceOp): Default: ``ReduceOp.SUM``.
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        TypeError: not Tensors.
        ValueError: a length or shape that does not fit.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.reduce_scatter)
        True
    """
    out = _tensor(output, "reduce_scatter", "output")
    ins = _tensor_list(input_list, "reduce_scatter", "input_list")
    g = _resolve(group)
    if g is None:
        return None
    if len(ins) != g.size() or any(i.shape != out.shape or i.dtype != out.dtype for i in ins):
        raise ValueError(f"reduce_scatter: input_list must hold {g.size()} tensors of output's shape "
                         f"{list(out.shape)} and dtype {out.dtype}")
    return _reduce_scatter(output, out, np.stack(ins), op, g, async_op, "reduce_scatter")


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: Any = ReduceOp.SUM,
                          group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Rank ``i`` gets ``op`` over the ranks of chunk ``i`` of ``input`` (``input`` is
    ``(world_size * N, *)`` or ``(world_size, N, *)``; ``output`` is ``(N, *)``).

    Not differentiable.

    Args:
        output (Tensor): ``(N, *)``.
        input (Tensor): ``world_size`` times ``output``'s size.
        op (ReduceOp): Default: ``ReduceOp.SUM``.
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        TypeError: not Tensors.
        ValueError: sizes that do not fit.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.reduce_scatter_tensor)
        True
    """
    out = _tensor(output, "reduce_scatter_tensor", "output")
    a = _tensor(input, "reduce_scatter_tensor", "input")
    g = _resolve(group)
    if g is None:
        return None
    if a.size != out.size * g.size() or a.dtype != out.dtype:
        raise ValueError(f"reduce_scatter_tensor: input is {list(a.shape)} {a.dtype}; it must hold {g.size()} x "
                         f"output {list(out.shape)} {out.dtype}")
    return _reduce_scatter(output, out, np.ascontiguousarray(a), op, g, async_op, "reduce_scatter_tensor")


def _reduce_scatter(output: Tensor, out: np.ndarray, send: np.ndarray, op: Any, g: ProcessGroup, async_op: bool,
                    name: str) -> Work | None:
    mop = _mpi_op(op, out.dtype, name)
    seq = _begin(name, g, out)
    buf = _contig(out)

    def finish() -> None:
        if op == RedOpType.AVG:
            _average(buf, g.size())
        _written(output, out, buf)

    req = g._comm.Ireduce_scatter_block(send, buf, mop)
    return _run([req], name, g, seq, async_op, finish, [output])


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None,
           group: ProcessGroup | None = None, async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (rank ``i``'s into
    ``gather_list[i]``).

    Not differentiable.

    Args:
        tensor (Tensor): ``(*)``.
        gather_list (list[Tensor]): on ``dst`` only: ``world_size`` tensors shaped like
            ``tensor``; None elsewhere.
        dst (int): the world rank that receives. Default: ``None`` (rank 0).
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
        group_dst (int): ``dst`` as a rank in ``group``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        ValueError: ``gather_list`` missing on ``dst`` or given elsewhere, or of the wrong
            length or shape.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.gather)
        True
    """
    a = _tensor(tensor, "gather", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst", "gather")
    is_root = g.rank() == root
    outs = _check_root_list(gather_list, is_root, a, g, "gather", "gather_list")
    seq = _begin("gather", g, a)
    recv = np.empty((g.size(), *a.shape), dtype=a.dtype) if is_root else None

    def finish() -> None:
        if is_root:
            for t, o, r in zip(gather_list or [], outs, recv):  # type: ignore[arg-type]
                np.copyto(o, r)
                t._vc[0] += 1

    req = g._comm.Igather(np.ascontiguousarray(a), recv, root=root)
    return _run([req], "gather", g, seq, async_op, finish, list(gather_list or []))


def _check_root_list(lst: Any, is_root: bool, a: np.ndarray, g: ProcessGroup, op: str, name: str) -> list:
    if not is_root:
        if lst:
            raise ValueError(f"{op}: Argument ``{name}`` must NOT be specified on non-{'destination' if op == 'gather' else 'source'} ranks.")
        return []
    if lst is None:
        raise ValueError(f"{op}: Argument ``{name}`` must be specified on the {'destination' if op == 'gather' else 'source'} rank.")
    arrs = _tensor_list(lst, op, name)
    if len(arrs) != g.size() or any(x.shape != a.shape or x.dtype != a.dtype for x in arrs):
        raise ValueError(f"{op}: {name} must hold {g.size()} tensors of shape {list(a.shape)} and dtype {a.dtype}")
    return arrs


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None,
            group: ProcessGroup | None = None, async_op: bool = False, group_src: int | None = None) -> Work | None:
    """Rank ``src``'s ``scatter_list[i]`` into rank ``i``'s ``tensor``.

    Not differentiable.

    Args:
        tensor (Tensor): ``(*)``, the output.
        scatter_list (list[Tensor]): on ``src`` only: ``world_size`` tensors shaped like
            ``tensor``.
        src (int): the world rank that sends. Default: ``None`` (rank 0).
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
        group_src (int): ``src`` as a rank in ``group``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        ValueError: ``scatter_list`` missing on ``src`` or given elsewhere, or of the wrong
            length or shape.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.scatter)
        True
    """
    a = _tensor(tensor, "scatter", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src", "scatter")
    is_root = g.rank() == root
    ins = _check_root_list(scatter_list, is_root, a, g, "scatter", "scatter_list")
    seq = _begin("scatter", g, a)
    send = np.stack(ins) if is_root else None
    buf = _contig(a)
    req = g._comm.Iscatter(send, buf, root=root)
    return _run([req], "scatter", g, seq, async_op, lambda: _written(tensor, a, buf), [tensor])


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: list[int] | None = None,
                      input_split_sizes: list[int] | None = None, group: ProcessGroup | None = None,
                      async_op: bool = False) -> Work | None:
    """Chunk ``i`` (along dim 0) of every rank's ``input`` goes to rank ``i``; rank ``j``'s
    chunk lands in chunk ``j`` of ``output``. Only equal splits are supported.

    Not differentiable.

    Args:
        output (Tensor): ``(N, *)``, ``N`` divisible by the group size.
        input (Tensor): ``(N, *)``.
        output_split_sizes: must be None (equal splits).
        input_split_sizes: must be None (equal splits).
        group (ProcessGroup): Default: ``None``.
        async_op (bool): Default: ``False``.
    Returns:
        Work when ``async_op``, else None.
    Raises:
        NotImplementedError: uneven split sizes.
        ValueError: sizes that do not fit.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.all_to_all_single)
        True
    """
    out = _tensor(output, "all_to_all_single", "output")
    a = _tensor(input, "all_to_all_single", "input")
    g = _resolve(group)
    if g is None:
        return None
    if output_split_sizes is not None or input_split_sizes is not None:
        raise NotImplementedError("all_to_all_single: uneven split sizes are not supported")
    if out.shape != a.shape or out.dtype != a.dtype or (a.shape and a.shape[0] % g.size()):
        raise ValueError(f"all_to_all_single: output {list(out.shape)} and input {list(a.shape)} must have the same "
                         f"shape and dtype, dim 0 divisible by {g.size()}")
    seq = _begin("all_to_all_single", g, a)
    buf = _contig(out)
    req = g._comm.Ialltoall(np.ascontiguousarray(a), buf)
    return _run([req], "all_to_all_single", g, seq, async_op, lambda: _written(output, out, buf), [output])


# ------------------------------------------------------------------ point to point

def _peer(g: ProcessGroup, rank: int | None, group_rank: int | None, what: str, op: str) -> int:
    if rank is not None and group_rank is not None:
        raise ValueError(f"{op}: Can't specify both {what} and group_{what}")
    if group_rank is not None:
        r = int(group_rank)
    else:
        if rank not in g._ranks:
            raise ValueError(f"{op}: {what}={rank} is not a rank of group {g._name!r} (ranks {g._ranks})")
        r = g._ranks.index(rank)
    if r == g.rank():
        raise ValueError(f"{op}: Invalid {what} rank: {what} rank should not be the same as the rank of the "
                         "current process.")
    return r


def isend(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
          group_dst: int | None = None) -> Work | None:
    """Start sending ``tensor`` to rank ``dst``; the tensor must not change until the Work's
    ``wait()`` returned.

    Args:
        tensor (Tensor): ``(*)``.
        dst (int): the world rank that receives.
        group (ProcessGroup): Default: ``None``.
        tag (int): matches the ``recv`` with the same tag (``>= 0``). Default: ``0``.
        group_dst (int): ``dst`` as a rank in ``group``.
    Returns:
        Work (None on a rank not in ``group``).
    Raises:
        ValueError: ``dst`` is this rank or not in the group.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.isend)
        True
    """
    a = _tensor(tensor, "isend", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    peer = _peer(g, dst, group_dst, "dst", "isend")
    G.check_usable("isend")
    buf = np.ascontiguousarray(a)
    return Work([g._comm.Isend(buf, dest=peer, tag=tag)], "isend", g, -1, None, [tensor])


def irecv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
          group_src: int | None = None) -> Work | None:
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None).

    Args:
        tensor (Tensor): ``(*)``, written in place after ``wait()``.
        src (int): the world rank that sends. Default: ``None`` (any).
        group (ProcessGroup): Default: ``None``.
        tag (int): Default: ``0``.
        group_src (int): ``src`` as a rank in ``group``.
    Returns:
        Work (None on a rank not in ``group``).
    Raises:
        ValueError: ``src`` is this rank or not in the group.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.irecv)
        True
    """
    a = _tensor(tensor, "irecv", "tensor")
    g = _resolve(group)
    if g is None:
        return None
    MPI = G.mpi()
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _peer(g, src, group_src, "src", "irecv")
    G.check_usable("irecv")
    buf = _contig(a)
    return Work([g._comm.Irecv(buf, source=peer, tag=tag)], "irecv", g, -1, lambda: _written(tensor, a, buf),
                [tensor])


def send(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    """Send ``tensor`` to rank ``dst`` and wait until it was sent.

    Args:
        tensor (Tensor): ``(*)``.
        dst (int): the world rank that receives.
        group (ProcessGroup): Default: ``None``.
        tag (int): Default: ``0``.
        group_dst (int): ``dst`` as a rank in ``group``.
    Raises:
        ValueError: ``dst`` is this rank or not in the group.
        RuntimeError: the group's timeout passed (the peer never received).

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.send)
        True
    """
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


def recv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None).

    Args:
        tensor (Tensor): ``(*)``, written in place.
        src (int): the world rank that sends. Default: ``None`` (any).
        group (ProcessGroup): Default: ``None``.
        tag (int): Default: ``0``.
        group_src (int): ``src`` as a rank in ``group``.
    Returns:
        int: the world rank the message came from (-1 on a rank not in ``group``).
    Raises:
        ValueError: ``src`` is this rank or not in the group.
        RuntimeError: the group's timeout passed.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.recv)
        True
    """
    a = _tensor(tensor, "recv", "tensor")
    g = _resolve(group)
    if g is None:
        return -1
    MPI = G.mpi()
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _peer(g, src, group_src, "src", "recv")
    G.check_usable("recv")
    buf = _contig(a)
    status = MPI.Status()
    G.wait_requests([g._comm.Irecv(buf, source=peer, tag=tag)], "recv", g, -1, statuses=[status])
    _written(tensor, a, buf)
    return g._ranks[status.Get_source()]


# ------------------------------------------------------------------ objects (pickled)

def _bytes_allgather(g: ProcessGroup, payload: bytes, op: str) -> list[bytes]:
    seq, check = _begin(op, g, None)
    n = np.array([len(payload)], dtype=np.int64)
    sizes = np.empty(g.size(), dtype=np.int64)
    reqs = [g._comm.Iallgather(n, sizes)]
    G.wait_requests(reqs if check is None else [check.req, *reqs], op, g, seq, check=check)
    recv = np.empty(int(sizes.sum()), dtype=np.uint8)
    counts = sizes.tolist()
    displs = np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()
    G.wait_requests([g._comm.Iallgatherv(np.frombuffer(payload, dtype=np.uint8), [recv, (counts, displs), G.mpi().BYTE])], op, g, seq)
    return [recv[d:d + c].tobytes() for d, c in zip(displs, counts)]


def all_gather_object(object_list: list, obj: Any, group: ProcessGroup | None = None) -> None:
    """Every rank's picklable ``obj``, rank ``i``'s into ``object_list[i]``.

    Args:
        object_list (list): ``world_size`` slots, overwritten.
        obj: any picklable object.
        group (ProcessGroup): Default: ``None``.
    Raises:
        ValueError: ``object_list`` has the wrong length.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.all_gather_object)
        True
    """
    g = _resolve(group)
    if g is None:
        return
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} slots, the group has {g.size()} ranks")
    import pickle

    for i, b in enumerate(_bytes_allgather(g, pickle.dumps(obj), "all_gather_object")):
        object_list[i] = pickle.loads(b)


def broadcast_object_list(object_list: list, src: int | None = None, group: ProcessGroup | None = None,
                          device: Any = None, group_src: int | None = None) -> None:
    """Rank ``src``'s ``object_list`` (picklable objects) into ``object_list`` on every
    rank, in place (the list has the same length everywhere).

    Args:
        object_list (list): the objects (on ``src``) or slots (elsewhere).
        src (int): Default: ``None`` (rank 0).
        group (ProcessGroup): Default: ``None``.
        device: ignored.
        group_src (int): ``src`` as a rank in ``group``.
    Raises:
        ValueError: ``src`` not in the group.
        RuntimeError: a timeout or a failed rank.

    Example:
        >>> import dyngrad.distributed as dist
        >>> callable(dist.broadcast_object_list)
        True
    """
    g = _resolve(group)
    if g is None:
        return
    import pickle

    root = _root(g, src, group_src, "src", "broadcast_object_list")
    payload = pickle.dumps(list(object_list)) if g.rank() == root else b""
    got = _bytes_allgather(g, payload, "broadcast_object_list")[root]
    object_list[:] = pickle.loads(got)

