"""``dyngrad demo --quick``: the main job runs end to end and its report is honest."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")
pytest.importorskip("tqdm")

import dyngrad  # noqa: E402
from dyngrad.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    rc = main(["demo", "--quick", "--no-progress", "--out", str(out)])
    return rc, out


def test_quick_demo_writes_all_files(demo_run):
    rc, out = demo_run
    assert rc == 0
    for name in ("loss_curves.png", "graph.dot", "report.md", "report.json"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "loss_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "graph.dot").read_text().lstrip().startswith("digraph")
    weights = [p for p in os.listdir(out) if p.startswith("weights.")]
    assert len(weights) == 1


def test_every_variant_beats_90_percent_test_accuracy(demo_run):
    _, out = demo_run
    rep = json.loads((out / "report.json").read_text())
    assert [v["name"] for v in rep["variants"]] == ["relu", "my_relu", "swish", "custom_activation"]
    for v in rep["variants"]:
        assert v["test_accuracy"] > 0.9, v["name"]
        assert len(v["train_loss_per_epoch"]) == rep["config"]["epochs"]
        assert v["final_train_loss"] == v["train_loss_per_epoch"][-1]
        assert v["wall_time_s"] > 0


def test_my_relu_trains_exactly_like_the_builtin_relu(demo_run):
    _, out = demo_run
    v = {r["name"]: r for r in json.loads((out / "report.json").read_text())["variants"]}
    np.testing.assert_allclose(v["my_relu"]["train_loss_per_epoch"], v["relu"]["train_loss_per_epoch"], rtol=1e-5)


def test_gradcheck_table_is_honest_about_custom_activation(demo_run):
    _, out = demo_run
    rows = {r["function"]: r for r in json.loads((out / "report.json").read_text())["gradcheck"]}
    assert rows["MyReLU"]["gradcheck"] is True and rows["SwishFunction (beta=1.0)"]["gradgradcheck"] is True
    assert rows["CustomActivation"]["gradcheck"] is False  # its backward is not the forward's derivative
    assert "| CustomActivation | FAIL |" in (out / "report.md").read_text()


def test_saved_weights_load_back_into_the_model(demo_run):
    _, out = demo_run
    from dyngrad.demo.functions import MyReLU
    from dyngrad.demo.train import MLP

    (wname,) = [p for p in os.listdir(out) if p.startswith("weights.")]
    sd = dyngrad.load(out / wname)
    model = MLP([64, 128, 128, 10], MyReLU.apply)
    model.load_state_dict(sd["my_relu"])
    assert np.array_equal(model.layers[0].weight.data, sd["my_relu"]["layers.0.weight"].data)


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_out_fails_before_training_with_exit_code_2(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert main(["demo", "--quick", "--out", str(ro / "x")]) == 2
    finally:
        ro.chmod(0o700)
    assert "cannot write" in capsys.readouterr().err


def test_out_that_is_a_file_fails_before_training_with_exit_code_2(tmp_path, capsys, monkeypatch):
    import dyngrad.demo.train as train

    monkeypatch.setattr(train, "train_variant", lambda *a, **k: pytest.fail("trained despite a bad --out"))
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["demo", "--quick", "--out", str(f)]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and str(f) in err


def test_graph_dot_fallback_writer_names_parameters(monkeypatch):
    import dyngrad.viz
    from dyngrad.demo.functions import CustomActivation
    from dyngrad.demo.report import graph_dot
    from dyngrad.demo.train import MLP

    monkeypatch.setattr(dyngrad.viz, "to_dot", None, raising=False)
    monkeypatch.setattr(dyngrad.viz, "make_dot", None, raising=False)
    model = MLP([4, 3, 2], CustomActivation.apply)
    dot = graph_dot(model(dyngrad.randn(2, 4)), dict(model.named_parameters()))
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert "CustomActivationBackward" in dot and "layers.0.weight" in dot and "layers.1.bias" in dot
