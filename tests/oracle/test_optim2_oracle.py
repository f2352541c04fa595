"""Live comparison with PyTorch of NAdam, RAdam, Adamax, Adadelta, ASGD and LBFGS on random
problems with random hyper-parameters, and of the cyclic / composite lr schedulers with
random settings (skipped without torch)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import dyngrad  # noqa: E402
from dyngrad import optim  # noqa: E402
from dyngrad.optim import lr_scheduler  # noqa: E402

pytestmark = pytest.mark.oracle


def _betas(d):
    return (d.draw(st.floats(0.5, 0.95)), d.draw(st.floats(0.8, 0.9999)))


CONFIGS = {
    "NAdam": lambda d: {"lr": d.draw(st.floats(0.001, 0.1)), "betas": _betas(d),
                        "weight_decay": d.draw(st.sampled_from([0.0, 0.1])),
                        "momentum_decay": d.draw(st.floats(0.0, 0.02)),
                        "decoupled_weight_decay": d.draw(st.booleans()), "maximize": d.draw(st.booleans())},
    "RAdam": lambda d: {"lr": d.draw(st.floats(0.001, 0.1)), "betas": _betas(d),
                        "weight_decay": d.draw(st.sampled_from([0.0, 0.1])),
                        "decoupled_weight_decay": d.draw(st.booleans()), "maximize": d.draw(st.booleans())},
    "Adamax": lambda d: {"lr": d.draw(st.floats(0.001, 0.1)), "betas": _betas(d),
                         "weight_decay": d.draw(st.sampled_from([0.0, 0.05])), "eps": d.draw(st.floats(1e-8, 1e-4))},
    "Adadelta": lambda d: {"lr": d.draw(st.floats(0.1, 1.0)), "rho": d.draw(st.floats(0.5, 0.99)),
                           "eps": d.draw(st.floats(1e-7, 1e-4)), "weight_decay": d.draw(st.sampled_from([0.0, 0.01]))},
    "ASGD": lambda d: {"lr": d.draw(st.floats(0.001, 0.1)), "lambd": d.draw(st.floats(0.0, 0.01)),
                       "alpha": d.draw(st.floats(0.5, 1.0)), "t0": d.draw(st.integers(0, 8)),
                       "weight_decay": d.draw(st.sampled_from([0.0, 0.01]))},
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
@settings(max_examples=6, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**31 - 1))
def test_fifteen_steps_and_final_state_match_pytorch(name, data, seed):
    kw = CONFIGS[name](data)
    rng = np.random.default_rng(seed)
    X, Y, W0 = rng.standard_normal((6, 3)), rng.standard_normal((6, 2)), rng.standard_normal((3, 2))
    tw = torch.tensor(W0, requires_grad=True)
    dw = dyngrad.tensor(W0, requires_grad=True)
    topt = getattr(torch.optim, name)([tw], **kw)
    dopt = getattr(optim, name)([dw], **kw)
    for _ in range(15):
        topt.zero_grad()
        ((torch.tensor(X) @ tw).sin() - torch.tensor(Y)).pow(2).mean().backward()
        topt.step()
        dopt.zero_grad()
        ((dyngrad.tensor(X) @ dw).sin() - dyngrad.tensor(Y)).pow(2).mean().backward()
        dopt.step()
    np.testing.assert_allclose(dw._data, tw.detach().numpy(), rtol=1e-9, atol=1e-12)
    assert list(dopt.state[dw]) == list(topt.state[tw])
    for k, v in topt.state[tw].items():
        np.testing.assert_allclose(dopt.state[dw][k]._data, v.numpy(), rtol=1e-9, atol=1e-12, err_msg=k)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), history=st.integers(1, 6), max_iter=st.integers(1, 6),
       wolfe=st.booleans(), lr=st.sampled_from([1.0, 0.5, 0.1]))
def test_lbfgs_first_steps_on_a_random_quadratic_match_pytorch(seed, history, max_iter, wolfe, lr):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((5, 5))
    H, c, x0 = A @ A.T + np.eye(5), rng.standard_normal(5), rng.standard_normal(5)
    kw = {"lr": lr, "history_size": history, "max_iter": max_iter, "line_search_fn": "strong_wolfe" if wolfe else None}
    tx, dx = torch.tensor(x0, requires_grad=True), dyngrad.tensor(x0, requires_grad=True)
    topt, dopt = torch.optim.LBFGS([tx], **kw), optim.LBFGS([dx], **kw)

    def tclosure():
        topt.zero_grad()
        loss = 0.5 * tx @ (torch.tensor(H) @ tx) + torch.tensor(c) @ tx
        loss.backward()
        return loss

    def dclosure():
        dopt.zero_grad()
        loss = 0.5 * dx @ (dyngrad.tensor(H) @ dx) + dyngrad.tensor(c) @ dx
        loss.backward()
        return loss

    for _ in range(3):
        topt.step(tclosure)
        dopt.step(dclosure)
        np.testing.assert_allclose(dx._data, tx.detach().numpy(), rtol=1e-7, atol=1e-9)
    assert dopt.state[dx]["func_evals"] == topt.state[tx]["func_evals"]


def _cyclic(mod, opt, d):
    return mod.CyclicLR(opt, base_lr=d["base"], max_lr=d["max"], step_size_up=d["up"], step_size_down=d["down"],
                        mode=d["mode"], gamma=d["gamma"])


def _onecycle(mod, opt, d):
    return mod.OneCycleLR(opt, max_lr=d["max"], total_steps=25, pct_start=d["pct"], anneal_strategy=d["anneal"],
                          three_phase=d["three"], div_factor=d["div"])


def _warm(mod, opt, d):
    return mod.CosineAnnealingWarmRestarts(opt, T_0=d["up"], T_mult=d["mult"], eta_min=d["base"] / 10)


def _sequential(mod, opt, d):
    first = mod.LinearLR(opt, start_factor=d["pct"], total_iters=d["up"])
    second = mod.PolynomialLR(opt, total_iters=d["down"], power=d["gamma"] * 2)
    return mod.SequentialLR(opt, [first, second], milestones=[d["up"] + 1])


def _chained(mod, opt, d):
    return mod.ChainedScheduler([mod.ConstantLR(opt, factor=d["pct"], total_iters=d["up"]),
                                 mod.ExponentialLR(opt, gamma=d["gamma"])])


@pytest.mark.parametrize("make", [_cyclic, _onecycle, _warm, _sequential, _chained],
                         ids=["CyclicLR", "OneCycleLR", "CosineAnnealingWarmRestarts", "SequentialLR",
                              "ChainedScheduler"])
@settings(max_examples=8, deadline=None)
@given(d=st.fixed_dictionaries({
    "base": st.floats(0.001, 0.01), "max": st.floats(0.05, 0.5), "up": st.integers(1, 6), "down": st.integers(1, 6),
    "mode": st.sampled_from(["triangular", "triangular2", "exp_range"]), "gamma": st.floats(0.8, 0.99),
    "pct": st.floats(0.1, 0.45), "anneal": st.sampled_from(["cos", "linear"]), "three": st.booleans(),
    "div": st.floats(5.0, 30.0), "mult": st.integers(1, 3), "adam": st.booleans()}))
def test_scheduler_lr_and_momentum_match_pytorch_for_25_steps(make, d):
    def opt_for(mod, p):
        return mod.Adam([p], lr=0.1) if d["adam"] else mod.SGD([p], lr=0.1, momentum=0.9)

    topt = opt_for(torch.optim, torch.zeros(1, requires_grad=True))
    dopt = opt_for(optim, dyngrad.zeros(1, requires_grad=True))
    ts, ds = make(torch.optim.lr_scheduler, topt, d), make(lr_scheduler, dopt, d)
    for _ in range(25):
        topt.step()
        dopt.step()
        ts.step()
        ds.step()
        assert ds.get_last_lr() == pytest.approx(ts.get_last_lr(), rel=1e-12, abs=1e-15)
        tg, dg = topt.param_groups[0], dopt.param_groups[0]
        key = "betas" if d["adam"] else "momentum"
        assert dg[key] == pytest.approx(tg[key], rel=1e-12)
