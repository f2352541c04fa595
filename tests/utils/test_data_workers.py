"""utils.data with worker processes: batches equal to num_workers=0, per-worker seeds,
worker_init_fn, IterableDataset sharding, persistent workers, errors carried from a worker,
timeouts, dead workers, and shutdown leaving no process behind (error, break, del,
KeyboardInterrupt, SIGINT).

Datasets are module-level so that the spawn start method can pickle them. The default start
method on Linux is fork (a worker starts in milliseconds); spawn re-imports dyngrad in every
worker (about a second), so its tests are marked slow.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import dyngrad
from dyngrad.utils.data import (
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    TensorDataset,
    get_worker_info,
)
from dyngrad.utils.data._worker import _generate_state

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process checks read /proc")


class Samples(Dataset):
    """Dict samples of mixed types; ``r`` is a NumPy global draw (differs per worker seed)."""

    def __init__(self, n=23):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": np.full((2, 3), i, dtype=np.float32), "i": i, "half": 0.5 * i, "name": f"s{i}",
                "pair": (dyngrad.tensor([i, -i]), i % 2 == 0)}


class WhoAmI(Dataset):
    """Each sample says which process and worker loaded it, and what its RNGs draw first."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"pid": os.getpid(), "id": -1 if info is None else info.id, "seed": -1 if info is None else info.seed,
                "num_workers": 0 if info is None else info.num_workers,
                "same_dataset": info is not None and info.dataset is self,
                "py": random.random(), "np": float(np.random.random()), "dg": float(dyngrad.rand(()).item()),
                "init": _INIT.get("worker_id", -1)}


_INIT: dict = {}


def _record_init(worker_id):
    _INIT["worker_id"] = worker_id * 10


class Failing(Dataset):
    def __init__(self, bad=5, exc=ValueError):
        self.bad, self.exc = bad, exc

    def __len__(self):
        return 12

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc(f"sample {i} is broken")
        return os.getpid()


class Pids(Dataset):
    def __init__(self, n=40, delay=0.0):
        self.n, self.delay = n, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.delay)
        return os.getpid()


class Sharded(IterableDataset):
    """range(n), each worker taking every num_workers-th item (PyTorch's docs example)."""

    def __init__(self, n, shard=True):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


class TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class RaisesTwoArg(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        raise TwoArgError("a", "b")


class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


def _gone(pids, wait=5.0):
    """Whether none of ``pids`` exists any more (neither running nor a zombie)."""
    deadline = time.time() + wait
    while time.time() < deadline:
        if not any(os.path.exists(f"/proc/{p}") for p in pids):
            return True
        time.sleep(0.02)
    return False


def _flat(batches):
    out = []
    for b in batches:
        out.append({k: (v.tolist() if isinstance(v, dyngrad.Tensor) else
                        [w.tolist() if isinstance(w, dyngrad.Tensor) else w for w in v] if isinstance(v, list) else v)
                    for k, v in b.items()})
    return out


# --------------------------------------------------------------------- equal to num_workers=0
@pytest.mark.parametrize("shuffle", [False, True])
def test_two_workers_give_the_batches_of_zero_workers(shuffle):
    def run(nw):
        g = dyngrad.Generator().manual_seed(7)
        return _flat(DataLoader(Samples(), batch_size=4, shuffle=shuffle, num_workers=nw, generator=g))

    zero, two = run(0), run(2)
    assert zero == two and len(zero) == 6
    assert zero[0]["x"] == np.stack([np.full((2, 3), i, np.float32) for i in zero[0]["i"]]).tolist()


def test_tensor_dataset_batches_cross_the_process_boundary_unchanged():
    x, y = dyngrad.randn(30, 3, dtype=dyngrad.float64), dyngrad.arange(30)
    ds = TensorDataset(x, y)
    zero = list(DataLoader(ds, batch_size=7, num_workers=0))
    two = list(DataLoader(ds, batch_size=7, num_workers=2))
    assert len(zero) == len(two) == 5
    for (a, b), (c, d) in zip(zero, two):
        assert np.array_equal(a.numpy(), c.numpy()) and np.array_equal(b.numpy(), d.numpy())
        assert c.dtype == dyngrad.float64 and d.dtype == dyngrad.int64 and isinstance(c, dyngrad.Tensor)


def test_batch_size_none_and_custom_collate_run_in_the_workers():
    assert [int(p) for p in DataLoader(Pids(6), batch_size=None, num_workers=2)] != [os.getpid()] * 6
    sizes = list(DataLoader(Pids(10), batch_size=4, num_workers=2, collate_fn=len))
    assert sizes == [4, 4, 2]


def test_out_of_order_loading_yields_every_batch_once():
    got = [b.tolist() for b in DataLoader(list(range(20)), batch_size=3, num_workers=2, in_order=False)]
    assert sorted(i for b in got for i in b) == list(range(20)) and len(got) == 7


def test_prefetch_factor_one_still_yields_everything_in_order():
    got = [i for b in DataLoader(list(range(25)), batch_size=2, num_workers=3, prefetch_factor=1) for i in b.tolist()]
    assert got == list(range(25))


# --------------------------------------------------------------------- seeds and worker info
def test_each_worker_is_seeded_as_pytorch_derives_it():
    g = dyngrad.Generator().manual_seed(123)
    base = int(dyngrad.Generator().manual_seed(123).rng.integers(0, 2**63))  # the loader's one draw
    batches = list(DataLoader(WhoAmI(), batch_size=2, num_workers=2, generator=g))
    firsts = {}
    for b in batches:  # the first batch of each worker holds its first draws
        firsts.setdefault(int(b["id"][0]), b)
    assert sorted(firsts) == [0, 1]
    for wid, b in firsts.items():
        seed = base + wid
        assert b["seed"].tolist() == [seed, seed] and b["num_workers"].tolist() == [2, 2]
        assert b["py"][0].item() == random.Random(seed).random()
        assert b["dg"][0].item() == pytest.approx(float(dyngrad.rand((), generator=dyngrad.Generator().manual_seed(seed))),
                                                   abs=0)
        assert b["np"][0].item() == np.random.RandomState(_generate_state(base, wid)).random_sample()
        assert b["same_dataset"].tolist() == [True, True]
    assert firsts[0]["py"][0].item() != firsts[1]["py"][0].item()


def test_a_new_iterator_draws_a_new_base_seed():
    loader = DataLoader(WhoAmI(), batch_size=8, num_workers=1, generator=dyngrad.Generator().manual_seed(0))
    s1, s2 = (next(iter(loader))["seed"][0].item() for _ in range(2))
    assert s1 != s2


def test_worker_info_is_none_in_the_main_process_and_frozen_in_workers():
    assert get_worker_info() is None
    b = next(iter(DataLoader(WhoAmI(), batch_size=8, num_workers=0)))
    assert b["id"].tolist() == [-1] * 8 and set(b["pid"].tolist()) == {os.getpid()}


def test_worker_init_fn_runs_in_each_worker_before_loading():
    batches = list(DataLoader(WhoAmI(), batch_size=2, num_workers=2, worker_init_fn=_record_init))
    assert {(int(b["id"][0]), int(b["init"][0])) for b in batches} == {(0, 0), (1, 10)}
    assert "worker_id" not in _INIT  # it ran in the workers, not here


# --------------------------------------------------------------------- IterableDataset
def test_iterable_dataset_sharded_with_worker_info_yields_each_item_once():
    got = [i for b in DataLoader(Sharded(17), batch_size=3, num_workers=2) for i in b.tolist()]
    assert sorted(got) == list(range(17))
    # batches alternate between the workers: worker 0 holds 0, 2, 4, ...; worker 1 holds 1, 3, 5, ...
    first_two = [b.tolist() for b in DataLoader(Sharded(17), batch_size=3, num_workers=2)][:2]
    assert first_two == [[0, 2, 4], [1, 3, 5]]


class StartEnd(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))


def _split_start_end(worker_id):
    """PyTorch's docs example: the worker_init_fn narrows its copy of the dataset."""
    info = get_worker_info()
    ds = info.dataset
    per = -(-(ds.end - ds.start) // info.num_workers)
    ds.start, ds.end = ds.start + worker_id * per, min(ds.start + (worker_id + 1) * per, ds.end)


def test_worker_init_fn_can_shard_the_workers_copy_of_an_iterable_dataset():
    got = [i for b in DataLoader(StartEnd(3, 10), batch_size=2, num_workers=2, worker_init_fn=_split_start_end)
           for i in b.tolist()]
    assert sorted(got) == list(range(3, 10))


def test_iterable_dataset_without_sharding_is_read_once_per_worker():
    got = [i for b in DataLoader(Sharded(5, shard=False), batch_size=2, num_workers=2) for i in b.tolist()]
    assert sorted(got) == sorted(list(range(5)) * 2)


def test_iterable_dataset_drop_last_drops_each_workers_tail():
    got = [b.tolist() for b in DataLoader(Sharded(10), batch_size=2, num_workers=2, drop_last=True)]
    assert all(len(b) == 2 for b in got) and sorted(i for b in got for i in b) == [0, 1, 2, 3, 4, 5, 6, 7]


# --------------------------------------------------------------------- persistent workers
def test_persistent_workers_keep_their_processes_and_epochs_match_zero_workers():
    def epochs(nw, persistent):
        g = dyngrad.Generator().manual_seed(1)
        loader = DataLoader(Pids(12), batch_size=5, shuffle=True, num_workers=nw, generator=g,
                            persistent_workers=persistent)
        return [[int(p) for b in loader for p in b.tolist()] for _ in range(3)], loader

    (e, loader) = epochs(2, True)
    pids = [set(x) for x in e]
    assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2 and os.getpid() not in pids[0]
    del loader
    assert _gone(pids[0])

    def orders(nw, persistent):
        g = dyngrad.Generator().manual_seed(1)
        loader = DataLoader(list(range(12)), batch_size=5, shuffle=True, num_workers=nw, generator=g,
                            persistent_workers=persistent)
        return [[i for b in loader for i in b.tolist()] for _ in range(3)]

    assert orders(2, False) == orders(0, False)
    # persistent workers keep one iterator, so one base_seed draw for all epochs (as PyTorch:
    # from the second epoch on the order differs from num_workers=0, whose iterators draw one each)
    g = dyngrad.Generator().manual_seed(1)
    g.rng.integers(0, 2**63)
    sampler = RandomSampler(range(12), generator=g)
    persistent = orders(2, True)
    assert persistent == [list(sampler) for _ in range(3)] and persistent[0] == orders(0, False)[0]


def test_persistent_iterable_dataset_restarts_every_epoch():
    loader = DataLoader(Sharded(7), batch_size=2, num_workers=2, persistent_workers=True)
    e1 = sorted(i for b in loader for i in b.tolist())
    e2 = sorted(i for b in loader for i in b.tolist())
    assert e1 == e2 == list(range(7))


# --------------------------------------------------------------------- errors
def test_an_error_in_a_worker_is_reraised_with_the_workers_traceback():
    loader = DataLoader(Failing(bad=5), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as err:
        list(loader)
    msg = str(err.value)
    # index 5 is in batch 2 ([4, 5]), which goes to worker 2 % 2 = 0
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback")
    assert "sample 5 is broken" in msg and "raise self.exc(" in msg and "__getitem__" in msg


def test_a_key_error_keeps_its_traceback_readable():
    with pytest.raises(KeyError) as err:
        list(DataLoader(Failing(bad=0, exc=KeyError), batch_size=2, num_workers=1))
    assert "Caught KeyError in DataLoader worker process 0.\nOriginal Traceback" in str(err.value)
    assert "\\n" not in str(err.value)


def test_an_exception_type_that_needs_other_arguments_becomes_runtime_error():
    with pytest.raises(RuntimeError, match="Caught TwoArgError in DataLoader worker process"):
        list(DataLoader(RaisesTwoArg(), batch_size=2, num_workers=1))


def test_an_error_in_worker_init_fn_is_reraised():
    def bad_init(worker_id):
        raise OSError(f"no disk for worker {worker_id}")

    with pytest.raises(OSError, match="Caught OSError in DataLoader worker process 0"):
        list(DataLoader(Pids(4), batch_size=2, num_workers=1, worker_init_fn=bad_init))


def test_a_worker_that_dies_is_reported_with_its_pid():
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+.*\) exited unexpectedly"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2))


def test_timeout_raises_when_a_batch_takes_too_long():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        list(DataLoader(Pids(2, delay=0.6), batch_size=1, num_workers=1, timeout=0.2))


def test_a_tensor_with_history_is_refused_at_the_boundary():
    w = dyngrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        list(DataLoader([w * 2, w * 3], batch_size=None, num_workers=1))


def test_an_exception_type_pickle_cannot_reach_arrives_as_runtime_error_with_its_name():
    class LocalError(Exception):
        pass

    class Raises(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            raise LocalError("from a local class")

    with pytest.raises(RuntimeError, match="Caught LocalError in DataLoader worker process 0") as err:
        list(DataLoader(Raises(), batch_size=1, num_workers=1))
    assert "from a local class" in str(err.value)


def test_spawn_with_an_unpicklable_collate_fn_fails_before_starting_workers_and_says_why():
    with pytest.raises(Exception) as err:
        list(DataLoader(Pids(4), batch_size=2, num_workers=1, multiprocessing_context="spawn", collate_fn=lambda b: b))
    if sys.version_info >= (3, 11):
        assert any("define them at module level" in n for n in err.value.__notes__)


def test_persistent_workers_start_a_clean_epoch_after_a_break():
    loader = DataLoader(list(range(20)), batch_size=3, num_workers=2, persistent_workers=True)
    for _ in loader:
        break
    assert [i for b in loader for i in b.tolist()] == list(range(20))


# --------------------------------------------------------------------- no process left behind
def test_no_worker_survives_an_error():
    loader = DataLoader(Failing(bad=9), batch_size=1, num_workers=2)
    pids = set()
    with pytest.raises(ValueError):
        for p in loader:
            pids.add(int(p))
    assert len(pids) == 2 and _gone(pids)


def test_no_worker_survives_break_or_del_mid_epoch():
    loader = DataLoader(Pids(200), batch_size=1, num_workers=2)
    pids = set()
    for p in loader:
        pids.add(int(p))
        if len(pids) == 2:
            break
    assert _gone(pids)
    it = iter(loader)
    pids = {int(next(it)), int(next(it))}
    del it
    assert len(pids) == 2 and _gone(pids)


def test_no_worker_survives_keyboard_interrupt_in_the_loop_body():
    pids = set()
    try:
        for p in DataLoader(Pids(200), batch_size=1, num_workers=2):
            pids.add(int(p))
            if len(pids) == 2:
                raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert len(pids) == 2 and _gone(pids)


def test_no_worker_survives_keyboard_interrupt_while_waiting_for_a_batch():
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    pids = set()
    try:
        loader = DataLoader(Pids(50, delay=0.05), batch_size=1, num_workers=2)
        signal.setitimer(signal.ITIMER_REAL, 0.4)
        with pytest.raises(KeyboardInterrupt) as err:
            for p in loader:
                pids.add(int(p))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    # the traceback (kept, as a notebook keeps sys.last_traceback) still holds the iterator
    assert err.value is not None and len(pids) == 2 and _gone(pids)


_SIGINT_SCRIPT = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {src!r})
    from dyngrad.utils.data import DataLoader, Dataset

    class Slow(Dataset):
        def __len__(self):
            return 10 ** 6

        def __getitem__(self, i):
            time.sleep(0.01)
            return os.getpid()

    for p in DataLoader(Slow(), batch_size=1, num_workers=2):
        print(int(p), flush=True)
""")


@pytest.mark.slow
@pytest.mark.parametrize("target", ["main process", "process group"])
def test_sigint_ends_the_program_and_its_workers(target, tmp_path):
    src = os.path.dirname(os.path.dirname(dyngrad.__file__))
    script = tmp_path / "loop.py"
    script.write_text(_SIGINT_SCRIPT.format(src=src))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        pids = set()
        while len(pids) < 2:
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            pids.add(int(line))
        if target == "main process":
            os.kill(proc.pid, signal.SIGINT)
        else:
            os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert _gone(pids | {proc.pid})


# --------------------------------------------------------------------- spawn
@pytest.mark.slow
def test_spawn_start_method_gives_the_batches_of_zero_workers():
    def run(nw, ctx=None):
        g = dyngrad.Generator().manual_seed(3)
        return _flat(DataLoader(Samples(), batch_size=5, shuffle=True, num_workers=nw, generator=g,
                                multiprocessing_context=ctx))

    assert run(2, "spawn") == run(0)
    ds = TensorDataset(dyngrad.randn(20, 3), dyngrad.arange(20))
    got = [b[1].tolist() for b in DataLoader(ds, batch_size=8, num_workers=2, multiprocessing_context="spawn",
                                              worker_init_fn=_record_init)]
    assert got == [list(range(8)), list(range(8, 16)), list(range(16, 20))]


@pytest.mark.slow
def test_spawn_workers_are_seeded_like_fork_workers():
    def firsts(ctx):
        g = dyngrad.Generator().manual_seed(5)
        return {int(b["id"][0]): (b["py"][0].item(), b["np"][0].item(), b["dg"][0].item())
                for b in DataLoader(WhoAmI(), batch_size=4, num_workers=2, generator=g, multiprocessing_context=ctx)}

    assert firsts("spawn") == firsts("fork")


# --------------------------------------------------------------------- arguments
@pytest.mark.parametrize("kwargs, match", [
    ({"num_workers": -1}, "num_workers option should be non-negative"),
    ({"num_workers": 1, "timeout": -1}, "timeout option should be non-negative"),
    ({"timeout": 2}, "timeout option needs num_workers > 0"),
    ({"prefetch_factor": 2}, "prefetch_factor option could only be specified in multiprocessing"),
    ({"num_workers": 1, "prefetch_factor": -1}, "prefetch_factor option should be non-negative"),
    ({"persistent_workers": True}, "persistent_workers option needs num_workers > 0"),
    ({"multiprocessing_context": "spawn"}, "multiprocessing_context can only be used with multi-process"),
    ({"num_workers": 1, "multiprocessing_context": "threads"}, "should specify a valid start method"),
])
def test_worker_options_are_checked_as_pytorch_does(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DataLoader(Pids(4), **kwargs)


def test_a_context_that_is_neither_a_name_nor_a_context_is_a_type_error():
    with pytest.raises(TypeError, match="valid context object"):
        DataLoader(Pids(4), num_workers=1, multiprocessing_context=3)


def test_a_multiprocessing_context_object_is_accepted():
    import multiprocessing

    loader = DataLoader(Pids(4), batch_size=2, num_workers=1, multiprocessing_context=multiprocessing.get_context("fork"))
    assert [len(b) for b in loader] == [2, 2]


_ORPHAN_SCRIPT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {src!r})
    from dyngrad.utils.data import DataLoader, Dataset

    class Pid(Dataset):
        def __len__(self):
            return 100

        def __getitem__(self, i):
            return os.getpid()

    it = iter(DataLoader(Pid(), batch_size=1, num_workers=2))
    print(int(next(it)), int(next(it)), flush=True)
    os._exit(0)  # no atexit, no shutdown: the workers are left to notice on their own
""")


@pytest.mark.slow
def test_workers_exit_by_themselves_when_the_main_process_dies(tmp_path):
    src = os.path.dirname(os.path.dirname(dyngrad.__file__))
    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN_SCRIPT.format(src=src))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    pids = {int(p) for p in out.stdout.split()}
    assert len(pids) == 2 and _gone(pids, wait=10.0)


# --------------------------------------------------------------------- the boundary itself
def test_the_boundary_pickler_keeps_dtype_values_leaf_flags_and_subclasses():
    from dyngrad.nn import Parameter
    from dyngrad.utils.data._worker import dumps, loads

    big = dyngrad.arange(10**6, dtype=dyngrad.float32)
    leaf = dyngrad.tensor([1.5, 2.5], dtype=dyngrad.float64, requires_grad=True)
    out = loads(dumps({"view": big[10:14], "leaf": leaf, "p": Parameter(dyngrad.ones(2)), "i": dyngrad.tensor([7])}))
    assert out["view"].tolist() == [10.0, 11.0, 12.0, 13.0] and out["view"].dtype == dyngrad.float32
    assert out["leaf"].requires_grad and out["leaf"].is_leaf and out["leaf"].dtype == dyngrad.float64
    assert type(out["p"]) is Parameter and out["p"].requires_grad and out["i"].dtype == dyngrad.int64
    assert len(dumps(big[10:14])) < 1000  # a view sends its own elements, not its base's


def test_plain_pickle_still_refuses_tensors():
    import pickle

    with pytest.raises(TypeError, match="dyngrad tensors are not pickled"):
        pickle.dumps(dyngrad.ones(2))


def test_multiprocessing_context_set_after_construction_is_checked_and_converted():
    import multiprocessing

    loader = DataLoader(Pids(4), batch_size=2, num_workers=1)
    loader.multiprocessing_context = "fork"
    assert isinstance(loader.multiprocessing_context, multiprocessing.context.BaseContext)
    assert [len(b) for b in loader] == [2, 2]
    with pytest.raises(ValueError, match="valid start method"):
        loader.multiprocessing_context = "nope"
