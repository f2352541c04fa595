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
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a._data, b._data)
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
    assert u.requires_grad and u.is_leaf and np.array_equal(u._data, t._data)
    u._data[0, 0] = 5.0  # loaded arrays are writable


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
    opt2 = dyngrad.optim.Adam([dyngrad.tensor(w._data.copy(), requires_grad=True)])
    opt2.load_state_dict(sd)
    st = opt2.state[opt2.param_groups[0]["params"][0]]
    assert np.array_equal(st["exp_avg"]._data, opt.state[w]["exp_avg"]._data)
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
    # read with the restricted unpickler (_torch_format.py): the payload's global is refused
    with pytest.raises(pickle.UnpicklingError, match="model.pt"):
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


# ---------------------------------------------------------------------- array names in the file


def _array_names(path, fmt):
    """The array names any plain reader of the file sees (not dyngrad.load)."""
    if fmt == "safetensors":
        import safetensors.numpy

        return safetensors.numpy.load_file(str(path))
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files if k != "__dyngrad__"}


def test_module_state_dict_is_stored_under_its_real_names(tmp_path, fmt):
    model = dyngrad.nn.Sequential(dyngrad.nn.Linear(3, 4), dyngrad.nn.ReLU(), dyngrad.nn.Linear(4, 2))
    sd = dict(model.state_dict())  # load gives plain dicts back
    dyngrad.save(sd, tmp_path / "m.bin")
    stored = _array_names(tmp_path / "m.bin", fmt)
    assert sorted(stored) == sorted(sd) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    for k, v in sd.items():
        assert np.array_equal(stored[k], v._data)
    _check_equal(dyngrad.load(tmp_path / "m.bin"), sd)


def test_nested_state_dicts_and_optimizer_state_get_dotted_paths(tmp_path, fmt):
    model = dyngrad.nn.Linear(2, 2)
    opt = dyngrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(dyngrad.randn(3, 2)).sum().backward()
    opt.step()
    obj = {"model": {"layers": dict(model.state_dict())}, "optim": opt.state_dict(), "history": [dyngrad.ones(2)]}
    dyngrad.save(obj, tmp_path / "n.bin")
    names = set(_array_names(tmp_path / "n.bin", fmt))
    assert {"model.layers.weight", "model.layers.bias", "history.0"} <= names
    assert {"optim.state.0.momentum_buffer", "optim.state.1.momentum_buffer"} <= names
    _check_equal(dyngrad.load(tmp_path / "n.bin"), obj)


def test_names_that_collide_or_are_reserved_still_round_trip(tmp_path, fmt):
    obj = {"a.b": dyngrad.ones(1), "a": {"b": dyngrad.zeros(2)}, "file": dyngrad.ones(3),
           "allow_pickle": dyngrad.ones(4), "__metadata__": dyngrad.ones(5), "__dyngrad__": dyngrad.ones(6)}
    dyngrad.save(obj, tmp_path / "c.bin")
    names = set(_array_names(tmp_path / "c.bin", fmt))
    assert {"a.b", "a.b#1", "file#1", "allow_pickle#1", "__metadata__#1", "__dyngrad__#1"} == names
    _check_equal(dyngrad.load(tmp_path / "c.bin"), obj)


def test_a_lone_tensor_is_stored_as_tensor(tmp_path, fmt):
    dyngrad.save(dyngrad.arange(3.0), tmp_path / "t.bin")
    assert list(_array_names(tmp_path / "t.bin", fmt)) == ["tensor"]


def _old_doc():
    # what dyngrad.save wrote before arrays got their real names: keys t0, t1 and the tree
    tree = {"T": "dict", "items": [["layer.weight", {"T": "tensor", "k": "t0", "s": [2, 2], "rg": True}],
                                   ["layer.bias", {"T": "tensor", "k": "t1", "s": [2]}]]}
    import json

    arrays = {"t0": np.arange(4.0).reshape(2, 2), "t1": np.array([5.0, 6.0], dtype=np.float32)}
    return json.dumps({"format": "dyngrad-1", "tree": tree}), arrays


def test_files_written_with_the_old_t0_keys_still_load(tmp_path):
    doc, arrays = _old_doc()
    buf = io.BytesIO()
    np.savez(buf, __dyngrad__=np.frombuffer(doc.encode(), dtype=np.uint8), **arrays)
    files = {"old.npz": buf.getvalue()}
    try:
        import safetensors.numpy

        files["old.safetensors"] = safetensors.numpy.save(arrays, metadata={"dyngrad": doc})
    except ImportError:
        pass
    for name, raw in files.items():
        (tmp_path / name).write_bytes(raw)
        sd = dyngrad.load(tmp_path / name)
        assert list(sd) == ["layer.weight", "layer.bias"], name
        assert sd["layer.weight"].requires_grad and sd["layer.weight"].tolist() == [[0.0, 1.0], [2.0, 3.0]]
        assert sd["layer.bias"].dtype == dyngrad.float32 and sd["layer.bias"].tolist() == [5.0, 6.0]


def test_a_tensor_saved_twice_loads_as_one_object_and_views_share_memory(tmp_path, fmt):
    base = dyngrad.arange(12, dtype=dyngrad.float64).reshape(3, 4)
    p = dyngrad.nn.Parameter(dyngrad.ones(2))
    arr = np.arange(3.0)
    obj = {"a": base, "again": base, "in_list": [base], "row": base[1], "t": base.t(), "cols": base[:, ::2],
           "p": p, "p_data": p.data, "arr": arr, "arr2": arr,
           "solo": dyngrad.ones(3), "copy": base.clone()}
    dyngrad.save(obj, tmp_path / "s")
    d = dyngrad.load(tmp_path / "s")
    assert d["a"] is d["again"] is d["in_list"][0] and d["arr"] is d["arr2"]
    for k in obj:  # values, dtypes, shapes and strides survive
        np.testing.assert_array_equal(np.asarray(d[k].detach() if k == "p" else d[k]),
                                      np.asarray(obj[k].detach() if k == "p" else obj[k]), err_msg=k)
    assert d["t"].stride() == (1, 4) and d["cols"].stride() == (4, 2)
    assert type(d["p"]) is dyngrad.nn.Parameter and d["p"].requires_grad and not d["p_data"].requires_grad
    d["a"][1, 0] = -5.0  # one memory, as torch.load gives: every view sees the write
    assert d["row"][0] == -5.0 and d["t"][0, 1] == -5.0 and d["cols"][1, 0] == -5.0
    assert d["copy"][1, 0] == 4.0 and d["solo"].tolist() == [1.0, 1.0, 1.0]
    with dyngrad.no_grad():
        d["p_data"][0] = 7.0
    assert d["p"][0].item() == 7.0
    assert base[1, 0] == 4.0  # (the saved tensors themselves are untouched)


def test_views_without_their_base_are_stored_once_and_the_file_names_the_base(tmp_path, fmt):
    base = dyngrad.arange(10.0)
    dyngrad.save({"x": base, "head": base[:3]}, tmp_path / "s")
    if fmt == "safetensors":
        from safetensors.numpy import load_file

        stored = load_file(str(tmp_path / "s"))
        assert list(stored) == ["x"] and stored["x"].tolist() == list(range(10))
    dyngrad.save({"a": base[2:5], "b": base[4:8]}, tmp_path / "v")  # two views, no base saved
    d = dyngrad.load(tmp_path / "v")
    assert d["a"].tolist() == [2.0, 3.0, 4.0] and d["b"].tolist() == [4.0, 5.0, 6.0, 7.0]
    d["a"][2] = 0.0
    assert d["b"][0] == 0.0


def test_a_view_reaching_outside_its_block_is_refused(tmp_path):
    import json

    tree = {"T": "dict", "items": [["a", {"T": "tensor", "k": "a", "s": [3], "v": [8, [1]]}]]}
    doc = json.dumps({"format": serialization._FORMAT, "tree": tree})
    buf = io.BytesIO()
    np.savez(buf, __dyngrad__=np.frombuffer(doc.encode(), dtype=np.uint8), a=np.zeros(10))
    with pytest.raises(RuntimeError, match="reaches outside its 10 elements"):
        dyngrad.load(io.BytesIO(buf.getvalue()))
