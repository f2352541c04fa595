"""Data, model and training loop of ``dyngrad demo``."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import dyngrad
from dyngrad import nn, optim
from dyngrad.utils.data import DataLoader, TensorDataset

from .functions import CustomActivation, MyReLU, swish

__all__ = ["VARIANTS", "load_data", "MLP", "train_variant", "VariantResult"]

# name -> (activation, description); the same MLP is trained with each
VARIANTS: dict[str, tuple[Callable[[Any], Any], str]] = {
    "relu": (dyngrad.relu, "built-in dyngrad.relu"),
    "my_relu": (MyReLU.apply, "MyReLU: the tutorial's ReLU with a hand-written backward"),
    "swish": (swish, "SwishFunction: the tutorial's Swish, x * sigmoid(beta * x), with beta=1"),
    "custom_activation": (CustomActivation.apply,
                          "CustomActivation: the tutorial's ReLU whose backward passes 0.1 of the gradient "
                          "for negative inputs (deliberately not the forward's derivative)"),
}


def load_data(seed: int = 0) -> dict[str, Any]:
    """scikit-learn's handwritten digits (1,797 8x8 images shipped inside the package, no
    download), a stratified 75/25 train/test split with ``random_state=seed``, features
    standardised with the training set's mean and standard deviation; float32."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
    mu, sd = Xtr.mean(0), Xtr.std(0)
    sd[sd == 0] = 1.0
    f32 = lambda a: dyngrad.tensor(((a - mu) / sd).astype(np.float32))  # noqa: E731
    return {
        "X_train": f32(Xtr), "y_train": dyngrad.tensor(ytr.astype(np.int64)),
        "X_test": f32(Xte), "y_test": dyngrad.tensor(yte.astype(np.int64)),
        "n_features": X.shape[1], "n_classes": 10,
    }


class MLP(nn.Module):
    """An MLP ``sizes[0] -> ... -> sizes[-1]`` of ``nn.Linear`` layers with ``activation``
    (a function, e.g. ``MyReLU.apply``) between them."""

    def __init__(self, sizes: list[int], activation: Callable[[Any], Any]) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.activation = activation

    def forward(self, x: Any) -> Any:
        *hidden, last = self.layers
        for lin in hidden:
            x = self.activation(lin(x))
        return last(x)


@dataclass
class VariantResult:
    name: str
    description: str
    losses: list[float] = field(default_factory=list)
    test_acc: list[float] = field(default_factory=list)
    epochs_to_target: int | None = None
    final_train_loss: float = math.nan
    final_train_acc: float = math.nan
    final_test_acc: float = math.nan
    wall_time_s: float = 0.0


def accuracy(model: Any, X: Any, y: Any) -> float:
    with dyngrad.no_grad():
        pred = model(X)._data.argmax(1)
    return float((pred == y._data).mean())


def train_variant(name: str, data: dict[str, Any], *, epochs: int, seed: int, hidden: list[int],
                  lr: float, batch_size: int, target_loss: float, progress: bool) -> tuple[VariantResult, Any]:
    """Train a fresh MLP (initialised from ``seed``) with variant ``name``'s activation.
    ``progress`` shows a tqdm bar per variant, and only when stderr is a terminal."""
    act, desc = VARIANTS[name]
    dyngrad.manual_seed(seed)
    model = MLP([data["n_features"], *hidden, data["n_classes"]], act)
    opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    loader = DataLoader(TensorDataset(data["X_train"], data["y_train"]), batch_size=batch_size, shuffle=True,
                        generator=dyngrad.Generator().manual_seed(seed))
    ce = nn.functional.cross_entropy
    res = VariantResult(name, desc)
    bar: Any = range(1, epochs + 1)
    if progress:
        from tqdm.auto import tqdm

        # disable=None: shown on a terminal, off when stderr is not a TTY (CI logs, pipes)
        bar = tqdm(bar, desc=f"{name:>17}", unit="epoch", leave=True, dynamic_ncols=True, disable=None)
    t0 = time.perf_counter()
    for epoch in bar:
        total, n = 0.0, 0
        for xb, yb in loader:
            opt.zero_grad()
            loss = ce(model(xb), yb)
            loss.backward()
            opt.step()
            total += float(loss.item()) * len(yb)
            n += len(yb)
        res.losses.append(total / n)
        res.test_acc.append(accuracy(model, data["X_test"], data["y_test"]))
        if res.epochs_to_target is None and res.losses[-1] <= target_loss:
            res.epochs_to_target = epoch
        if progress:
            bar.set_postfix(loss=f"{res.losses[-1]:.4f}", test_acc=f"{res.test_acc[-1]:.3f}")
    res.wall_time_s = time.perf_counter() - t0
    if progress:
        bar.close()
    res.final_train_loss = res.losses[-1]
    res.final_test_acc = res.test_acc[-1]
    res.final_train_acc = accuracy(model, data["X_train"], data["y_train"])
    return res, model
