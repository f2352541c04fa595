"""``load_state_dict`` reports keys as PyTorch 2.13: a norm layer's ``num_batches_tracked``
missing from the checkpoint is not reported (and keeps the module's counter, also with
``strict=True``), and the result shows as ``<All keys matched successfully>`` or
``_IncompatibleKeys(missing_keys=[...], unexpected_keys=[...])`` (strings printed by PyTorch
2.13; tests/oracle/test_load_state_dict_keys_oracle.py compares live)."""

from __future__ import annotations

import pytest

import dyngrad
from dyngrad import nn


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))


# name -> (state dict edit, PyTorch 2.13's repr of load_state_dict(strict=False))
CASES = {
    "all": (lambda sd, lib: sd, "<All keys matched successfully>"),
    "no_num_batches_tracked": (lambda sd, lib: {k: v for k, v in sd.items() if k != "1.num_batches_tracked"},
                               "<All keys matched successfully>"),
    "missing_and_unexpected": (
        lambda sd, lib: {**{k: v for k, v in sd.items() if k != "1.running_mean"}, "extra.w": lib.zeros(1)},
        "_IncompatibleKeys(missing_keys=['1.running_mean'], unexpected_keys=['extra.w'])"),
    "only_unexpected": (lambda sd, lib: {**sd, "x": lib.zeros(1)},
                        "_IncompatibleKeys(missing_keys=[], unexpected_keys=['x'])"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_load_state_dict_result_as_pytorch(case) -> None:
    edit, want = CASES[case]
    m = _model(dyngrad)
    r = m.load_state_dict(edit(dict(m.state_dict()), dyngrad), strict=False)
    assert repr(r) == want and str(r) == want
    assert r == (r.missing_keys, r.unexpected_keys)
    assert type(r).__name__ == "_IncompatibleKeys"


def test_missing_num_batches_tracked_keeps_the_counter_even_when_strict() -> None:
    bn = nn.BatchNorm1d(3)
    bn(dyngrad.randn(4, 3))
    bn(dyngrad.randn(4, 3))
    sd = {k: v.clone() for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    assert repr(bn.load_state_dict(sd)) == "<All keys matched successfully>"
    assert int(bn.num_batches_tracked) == 2  # PyTorch 2.13: tensor(2)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "running_mean"'):
        bn.load_state_dict({k: v for k, v in sd.items() if k != "running_mean"})
