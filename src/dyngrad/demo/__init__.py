"""``dyngrad demo``: the tutorials' custom Functions on real data.

Trains the same MLP on scikit-learn's handwritten digits with the built-in ReLU and with
each of the custom autograd Functions from the PyTorch tutorials this project reproduces
(MyReLU; SwishFunction, Swish with a beta parameter; CustomActivation, a ReLU whose
backward passes 0.1 of the gradient for negative inputs),
shows a gradcheck/gradgradcheck table for those Functions, and writes into ``--out``: a
loss-curve PNG, the computation graph of one forward pass (DOT, and SVG when Graphviz's
``dot`` is installed), report.md, report.json and the trained weights (safe format).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Any

__all__ = ["main", "build_parser"]

_DEPS = {"sklearn": "scikit-learn", "matplotlib": "matplotlib", "tqdm": "tqdm"}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dyngrad demo",
        description="Train an MLP on scikit-learn's digits with the built-in ReLU and with the custom "
                    "autograd Functions from the PyTorch tutorials this project reproduces (MyReLU, Swish "
                    "with a beta parameter, and a ReLU whose backward passes 0.1 of the gradient for "
                    "negative inputs); check their gradients; write a loss plot, the computation graph, "
                    "report.md/report.json and the trained weights.",
    )
    p.add_argument("--epochs", type=int, default=None, help="training epochs per variant (default 40, 12 with --quick)")
    p.add_argument("--seed", type=int, default=0, help="random seed for the train/test split, initialisation and shuffling (default 0)")
    p.add_argument("--out", default="dyngrad-demo", help="output folder (default ./dyngrad-demo/)")
    p.add_argument("--quick", action="store_true", help="a short run for CI (well under 30 s)")
    p.add_argument("--target-loss", type=float, default=0.05, help="training loss for 'epochs to target' (default 0.05)")
    p.add_argument("--lr", type=float, default=0.01, help="SGD learning rate (momentum 0.9; default 0.01)")
    p.add_argument("--batch-size", type=int, default=32, help="mini-batch size (default 32)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bars (they are shown only when stderr is a terminal, so CI logs stay clean)")
    p.add_argument("--blas-threads", type=int, default=1,
                   help="BLAS threads while training (default 1: the matrices are tiny, and extra threads "
                        "only spin, badly so on a busy machine; 0 leaves the BLAS default)")
    return p


def _check_out(out: str) -> str | None:
    """Create ``out`` and prove it is writable; return an error message or None."""
    try:
        os.makedirs(out, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".dyngrad-write-test-"):
            pass
    except OSError as e:
        return f"dyngrad demo: cannot write to the output folder {out!r}: {e.strerror or e}"
    return None


def _blas_threads(n: int) -> Any:
    """Limit BLAS threads to ``n`` (threadpoolctl ships with scikit-learn); no-op for 0."""
    import contextlib

    if n <= 0:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=n, user_api="blas")


def main(argv: list[str] | None = None) -> int:
    """Run the demo; returns the exit status (0 ok, 2 bad usage/unwritable --out/missing deps)."""
    args = build_parser().parse_args(argv)
    epochs = args.epochs if args.epochs is not None else (12 if args.quick else 40)
    if epochs < 1 or args.batch_size < 1:
        print("dyngrad demo: --epochs and --batch-size must be positive", file=sys.stderr)
        return 2
    missing = []
    for mod, pkg in _DEPS.items():
        try:
            __import__(mod)
        except ImportError:
            missing.append(pkg)
    if missing:
        print(f"dyngrad demo needs {', '.join(missing)}: pip install 'dyngrad[demo]'", file=sys.stderr)
        return 2
    out = os.path.abspath(args.out)
    err = _check_out(out)
    if err:
        print(err, file=sys.stderr)
        return 2
    return _run(args, epochs, out)


def _run(args: Any, epochs: int, out: str) -> int:
    import dyngrad
    from dyngrad import serialization

    from .report import (
        GRADCHECK_NOTE,
        GRADGRADCHECK_NOTE,
        gradcheck_table,
        plot_losses,
        write_graph,
        write_reports,
    )
    from .train import VARIANTS, load_data, train_variant

    t_start = time.perf_counter()
    say = print
    hidden = [128, 128]
    data = load_data(args.seed)
    sizes = [data["n_features"], *hidden, data["n_classes"]]
    say(f"dyngrad demo: digits {tuple(data['X_train'].shape)} train / {tuple(data['X_test'].shape)} test, "
        f"MLP {'-'.join(map(str, sizes))}, {epochs} epochs, random seed {args.seed} -> {out}")

    checks = gradcheck_table(args.seed)
    say("\ngradcheck / gradgradcheck of the tutorials' custom Functions (float64):")
    w = max(len(r["function"]) for r in checks)
    for r in checks:
        say(f"  {r['function']:<{w}}  gradcheck={r['gradcheck']!s:<5}  gradgradcheck={r['gradgradcheck']!s:<5}  {r['note']}")
    say(f"  {GRADCHECK_NOTE}\n  {GRADGRADCHECK_NOTE}")
    say("")

    results, models = [], {}
    with _blas_threads(args.blas_threads):
        for name in VARIANTS:
            res, model = train_variant(name, data, epochs=epochs, seed=args.seed, hidden=hidden, lr=args.lr,
                                       batch_size=args.batch_size, target_loss=args.target_loss,
                                       progress=not args.no_progress)
            results.append(res)
            models[name] = model

    files: dict[str, Any] = {"plot": "loss_curves.png"}
    plot_losses(results, args.target_loss, os.path.join(out, "loss_curves.png"))
    graph_model = models["custom_activation"]
    names = dict(graph_model.named_parameters())
    files.update({f"graph_{k}": v for k, v in write_graph(graph_model(data["X_test"][:8]), out, names).items()})
    ext = "safetensors" if serialization._have_safetensors() else "npz"
    files["weights"] = f"weights.{ext}"
    dyngrad.save({name: m.state_dict() for name, m in models.items()}, os.path.join(out, files["weights"]))
    files["report_md"], files["report_json"] = "report.md", "report.json"
    config = {"blas_threads": args.blas_threads, "epochs": epochs, "seed": args.seed, "quick": args.quick, "lr": args.lr, "batch_size": args.batch_size,
              "target_loss": args.target_loss, "sizes": sizes, "n_train": int(data["X_train"].shape[0]),
              "n_test": int(data["X_test"].shape[0]), "dyngrad": dyngrad.__version__}
    write_reports(out, config, checks, results, files)

    say(f"\n{'variant':<18} {'epochs->target':>14} {'train loss':>10} {'test acc':>8} {'time (s)':>8}")
    for r in results:
        ep = str(r.epochs_to_target) if r.epochs_to_target is not None else "-"
        say(f"{r.name:<18} {ep:>14} {r.final_train_loss:>10.4f} {r.final_test_acc:>8.4f} {r.wall_time_s:>8.2f}")
    say(f"\nwrote {', '.join(v for v in files.values() if v)} to {out} "
        f"({time.perf_counter() - t_start:.1f} s total)")
    return 0
