"""Generate tests/golden/optim.npz: 20-step trajectories of PyTorch 2.13's optimizers and
learning-rate sequences of its schedulers on a fixed small problem.

Run: /work/venv/bin/python tests/golden/gen_optim.py (needs torch). The problem:
``loss = mean((tanh(X @ W + b) - Y) ** 2)`` with float64 ``W (4, 3)``, ``b (3)``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

OPTIMIZERS = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.05}),
    ("Adam", {"lr": 0.05, "betas": [0.8, 0.99], "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.02, "maximize": True, "eps": 1e-6}),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.1}),
    ("AdamW", {"lr": 0.05, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "centered": True, "momentum": 0.5, "weight_decay": 0.01}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.01, "initial_accumulator_value": 0.1}),
]

SCHEDULERS = [
    ("StepLR", {"step_size": 3, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 6], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("LambdaLR", {"lr_lambda": "inverse"}),
    ("CosineAnnealingLR", {"T_max": 5, "eta_min": 0.01}),
    ("ReduceLROnPlateau", {"patience": 2, "cooldown": 1, "factor": 0.5, "min_lr": 0.02}),
]
PLATEAU_METRICS = [5, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2]
STEPS = 20


def problem() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1234)
    return {
        "X": rng.standard_normal((8, 4)),
        "Y": rng.uniform(-0.8, 0.8, (8, 3)),
        "W0": rng.standard_normal((4, 3)) * 0.5,
        "b0": rng.standard_normal(3) * 0.1,
    }


def lr_lambda(name: str):
    assert name == "inverse"
    return lambda e: 1.0 / (e + 1)


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
            loss = ((torch.tanh(X @ W + b) - Y) ** 2).mean()
            loss.backward()
            opt.step()
            ws.append(W.detach().numpy().copy())
            bs.append(b.detach().numpy().copy())
        out[f"opt{i}_W"] = np.stack(ws)
        out[f"opt{i}_b"] = np.stack(bs)
    for i, (name, kw) in enumerate(SCHEDULERS):
        w = torch.zeros(1, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        kw2 = dict(kw)
        if name == "LambdaLR":
            kw2["lr_lambda"] = lr_lambda(kw["lr_lambda"])
        sched = getattr(torch.optim.lr_scheduler, name)(opt, **kw2)
        lrs = []
        for step in range(STEPS):
            opt.step()
            if name == "ReduceLROnPlateau":
                sched.step(PLATEAU_METRICS[step])
            else:
                sched.step()
            lrs.append(sched.get_last_lr()[0])
        out[f"sched{i}_lr"] = np.array(lrs)
    out["optimizers"] = np.array(json.dumps(OPTIMIZERS))
    out["schedulers"] = np.array(json.dumps(SCHEDULERS))
    out["plateau_metrics"] = np.array(PLATEAU_METRICS, dtype=np.float64)
    path = Path(__file__).with_name("optim.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size} bytes), torch {torch.__version__}")


if __name__ == "__main__":
    main()
