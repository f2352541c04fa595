"""Every learning-rate scheduler: 30-step lr and momentum (or Adam's beta1) sequences for two
parameter groups equal PyTorch 2.13's (tests/golden/optim2.npz), state-dict round trips,
the warnings PyTorch gives, and its errors for bad arguments."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import dyngrad
from dyngrad import optim
from dyngrad.optim import lr_scheduler

GOLD = np.load(Path(__file__).parents[1] / "golden" / "optim2.npz", allow_pickle=False)
SCHEDULERS = json.loads(str(GOLD["schedulers"]))
IDS = [f"{i}-{n}-{o}" for i, (n, _, o) in enumerate(SCHEDULERS)]
LAMBDAS = {  # the same functions as gen_optim2.py's
    "inverse": lambda e: 1.0 / (e + 1),
    "mul095": lambda e: 0.95,
    "halving_every_5": lambda e: 0.5 ** (e // 5),
}


def make_optimizer(kind):
    params = [dyngrad.zeros(1, requires_grad=True), dyngrad.zeros(1, requires_grad=True)]
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.05}]
    if kind == "sgd":
        return optim.SGD(groups, lr=0.1, momentum=0.9)
    return optim.Adam(groups, lr=0.1, betas=(0.9, 0.99))


def build(opt, spec):
    name, kw = spec[0], dict(spec[1])
    if "lr_lambda" in kw:
        lam = kw["lr_lambda"]
        kw["lr_lambda"] = [LAMBDAS[n] for n in lam] if isinstance(lam, list) else LAMBDAS[lam]
    if "schedulers" in kw:
        kw["schedulers"] = [build(opt, s) for s in kw["schedulers"]]
    cls = getattr(lr_scheduler, name)
    if name == "ChainedScheduler":
        return cls(kw["schedulers"], optimizer=opt)
    return cls(opt, **kw)


def momentum_of(group):
    return group["betas"][0] if "betas" in group else group["momentum"]


def _step(name, kw, sched, step):
    if name == "ReduceLROnPlateau":
        m = float(GOLD["plateau_metrics"][step])
        sched.step(-m if kw.get("mode") == "max" else m)
    else:
        sched.step()


@pytest.mark.parametrize("i", range(len(SCHEDULERS)), ids=IDS)
def test_lr_and_momentum_sequences_match_pytorch_for_30_steps(i):
    name, kw, kind = SCHEDULERS[i]
    opt = make_optimizer(kind)
    sched = build(opt, (name, kw))
    lrs, moms = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # optimizer.step() comes first: no warning
        for step in range(30):
            opt.step()
            _step(name, kw, sched, step)
            lrs.append(sched.get_last_lr())
            assert [g["lr"] for g in opt.param_groups] == lrs[-1]
            moms.append([momentum_of(g) for g in opt.param_groups])
    np.testing.assert_allclose(lrs, GOLD[f"sched{i}_lr"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(moms, GOLD[f"sched{i}_momentum"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("i", range(len(SCHEDULERS)), ids=IDS)
def test_state_dict_saved_mid_run_resumes_the_schedule_in_a_fresh_scheduler(i):
    name, kw, kind = SCHEDULERS[i]
    opt = make_optimizer(kind)
    sched = build(opt, (name, kw))
    for step in range(12):
        opt.step()
        _step(name, kw, sched, step)
    sd = sched.state_dict()
    assert "optimizer" not in sd
    opt2 = make_optimizer(kind)
    sched2 = build(opt2, (name, kw))
    opt2.load_state_dict(opt.state_dict())  # the optimizer's groups carry lr/momentum/initial_lr
    sched2.load_state_dict(sd)
    lrs = []
    for step in range(12, 30):
        opt2.step()
        _step(name, kw, sched2, step)
        lrs.append(sched2.get_last_lr())
    np.testing.assert_allclose(lrs, GOLD[f"sched{i}_lr"][12:], rtol=1e-12, atol=1e-15)


def test_scheduler_step_before_optimizer_step_warns_as_pytorch_does():
    opt = make_optimizer("sgd")
    sched = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()


def test_overridden_optimizer_step_warns_as_pytorch_does():
    opt = make_optimizer("sgd")
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step = lambda closure=None: None  # type: ignore[method-assign]
    with pytest.warns(UserWarning, match="has been overridden after learning rate scheduler"):
        sched.step()


def test_step_with_an_epoch_warns_and_uses_the_closed_form():
    opt = make_optimizer("sgd")
    sched = lr_scheduler.PolynomialLR(opt, total_iters=10, power=2.0)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        sched.step(4)
    assert sched.get_last_lr() == pytest.approx([0.1 * 0.6**2, 0.05 * 0.6**2], rel=1e-14)


def test_calling_get_lr_outside_step_warns():
    sched = lr_scheduler.LinearLR(make_optimizer("sgd"))
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_lambda_functions_are_not_in_state_dicts():
    opt = make_optimizer("sgd")
    assert lr_scheduler.MultiplicativeLR(opt, LAMBDAS["mul095"]).state_dict()["lr_lambdas"] == [None, None]
    sd = lr_scheduler.CyclicLR(opt, 0.01, 0.1, scale_fn=lambda x: 1.0).state_dict()
    assert sd["_scale_fn_custom"] is None


def test_composite_state_dict_nests_its_schedulers():
    opt = make_optimizer("sgd")
    s = lr_scheduler.SequentialLR(opt, [lr_scheduler.ConstantLR(opt), lr_scheduler.ExponentialLR(opt, 0.9)], [3])
    sd = s.state_dict()
    assert len(sd["_schedulers"]) == 2 and sd["_schedulers"][1]["gamma"] == 0.9 and sd["_milestones"] == [3]


def test_cycle_momentum_sets_the_optimizers_momentum_and_records_bounds():
    opt = make_optimizer("adam")
    lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=10)
    g = opt.param_groups[0]
    assert g["betas"] == (0.95, 0.99) and g["max_momentum"] == 0.95 and g["base_momentum"] == 0.85
    assert g["initial_lr"] == pytest.approx(0.01 / 25) and g["min_lr"] == pytest.approx(0.01 / 25 / 1e4)


def test_one_cycle_stepping_past_total_steps_raises():
    opt = make_optimizer("sgd")
    s = lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=3)
    for _ in range(3):
        opt.step()
        s.step()
    with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
        s.step()


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda o: lr_scheduler.ConstantLR(o, factor=1.5), ValueError, "between 0 and 1"),
        (lambda o: lr_scheduler.LinearLR(o, start_factor=0), ValueError, "Starting multiplicative factor"),
        (lambda o: lr_scheduler.LinearLR(o, end_factor=2), ValueError, "Ending multiplicative factor"),
        (lambda o: lr_scheduler.MultiplicativeLR(o, [LAMBDAS["mul095"]]), ValueError, "Expected 2 lr_lambdas"),
        (lambda o: lr_scheduler.MultiplicativeLR(o, 0.9), TypeError, "lr_lambda should be a function"),
        (lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=0), ValueError, "positive integer T_0"),
        (lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0), ValueError, "T_mult >= 1"),
        (lambda o: lr_scheduler.CyclicLR(o, 0.01, 0.1, mode="sawtooth"), ValueError, "mode is invalid"),
        (lambda o: lr_scheduler.CyclicLR(o, [0.01], 0.1), ValueError, "base_lr must have the same length"),
        (lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.1), ValueError, "You must define either total_steps"),
        (lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=10, pct_start=1), ValueError,
         "Expected float between 0 and 1 pct_start"),
        (lambda o: lr_scheduler.OneCycleLR(o, max_lr=0.1, total_steps=10, anneal_strategy="exp"), ValueError,
         "anneal_strategy must be one of 'cos' or 'linear'"),
        (lambda o: lr_scheduler.SequentialLR(o, [lr_scheduler.ConstantLR(o)], [3]), ValueError,
         "one more than the number of milestone points"),
        (lambda o: lr_scheduler.SequentialLR(o, [], []), ValueError, "at least one scheduler"),
        (lambda o: lr_scheduler.ChainedScheduler([lr_scheduler.ReduceLROnPlateau(o)]), ValueError,
         "does not support `ReduceLROnPlateau`"),
        (lambda o: lr_scheduler.SequentialLR(o, [lr_scheduler.ConstantLR(make_optimizer("sgd"))], []), ValueError,
         "expects all schedulers to belong to the same optimizer"),
        (lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="up"), ValueError, "mode up is unknown!"),
        (lambda o: lr_scheduler.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
        (lambda o: lr_scheduler.StepLR(o, 2, last_epoch=3), KeyError, "initial_lr"),
    ],
)
def test_bad_arguments_raise_pytorchs_errors(make, error, message):
    with pytest.raises(error, match=message):
        make(make_optimizer("sgd"))


def test_cycle_momentum_with_an_optimizer_without_momentum_raises():
    opt = optim.Adagrad([dyngrad.zeros(1, requires_grad=True)])
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        lr_scheduler.CyclicLR(opt, 0.01, 0.1)
    lr_scheduler.CyclicLR(opt, 0.01, 0.1, cycle_momentum=False)


def test_a_deep_copied_optimizer_steps_itself_not_the_original():
    import copy

    opt = make_optimizer("sgd")
    lr_scheduler.StepLR(opt, step_size=2)
    twin = copy.deepcopy(opt)
    p = twin.param_groups[0]["params"][0]
    p.grad = dyngrad.ones(1)
    twin.step()
    assert p._data[0] == pytest.approx(-0.1) and opt.param_groups[0]["params"][0]._data[0] == 0.0
