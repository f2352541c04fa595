"""dyngrad.load reads what torch.save (PyTorch 2.13) wrote, safely: state dicts of a CNN,
an LSTM and a TransformerEncoder load into dyngrad models and give PyTorch's outputs; an
Adam state dict, dtypes (bfloat16 converted), views sharing a storage and nested
containers load to equal values; whole pickled modules and crafted pickles are refused
without running anything; truncated files get a clear error. Files from
tests/golden/gen_torch_checkpoints.py."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

import dyngrad
from dyngrad import nn

HERE = os.path.join(os.path.dirname(__file__), "golden", "torch_checkpoints")
EXP = np.load(os.path.join(HERE, "expected.npz"))


def _path(name):
    return os.path.join(HERE, name)


def test_cnn_state_dict_from_pytorch_loads_and_gives_pytorchs_outputs():
    m = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 3))
    sd = dyngrad.load(_path("cnn.pt"))
    assert list(sd) == list(m.state_dict())
    m.load_state_dict(sd)
    m.eval()
    out = m(dyngrad.tensor(EXP["cnn/x"]))
    np.testing.assert_allclose(out.detach().numpy(), EXP["cnn/out"], rtol=1e-5, atol=1e-6)
    assert int(sd["1.num_batches_tracked"]) == 1


def test_lstm_state_dict_from_pytorch_loads_and_gives_pytorchs_outputs():
    m = nn.LSTM(4, 3, num_layers=2, bidirectional=True)
    m.load_state_dict(dyngrad.load(_path("lstm.pt")))
    out, (h, c) = m(dyngrad.tensor(EXP["lstm/x"]))
    for got, key in ((out, "out"), (h, "h"), (c, "c")):
        np.testing.assert_allclose(got.detach().numpy(), EXP[f"lstm/{key}"], rtol=1e-5, atol=1e-6)


def test_transformer_encoder_state_dict_from_pytorch_loads_and_gives_pytorchs_outputs():
    m = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    m.load_state_dict(dyngrad.load(_path("transformer.pt")))
    out = m(dyngrad.tensor(EXP["transformer/x"]))
    np.testing.assert_allclose(out.detach().numpy(), EXP["transformer/out"], rtol=1e-5, atol=1e-5)


def test_adam_state_dict_from_pytorch_loads_with_its_structure():
    sd = dyngrad.load(_path("adam.pt"))
    assert set(sd) == {"state", "param_groups"}
    st = sd["state"][0]
    np.testing.assert_array_equal(st["exp_avg"].numpy(), EXP["adam/exp_avg"])
    np.testing.assert_array_equal(st["exp_avg_sq"].numpy(), EXP["adam/exp_avg_sq"])
    assert float(st["step"]) == 2.0
    g = sd["param_groups"][0]
    assert g["lr"] == 0.1 and tuple(g["betas"]) == (0.9, 0.999) and g["params"] == [0]


def test_dtypes_views_and_containers_load_to_equal_values():
    with pytest.warns(UserWarning, match="bfloat16"):
        m = dyngrad.load(_path("mixed.pt"))
    for k in ("f16", "i64", "i32", "u8", "b", "base", "row", "t", "strided", "scalar", "empty"):
        got = m[k].numpy()
        assert got.dtype == EXP[f"mixed/{k}"].dtype, k
        np.testing.assert_array_equal(got, EXP[f"mixed/{k}"], err_msg=k)
    assert m["bf16"].dtype == dyngrad.float32
    np.testing.assert_array_equal(m["bf16"].numpy(), EXP["mixed/bf16"])
    assert m["param"].requires_grad and not m["base"].requires_grad
    nested = m["nested"]
    assert nested[:6] == [1, 2.5, "s", None, True, (3, 4)]
    assert nested[6]["k"].tolist() == [9.0]
    # views of one storage share memory when loaded, as with torch.load (a write into the
    # base shows in its row, its transpose and its strided view), and never alias the file
    m["base"][1, 0] = 100.0
    assert m["row"][0] == 100.0 and m["t"][0, 1] == 100.0 and m["strided"][1, 0] == 100.0
    assert m["t"].stride() == (1, 4) and m["strided"].stride() == (4, 2)
    with pytest.warns(UserWarning, match="bfloat16"):
        again = dyngrad.load(_path("mixed.pt"))
    assert again["row"][0] == 4.0


def test_a_whole_pickled_module_is_refused_naming_its_class():
    with pytest.raises(pickle.UnpicklingError, match=r"torch\.nn\.modules\.linear\.Linear"):
        dyngrad.load(_path("module.pt"))


@pytest.mark.parametrize("name,glob", [("evil.pt", "os.system"), ("evil_eval.pt", "builtins.eval")])
def test_crafted_checkpoints_are_refused_and_never_run(name, glob):
    mark = os.path.join(HERE, "PWNED")
    with pytest.raises(pickle.UnpicklingError, match=glob.replace(".", r"\.")):
        dyngrad.load(_path(name))
    assert not os.path.exists(mark)


def test_a_truncated_checkpoint_gets_a_clear_error():
    with pytest.raises(RuntimeError, match="truncated or corrupt"):
        dyngrad.load(_path("truncated.pt"))


def test_map_location_and_file_objects_are_accepted():
    with open(_path("lstm.pt"), "rb") as fh:
        sd = dyngrad.load(fh, map_location="cpu")
    assert "weight_ih_l0" in sd


def test_expanded_tensors_load_without_materialising_them():
    import tracemalloc

    tracemalloc.start()
    m = dyngrad.load(_path("expanded.pt"))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert m["big"].shape == (10 ** 8,) and peak < 10 * 2 ** 20  # not 400 MB
    np.testing.assert_array_equal(m["e"].numpy(), np.arange(3.0).reshape(3, 1).repeat(4, 1))
    with pytest.raises(RuntimeError, match="read-only"):
        m["e"].add_(1)  # as dyngrad's expand(): clone() to write


def test_complex_tensors_are_refused_with_a_clear_error():
    with pytest.raises(RuntimeError, match="complex64 tensors, a dtype dyngrad does not have"):
        dyngrad.load(_path("complex.pt"))


def _zip_with(tmp_path, pickle_bytes):
    import zipfile

    path = tmp_path / "crafted.pt"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("archive/data.pkl", pickle_bytes)
    return path


def _s(text):
    return b"X" + len(text).to_bytes(4, "little") + text.encode()


def test_a_build_opcode_on_a_storage_stand_in_or_a_tensor_is_refused(tmp_path):
    # BUILD {'dtype': '<U1'} on the torch.FloatStorage stand-in
    evil = b"\x80\x02ctorch\nFloatStorage\n}" + _s("dtype") + _s("<U1") + b"sb."
    with pytest.raises(pickle.UnpicklingError, match="BUILD"):
        dyngrad.load(_zip_with(tmp_path, evil))
    with pytest.raises(pickle.UnpicklingError, match="BUILD"):
        dyngrad.ones(2).__setstate__((None, {"data": "hi"}))
