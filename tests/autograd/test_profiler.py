"""autograd.profiler.profile: per-op forward/backward times, counts, saved bytes, table and
Chrome trace."""

import json

import pytest

import dyngrad as torch
from dyngrad.autograd import profiler
from tests.autograd import fn_examples as E


def _run(steps=2):
    x = torch.randn(6, 5, requires_grad=True)
    w = torch.randn(5, 4, requires_grad=True)
    for _ in range(steps):
        loss = (x @ w).tanh().sum()
        loss.backward()
    return x, w


def test_profile_counts_forward_and_backward_calls_per_op():
    with profiler.profile() as prof:
        _run(steps=3)
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["Mm"].count == 3 and rows["Mm"].backward_count == 3
    assert rows["Tanh"].count == 3 and rows["Tanh"].backward_count == 3
    assert rows["Mm"].cpu_time_total > 0 and rows["Mm"].backward_time_total > 0
    assert rows["Mm"].self_cpu_time_total <= rows["Mm"].cpu_time_total


def test_ops_run_inside_a_backward_are_not_counted_as_forward_calls():
    with profiler.profile() as prof:
        _run(steps=1)
    kinds = {(e.name, e.kind) for e in prof.function_events}
    assert ("Mm", "backward_op") in kinds  # MmBackward's own matmuls
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["Mm"].count == 1


def test_saved_bytes_are_recorded_per_op():
    x = torch.randn(6, 5, requires_grad=True)
    w = torch.randn(5, 4, requires_grad=True)
    with profiler.profile() as prof:
        x @ w
    (row,) = [r for r in prof.key_averages() if r.key == "Mm"]
    assert row.saved_bytes == x._data.nbytes + w._data.nbytes


def test_custom_functions_are_profiled_by_class_name():
    x = torch.randn(4, requires_grad=True)
    with profiler.profile() as prof:
        E.SwishFunction.apply(x, 2.0).sum().backward()
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["SwishFunction"].count == 1 and rows["SwishFunction"].backward_count == 1
    assert rows["SwishFunction"].saved_bytes == x._data.nbytes


def test_table_sorts_and_rejects_unknown_keys():
    with profiler.profile() as prof:
        _run()
    for key in ("cpu_time_total", "self_cpu_time_total", "backward_time_total", "total", "count", "saved_bytes", "name"):
        text = prof.table(sort_by=key)
        assert text.splitlines()[0].split()[:2] == ["Name", "Calls"]
        assert "Mm" in text and "Saved" in text
    names = [line.split()[0] for line in prof.table(sort_by="name").splitlines()[2:-2]]
    assert names == sorted(names)
    with pytest.raises(ValueError, match="unknown sort_by"):
        prof.table(sort_by="nope")


def test_export_chrome_trace_writes_complete_events(tmp_path):
    with profiler.profile(record_shapes=True) as prof:
        _run(steps=1)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    data = json.loads(path.read_text())
    evs = data["traceEvents"]
    assert evs and all(e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0 for e in evs)
    assert {"forward", "backward"} <= {e["cat"] for e in evs}
    mm = next(e for e in evs if e["name"] == "Mm" and e["cat"] == "forward")
    assert mm["args"]["input_shapes"] == [[6, 5], [5, 4]]


def test_nothing_is_recorded_outside_or_when_disabled():
    with profiler.profile(enabled=False) as off:
        _run(steps=1)
    assert off.function_events == []
    assert profiler.state.active is False
    with profiler.profile() as prof:
        pass
    _run(steps=1)
    assert prof.function_events == []


def test_nested_profiles_both_record_and_state_resets():
    with profiler.profile() as outer:
        with profiler.profile() as inner:
            _run(steps=1)
        assert profiler.state.active
        _run(steps=1)
    assert not profiler.state.active
    assert len(outer.function_events) == 2 * len(inner.function_events)


def test_exception_in_forward_keeps_the_profiler_consistent():
    with profiler.profile() as prof:
        with pytest.raises(RuntimeError):
            torch.randn(2, 3) @ torch.randn(2, 3)
        _run(steps=1)
    assert any(e.name == "Mm" for e in prof.function_events)
    assert not profiler.state.active
