"""Learning-rate schedulers: 20-epoch lr sequences equal PyTorch 2.13's (golden npz)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import dyngrad
from dyngrad import optim
from dyngrad.optim import lr_scheduler

GOLD = np.load(Path(__file__).parents[1] / "golden" / "optim.npz", allow_pickle=False)
SCHEDULERS = json.loads(str(GOLD["schedulers"]))


def _opt():
    return optim.SGD([dyngrad.zeros(1, requires_grad=True)], lr=0.1)


@pytest.mark.parametrize("i", range(len(SCHEDULERS)), ids=[n for n, _ in SCHEDULERS])
def test_lr_sequence_matches_pytorch(i):
    name, kw = SCHEDULERS[i]
    opt = _opt()
    if name == "LambdaLR":
        kw = {"lr_lambda": lambda e: 1.0 / (e + 1)}
    sched = getattr(lr_scheduler, name)(opt, **kw)
    lrs = []
    for step in range(20):
        opt.step()
        if name == "ReduceLROnPlateau":
            sched.step(GOLD["plateau_metrics"][step])
        else:
            sched.step()
        lrs.append(sched.get_last_lr()[0])
        assert opt.param_groups[0]["lr"] == lrs[-1]
    np.testing.assert_allclose(lrs, GOLD[f"sched{i}_lr"], rtol=1e-12, atol=1e-15)


def test_scheduler_sets_initial_lr_and_base_lrs():
    opt = _opt()
    s = lr_scheduler.StepLR(opt, step_size=2)
    assert s.base_lrs == [0.1] and opt.param_groups[0]["initial_lr"] == 0.1 and s.last_epoch == 0


def test_state_dict_round_trip_resumes_the_schedule():
    opt = _opt()
    s = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(4):
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 4
    opt2 = _opt()
    s2 = lr_scheduler.CosineAnnealingLR(opt2, T_max=10)
    s2.load_state_dict(sd)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    s.step()
    s2.step()
    assert s.get_last_lr() == pytest.approx(s2.get_last_lr())


def test_lambda_lr_state_dict_does_not_hold_functions():
    s = lr_scheduler.LambdaLR(_opt(), lambda e: 0.5**e)
    assert s.state_dict()["lr_lambdas"] == [None]


def test_bad_arguments_raise():
    with pytest.raises(TypeError):
        lr_scheduler.StepLR(object(), step_size=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        lr_scheduler.ReduceLROnPlateau(_opt(), factor=1.5)
    with pytest.raises(ValueError):
        lr_scheduler.LambdaLR(_opt(), [lambda e: 1.0, lambda e: 2.0])
