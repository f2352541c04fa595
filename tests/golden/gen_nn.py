"""Generate tests/golden/nn.npz: PyTorch 2.13 reference values for nn modules (nn.functional's
golden values are the op database's: tests/golden/gen_nn_functional.py).

Run with torch installed::

    python tests/golden/gen_nn.py

Contents:
* ``m/<model>/...``: a small conv net (and a BatchNorm net) with weights drawn here and
  copied into both libraries: inputs, output, loss, parameter gradients, and the running
  statistics after two training steps.
"""

from __future__ import annotations

import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nn.npz")
data: dict[str, np.ndarray] = {}


# ----------------------------------------------------------------------------- modules
def cnn() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 3, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(3, 4, 3, groups=1),
        torch.nn.BatchNorm2d(4),
        torch.nn.GELU(),
        torch.nn.AdaptiveAvgPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(16, 5),
        torch.nn.LayerNorm(5),
        torch.nn.Tanh(),
        torch.nn.Linear(5, 3),
    ).double()


rng = np.random.default_rng(99)
model = cnn()
for k, p in model.state_dict().items():
    if p.dtype.is_floating_point and "running" not in k:
        arr = rng.standard_normal(tuple(p.shape)) * 0.5
        with torch.no_grad():
            p.copy_(torch.tensor(arr))
        data[f"m/cnn/param/{k}"] = arr
for step in range(2):
    x = rng.standard_normal((4, 1, 10, 10))
    y = rng.integers(0, 3, size=4).astype(np.int64)
    data[f"m/cnn/x{step}"] = x
    data[f"m/cnn/y{step}"] = y
    model.zero_grad()
    out = model(torch.tensor(x))
    loss = F.cross_entropy(out, torch.tensor(y))
    loss.backward()
    data[f"m/cnn/out{step}"] = out.detach().numpy()
    data[f"m/cnn/loss{step}"] = loss.detach().numpy()
    for k, p in model.named_parameters():
        data[f"m/cnn/grad{step}/{k}"] = p.grad.numpy()
for k, b in model.named_buffers():
    data[f"m/cnn/buffer/{k}"] = b.numpy()
model.eval()
xe = rng.standard_normal((2, 1, 10, 10))
data["m/cnn/x_eval"] = xe
data["m/cnn/out_eval"] = model(torch.tensor(xe)).detach().numpy()

# Embedding + Bilinear + GroupNorm + BatchNorm1d(momentum=None)
emb = torch.nn.Embedding(6, 4, padding_idx=0).double()
bil = torch.nn.Bilinear(4, 4, 2).double()
gn = torch.nn.GroupNorm(2, 4).double()
bn1 = torch.nn.BatchNorm1d(4, momentum=None).double()
for mname, mod in (("emb", emb), ("bil", bil), ("gn", gn), ("bn1", bn1)):
    for k, p in mod.named_parameters():
        arr = rng.standard_normal(tuple(p.shape))
        if mname == "emb":
            arr[0] = 0
        with torch.no_grad():
            p.copy_(torch.tensor(arr))
        data[f"m/misc/{mname}/{k}"] = arr
idx = rng.integers(0, 6, size=(5,)).astype(np.int64)
data["m/misc/idx"] = idx
for step in range(2):
    e = emb(torch.tensor(idx))
    h = bil(e, e * 0.5 + 1)
    h = gn(torch.cat([h, h], 1).unsqueeze(-1)).squeeze(-1)
    h = bn1(h)
    loss = (h**2).sum()
    loss.backward()
    data[f"m/misc/out{step}"] = h.detach().numpy()
for mname, mod in (("emb", emb), ("bil", bil), ("gn", gn), ("bn1", bn1)):
    for k, p in mod.named_parameters():
        data[f"m/misc/grad/{mname}/{k}"] = p.grad.numpy()
for k, b in bn1.named_buffers():
    data[f"m/misc/bn1buf/{k}"] = b.numpy()

np.savez_compressed(OUT, **data)
print(f"wrote {OUT}: {len(data)} arrays, {os.path.getsize(OUT)} bytes")
