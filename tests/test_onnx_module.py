"""``import torch.onnx`` works (scripts import it for an optional export); export raises."""

import pytest

import dyngrad


def test_onnx_export_raises_not_implemented_naming_the_model_and_writes_nothing(tmp_path) -> None:
    path = tmp_path / "m.onnx"
    with pytest.raises(NotImplementedError, match="Linear"):
        dyngrad.onnx.export(dyngrad.nn.Linear(2, 1), (dyngrad.ones(1, 2),), str(path))
    assert not path.exists()
    assert dyngrad.onnx.is_in_onnx_export() is False
