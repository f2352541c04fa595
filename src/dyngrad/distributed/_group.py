"""The process groups, the MPI import, and the waiting that turns a hang into an error.

Every collective is posted as MPI's non-blocking version (``Iallreduce``, ``Ibcast``, ...)
and completed by :func:`wait_requests`, which polls ``MPI.Request.Testall`` against the
group's timeout and, between polls, a fault channel (a duplicate of ``COMM_WORLD`` used for
nothing else): a rank that dies of an uncaught exception or times out tells the others
there, so they raise a ``RuntimeError`` naming it instead of waiting forever.

mpi4py is imported only by :func:`mpi` (``init_process_group``), never by ``import
dyngrad`` or ``import dyngrad.distributed``.
"""

from __future__ import annotations

import datetime
import enum
import os
import sys
import time
from typing import Any

import numpy as np

__all__ = ["ProcessGroup", "GroupMember", "DebugLevel", "Backend"]

EXTRA_HINT = 'pip install "dyngrad[distributed]" (mpi4py and the mpich wheel)'
_FAULT_TAG = 7  # on the fault channel only
_MPI: Any = None


def mpi() -> Any:
    """The ``mpi4py.MPI`` module (MPI is initialised on the first call)."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError as exc:
            raise ImportError(
                f"dyngrad.distributed needs mpi4py and an MPI library: {EXTRA_HINT}") from exc
        _MPI = MPI
    return _MPI


class Backend(str):
    """The name of a process group's backend; dyngrad has one, ``Backend.MPI == "mpi"``
    (PyTorch's ``torch.distributed.Backend``: a ``str`` subclass).

    Args:
        name (str): ``"mpi"`` (case-insensitive).
    Raises:
        ValueError: any other name (dyngrad has no gloo, NCCL or UCC backend).

    Example:
        >>> from dyngrad.distributed import Backend
        >>> Backend("MPI") == Backend.MPI == "mpi"
        True
    """

    MPI = "mpi"

    def __new__(cls, name: str) -> Backend:
        if not isinstance(name, str) or name.lower() != "mpi":
            raise ValueError(f"Backend: dyngrad.distributed has only the 'mpi' backend, got {name!r}")
        return super().__new__(cls, "mpi")


class DebugLevel(enum.IntEnum):
    """PyTorch's ``torch.distributed.DebugLevel`` (read from ``TORCH_DISTRIBUTED_DEBUG`` at
    ``init_process_group``). dyngrad checks every collective's operation, dtype and shape
    across the ranks at every level (a 128-byte all-gather posted with the call; turn it off
    with ``DYNGRAD_DISTRIBUTED_CHECKS=0``); ``DETAIL`` keeps the check on even then.

    Args:
        value (int): ``0`` (OFF), ``1`` (INFO) or ``2`` (DETAIL); or look a level up by
            name, ``DebugLevel["DETAIL"]``.
    Raises:
        ValueError: for a value that is not a level (``DebugLevel(5)``); KeyError for an
            unknown name.

    Example:
        >>> from dyngrad.distributed import DebugLevel
        >>> DebugLevel["DETAIL"] > DebugLevel.OFF
        True
    """

    OFF = 0
    INFO = 1
    DETAIL = 2


class _NonMember:
    def __repr__(self) -> str:
        return "GroupMember.NON_GROUP_MEMBER"


class GroupMember:
    """PyTorch's sentinels: ``GroupMember.WORLD`` (None: the default group, as a ``group=``
    argument) and ``GroupMember.NON_GROUP_MEMBER`` (what ``new_group`` returns on a rank not
    in the group; collectives given it do nothing and return None).

    Example:
        >>> from dyngrad.distributed import GroupMember
        >>> GroupMember.WORLD is None
        True
    """

    WORLD: Any = None
    NON_GROUP_MEMBER: Any = _NonMember()


class ProcessGroup:
    """A set of ranks that run collectives together (an MPI communicator of its own, so
    its messages never mix with another group's). Made by ``init_process_group`` (the
    world) and ``new_group``; not constructed directly.

    Args:
        comm: the group's MPI communicator.
        ranks (list[int]): the members' ranks in the world, in group-rank order.
        timeout (float): seconds a collective may wait before it raises.
        name (str): shown in error messages.
    Raises:
        RuntimeError: from its collectives, on a timeout or when another rank failed.

    Example:
        >>> import dyngrad.distributed as dist
        >>> dist.ProcessGroup.__name__
        'ProcessGroup'
    """

    def __init__(self, comm: Any, ranks: list[int], timeout: float, name: str) -> None:
        self._comm = comm
        self._ranks = list(ranks)
        self._timeout = float(timeout)
        self._name = name
        self._seq = 0  # collectives started on this group (error messages name the call)

    def rank(self) -> int:
        """This process's rank in the group.

        Returns:
            int: in ``[0, size())``.
        """
        return int(self._comm.Get_rank())

    def size(self) -> int:
        """The number of ranks in the group.

        Returns:
            int: at least 1.
        """
        return len(self._ranks)

    def name(self) -> str:
        """The group's name (``"default"`` for the world group).

        Returns:
            str: the name.
        """
        return self._name

    def __repr__(self) -> str:
        return f"ProcessGroup(name={self._name!r}, ranks={self._ranks}, backend='mpi')"


class _State:
    def __init__(self) -> None:
        self.world: ProcessGroup | None = None
        self.ctl: Any = None  # the fault channel: COMM_WORLD.Dup()
        self.debug = DebugLevel.OFF
        self.broken: str | None = None  # set once a fault was seen: later calls fail at once
        self.groups: list[ProcessGroup] = []
        self.prev_excepthook: Any = None
        self.notified = False
        self.pending_sends: list = []


state = _State()


def timeout_seconds(timeout: Any, default: float) -> float:
    if timeout is None:
        return default
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
        return float(timeout)
    raise TypeError(f"timeout must be a datetime.timedelta (or seconds), got {type(timeout).__name__}")


def world_rank() -> int:
    return int(state.world._comm.Get_rank()) if state.world is not None else 0


def notify(kind: str, **info: Any) -> None:
    """Tell every other rank on the fault channel (non-blocking, pickled) what went wrong."""
    if state.ctl is None or state.world is None:
        return
    me = world_rank()
    if kind == "error":
        if state.notified:
            return
        state.notified = True
    msg = {"kind": kind, "rank": me, **info}
    for r in range(state.world.size()):
        if r != me:
            state.pending_sends.append(state.ctl.isend(msg, dest=r, tag=_FAULT_TAG))


def poll_faults() -> list[dict]:
    """The fault reports other ranks have sent (non-blocking)."""
    out = []
    ctl = state.ctl
    while ctl is not None and ctl.iprobe(source=mpi().ANY_SOURCE, tag=_FAULT_TAG):
        out.append(ctl.recv(source=mpi().ANY_SOURCE, tag=_FAULT_TAG))
    return out


def _describe(report: dict) -> str:
    if report["kind"] == "error":
        return f"rank {report['rank']} failed with {report['type']}: {report['message']}"
    return f"rank {report['rank']} timed out in {report['op']} (call #{report['seq']} on group {report['group']!r})"


def fail(message: str) -> RuntimeError:
    state.broken = message
    return RuntimeError(message)


def check_usable(op: str) -> None:
    if state.broken is not None:
        raise RuntimeError(f"{op}: the process group is unusable after an earlier fault: {state.broken}")


class SignatureCheck:
    """The cheap mismatch check posted with every collective: an ``Iallgather`` of each
    rank's 16-int64 signature (operation, dtype, shape) on the group's communicator, posted
    just before the operation itself, so it costs one small concurrent message, not a
    round trip. When it completes, every rank compares and raises naming the ranks that
    differ (before the operation's own result is used)."""

    def __init__(self, op: str, group: ProcessGroup, seq: int, arr: np.ndarray | None) -> None:
        self.op, self.group, self.seq = op, group, seq
        self.mine = signature(op, arr)
        self.sigs = np.empty((group.size(), self.mine.size), dtype=np.int64)
        self.req = group._comm.Iallgather(self.mine, self.sigs)
        self.done = False

    def verify(self) -> None:
        if self.done:
            return
        self.done = True
        sigs, g = self.sigs, self.group
        bad = [r for r in range(g.size()) if not np.array_equal(sigs[r], sigs[0])]
        if bad:
            lines = [f"rank {g._ranks[r]}: {describe_signature(sigs[r])}" for r in [0, *bad]]
            if any(sigs[r][0] != sigs[0][0] for r in bad):
                lines.append("(the ranks are in different operations)")
            raise fail(f"{self.op}: the ranks passed different tensors (call #{self.seq} on group {g._name!r}): "
                       + "; ".join(lines) + f"; ranks that differ from rank {g._ranks[0]}: "
                       + str([g._ranks[r] for r in bad]))


def checks_enabled() -> bool:
    return state.debug >= DebugLevel.DETAIL or os.environ.get("DYNGRAD_DISTRIBUTED_CHECKS", "1") != "0"


def wait_requests(reqs: list, op: str, group: ProcessGroup, seq: int, timeout: float | None = None,
                  statuses: list | None = None, check: SignatureCheck | None = None) -> None:
    """Complete ``reqs`` (MPI requests of call ``seq`` on ``group``) or raise.

    Spins on ``Testall`` for about a millisecond, then sleeps between polls (10 us doubling
    to 1 ms, so an idle wait costs little CPU). Every poll also reads the fault channel.

    Raises:
        RuntimeError: another rank reported a failure; or ``timeout`` (the group's) passed:
            the message names the ranks that reported being in this call and those that
            did not (found by a census on the fault channel lasting a fraction of a second).
    """
    MPI = mpi()
    limit = group._timeout if timeout is None else timeout
    try:
        if check is not None and not check.done and check.req.Test():
            check.verify()
        if MPI.Request.Testall(reqs, statuses):
            if check is not None:
                check.verify()
            return
        t0 = time.monotonic()
        deadline = t0 + limit
        nap = 0.0
        while True:
            if check is not None and not check.done and check.req.Test():
                check.verify()
            if MPI.Request.Testall(reqs, statuses):
                if check is not None:
                    check.verify()
                return
            reports = poll_faults()
            if reports:
                _raise_for_reports(reports, op, group, seq, limit)
            now = time.monotonic()
            if now > deadline:
                _raise_timeout(op, group, seq, limit, [])
            if now - t0 > 1e-3:
                nap = min(1e-3, max(1e-5, nap * 2))
                time.sleep(nap)
    except MPI.Exception as exc:
        hint = ("" if checks_enabled() else
                "; tensors of different sizes or dtypes on different ranks cause this: run without "
                "DYNGRAD_DISTRIBUTED_CHECKS=0 to have each call check and name the rank")
        raise fail(f"{op}: MPI error on rank {world_rank()} in call #{seq} on group {group._name!r}: "
                   f"{exc.Get_error_string()}{hint}") from None


def _raise_for_reports(reports: list[dict], op: str, group: ProcessGroup, seq: int, limit: float) -> None:
    errors = [r for r in reports if r["kind"] == "error"]
    if errors:
        me = world_rank()
        notify("error", type="RuntimeError", message=f"rank {me} stopped in {op} after: {_describe(errors[0])}")
        raise fail(f"{op} on rank {me}: " + "; ".join(_describe(r) for r in errors)
                   + " (the group cannot continue; this rank stops too)")
    _raise_timeout(op, group, seq, limit, reports)


def _raise_timeout(op: str, group: ProcessGroup, seq: int, limit: float, reports: list[dict]) -> None:
    """A census on the fault channel: tell the others this rank is stuck in call ``seq``,
    collect their reports for a short grace period, name who is missing."""
    me = world_rank()
    notify("timeout", op=op, seq=seq, group=group._name)
    grace = min(1.0, max(0.2, 0.1 * limit))
    end = time.monotonic() + grace
    while time.monotonic() < end:
        reports.extend(poll_faults())
        time.sleep(0.005)
    errors = [r for r in reports if r["kind"] == "error"]
    here = {r["rank"] for r in reports if r["kind"] == "timeout" and r["seq"] == seq and r["group"] == group._name}
    here.add(me)
    elsewhere = [r for r in reports if r["kind"] == "timeout" and r["rank"] not in here]
    missing = [r for r in group._ranks if r not in here and r not in {e["rank"] for e in elsewhere}]
    msg = (f"{op} timed out after {limit:g} s on rank {me} (call #{seq} on group {group._name!r}): "
           f"ranks that did not arrive: {missing} (not waiting in this call: never reached it, or left it)")
    others = sorted(here - {me})
    if others:
        msg += f"; ranks {others} were waiting in it too"
    if elsewhere:
        msg += "; " + "; ".join(_describe(r) for r in elsewhere)
    if errors:
        msg += "; " + "; ".join(_describe(r) for r in errors)
    raise fail(msg)


def excepthook(exc_type: Any, exc: Any, tb: Any) -> None:
    """After ``init_process_group``: print the traceback, tell the other ranks, give them a
    moment to report their own errors, then ``MPI_Abort`` so ``mpiexec`` ends instead of
    hanging in a collective or in ``MPI_Finalize``."""
    prev = state.prev_excepthook or sys.__excepthook__
    prev(exc_type, exc, tb)
    world = state.world
    if world is None or world.size() == 1 or _MPI is None:
        return
    try:
        notify("error", type=exc_type.__name__, message=str(exc))
        heard = set()
        end = time.monotonic() + min(5.0, world._timeout)
        while time.monotonic() < end and len(heard) < world.size() - 1:
            heard.update(r["rank"] for r in poll_faults() if r["kind"] == "error")
            time.sleep(0.01)
        sys.stderr.flush()
        sys.stdout.flush()
    finally:
        _MPI.COMM_WORLD.Abort(1)


def signature(op: str, arr: np.ndarray | None) -> np.ndarray:
    """16 int64s describing a call: op hash, dtype, ndim, shape (up to 12 dims)."""
    sig = np.full(16, -1, dtype=np.int64)
    sig[0] = sum(ord(c) * (i + 1) for i, c in enumerate(op))
    if arr is not None:
        sig[1] = arr.dtype.num
        sig[2] = arr.ndim
        sig[3:3 + min(arr.ndim, 12)] = arr.shape[:12]
    return sig


def describe_signature(sig: np.ndarray) -> str:
    if sig[2] < 0:
        return "no tensor"
    names = {np.dtype(c).num: np.dtype(c).name for c in "?bBhHiIlLqQefdgFDG"}
    return f"shape {[int(d) for d in sig[3:3 + int(sig[2])]]} {names.get(int(sig[1]), int(sig[1]))}"


def env_rank_check(mpi_rank: int, mpi_size: int) -> None:
    """``RANK`` / ``WORLD_SIZE`` as PyTorch reads them must agree with the MPI launcher."""
    for var, have in (("WORLD_SIZE", mpi_size), ("RANK", mpi_rank)):
        v = os.environ.get(var)
        if v is not None and v.strip() and int(v) != have:
            raise RuntimeError(
                f"init_process_group: {var}={v} in the environment, but MPI started this process as "
                f"rank {mpi_rank} of {mpi_size}; dyngrad's MPI backend takes ranks from the MPI launcher "
                f"(launch with `mpiexec -n N python script.py`; processes started separately, as torchrun "
                "does, cannot join one MPI world)")
