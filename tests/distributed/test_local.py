"""dyngrad.distributed in one process without MPI (the default test run: no mpiexec, mpi4py
never imported): availability, the errors before init_process_group, the missing-extra
error, and the engine's queue_callback that DistributedDataParallel relies on."""

from __future__ import annotations

import importlib.util
import sys

import pytest

import dyngrad
import dyngrad.distributed as dist
from dyngrad.autograd.engine import queue_callback
from dyngrad.distributed import _group


def test_importing_dyngrad_distributed_does_not_import_mpi4py():
    if "mpi4py" in sys.modules:
        pytest.skip("mpi4py was imported by something else in this process")
    import dyngrad.nn.parallel  # noqa: F401

    assert "mpi4py" not in sys.modules
    assert _group._MPI is None


def test_is_available_follows_mpi4py(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mpi4py" else real(name, *a))
    assert dist.is_available() is False and dist.is_mpi_available() is False


def test_init_without_mpi4py_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # `from mpi4py import MPI` raises ImportError
    with pytest.raises(ImportError, match=r'pip install "dyngrad\[distributed\]"'):
        dist.init_process_group("mpi")
    assert not dist.is_initialized()


@pytest.mark.parametrize("backend", ["nccl", "gloo", "ucc"])
def test_only_the_mpi_backend(backend):
    with pytest.raises(ValueError, match="only the 'mpi' backend"):
        dist.init_process_group(backend)
    with pytest.raises(ValueError, match="only the 'mpi' backend"):
        dist.Backend(backend)


@pytest.mark.parametrize("call", [
    lambda: dist.get_rank(), lambda: dist.get_world_size(), lambda: dist.barrier(),
    lambda: dist.all_reduce(dyngrad.ones(2)), lambda: dist.broadcast(dyngrad.ones(2), 0),
    lambda: dist.new_group([0]), lambda: dist.destroy_process_group(),
])
def test_calls_before_init_raise_pytorchs_error(call):
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        call()


def test_non_tensor_arguments_are_named():
    with pytest.raises(TypeError, match="all_reduce: .*`tensor` of type Tensor, got list"):
        dist.all_reduce([1.0, 2.0])


def test_reduce_op_names_and_values_follow_pytorch():
    assert [op.name for op in dist.ReduceOp.RedOpType] == ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR",
                                                            "BXOR"]
    assert int(dist.ReduceOp.SUM) == 0 and dist.default_pg_timeout.total_seconds() == 1800


def test_distributed_sampler_needs_a_group_or_explicit_ranks():
    from dyngrad.utils.data import DistributedSampler

    with pytest.raises(RuntimeError, match="init_process_group"):
        DistributedSampler(list(range(10)))
    assert list(DistributedSampler(list(range(10)), num_replicas=2, rank=1, shuffle=False)) == [1, 3, 5, 7, 9]


def test_ddp_needs_an_initialised_group():
    from dyngrad.nn.parallel import DistributedDataParallel

    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(dyngrad.nn.Linear(2, 2))


# ------------------------------------------------------------------ engine.queue_callback

def test_queue_callback_outside_backward_raises():
    with pytest.raises(RuntimeError, match="no backward pass is running"):
        queue_callback(lambda: None)


def test_queue_callback_runs_once_after_every_gradient_and_hook():
    a = dyngrad.ones(3, requires_grad=True)
    b = dyngrad.ones(2, requires_grad=True)
    b.grad = dyngrad.zeros(2)  # accumulated during the pass; a's .grad is set at the end
    events: list = []

    def hook(p):
        events.append(("hook", p.shape[0]))
        if len(events) == 1:
            queue_callback(lambda: events.append(("cb", a.grad.sum().item(), b.grad.sum().item())))
            queue_callback(lambda: queue_callback(lambda: events.append(("nested",))))

    a.register_post_accumulate_grad_hook(hook)
    b.register_post_accumulate_grad_hook(hook)
    ((a * 2).sum() + (b * 3).sum()).backward()
    assert sorted(events[:2]) == [("hook", 2), ("hook", 3)]
    assert events[2:] == [("cb", 6.0, 6.0), ("nested",)]
    events.clear()
    (a * 1).sum().backward()  # callbacks belong to one pass: only this pass's run
    assert events == [("hook", 3), ("cb", 9.0, 6.0), ("nested",)]


def test_queue_callback_does_not_run_when_the_pass_raises():
    x = dyngrad.ones(2, requires_grad=True)
    ran: list = []

    class Boom(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")

    def pre(g):
        queue_callback(lambda: ran.append(1))

    y = Boom.apply(x * 2)
    y.register_hook(pre)
    with pytest.raises(ValueError, match="boom"):
        y.sum().backward()
    assert ran == []


def test_pytorchs_spelling_of_queue_callback():
    from dyngrad.autograd import Variable

    w = dyngrad.ones(2, requires_grad=True)
    ran: list = []
    w.register_post_accumulate_grad_hook(lambda p: Variable._execution_engine.queue_callback(lambda: ran.append(1)))
    w.sum().backward()
    assert ran == [1]
