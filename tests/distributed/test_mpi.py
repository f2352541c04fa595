"""dyngrad.distributed and DistributedDataParallel under ``mpiexec -n 2`` (one subprocess
per case, _worker.py; each rank checks its values against NumPy or a single-process run and
prints ``OK``). Slow (about 1.5 s a launch) and they need the ``distributed`` extra: .ci/run
installs it and runs ``pytest -m mpi``; they skip when mpi4py or mpiexec is missing."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.mpi]

WORKER = Path(__file__).with_name("_worker.py")
SRC = Path(__file__).resolve().parents[2] / "src"
NP = 2


def _mpiexec() -> str | None:
    here = Path(sys.executable).parent / "mpiexec"  # the mpich wheel's launcher, in the venv
    return str(here) if here.exists() else shutil.which("mpiexec")


def run(case: str, timeout_s: float = 30.0, limit: float = 90.0) -> tuple[int, str, float]:
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip('mpi4py is not installed (pip install -e ".[distributed]")')
    exe = _mpiexec()
    if exe is None:
        pytest.skip("no mpiexec on PATH or next to the Python executable")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    t0 = time.monotonic()
    p = subprocess.run([exe, "-n", str(NP), sys.executable, str(WORKER), case, str(timeout_s)],
                       capture_output=True, text=True, timeout=limit, env=env)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


def _ok(case: str, tag: str) -> None:
    rc, out, _ = run(case)
    assert rc == 0, out
    for r in range(NP):
        assert f"OK {tag} rank {r}" in out, out


def test_collectives_match_numpy():
    _ok("collectives", "collectives")


def test_async_work_point_to_point_and_groups():
    _ok("async", "async")


def test_ddp_gradients_no_sync_unused_parameters_buffers_and_sampler():
    rc, out, _ = run("ddp")
    assert rc == 0, out
    for tag in ("ddp_grads", "bucket_view", "no_sync", "unused_buffers", "sampler"):
        for r in range(NP):
            assert f"OK {tag} rank {r}" in out, out


def test_a_rank_that_raises_makes_the_other_fail_naming_it():
    rc, out, took = run("fault_raise", timeout_s=60.0)
    assert rc != 0 and "UNREACHABLE" not in out
    assert "ValueError: rank one fails on purpose" in out
    assert "all_reduce on rank 0: rank 1 failed with ValueError: rank one fails on purpose" in out, out
    assert took < 30, f"took {took:.1f} s: the fault must be seen long before the 60 s timeout"


def test_a_rank_that_never_arrives_times_out_naming_it():
    rc, out, took = run("fault_hang", timeout_s=2.0)
    assert rc != 0 and "UNREACHABLE" not in out
    assert "all_reduce timed out after 2 s on rank 0" in out and "did not arrive: [1]" in out, out
    assert took < 20, f"took {took:.1f} s: mpiexec must end soon after the timeout"


def test_mismatched_shapes_are_named():
    rc, out, _ = run("fault_shape")
    assert rc != 0 and "UNREACHABLE" not in out
    assert "rank 0: shape [3] float32; rank 1: shape [4] float32" in out, out


def test_ddp_rejects_different_models_naming_the_rank():
    rc, out, _ = run("fault_ddp_model")
    assert rc != 0 and "UNREACHABLE" not in out
    assert "weight [4, 4] dyngrad.float32 on rank 1 and weight [3, 4] dyngrad.float32 on rank 0" in out, out


def test_the_example_reaches_the_one_process_accuracy(tmp_path):
    pytest.importorskip("sklearn")
    import json

    example = Path(__file__).resolve().parents[2] / "examples" / "distributed_mlp.py"
    if importlib.util.find_spec("mpi4py") is None or _mpiexec() is None:
        pytest.skip("needs mpi4py and mpiexec")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, str(example), "--quick", "--out", str(tmp_path / "one")], check=True, env=env,
                   capture_output=True, timeout=120)
    subprocess.run([_mpiexec(), "-n", "2", sys.executable, str(example), "--quick", "--out", str(tmp_path / "two")],
                   check=True, env=env, capture_output=True, timeout=120)
    one, two = (json.loads((tmp_path / d / "result.json").read_text()) for d in ("one", "two"))
    assert (one["world_size"], two["world_size"]) == (1, 2)
    assert abs(one["test_accuracy"] - two["test_accuracy"]) <= 0.01, (one, two)
