"""A small decoder-only (GPT-style) character transformer: token and learned positional
embeddings, a pre-norm nn.TransformerEncoder (GELU, tanh form) under a causal mask
(nn.Transformer.generate_square_subsequent_mask), a final LayerNorm and a Linear head; trained
with AdamW, linear warm-up then cosine decay (LambdaLR) and gradient clipping, then sampled with
a temperature. Written as a PyTorch script: only the import line says dyngrad.

Text: the repository's own documentation, as in char_lstm.py (README.md and docs/*.md, about
100 kB, shipped with the repo; the last 10% held out). Training windows are drawn at random
positions by a NumPy generator.

Run: ``python examples/small_transformer.py [--quick] [--out DIR]``. Writes into ``--out``
(default ``<tmp>/dyngrad-examples/small_transformer``): ``losses.json`` (training loss and
learning rate per step, validation loss before and after), ``loss_curve.png`` (with
matplotlib; else ``loss_curve.csv``) and ``sample.txt``. ``--quick`` trains 40 steps (CI) and
asserts the loss went down.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import tempfile
import time

import numpy as np

import dyngrad as torch
import dyngrad.nn.functional as F
from dyngrad import nn

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load_text(root: pathlib.Path = ROOT) -> str:
    """README.md and docs/*.md of the repository, in a fixed order."""
    files = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    return "\n\n".join(p.read_text(encoding="utf-8") for p in files)


class Vocab:
    """The characters of a text, sorted; ``encode`` gives int64 ids."""

    def __init__(self, text: str) -> None:
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, s: str) -> np.ndarray:
        return np.array([self.index[c] for c in s], dtype=np.int64)

    def decode(self, ids) -> str:
        return "".join(self.chars[i] for i in ids)


def get_batch(ids: np.ndarray, block: int, batch_size: int, rng: np.random.Generator):
    """``batch_size`` random windows: inputs ``(B, block)`` and the next characters ``(B, block)``."""
    start = rng.integers(0, len(ids) - block - 1, batch_size)
    x = np.stack([ids[s:s + block] for s in start])
    y = np.stack([ids[s + 1:s + 1 + block] for s in start])
    return torch.from_numpy(x), torch.from_numpy(y)


def gelu_tanh(x):
    """GELU in its tanh form, as GPT-2 uses it. (With the erf form a training step here takes
    2.5-5x as long: NumPy has no erf, so dyngrad evaluates it element by element.)"""
    return F.gelu(x, approximate="tanh")


class TinyGPT(nn.Module):
    def __init__(self, vocab_size: int, block: int = 64, d_model: int = 64, nhead: int = 4, layers: int = 2,
                 dim_feedforward: int = 256, dropout: float = 0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(block, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation=gelu_tanh,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d_model), enable_nested_tensor=False)
        self.head = nn.Linear(d_model, vocab_size)
        self.register_buffer("causal_mask", nn.Transformer.generate_square_subsequent_mask(block), persistent=False)

    def forward(self, idx):
        """idx: (B, T) ids, T <= block -> logits (B, T, V); position t sees positions <= t only."""
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T))
        x = self.blocks(x, mask=self.causal_mask[:T, :T], is_causal=True)
        return self.head(x)


def warmup_cosine(warmup: int, total: int):
    """The LambdaLR factor: linear from 1/warmup to 1 over ``warmup`` steps, then cosine to 0.1."""
    def factor(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        t = min(1.0, (step - warmup) / max(1, total - warmup))
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t))
    return factor


def train(model, ids: np.ndarray, steps: int, batch_size: int = 16, lr: float = 3e-3, warmup: int = 10,
          clip: float = 1.0, seed: int = 0, log_every: int = 0) -> tuple[list[float], list[float]]:
    """``steps`` AdamW steps on random windows of ``ids`` (``model.pos`` sets the window length),
    the learning rate following :func:`warmup_cosine`. Returns the loss and the lr of every step."""
    block = model.pos.num_embeddings
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(warmup, steps))
    rng = np.random.default_rng(seed)
    model.train()
    losses, lrs = [], []
    for step in range(steps):
        x, y = get_batch(ids, block, batch_size, rng)
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        lrs.append(sched.get_last_lr()[0])
        sched.step()
        losses.append(loss.item())
        if log_every and (step + 1) % log_every == 0:
            print(f"step {step + 1:4d}  loss {losses[-1]:.4f}  lr {lrs[-1]:.2e}")
    return losses, lrs


@torch.no_grad()
def evaluate(model, ids: np.ndarray, batches: int = 4, batch_size: int = 16) -> float:
    """Mean cross-entropy (nats/char) over ``batches`` fixed random windows of ``ids``."""
    model.eval()
    rng = np.random.default_rng(1234)
    block = model.pos.num_embeddings
    losses = []
    for _ in range(batches):
        x, y = get_batch(ids, block, batch_size, rng)
        losses.append(F.cross_entropy(model(x).reshape(-1, model.head.out_features), y.reshape(-1)).item())
    return float(np.mean(losses))


@torch.no_grad()
def sample(model, vocab: Vocab, prompt: str, n: int, temperature: float = 0.8, seed: int = 0) -> str:
    """``prompt`` then ``n`` characters, each drawn from softmax(logits / temperature) given the
    last ``block`` characters."""
    model.eval()
    g = torch.Generator().manual_seed(seed)
    block = model.pos.num_embeddings
    ids = torch.from_numpy(vocab.encode(prompt)).unsqueeze(0)
    for _ in range(n):
        logits = model(ids[:, -block:])[0, -1]
        nxt = torch.multinomial(F.softmax(logits / temperature, dim=-1), 1, generator=g)
        ids = torch.cat([ids, nxt.view(1, 1)], dim=1)
    return vocab.decode(ids[0].tolist())


def save_curve(losses: list[float], out: str, title: str) -> str:
    """loss_curve.png with matplotlib (as the demo draws), else loss_curve.csv; returns the name."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        with open(os.path.join(out, "loss_curve.csv"), "w") as f:
            f.write("step,loss\n" + "".join(f"{i + 1},{v:.6f}\n" for i, v in enumerate(losses)))
        return "loss_curve.csv"
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(range(1, len(losses) + 1), losses, lw=1)
    ax.set(xlabel="step", ylabel="training cross-entropy (nats/char)", title=title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "loss_curve.png"), dpi=110)
    plt.close(fig)
    return "loss_curve.png"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="40 steps (CI); asserts the loss went down")
    ap.add_argument("--steps", type=int, default=None, help="training steps (default 400, 40 with --quick)")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--block", type=int, default=64, help="context length")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1: the matrices are small)")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "dyngrad-examples", "small_transformer"))
    a = ap.parse_args(argv)
    steps = a.steps or (40 if a.quick else 400)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)

    text = load_text()
    vocab = Vocab(text)
    ids = vocab.encode(text)
    split = int(0.9 * len(ids))
    train_ids, val_ids = ids[:split], ids[split:]
    model = TinyGPT(len(vocab), block=a.block)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"text: {len(text)} characters, {len(vocab)} distinct; {n_params} parameters; "
          f"{steps} steps of {a.batch_size} x {a.block}")

    val_before = evaluate(model, val_ids, batch_size=a.batch_size)
    t0 = time.perf_counter()
    losses, lrs = train(model, train_ids, steps, a.batch_size, a.lr, warmup=max(1, steps // 10), seed=a.seed,
                        log_every=max(1, steps // 10))
    seconds = time.perf_counter() - t0
    val_after = evaluate(model, val_ids, batch_size=a.batch_size)
    print(f"{seconds:.1f} s; validation loss {val_before:.3f} -> {val_after:.3f} nats/char")
    text_out = sample(model, vocab, "The ", 200 if not a.quick else 40, a.temperature, a.seed)
    print("sample:", text_out)

    curve = save_curve(losses, a.out, f"small transformer on the dyngrad docs ({steps} steps)")
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"train_loss": losses, "lr": lrs, "val_loss_before": val_before, "val_loss_after": val_after,
                   "seconds": seconds, "steps": steps}, f, indent=1)
    with open(os.path.join(a.out, "sample.txt"), "w", encoding="utf-8") as f:
        f.write(text_out + "\n")
    print(f"wrote losses.json, {curve}, sample.txt to {a.out}")
    if a.quick:
        first, last = np.mean(losses[:5]), np.mean(losses[-5:])
        assert last < first, f"training loss did not go down: {first:.4f} -> {last:.4f}"
        assert val_after < val_before, f"validation loss did not go down: {val_before:.4f} -> {val_after:.4f}"


if __name__ == "__main__":
    main()
