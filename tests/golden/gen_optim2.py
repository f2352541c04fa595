"""Generate tests/golden/optim2.npz: PyTorch 2.13 trajectories of NAdam, RAdam, Adamax,
Adadelta, ASGD (20 steps on a small tanh regression, plus each one's final state), of LBFGS
on Rosenbrock functions (both line-search settings), and the lr / momentum sequences of
every learning-rate scheduler (30 steps, two parameter groups).

Run: PYTHONPATH=src /tmp/venv/bin/python tests/golden/gen_optim2.py (needs torch).
The problem: ``loss = mean((tanh(X @ W + b) - Y) ** 2)`` with float64 ``W (4, 3)``, ``b (3)``.
Scheduler specs are ``[name, kwargs, optimizer]``; a kwarg ``"schedulers"`` holds nested
specs, ``"lr_lambda"`` names a function in LAMBDAS (the tests build both the same way).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

STEPS = 20
SCHED_STEPS = 30

OPTIMIZERS = [
    ("NAdam", {"lr": 0.05}),
    ("NAdam", {"lr": 0.05, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True, "betas": [0.8, 0.99]}),
    ("NAdam", {"lr": 0.02, "maximize": True, "eps": 1e-6}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"lr": 0.05, "betas": [0.9, 0.9]}),
    ("RAdam", {"lr": 0.05, "betas": [0.8, 0.95], "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "betas": [0.8, 0.95], "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.02, "betas": [0.9, 0.9], "maximize": True}),
    ("Adamax", {"lr": 0.05}),
    ("Adamax", {"lr": 0.05, "betas": [0.8, 0.95], "weight_decay": 0.05, "eps": 1e-6}),
    ("Adamax", {"lr": 0.02, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5, "weight_decay": 0.01}),
    ("Adadelta", {"lr": 0.5, "maximize": True}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "t0": 5, "lambd": 0.01, "alpha": 0.5, "weight_decay": 0.01}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
]

# Optimizers (indices above) also run as: 9 steps, state_dict(), load into a fresh optimizer
# made with lr=123, 11 more steps. PyTorch casts loaded floating state other than 'step' to
# the parameter's dtype, so ASGD's float32 eta/mu become float64 and the resumed run differs
# from the uninterrupted one in the last digits; the golden file records the resumed one.
ROUND_TRIPS = [0, 2, 4, 7, 10, 13, 16]

# [x0, LBFGS kwargs, steps]; x0 is split into two parameters when it has more than 2 entries.
LBFGS_RUNS = [
    ([-1.5, 2.0], {"lr": 1, "max_iter": 2, "line_search_fn": "strong_wolfe"}, 25),
    ([-1.5, 2.0], {"lr": 0.1, "max_iter": 3, "history_size": 4}, 25),
    ([-1.2, 1.0], {"lr": 1, "line_search_fn": "strong_wolfe"}, 4),
    ([-1.2, 1.0, 0.5, -0.3, 1.1, 0.8], {"lr": 1, "max_iter": 4, "history_size": 3,
                                         "line_search_fn": "strong_wolfe"}, 25),
    ([-1.2, 1.0, 0.5, -0.3, 1.1, 0.8], {"lr": 0.05, "max_iter": 5, "max_eval": 6, "tolerance_change": 1e-5,
                                         "tolerance_grad": 1e-4}, 25),
    ([0.3, 0.2], {"lr": 1, "max_iter": 3, "history_size": 2, "line_search_fn": "strong_wolfe",
                  "tolerance_grad": 1e-5}, 25),
]

LAMBDAS = {
    "inverse": lambda e: 1.0 / (e + 1),
    "mul095": lambda e: 0.95,
    "halving_every_5": lambda e: 0.5 ** (e // 5),
}

SCHEDULERS = [
    ("LambdaLR", {"lr_lambda": ["inverse", "halving_every_5"]}, "sgd"),
    ("MultiplicativeLR", {"lr_lambda": "mul095"}, "sgd"),
    ("StepLR", {"step_size": 4, "gamma": 0.5}, "sgd"),
    ("MultiStepLR", {"milestones": [3, 7, 7, 12], "gamma": 0.3}, "sgd"),
    ("ConstantLR", {}, "sgd"),
    ("ConstantLR", {"factor": 0.5, "total_iters": 4}, "sgd"),
    ("LinearLR", {}, "sgd"),
    ("LinearLR", {"start_factor": 1.0, "end_factor": 0.1, "total_iters": 10}, "sgd"),
    ("ExponentialLR", {"gamma": 0.9}, "sgd"),
    ("PolynomialLR", {}, "sgd"),
    ("PolynomialLR", {"total_iters": 12, "power": 2.0}, "sgd"),
    ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}, "sgd"),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.001}, "sgd"),
    ("CosineAnnealingWarmRestarts", {"T_0": 5}, "sgd"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}, "sgd"),
    ("CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": [0.1, 0.3], "step_size_up": 3, "step_size_down": 5,
                  "mode": "triangular2"}, "sgd"),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4, "mode": "exp_range", "gamma": 0.9,
                  "base_momentum": 0.7, "max_momentum": 0.95}, "sgd"),
    ("CyclicLR", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 5, "mode": "triangular2"}, "adam"),
    ("CyclicLR", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 5, "cycle_momentum": False}, "adam"),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 30}, "sgd"),
    ("OneCycleLR", {"max_lr": [0.5, 0.2], "total_steps": 30, "anneal_strategy": "linear", "three_phase": True,
                    "pct_start": 0.25}, "sgd"),
    ("OneCycleLR", {"max_lr": 0.01, "epochs": 3, "steps_per_epoch": 10, "pct_start": 0.4, "div_factor": 10.0,
                    "final_div_factor": 100.0}, "adam"),
    ("OneCycleLR", {"max_lr": 0.01, "total_steps": 30, "cycle_momentum": False, "three_phase": True}, "adam"),
    ("SequentialLR", {"schedulers": [("LinearLR", {"start_factor": 0.1, "total_iters": 4}),
                                     ("ExponentialLR", {"gamma": 0.9})], "milestones": [5]}, "sgd"),
    ("SequentialLR", {"schedulers": [("ConstantLR", {"factor": 0.5, "total_iters": 3}),
                                     ("MultiplicativeLR", {"lr_lambda": "mul095"}),
                                     ("CosineAnnealingLR", {"T_max": 8})], "milestones": [4, 10]}, "sgd"),
    ("ChainedScheduler", {"schedulers": [("ConstantLR", {"factor": 0.5, "total_iters": 4}),
                                         ("ExponentialLR", {"gamma": 0.9})]}, "sgd"),
    ("ChainedScheduler", {"schedulers": [("LinearLR", {"start_factor": 0.2, "total_iters": 6}),
                                         ("MultiStepLR", {"milestones": [8, 15], "gamma": 0.5})]}, "adam"),
    ("ReduceLROnPlateau", {"mode": "max", "patience": 1, "threshold": 0.5, "threshold_mode": "abs",
                           "factor": 0.3, "min_lr": [0.01, 0.001]}, "sgd"),
    ("ReduceLROnPlateau", {"patience": 2, "cooldown": 2, "factor": 0.5, "eps": 0.02}, "adam"),
]
PLATEAU_METRICS = [5, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1]


def problem() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2613)
    return {
        "X": rng.standard_normal((8, 4)),
        "Y": rng.uniform(-0.8, 0.8, (8, 3)),
        "W0": rng.standard_normal((4, 3)) * 0.5,
        "b0": rng.standard_normal(3) * 0.1,
    }


def rosenbrock(x):
    """sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, for a torch or dyngrad 1-d tensor."""
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def make_optimizer(mod, kind: str, params):
    """Two groups: lr 0.1 and 0.05 (SGD with momentum 0.9, or Adam)."""
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.05}]
    if kind == "sgd":
        return mod.SGD(groups, lr=0.1, momentum=0.9)
    return mod.Adam(groups, lr=0.1, betas=(0.9, 0.99))


def build_scheduler(sched_mod, opt, spec):
    name, kw = spec[0], dict(spec[1])
    if "lr_lambda" in kw:
        lam = kw["lr_lambda"]
        kw["lr_lambda"] = [LAMBDAS[n] for n in lam] if isinstance(lam, list) else LAMBDAS[lam]
    if "schedulers" in kw:
        kw["schedulers"] = [build_scheduler(sched_mod, opt, s) for s in kw["schedulers"]]
    cls = getattr(sched_mod, name)
    if name == "ChainedScheduler":
        return cls(kw["schedulers"], optimizer=opt)
    return cls(opt, **kw)


def momentum_of(group) -> float:
    return group["betas"][0] if "betas" in group else group["momentum"]


def main() -> None:
    p = problem()
    out: dict[str, np.ndarray] = dict(p)
    X, Y = torch.tensor(p["X"]), torch.tensor(p["Y"])
    for i, (name, kw) in enumerate(OPTIMIZERS):
        W = torch.tensor(p["W0"], requires_grad=True)
        b = torch.tensor(p["b0"], requires_grad=True)
        opt = getattr(torch.optim, name)([W, b], **kw)
        ws, bs = [], []
        for _ in range(STEPS):
            opt.zero_grad()
            ((torch.tanh(X @ W + b) - Y) ** 2).mean().backward()
            opt.step()
            ws.append(W.detach().numpy().copy())
            bs.append(b.detach().numpy().copy())
        out[f"opt{i}_W"], out[f"opt{i}_b"] = np.stack(ws), np.stack(bs)
        for key, v in opt.state[W].items():
            out[f"opt{i}_state_{key}"] = v.detach().numpy().copy()
        out[f"opt{i}_state_keys"] = np.array(json.dumps(list(opt.state[W])))
    for i in ROUND_TRIPS:
        name, kw = OPTIMIZERS[i]
        W = torch.tensor(p["W0"], requires_grad=True)
        b = torch.tensor(p["b0"], requires_grad=True)
        opt = getattr(torch.optim, name)([W, b], **kw)
        for step in range(STEPS):
            if step == 9:
                sd = opt.state_dict()
                W, b = (t.detach().clone().requires_grad_() for t in (W, b))
                opt = getattr(torch.optim, name)([W, b], lr=123.0)
                opt.load_state_dict(sd)
            opt.zero_grad()
            ((torch.tanh(X @ W + b) - Y) ** 2).mean().backward()
            opt.step()
        out[f"opt{i}_resumed_W"], out[f"opt{i}_resumed_b"] = W.detach().numpy().copy(), b.detach().numpy().copy()
    out["round_trips"] = np.array(ROUND_TRIPS)
    for i, (x0, kw, steps) in enumerate(LBFGS_RUNS):
        x0a = np.array(x0)
        parts = [torch.tensor(x0a[:3], requires_grad=True), torch.tensor(x0a[3:], requires_grad=True)] \
            if len(x0) > 2 else [torch.tensor(x0a, requires_grad=True)]
        opt = torch.optim.LBFGS(parts, **kw)

        def closure(opt=opt, parts=parts):
            opt.zero_grad()
            loss = rosenbrock(torch.cat(parts))
            loss.backward()
            return loss

        xs, losses, evals = [], [], []
        for _ in range(steps):
            losses.append(float(opt.step(closure)))
            xs.append(torch.cat(parts).detach().numpy().copy())
            st = opt.state[parts[0]]
            evals.append([st["func_evals"], st["n_iter"]])
        out[f"lbfgs{i}_x"], out[f"lbfgs{i}_loss"] = np.stack(xs), np.array(losses)
        out[f"lbfgs{i}_evals"] = np.array(evals)
    for i, (name, kw, kind) in enumerate(SCHEDULERS):
        params = [torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)]
        opt = make_optimizer(torch.optim, kind, params)
        sched = build_scheduler(torch.optim.lr_scheduler, opt, (name, kw))
        lrs, moms = [], []
        for step in range(SCHED_STEPS):
            opt.step()
            if name == "ReduceLROnPlateau":
                m = PLATEAU_METRICS[step]
                sched.step(-m if kw.get("mode") == "max" else m)
            else:
                sched.step()
            lrs.append(sched.get_last_lr())
            moms.append([momentum_of(g) for g in opt.param_groups])
        out[f"sched{i}_lr"], out[f"sched{i}_momentum"] = np.array(lrs), np.array(moms)
    out["optimizers"] = np.array(json.dumps(OPTIMIZERS))
    out["lbfgs_runs"] = np.array(json.dumps(LBFGS_RUNS))
    out["schedulers"] = np.array(json.dumps(SCHEDULERS))
    out["plateau_metrics"] = np.array(PLATEAU_METRICS, dtype=np.float64)
    path = Path(__file__).with_name("optim2.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size} bytes), torch {torch.__version__}")


if __name__ == "__main__":
    main()
