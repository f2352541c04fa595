"""Generate tests/golden/torch_checkpoints/: files written by torch.save (PyTorch 2.13) for
tests/test_torch_checkpoints.py, and expected.npz with what they must load to.

Run with torch installed::

    python tests/golden/gen_torch_checkpoints.py

Files: ``cnn.pt``, ``lstm.pt``, ``transformer.pt`` (state dicts, with an input and
PyTorch's output in expected.npz), ``adam.pt`` (an Adam state dict after two steps),
``mixed.pt`` (dtypes incl. bfloat16 and float16, views sharing a storage, 0-d and empty
tensors, a Parameter, nested containers), ``expanded.pt`` (stride-0 tensors, one of 10^8
elements), ``complex.pt`` (a dtype dyngrad lacks, to be refused), ``module.pt`` (a whole pickled nn.Linear, to be
refused), ``evil.pt`` / ``evil_eval.pt`` (crafted checkpoints whose pickle calls os.system /
builtins.eval, to be refused without running), ``truncated.pt`` (half of cnn.pt).
"""

from __future__ import annotations

import io
import os
import zipfile

import numpy as np
import torch

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_checkpoints")
os.makedirs(HERE, exist_ok=True)
torch.manual_seed(0)
exp: dict[str, np.ndarray] = {}


def save(obj, name):
    torch.save(obj, os.path.join(HERE, name))


cnn = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.Flatten(),
                          torch.nn.Linear(4 * 4 * 4, 3))
cnn.train()
cnn(torch.randn(8, 1, 6, 6))  # running statistics move
cnn.eval()
x = torch.randn(2, 1, 6, 6)
exp["cnn/x"], exp["cnn/out"] = x.numpy(), cnn(x).detach().numpy()
save(cnn.state_dict(), "cnn.pt")

lstm = torch.nn.LSTM(4, 3, num_layers=2, bidirectional=True)
x = torch.randn(5, 2, 4)
out, (h, c) = lstm(x)
exp["lstm/x"], exp["lstm/out"], exp["lstm/h"], exp["lstm/c"] = x.numpy(), out.detach().numpy(), h.detach().numpy(), c.detach().numpy()
save(lstm.state_dict(), "lstm.pt")

enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, enable_nested_tensor=False)
x = torch.randn(5, 3, 8)
exp["transformer/x"], exp["transformer/out"] = x.numpy(), enc(x).detach().numpy()  # train mode: no fast path
save(enc.state_dict(), "transformer.pt")

w = torch.nn.Parameter(torch.randn(3, 2))
opt = torch.optim.Adam([w], lr=0.1)
for _ in range(2):
    opt.zero_grad()
    (w ** 2).sum().backward()
    opt.step()
sd = opt.state_dict()
exp["adam/exp_avg"], exp["adam/exp_avg_sq"], exp["adam/step"] = (
    sd["state"][0]["exp_avg"].numpy(), sd["state"][0]["exp_avg_sq"].numpy(), sd["state"][0]["step"].numpy())
save(sd, "adam.pt")

base = torch.arange(12, dtype=torch.float64).reshape(3, 4)
mixed = {
    "f16": torch.tensor([0.5, -1.25, 65504.0], dtype=torch.float16),
    "bf16": torch.tensor([1.0, -2.5, 3.0e38], dtype=torch.bfloat16),
    "i64": torch.tensor([-(2 ** 40), 7]), "i32": torch.tensor([1, -2], dtype=torch.int32),
    "u8": torch.tensor([0, 255], dtype=torch.uint8), "b": torch.tensor([True, False]),
    "base": base, "row": base[1], "t": base.t(), "strided": base[:, ::2],
    "scalar": torch.tensor(3.5), "empty": torch.zeros(0, 2),
    "param": torch.nn.Parameter(torch.ones(2)),
    "nested": [1, 2.5, "s", None, True, (3, 4), {"k": torch.tensor([9.0])}],
}
for k in ("f16", "i64", "i32", "u8", "b", "base", "row", "t", "strided", "scalar", "empty"):
    exp[f"mixed/{k}"] = mixed[k].numpy()
exp["mixed/bf16"] = mixed["bf16"].float().numpy()
save(mixed, "mixed.pt")

save(torch.nn.Linear(2, 2), "module.pt")
save({"big": torch.zeros(1).expand(10 ** 8), "e": torch.arange(3.0).reshape(3, 1).expand(3, 4)}, "expanded.pt")
save(torch.ones(2, dtype=torch.complex64), "complex.pt")


def crafted(name: str, pickle_bytes: bytes) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pickle_bytes)
        zf.writestr("archive/byteorder", "little")
        zf.writestr("archive/version", "3\n")
    with open(os.path.join(HERE, name), "wb") as fh:
        fh.write(buf.getvalue())


MARK = os.path.join(HERE, "PWNED")  # the crafted pickles would create this file if run
crafted("evil.pt", b"\x80\x02cos\nsystem\nq\x00X" + len(f"touch {MARK}").to_bytes(4, "little")
        + f"touch {MARK}".encode() + b"\x85R.")
crafted("evil_eval.pt", b"\x80\x02cbuiltins\neval\nX" + len("1+1").to_bytes(4, "little") + b"1+1\x85R.")

with open(os.path.join(HERE, "cnn.pt"), "rb") as fh:
    whole = fh.read()
with open(os.path.join(HERE, "truncated.pt"), "wb") as fh:
    fh.write(whole[: len(whole) // 2])

np.savez_compressed(os.path.join(HERE, "expected.npz"), **exp)
print("wrote", sorted(os.listdir(HERE)))
