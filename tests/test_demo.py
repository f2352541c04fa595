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
    for name in ("loss_curves.png", "graph.dot", "graph.png", "report.md", "report.json"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "loss_curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "graph.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # drawn without Graphviz
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
    assert np.array_equal(model.layers[0].weight._data, sd["my_relu"]["layers.0.weight"]._data)


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


def test_overlapping_loss_curves_are_named_so_no_variant_hides_unseen():
    from types import SimpleNamespace as R

    from dyngrad.demo.report import overlapping_groups

    a, b = R(name="relu", losses=[1.0, 0.5, 0.2]), R(name="my_relu", losses=[1.0, 0.5000001, 0.2])
    c, d = R(name="swish", losses=[1.0, 0.4, 0.1]), R(name="leaky", losses=[1.0, 0.4, 0.2])
    assert overlapping_groups([a, c, b, d]) == [["relu", "my_relu"]]
    assert overlapping_groups([c, d]) == []


def test_the_quick_demo_finds_that_my_relu_and_the_builtin_relu_overlap(demo_run):
    from types import SimpleNamespace as R

    from dyngrad.demo.report import overlapping_groups

    _, out = demo_run
    rep = json.loads((out / "report.json").read_text())
    assert rep["files"]["graph_png"] == "graph.png"
    results = [R(name=v["name"], losses=v["train_loss_per_epoch"]) for v in rep["variants"]]
    groups = overlapping_groups(results)
    assert any({"relu", "my_relu"} <= set(g) for g in groups), groups


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


# ------------------------------------------------------------------ wording a new user can follow


def test_help_and_report_speak_of_the_tutorials_functions_not_of_seeds(demo_run, capsys):
    from dyngrad.demo import build_parser

    _, out = demo_run
    help_text = build_parser().format_help()
    assert main(["--help"]) == 0
    usage = capsys.readouterr().out
    md = (out / "report.md").read_text()
    for text in (help_text, usage, md):
        flat = " ".join(text.split())
        assert "custom autograd Functions from the PyTorch tutorials this project reproduces" in flat
        assert "0.1 of the gradient for negative inputs" in flat
        assert "seed 000" not in flat and "seed 004" not in flat and "seeds'" not in flat


def test_report_labels_the_tutorials_table_as_a_claim_and_compares_it_with_the_measurement(demo_run):
    _, out = demo_run
    md = (out / "report.md").read_text()
    rep = json.loads((out / "report.json").read_text())
    assert "## The tutorial's claim (not a measurement)" in md
    assert "| standard ReLU | 120 | 0.58 |" in md and "| custom backward | 85 | 0.41 |" in md
    assert "names no data set, model, random seed" in md
    assert "not measured" in rep["tutorial_claim"]["note"]
    v = {r["name"]: r for r in rep["variants"]}
    relu, cust = v["relu"], v["custom_activation"]
    assert f"final training loss {relu['final_train_loss']:.4f}" in md
    assert f"final training loss {cust['final_train_loss']:.4f}" in md
    ratio = cust["final_train_loss"] / relu["final_train_loss"]
    if ratio > 0.8:  # the measurement decides which sentence is written
        assert "Our measured numbers do not reproduce the tutorial's gap" in md
    assert ("do not reproduce" in md) != ("show a gap in the tutorial's direction" in md)


def test_gradgradcheck_column_has_a_footnote_saying_what_it_checks(demo_run):
    _, out = demo_run
    md = (out / "report.md").read_text()
    assert "| gradgradcheck [^2] |" in md
    (note,) = [ln for ln in md.splitlines() if ln.startswith("[^2]:")]
    assert "backward's own derivative" in note and "does not say whether the first derivative is right" in note


def _tiny_data():
    g = dyngrad.Generator().manual_seed(0)
    X = dyngrad.randn(40, 6, generator=g)
    y = dyngrad.tensor(np.arange(40) % 3)
    return {"X_train": X, "y_train": y, "X_test": X[:10], "y_test": y[:10], "n_features": 6, "n_classes": 3}


def _train_tiny(progress):
    from dyngrad.demo.train import train_variant

    return train_variant("relu", _tiny_data(), epochs=2, seed=0, hidden=[5], lr=0.01, batch_size=16,
                         target_loss=0.05, progress=progress)


def test_progress_bars_stay_out_of_logs_that_are_not_a_terminal(capsys):
    _train_tiny(progress=True)  # pytest's captured stderr is not a TTY
    assert capsys.readouterr().err == ""


def test_progress_bars_show_on_a_terminal(monkeypatch):
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True

    term = Tty()
    monkeypatch.setattr(sys, "stderr", term)
    _train_tiny(progress=True)
    assert "epoch" in term.getvalue()
    term2 = Tty()
    monkeypatch.setattr(sys, "stderr", term2)
    _train_tiny(progress=False)  # --no-progress
    assert term2.getvalue() == ""
