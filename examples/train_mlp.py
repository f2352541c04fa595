"""Train a small MLP on scikit-learn's digits with dyngrad's nn, optim and DataLoader,
checkpoint it with dyngrad.save and load it back.

Run: ``python examples/train_mlp.py`` (needs scikit-learn: ``pip install 'dyngrad[demo]'``).
"""

import os
import tempfile

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import dyngrad as torch
from dyngrad import nn, optim
from dyngrad.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X, y = load_digits(return_X_y=True)
Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=0.25, random_state=0, stratify=y)
train = TensorDataset(torch.tensor(Xtr, dtype=torch.float32), torch.tensor(ytr))
loader = DataLoader(train, batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(0))

model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
opt = optim.Adam(model.parameters(), lr=1e-2)
sched = optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)

for epoch in range(10):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
    sched.step()
    print(f"epoch {epoch + 1:2d}  loss {total / len(train):.4f}  lr {sched.get_last_lr()[0]:.4f}")

with torch.no_grad():
    acc = (model(torch.tensor(Xte, dtype=torch.float32)).argmax(1) == torch.tensor(yte)).float().mean().item()
print(f"test accuracy {acc:.3f}")
assert acc > 0.9

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ckpt.safetensors")
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 10}, path)
    ckpt = torch.load(path)
    model.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optim"])
    print("reloaded checkpoint of epoch", ckpt["epoch"], "with", len(ckpt["model"]), "tensors")
    assert np.array_equal(model[0].weight.data.numpy(), ckpt["model"]["0.weight"].numpy())
