"""Per-example gradients with ``vmap(grad(...))``: differentially-private-style SGD on the
scikit-learn digits, where each example's gradient is clipped to norm ``C`` before the
batch average (Abadi et al. 2016, "Deep Learning with Differential Privacy"; the noise is
left out here to keep the run deterministic).

``functional_call`` runs the ``nn.Module`` with the parameters as arguments, ``grad``
differentiates the one-example loss with respect to them, and ``vmap`` maps that over the
batch in one pass (each op's batching rule), with the parameters shared
(``in_dims=None``). The first batch is checked against a Python loop over the examples.
Run: ``python examples/per_example_gradients.py``.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.datasets import load_digits

import dyngrad
from dyngrad import nn
from dyngrad.func import functional_call, grad, vmap

C = 1.0  # per-example gradient norm bound
LR, BATCH, STEPS = 0.5, 64, 150


def main() -> None:
    dyngrad.manual_seed(0)
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(X))
    train, test = perm[:1500], perm[1500:]
    model = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10))
    names = [n for n, _ in model.named_parameters()]

    def loss_one(params: tuple, x: dyngrad.Tensor, t: dyngrad.Tensor) -> dyngrad.Tensor:
        logits = functional_call(model, dict(zip(names, params)), (x.unsqueeze(0),))
        return nn.functional.cross_entropy(logits, t.unsqueeze(0))

    per_example = vmap(grad(loss_one), in_dims=(None, 0, 0))
    start = time.perf_counter()
    for step in range(STEPS):
        idx = rng.choice(train, BATCH, replace=False)
        xb, yb = dyngrad.tensor(X[idx]), dyngrad.tensor(y[idx])
        params = tuple(p.detach() for p in model.parameters())
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # every op here batches: no loop fallback
            grads = per_example(params, xb, yb)  # one (BATCH, *p.shape) tensor per parameter
        if step == 0:  # the same as one grad call per example
            for k in (0, BATCH - 1):
                one = grad(loss_one)(params, xb[k], yb[k])
                for g, o in zip(grads, one):
                    np.testing.assert_allclose(g[k].numpy(), o.numpy(), rtol=1e-4, atol=1e-6)
        norms = dyngrad.sqrt(sum((g.reshape(BATCH, -1) ** 2).sum(1) for g in grads))
        scale = (C / (norms + 1e-6)).clamp(max=1.0)  # clip each example's gradient to norm C
        with dyngrad.no_grad():
            for p, g in zip(model.parameters(), grads):
                clipped = g * scale.reshape((BATCH,) + (1,) * (g.ndim - 1))
                p -= LR * clipped.mean(0)
    elapsed = time.perf_counter() - start
    with dyngrad.no_grad():
        pred = model(dyngrad.tensor(X[test])).argmax(1).numpy()
    acc = float((pred == y[test]).mean())
    print(f"{STEPS} steps of per-example-clipped SGD (batch {BATCH}) in {elapsed:.1f} s; "
          f"mean per-example gradient norm at the end {float(norms.mean()):.3f}")
    print(f"test accuracy {acc:.3f}")
    assert acc > 0.85, acc


if __name__ == "__main__":
    main()
