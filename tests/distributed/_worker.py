"""Run under ``mpiexec -n N python _worker.py CASE``: each case checks its values on every
rank against NumPy and prints ``OK CASE rank R`` (test_mpi.py counts those lines)."""

from __future__ import annotations

import datetime
import sys
import time

import numpy as np

import dyngrad
import dyngrad.distributed as dist
from dyngrad import nn

CASE = sys.argv[1]
TIMEOUT = float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=TIMEOUT))
R, N = dist.get_rank(), dist.get_world_size()


def vals(rank: int, shape: tuple = (3, 4), dtype: type = np.float64) -> np.ndarray:
    """What rank ``rank`` contributes: distinct, exactly representable values."""
    return (np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * (rank + 1) + rank).astype(dtype)


def eq(t: dyngrad.Tensor, ref: np.ndarray, what: str) -> None:
    got = t.numpy()
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype} != {ref.dtype}"
    assert np.array_equal(got, ref), f"{what} on rank {R}:\n{got}\n!=\n{ref}"


def collectives() -> None:
    every = [vals(r) for r in range(N)]
    for op, ref in [(dist.ReduceOp.SUM, np.sum(every, 0)), (dist.ReduceOp.PRODUCT, np.prod(every, 0)),
                    (dist.ReduceOp.MIN, np.min(every, 0)), (dist.ReduceOp.MAX, np.max(every, 0)),
                    (dist.ReduceOp.AVG, np.sum(every, 0) / N)]:
        t = dyngrad.tensor(vals(R))
        v0 = t._version
        dist.all_reduce(t, op=op)
        eq(t, ref, f"all_reduce {op.name}")
        assert t._version > v0, "all_reduce must bump the version counter"
    ints = [vals(r, dtype=np.int64) for r in range(N)]
    for op, ref in [(dist.ReduceOp.BAND, np.bitwise_and.reduce(ints)), (dist.ReduceOp.BOR, np.bitwise_or.reduce(ints)),
                    (dist.ReduceOp.BXOR, np.bitwise_xor.reduce(ints)), (dist.ReduceOp.AVG, np.sum(ints, 0) // N)]:
        t = dyngrad.tensor(vals(R, dtype=np.int64))
        dist.all_reduce(t, op=op)
        eq(t, ref, f"int all_reduce {op.name}")
    b = dyngrad.tensor(np.array([R == 0, False, True]))
    dist.all_reduce(b)
    eq(b, np.array([True, False, True]), "bool all_reduce SUM (or)")
    # in place on a non-contiguous view: the base tensor sees the result
    base = dyngrad.tensor(np.stack([vals(R), np.zeros((3, 4))]))
    view = base[:, :, 1]
    dist.all_reduce(view)
    ref = np.stack([vals(R), np.zeros((3, 4))])
    ref[:, :, 1] = np.sum([np.stack([vals(r), np.zeros((3, 4))])[:, :, 1] for r in range(N)], 0)
    eq(base, ref, "all_reduce of a strided view")
    # zero-copy: the tensor's own array is what MPI wrote
    t = dyngrad.tensor(vals(R))
    arr = t._data
    dist.all_reduce(t)
    assert t._data is arr, "all_reduce of a contiguous tensor must not replace its array"
    # broadcast from every rank
    for src in range(N):
        t = dyngrad.tensor(vals(R, dtype=np.float32))
        dist.broadcast(t, src=src)
        eq(t, vals(src, dtype=np.float32), f"broadcast src={src}")
    # all_gather, all_gather_into_tensor (cat and stack layouts)
    outs = [dyngrad.zeros(3, 4, dtype=dyngrad.float64) for _ in range(N)]
    dist.all_gather(outs, dyngrad.tensor(vals(R)))
    for r in range(N):
        eq(outs[r], vals(r), f"all_gather [{r}]")
    cat = dyngrad.zeros(3 * N, 4, dtype=dyngrad.float64)
    dist.all_gather_into_tensor(cat, dyngrad.tensor(vals(R)))
    eq(cat, np.concatenate([vals(r) for r in range(N)]), "all_gather_into_tensor (cat)")
    stk = dyngrad.zeros(N, 3, 4, dtype=dyngrad.float64)
    dist.all_gather_into_tensor(stk, dyngrad.tensor(vals(R)))
    eq(stk, np.stack([vals(r) for r in range(N)]), "all_gather_into_tensor (stack)")
    # reduce to every root; non-roots keep their values
    for dst in range(N):
        t = dyngrad.tensor(vals(R))
        dist.reduce(t, dst=dst, op=dist.ReduceOp.MAX)
        eq(t, np.max(every, 0) if R == dst else vals(R), f"reduce dst={dst}")
    # reduce_scatter (list) and reduce_scatter_tensor
    chunks = [dyngrad.tensor(vals(R) + 100 * k) for k in range(N)]
    out = dyngrad.zeros(3, 4, dtype=dyngrad.float64)
    dist.reduce_scatter(out, chunks)
    eq(out, np.sum([vals(r) + 100 * R for r in range(N)], 0), "reduce_scatter")
    inp = dyngrad.tensor(np.concatenate([vals(R) + 100 * k for k in range(N)]))
    out = dyngrad.zeros(3, 4, dtype=dyngrad.float64)
    dist.reduce_scatter_tensor(out, inp, op=dist.ReduceOp.AVG)
    eq(out, np.sum([vals(r) + 100 * R for r in range(N)], 0) / N, "reduce_scatter_tensor AVG")
    # gather and scatter
    gl = [dyngrad.zeros(3, 4, dtype=dyngrad.float64) for _ in range(N)] if R == 1 % N else None
    dist.gather(dyngrad.tensor(vals(R)), gl, dst=1 % N)
    if gl is not None:
        for r in range(N):
            eq(gl[r], vals(r), f"gather [{r}]")
    sl = [dyngrad.tensor(vals(k) * 7) for k in range(N)] if R == 0 else None
    t = dyngrad.zeros(3, 4, dtype=dyngrad.float64)
    dist.scatter(t, sl, src=0)
    eq(t, vals(R) * 7, "scatter")
    # all_to_all_single
    inp = dyngrad.tensor(np.concatenate([vals(R, (2, 4)) + 10 * k for k in range(N)]))
    out = dyngrad.zeros(2 * N, 4, dtype=dyngrad.float64)
    dist.all_to_all_single(out, inp)
    eq(out, np.concatenate([vals(r, (2, 4)) + 10 * R for r in range(N)]), "all_to_all_single")
    # objects
    objs: list = [None] * N
    dist.all_gather_object(objs, {"rank": R, "s": "x" * R})
    assert objs == [{"rank": r, "s": "x" * r} for r in range(N)], objs
    lst = [R, "from"] if R == 0 else [None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [0, "from"], lst
    dist.barrier()
    print(f"OK collectives rank {R}", flush=True)


def async_and_p2p() -> None:
    ts = [dyngrad.tensor(vals(R) + k) for k in range(3)]
    works = [dist.all_reduce(t, async_op=True) for t in ts]
    assert all(isinstance(w, dist.Work) for w in works)
    for k, (t, w) in enumerate(zip(ts, works)):
        assert w.wait() is True and w.is_completed() and w.is_success()
        assert w.result() == [t]
        eq(t, np.sum([vals(r) + k for r in range(N)], 0), f"async all_reduce {k}")
    w = dist.broadcast(dyngrad.tensor(vals(R)), src=0, async_op=True)
    while not w.is_completed():
        time.sleep(0.001)
    eq(w.result()[0], vals(0), "async broadcast via is_completed")
    assert dist.barrier(async_op=True).wait()
    # send / recv / isend / irecv in a ring
    nxt, prv = (R + 1) % N, (R - 1) % N
    if N > 1:
        got = dyngrad.zeros(3, 4, dtype=dyngrad.float64)
        rw = dist.irecv(got, src=prv, tag=5)
        sw = dist.isend(dyngrad.tensor(vals(R)), dst=nxt, tag=5)
        sw.wait()
        rw.wait()
        eq(got, vals(prv), "isend/irecv ring")
        if R == 0:
            dist.send(dyngrad.tensor(vals(0) * 3), dst=1)
        elif R == 1:
            t = dyngrad.zeros(3, 4, dtype=dyngrad.float64)
            assert dist.recv(t) == 0  # any source: returns the sender
            eq(t, vals(0) * 3, "send/recv")
        try:
            dist.send(dyngrad.ones(1), dst=R)
            raise AssertionError("send to self must raise")
        except ValueError as e:
            assert "should not be the same" in str(e)
    # groups: a group of rank 0 alone, and one of all ranks in reverse order
    solo = dist.new_group([0])
    if R == 0:
        assert dist.get_rank(solo) == 0 and dist.get_world_size(solo) == 1
        t = dyngrad.tensor(vals(R))
        dist.all_reduce(t, group=solo)
        eq(t, vals(0), "all_reduce on a one-rank group")
    else:
        assert solo is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(solo) == -1
        assert dist.all_reduce(dyngrad.ones(1), group=solo) is None
    rev = dist.new_group(list(range(N))[::-1], sort_ranks=False)
    assert dist.get_rank(rev) == N - 1 - R
    assert dist.get_process_group_ranks(rev) == list(range(N))[::-1]
    assert dist.get_global_rank(rev, 0) == N - 1 and dist.get_group_rank(rev, N - 1) == 0
    t = dyngrad.tensor(vals(R))
    dist.broadcast(t, src=N - 1, group=rev)  # src is a world rank, as in PyTorch
    eq(t, vals(N - 1), "broadcast on a reordered group (global src)")
    t = dyngrad.tensor(vals(R))
    dist.broadcast(t, group=rev, group_src=N - 1)  # group rank N-1 is world rank 0
    eq(t, vals(0), "broadcast on a reordered group (group_src)")
    dist.destroy_process_group(solo if solo is not dist.GroupMember.NON_GROUP_MEMBER else None) if R == 0 else None
    print(f"OK async rank {R}", flush=True)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(5, 7)
        self.bn = nn.BatchNorm1d(7)
        self.l2 = nn.Linear(7, 3)
        self.unused = nn.Linear(3, 3)

    def forward(self, x: dyngrad.Tensor, use_extra: bool = False) -> dyngrad.Tensor:
        y = self.l2(dyngrad.tanh(self.bn(self.l1(x))))
        return self.unused(y) if use_extra else y


def make_net(seed: int) -> Net:
    dyngrad.manual_seed(seed)
    net = Net().double()
    return net


def batches(k: int) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(k)
    return g.standard_normal((4 * N, 5)), g.standard_normal((4 * N, 3))


def ddp() -> None:
    from dyngrad.nn.parallel import DistributedDataParallel as DDP

    # different seeds per rank: construction must broadcast rank 0's parameters
    model = DDP(make_net(100 + R), find_unused_parameters=True, bucket_cap_mb=0.0001)
    assert len(model._buckets) > 2, "a tiny bucket cap must give several buckets"
    ref = make_net(100)  # rank 0's initial model, trained on the whole batch
    for (n, p), q in zip(model.module.named_parameters(), ref.parameters()):
        assert np.array_equal(p.detach().numpy(), q.detach().numpy()), f"{n} not broadcast from rank 0"
    assert list(model.state_dict())[0].startswith("module."), list(model.state_dict())
    assert model.module is not None and isinstance(model.module, Net)
    opt = dyngrad.optim.SGD(model.parameters(), lr=0.1)
    ropt = dyngrad.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(3):
        X, Y = batches(step)
        lo, hi = 4 * R, 4 * R + 4
        opt.zero_grad()
        ((model(dyngrad.tensor(X[lo:hi])) - dyngrad.tensor(Y[lo:hi])) ** 2).mean().backward()
        # the reference: one process, the concatenated batch; BatchNorm statistics are per
        # replica, so the reference runs the per-rank chunks through the same layers
        ropt.zero_grad()
        outs = [ref(dyngrad.tensor(X[4 * r:4 * r + 4])) for r in range(N)]
        (sum(((o - dyngrad.tensor(Y[4 * r:4 * r + 4])) ** 2).mean() for r, o in enumerate(outs)) / N).backward()
        for (n, p), q in zip(model.module.named_parameters(), ref.parameters()):
            if n.startswith("unused"):
                assert p.grad is None, f"{n}: no rank used it, its grad must stay None"
                continue
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-14,
                                       err_msg=f"step {step} {n}")
        opt.step()
        ropt.step()
    print(f"OK ddp_grads rank {R}", flush=True)


def ddp_bucket_view() -> None:
    from dyngrad.nn.parallel import DistributedDataParallel as DDP

    model = DDP(make_net(5), find_unused_parameters=True, bucket_cap_mb=0.0001, gradient_as_bucket_view=True)
    ref = make_net(5)
    opt = dyngrad.optim.SGD(model.parameters(), lr=0.1)
    ropt = dyngrad.optim.SGD(ref.parameters(), lr=0.1)
    for step in range(3):
        X, Y = batches(20 + step)
        opt.zero_grad()  # set to None: the next forward makes them bucket views again
        ((model(dyngrad.tensor(X[4 * R:4 * R + 4])) - dyngrad.tensor(Y[4 * R:4 * R + 4])) ** 2).mean().backward()
        if step > 0:  # after the rebuild, the unused layer's buckets come last: all others start in the pass
            assert model._started_in_pass >= len(model._buckets) - 2, (model._started_in_pass, len(model._buckets))
        ropt.zero_grad()
        outs = [ref(dyngrad.tensor(X[4 * r:4 * r + 4])) for r in range(N)]
        (sum(((o - dyngrad.tensor(Y[4 * r:4 * r + 4])) ** 2).mean() for r, o in enumerate(outs)) / N).backward()
        for (n, p), q in zip(model.module.named_parameters(), ref.parameters()):
            if n.startswith("unused"):
                assert p.grad is None, n
                continue
            assert np.shares_memory(p.grad._data, model._buckets[model._bucket_of[
                model._names.index(n)]].flat), f"{n}: .grad must be a view of its bucket"
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-14,
                                       err_msg=f"bucket view step {step} {n}")
        opt.step()
        ropt.step()
    print(f"OK bucket_view rank {R}", flush=True)


def ddp_no_sync() -> None:
    from dyngrad.nn.parallel import DistributedDataParallel as DDP

    model = DDP(make_net(7), find_unused_parameters=True)
    ref = make_net(7)
    X, Y = batches(11)
    lo = 4 * R
    loss = lambda m, xs, ys: ((m(dyngrad.tensor(xs)) - dyngrad.tensor(ys)) ** 2).mean()  # noqa: E731
    half = 2
    with model.no_sync():
        loss(model, X[lo:lo + half], Y[lo:lo + half]).backward()
    local = {n: p.grad.numpy().copy() for n, p in model.module.named_parameters() if p.grad is not None}
    # inside no_sync the gradients are local: they differ across ranks
    every: list = [None] * N
    dist.all_gather_object(every, local["l1.weight"])
    assert N == 1 or not np.array_equal(every[0], every[1]), "no_sync must not all-reduce"
    loss(model, X[lo + half:lo + 4], Y[lo + half:lo + 4]).backward()  # synchronised: averages the sum
    for n, q in ref.named_parameters():
        if n.startswith("unused"):
            continue
        q.grad = None
    for r in range(N):
        for k in (0, half):
            loss(ref, X[4 * r + k:4 * r + k + half], Y[4 * r + k:4 * r + k + half]).backward()
    for (n, p), q in zip(model.module.named_parameters(), ref.parameters()):
        if n.startswith("unused"):
            continue
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy() / N, rtol=1e-12, atol=1e-14, err_msg=n)
    print(f"OK no_sync rank {R}", flush=True)


def ddp_unused_and_buffers() -> None:
    from dyngrad.nn.parallel import DistributedDataParallel as DDP

    X, _ = batches(3)
    # only rank 0 uses the extra layer: it is used globally, so every rank gets its average
    model = DDP(make_net(1), find_unused_parameters=True)
    model(dyngrad.tensor(X[4 * R:4 * R + 4]), use_extra=(R == 0)).sum().backward()
    ref = make_net(1)
    ref(dyngrad.tensor(X[0:4]), use_extra=True).sum().backward()
    w = model.module.unused.weight.grad
    assert w is not None
    np.testing.assert_allclose(w.numpy(), ref.unused.weight.grad.numpy() / N, rtol=1e-12, atol=1e-14)
    # without find_unused_parameters, an unused parameter is an error naming it
    strict = DDP(make_net(2))
    try:
        strict(dyngrad.tensor(X[:4])).sum().backward()
        raise AssertionError("an unused parameter must raise without find_unused_parameters")
    except RuntimeError as e:
        assert "unused.weight" in str(e) and "find_unused_parameters=True" in str(e), e
    # broadcast_buffers: rank 0's running statistics reach every rank at each forward
    bb = DDP(make_net(3), broadcast_buffers=True, find_unused_parameters=True)
    bb.module.bn.running_mean.fill_(float(R + 1))
    with dyngrad.no_grad():
        bb(dyngrad.tensor(X[4 * R:4 * R + 4]))
    before = np.full(7, 1.0)
    # after the forward: the broadcast (rank 0's value 1.0) happened before the BN update,
    # so every rank's running_mean is 0.9 * 1.0 + 0.1 * (its own batch mean)
    rm = bb.module.bn.running_mean.numpy()
    mine = bb.module.l1(dyngrad.tensor(X[4 * R:4 * R + 4])).detach().numpy().mean(0)
    np.testing.assert_allclose(rm, 0.9 * before + 0.1 * mine, rtol=1e-12)
    off = DDP(make_net(3), broadcast_buffers=False, find_unused_parameters=True)
    off.module.bn.running_mean.fill_(float(R + 1))
    with dyngrad.no_grad():
        off(dyngrad.tensor(X[4 * R:4 * R + 4]))
    mine = off.module.l1(dyngrad.tensor(X[4 * R:4 * R + 4])).detach().numpy().mean(0)
    np.testing.assert_allclose(off.module.bn.running_mean.numpy(), 0.9 * (R + 1) + 0.1 * mine, rtol=1e-12)
    print(f"OK unused_buffers rank {R}", flush=True)


def sampler() -> None:
    from dyngrad.utils.data import DistributedSampler, TensorDataset

    ds = TensorDataset(dyngrad.arange(10))
    s = DistributedSampler(ds)  # rank and world size from the default group
    assert s.rank == R and s.num_replicas == N
    every: list = [None] * N
    dist.all_gather_object(every, list(s))
    flat = sorted(i for part in every for i in part)
    assert set(flat) == set(range(10)) and len(flat) == N * len(s)
    print(f"OK sampler rank {R}", flush=True)


def fault_raise() -> None:
    if R == 1:
        raise ValueError("rank one fails on purpose")
    dist.all_reduce(dyngrad.ones(3))
    print("UNREACHABLE", flush=True)


def fault_hang() -> None:
    if R == 1:
        time.sleep(120)  # never reaches the collective
    dist.all_reduce(dyngrad.ones(3))
    print("UNREACHABLE", flush=True)


def fault_shape() -> None:
    dist.all_reduce(dyngrad.ones(3 + R))
    print("UNREACHABLE", flush=True)


def fault_ddp_model() -> None:
    from dyngrad.nn.parallel import DistributedDataParallel as DDP

    DDP(nn.Linear(4, 3 + R))
    print("UNREACHABLE", flush=True)


CASES = {"collectives": collectives, "async": async_and_p2p, "ddp": lambda: (ddp(), ddp_bucket_view(), ddp_no_sync(),
                                                                         ddp_unused_and_buffers(), sampler()),
         "fault_raise": fault_raise, "fault_hang": fault_hang, "fault_shape": fault_shape,
         "fault_ddp_model": fault_ddp_model}
CASES[CASE]()
dist.destroy_process_group()
