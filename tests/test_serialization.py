"""dyngrad.save / dyngrad.load: round trips, atomic writes, and files that must be refused
without running anything (pickle payloads, truncated and corrupt files)."""

from __future__ import annotations

import io
import os
import pickle
import zipfile

import numpy as np
import pytest

import dyngrad
from dyngrad import serialization


def _state():
    return {
        "layer.weight": dyngrad.randn(3, 4),
        "layer.bias": dyngrad.zeros(3, dtype=dyngrad.float64),
        "steps": dyngrad.tensor([1, 2, 3]),
        "mask": dyngrad.tensor([True, False]),
        "scalar": dyngrad.tensor(2.5),
        "nested": {"lr": 0.1, "betas": (0.9, 0.999), "name": "adam", "none": None, "flag": True,
                   "list": [1, 2.0, dyngrad.ones(2)]},
        "int_keys": {0: {"step": dyngrad.tensor(3.0)}, 7: {}},
        "inf": float("inf"),
    }


def _check_equal(a, b):
    assert type(a) is type(b), (a, b)
    if isinstance(a, dyngrad.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a.data, b.data)
        assert a.requires_grad == b.requires_grad
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _check_equal(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _check_equal(x, y)
    else:
        assert a == b


@pytest.fixture(params=["safetensors", "npz"])
def fmt(request, monkeypatch):
    if request.param == "npz":
        monkeypatch.setattr(serialization, "_have_safetensors", lambda: False)
    else:
        pytest.importorskip("safetensors")
    return request.param


def test_nested_state_round_trips_exactly(tmp_path, fmt):
    obj = _state()
    dyngrad.save(obj, tmp_path / "s.bin")
    _check_equal(obj, dyngrad.load(tmp_path / "s.bin"))


def test_file_format_is_the_chosen_one(tmp_path, fmt):
    dyngrad.save({"a": dyngrad.ones(2)}, tmp_path / "f")
    head = (tmp_path / "f").read_bytes()[:4]
    assert (head == b"PK\x03\x04") == (fmt == "npz")


def test_single_tensor_and_requires_grad_round_trip(tmp_path, fmt):
    t = dyngrad.randn(2, 3, requires_grad=True)
    dyngrad.save(t, str(tmp_path / "t"))
    u = dyngrad.load(str(tmp_path / "t"))
    assert u.requires_grad and u.is_leaf and np.array_equal(u.data, t.data)
    u.data[0, 0] = 5.0  # loaded arrays are writable


def test_file_objects_work(fmt):
    buf = io.BytesIO()
    dyngrad.save([dyngrad.arange(4)], buf)
    buf.seek(0)
    assert dyngrad.load(buf)[0].tolist() == [0, 1, 2, 3]


def test_optimizer_state_dict_round_trips(tmp_path, fmt):
    w = dyngrad.randn(3, requires_grad=True)
    opt = dyngrad.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    dyngrad.save(opt.state_dict(), tmp_path / "opt")
    sd = dyngrad.load(tmp_path / "opt")
    opt2 = dyngrad.optim.Adam([dyngrad.tensor(w.data.copy(), requires_grad=True)])
    opt2.load_state_dict(sd)
    st = opt2.state[opt2.param_groups[0]["params"][0]]
    assert np.array_equal(st["exp_avg"].data, opt.state[w]["exp_avg"].data)
    assert opt2.param_groups[0]["betas"] == (0.9, 0.999)


def test_unsupported_objects_are_refused_naming_where(tmp_path):
    with pytest.raises(TypeError, match=r"obj\['f'\].*function"):
        dyngrad.save({"f": lambda: 0}, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_failed_save_keeps_the_old_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "ckpt"
    dyngrad.save({"a": dyngrad.ones(2)}, path)
    good = path.read_bytes()
    with pytest.raises(TypeError):
        dyngrad.save({"a": object()}, path)
    real_replace = os.replace

    def crash(*a, **k):
        raise KeyboardInterrupt("simulated crash")

    os.replace = crash
    try:
        with pytest.raises(KeyboardInterrupt):
            dyngrad.save({"a": dyngrad.zeros(2)}, path)
    finally:
        os.replace = real_replace
    assert path.read_bytes() == good
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]


class _Payload:
    """Unpickling this creates the marker file (if anything ever unpickled it)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_raw_pickle_file_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "PWNED"
    bad = tmp_path / "evil.pt"
    bad.write_bytes(pickle.dumps({"w": _Payload(marker)}))
    with pytest.raises(RuntimeError, match="pickle") as e:
        dyngrad.load(bad)
    assert "evil.pt" in str(e.value)
    assert not marker.exists()


def test_npz_with_object_array_is_refused_and_runs_nothing(tmp_path):
    marker = tmp_path / "PWNED"
    bad = tmp_path / "evil.npz"
    arr = np.empty(1, dtype=object)
    arr[0] = _Payload(marker)
    np.savez(bad, w=arr)
    assert not marker.exists()
    with pytest.raises(RuntimeError, match="pickle") as e:
        dyngrad.load(bad)
    assert "evil.npz" in str(e.value)
    assert not marker.exists()


def test_torch_zip_checkpoint_with_pickle_inside_is_refused(tmp_path):
    marker = tmp_path / "PWNED"
    bad = tmp_path / "model.pt"
    with zipfile.ZipFile(bad, "w") as z:  # the layout of torch.save's zip files
        z.writestr("archive/data.pkl", pickle.dumps(_Payload(marker)))
    with pytest.raises(RuntimeError, match="model.pt"):
        dyngrad.load(bad)
    assert not marker.exists()


@pytest.mark.parametrize("cut", [3, 8, 20, -5])
def test_truncated_file_gives_a_clear_error(tmp_path, fmt, cut):
    path = tmp_path / "w"
    dyngrad.save({"w": dyngrad.randn(10, 10)}, path)
    raw = path.read_bytes()
    path.write_bytes(raw[:cut])
    with pytest.raises(RuntimeError, match=r"'.*w'.*(truncated|corrupt)"):
        dyngrad.load(path)


def test_garbage_file_gives_a_clear_error(tmp_path):
    path = tmp_path / "junk"
    path.write_bytes(b"\xff" * 16 + b"hello")
    with pytest.raises(RuntimeError, match="junk"):
        dyngrad.load(path)


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        dyngrad.load(tmp_path / "nope")


def test_plain_safetensors_file_loads_as_flat_dict(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    st.save_file({"a": np.arange(3, dtype=np.float32)}, str(tmp_path / "p.safetensors"))
    d = dyngrad.load(tmp_path / "p.safetensors")
    assert d["a"].dtype == dyngrad.float32 and d["a"].tolist() == [0, 1, 2]
