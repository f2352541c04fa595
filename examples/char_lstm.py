"""A character-level LSTM language model (Embedding -> 2-layer nn.LSTM -> Linear), trained with
Adam, gradient clipping and truncated backpropagation through time, then sampled with a
temperature. Written as a PyTorch script: only the import line says dyngrad.

Text: the repository's own documentation (README.md and docs/*.md, about 100 kB, ~100 distinct
characters). It ships with the repo (no download), it is big enough that a few hundred steps
do not memorise it, and it mixes English prose with code, tables and Markdown, so a model that
learns shows it quickly (backticks, ``dyngrad.``, ``def ``). The last 10% is held out.

Run: ``python examples/char_lstm.py [--quick] [--out DIR]``. Writes into ``--out`` (default
``<tmp>/dyngrad-examples/char_lstm``): ``losses.json`` (training loss per step, validation
loss before and after), ``loss_curve.png`` (with matplotlib; else ``loss_curve.csv``) and
``sample.txt``. ``--quick`` trains 40 steps (CI) and asserts the loss went down.
"""

from __future__ import annotations

import argparse
import json
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


def batchify(ids: np.ndarray, batch_size: int) -> np.ndarray:
    """``(len // batch_size, batch_size)``: column ``b`` is the ``b``-th contiguous stretch of the
    text, so consecutive chunks of rows continue each other (the hidden state carries over)."""
    n = len(ids) // batch_size
    return ids[: n * batch_size].reshape(batch_size, n).T.copy()


class CharLSTM(nn.Module):
    def __init__(self, vocab_size: int, emb: int = 32, hidden: int = 128, layers: int = 2, dropout: float = 0.0):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb)
        self.lstm = nn.LSTM(emb, hidden, layers, dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x, state=None):
        """x: (T, B) ids -> logits (T, B, V) and the final (h, c)."""
        out, state = self.lstm(self.emb(x), state)
        return self.head(self.drop(out)), state


def train(model, data: np.ndarray, steps: int, bptt: int = 32, lr: float = 3e-3, clip: float = 1.0,
          log_every: int = 0) -> list[float]:
    """``steps`` steps of truncated BPTT over ``data`` (from :func:`batchify`): each step takes
    the next ``bptt`` rows, starts from the previous step's state detached from its graph, and
    clips the gradient norm to ``clip`` before Adam's step. Returns the loss of every step."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    losses, state, pos = [], None, 0
    for step in range(steps):
        if pos + bptt + 1 > len(data):  # wrap around: a new pass starts from a zero state
            pos, state = 0, None
        x = torch.from_numpy(data[pos:pos + bptt])
        y = torch.from_numpy(data[pos + 1:pos + 1 + bptt])
        pos += bptt
        if state is not None:
            state = tuple(s.detach() for s in state)  # truncate: no gradient into earlier chunks
        logits, state = model(x, state)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        losses.append(loss.item())
        if log_every and (step + 1) % log_every == 0:
            print(f"step {step + 1:4d}  loss {losses[-1]:.4f}")
    return losses


@torch.no_grad()
def evaluate(model, data: np.ndarray, bptt: int = 32, max_chunks: int = 8) -> float:
    """Mean cross-entropy (nats/char) over the first ``max_chunks`` chunks of ``data``."""
    model.eval()
    total, count, state = 0.0, 0, None
    for pos in range(0, min(len(data) - 1, max_chunks * bptt), bptt):
        x = torch.from_numpy(data[pos:pos + bptt])
        y = torch.from_numpy(data[pos + 1:pos + 1 + len(x)])
        x = x[: len(y)]
        logits, state = model(x, state)
        total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum").item()
        count += y.numel()
    return total / count


@torch.no_grad()
def sample(model, vocab: Vocab, prompt: str, n: int, temperature: float = 0.8, seed: int = 0) -> str:
    """``prompt`` then ``n`` characters drawn one at a time from softmax(logits / temperature)."""
    model.eval()
    g = torch.Generator().manual_seed(seed)
    logits, state = model(torch.from_numpy(vocab.encode(prompt)).unsqueeze(1))
    out = []
    for _ in range(n):
        probs = F.softmax(logits[-1, 0] / temperature, dim=-1)
        nxt = torch.multinomial(probs, 1, generator=g)
        out.append(int(nxt.item()))
        logits, state = model(nxt.view(1, 1), state)
    return prompt + vocab.decode(out)


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
    ap.add_argument("--bptt", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1: the matrices are small)")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "dyngrad-examples", "char_lstm"))
    a = ap.parse_args(argv)
    steps = a.steps or (40 if a.quick else 400)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)

    text = load_text()
    vocab = Vocab(text)
    ids = vocab.encode(text)
    split = int(0.9 * len(ids))
    train_data, val_data = batchify(ids[:split], a.batch_size), batchify(ids[split:], a.batch_size)
    print(f"text: {len(text)} characters, {len(vocab)} distinct; {steps} steps of {a.bptt} x {a.batch_size}")

    model = CharLSTM(len(vocab))
    val_before = evaluate(model, val_data, a.bptt)
    t0 = time.perf_counter()
    losses = train(model, train_data, steps, a.bptt, a.lr, log_every=max(1, steps // 10))
    seconds = time.perf_counter() - t0
    val_after = evaluate(model, val_data, a.bptt)
    print(f"{seconds:.1f} s; validation loss {val_before:.3f} -> {val_after:.3f} nats/char")
    text_out = sample(model, vocab, "The ", 200 if not a.quick else 60, a.temperature, a.seed)
    print("sample:", text_out)

    curve = save_curve(losses, a.out, f"char-LSTM on the dyngrad docs ({steps} steps)")
    with open(os.path.join(a.out, "losses.json"), "w") as f:
        json.dump({"train_loss": losses, "val_loss_before": val_before, "val_loss_after": val_after,
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
