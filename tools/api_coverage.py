"""Generate docs/from-pytorch.md: PyTorch 2.13's public API, module by module, against dyngrad's.

Two steps, two data sources:

* ``python tools/api_coverage.py --dump-torch`` (needs torch; run once per PyTorch release)
  walks PyTorch's modules (``dir()``, private names and re-exported stdlib/typing helpers
  filtered out) and writes every public name with its kind and, where ``inspect.signature``
  can read it, its parameters and defaults to ``tests/golden/pytorch_api.json``. That file is
  committed: generating the table needs no torch.
* ``python tools/api_coverage.py`` (no torch) reads that JSON, walks dyngrad's namespace the
  same way and writes docs/from-pytorch.md: per module, what exists, what differs (parameter
  names, order and defaults, where both signatures are introspectable; a class on one side and
  a function on the other) and what is missing, with counts. ``--check`` writes nothing and
  exits 1 when the file on disk is stale (the test suite runs it: tests/test_api_coverage.py).

The comparison is mechanical and says only what ``inspect`` can see: PyTorch's C-implemented
functions (most of ``torch.*`` and ``Tensor.*``) have no readable signature, so for them the
table records presence only.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "golden" / "pytorch_api.json"
DOC = ROOT / "docs" / "from-pytorch.md"

# (key shown in the table, attribute path below the root package; "" is the package itself)
MODULES: list[tuple[str, str]] = [
    ("torch", ""),
    ("Tensor", "Tensor"),
    ("nn", "nn"),
    ("nn.functional", "nn.functional"),
    ("optim", "optim"),
    ("autograd", "autograd"),
    ("func", "func"),
    ("distributions", "distributions"),
    ("utils.data", "utils.data"),
    ("utils.checkpoint", "utils.checkpoint"),
    ("linalg", "linalg"),
    ("special", "special"),
]

_NOT_OURS = {"typing", "typing_extensions", "collections", "collections.abc", "builtins", "weakref",
             "abc", "enum", "dataclasses", "functools", "contextlib", "numpy"}
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _resolve(root: Any, path: str) -> Any:
    obj = root
    for part in path.split(".") if path else []:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(f"{obj.__name__}.{part}")
    return obj


def _is_public(name: str, obj: Any, package: str, is_class: bool) -> bool:
    """True for a name the module offers, not a helper it imported for itself."""
    if name.startswith("_"):
        return False
    if isinstance(obj, types.ModuleType):
        return obj.__name__.split(".")[0] == package and name != package
    if is_class:  # a class's attributes are all its own API
        return True
    if type(obj).__module__ in ("typing", "typing_extensions", "__future__"):  # Optional, annotations
        return False
    mod = getattr(obj, "__module__", None)
    if (inspect.isclass(obj) or inspect.isfunction(obj)) and isinstance(mod, str):
        return mod.split(".")[0] not in _NOT_OURS and mod not in _NOT_OURS
    return True


def _kind(obj: Any) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj) or isinstance(obj, (classmethod, staticmethod)):
        return "function"
    return "other"


def _default_repr(value: Any, package: str) -> str:
    text = _ADDRESS.sub("", repr(value))
    return text.replace(f"{package}.", "torch.") if package != "torch" else text


def _signature(obj: Any, package: str) -> list[list[Any]] | None:
    """[[name, kind, default repr or None], ...] or None where inspect cannot read it."""
    if isinstance(obj, property) or not callable(obj):
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        if p.name == "self":
            continue
        default = None if p.default is inspect.Parameter.empty else _default_repr(p.default, package)
        params.append([p.name, p.kind.name, default])
    return params


def collect(root: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """Every public name of each module in MODULES: {module: {name: {kind, sig}}}."""
    package = root.__name__
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for key, path in MODULES:
        mod = _resolve(root, path)
        is_class = inspect.isclass(mod)
        names: dict[str, dict[str, Any]] = {}
        for name in sorted(dir(mod)):
            try:
                obj = inspect.getattr_static(mod, name) if is_class else getattr(mod, name)
            except AttributeError:
                continue
            if not _is_public(name, obj, package, is_class):
                continue
            if is_class and isinstance(obj, (staticmethod, classmethod)):
                obj = getattr(mod, name)
            names[name] = {"kind": _kind(obj), "sig": _signature(obj, package)}
        out[key] = names
    return out


def dump_torch(path: Path) -> None:
    import torch

    data = {"version": torch.__version__.split("+")[0], "modules": collect(torch)}
    path.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {path.relative_to(ROOT)}: " + ", ".join(f"{k} {len(v)}" for k, v in data["modules"].items()))


def _fmt_params(params: list[list[Any]]) -> str:
    parts = []
    for name, kind, default in params:
        star = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}.get(kind, "")
        parts.append(f"{star}{name}" + (f"={default}" if default is not None else ""))
    return ", ".join(parts)


def _same_default(a: str | None, b: str | None) -> bool:
    if a == b:
        return True
    try:  # 0 and 0.0, 1e-08 and 1e-8: the same number
        return a is not None and b is not None and float(a) == float(b)
    except ValueError:
        return False


def _only_varargs(params: list[list[Any]]) -> bool:
    return all(p[1] in ("VAR_POSITIONAL", "VAR_KEYWORD") for p in params)


def compare_signatures(theirs: list[list[Any]], ours: list[list[Any]]) -> list[str]:
    """What differs between two parameter lists, as short phrases (empty when they agree).

    A side that takes only ``*args, **kwargs`` (a dispatching wrapper) says nothing about its
    parameters, so it is not compared.
    """
    if _only_varargs(theirs) or _only_varargs(ours):
        return []
    t_named = [p for p in theirs if p[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    o_named = [p for p in ours if p[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")]
    t_names, o_names = [p[0] for p in t_named], [p[0] for p in o_named]
    o_var = {p[1] for p in ours} & {"VAR_POSITIONAL", "VAR_KEYWORD"}
    diffs = []
    missing = [n for n in t_names if n not in o_names]
    if missing:
        note = " (taken by **kwargs)" if "VAR_KEYWORD" in o_var else ""
        diffs.append("no parameter " + ", ".join(f"`{n}`" for n in missing) + note)
    extra = [n for n in o_names if n not in t_names]
    if extra:
        diffs.append("extra parameter " + ", ".join(f"`{n}`" for n in extra))
    common_t = [n for n in t_names if n in o_names]
    common_o = [n for n in o_names if n in t_names]
    if common_t != common_o:
        diffs.append("parameter order differs")
    t_map = {p[0]: p for p in t_named}
    for name, kind, default in o_named:
        if name not in t_map:
            continue
        t_default = t_map[name][2]
        if not _same_default(t_default, default):
            diffs.append(f"`{name}` default {t_default if t_default is not None else 'none (required)'}"
                         f" vs {default if default is not None else 'none (required)'}")
        t_kw = t_map[name][1] == "KEYWORD_ONLY"
        if t_kw != (kind == "KEYWORD_ONLY"):
            diffs.append(f"`{name}` is {'keyword-only' if t_kw else 'positional'} in PyTorch")
    return diffs


def _names(names: list[str]) -> str:
    return ", ".join(f"`{n}`" for n in names) if names else "(none)"


HEADER = """\
# From PyTorch: what exists, what differs, what is missing

<!-- Generated by tools/api_coverage.py; do not edit by hand. Refresh with
     `python tools/api_coverage.py` (tests/test_api_coverage.py fails when this file is stale). -->

This table compares PyTorch {version}'s public names (`dir()` of each module, private names and
re-exported standard-library/typing helpers left out; the list is committed as
`tests/golden/pytorch_api.json`, written by `python tools/api_coverage.py --dump-torch`) with
dyngrad's namespace (`import dyngrad as torch`).

How to read it:

- **present**: the name exists in dyngrad. That is a statement about the name, not a proof of
  identical behaviour; behaviour is checked by the op tests and the oracle tests against live
  PyTorch (tests/oracle/).
- **differs**: the name exists and its signature differs where both sides can be read by
  `inspect.signature` (parameter names, order, keyword-only-ness, default values), or it is a
  class on one side and a function on the other. Most of `torch.*` and `Tensor.*` is C code in
  PyTorch with no readable signature, so those names are compared for presence only.
  A missing parameter is often deliberate (`device`, `pin_memory`, `layout`, `memory_format`
  have one meaning on a CPU-only NumPy engine); the README's "deliberately differs" list says
  which differences are intended.
- **missing**: PyTorch has the name and dyngrad does not. Many are out of scope (quantization,
  sparse layouts, CUDA streams, TorchScript/FX internals, distributed); the list is there so
  that nobody has to guess.
- **dyngrad only**: names dyngrad has and PyTorch does not (its own debugging tools).

Where a present name deliberately behaves differently from PyTorch (besides the README's list):

- `torch.Tensor(2, 3)`, `FloatTensor(n)`, `x.new(2, 3)`: zero-filled (PyTorch leaves the
  memory uninitialized). `Tensor(data)` casts to the default dtype, as PyTorch.
- `Tensor.shape` is a `torch.Size` (slices and `+` give a `Size`, as PyTorch); its repr reads
  `dyngrad.Size([2, 3])`.
- `addmm`, `kron`, `median`, `quantile`, `lstsq`, `cholesky_solve`, ... are compositions of
  dyngrad ops (ops/composite.py, ops/linalg_extra.py): same values and gradients, but
  `grad_fn` is the last op's node (`AddBackward0`, not `AddmmBackward0`).
- NumPy's `RuntimeWarning`s ("invalid value encountered in subtract", "overflow encountered in
  matmul") are silenced where dyngrad computes infinities and NaNs as PyTorch does silently: in
  every backward pass and in the forward of the math, activation, softmax, loss, norm, scan and
  cumulative ops. The forward of the cheapest ops (`+`, `-`, `*`, `@`/`matmul`/`linear`,
  `einsum`, `sum`, convolutions) still lets NumPy warn on `inf - inf`, `0 * inf` or an
  overflow: a silencing context costs about 1.6 µs, half the time of a small `add`.
- In-place view ops (`unsqueeze_`, `t_`, `transpose_`, ...) record `UnsqueezeBackward0`,
  `TBackward0`, ... where PyTorch names its in-place nodes `...Backward1`.
- `nanmean`/`nansum` of an all-NaN slice: gradient 0 there (PyTorch: NaN).
- `scatter_reduce(..., "amax"/"amin", include_self=False)`: an input value equal to the result
  at a position that receives values gets no share of the gradient (PyTorch 2.13 counts it,
  so its shares do not add up to the incoming gradient).
- `Module.register_backward_hook` (deprecated in PyTorch too): `grad_input` are the gradients
  of the inputs of the node that produced the output, which is dyngrad's node, not PyTorch's
  (for `nn.Linear`: `(input, weight, bias)` rather than PyTorch's addmm inputs).
- `out=` is taken by the functions listed in `dyngrad/_out.py` (arithmetic, unary math,
  `matmul`/`mm`/`bmm`, `cat`/`stack`, `where`, `clamp`, `sum`/`mean`/`prod`, ...), not by every
  function; as in PyTorch it records no graph.
- `torch.profiler`: CPU time only; the device-time sort keys (`cuda_time_total`) are accepted
  and sort nothing.

"""


def render(torch_api: dict[str, Any], ours: dict[str, dict[str, dict[str, Any]]]) -> str:
    lines = [HEADER.format(version=torch_api["version"])]
    summary = ["| module | PyTorch names | present | of which differ | missing | dyngrad only |",
               "|---|---:|---:|---:|---:|---:|"]
    sections = []
    totals = [0, 0, 0, 0, 0]
    for key, _ in MODULES:
        theirs: dict[str, dict[str, Any]] = torch_api["modules"][key]
        mine = ours[key]
        present = sorted(n for n in theirs if n in mine)
        missing = sorted(n for n in theirs if n not in mine)
        only = sorted(n for n in mine if n not in theirs)
        differs: list[tuple[str, str]] = []
        for name in present:
            t, o = theirs[name], mine[name]
            notes = []
            if {t["kind"], o["kind"]} == {"class", "function"}:
                notes.append(f"a {t['kind']} in PyTorch, a {o['kind']} here")
            if t["sig"] is not None and o["sig"] is not None:
                notes += compare_signatures(t["sig"], o["sig"])
            if notes:
                differs.append((name, "; ".join(notes)))
        counts = [len(theirs), len(present), len(differs), len(missing), len(only)]
        totals = [a + b for a, b in zip(totals, counts)]
        anchor = key.lower().replace(".", "")
        summary.append(f"| [`{key}`](#{anchor}) | " + " | ".join(str(c) for c in counts) + " |")
        sec = [f"## {key}", "",
               f"{len(present)} of {len(theirs)} PyTorch names present ({100 * len(present) // max(len(theirs), 1)}%), "
               f"{len(differs)} with a different signature, {len(missing)} missing.", ""]
        if differs:
            sec += ["### Differs", "", "| name | difference |", "|---|---|"]
            sec += [f"| `{n}` | {d} |" for n, d in differs]
            sec.append("")
        sec += ["### Missing", "", _names(missing), "", "### Present", "", _names(present), ""]
        if only:
            sec += ["### dyngrad only", "", _names(only), ""]
        sections.append("\n".join(sec))
    summary.append("| **all** | " + " | ".join(f"**{c}**" for c in totals) + " |")
    lines.append("## Summary\n\n" + "\n".join(summary) + "\n")
    lines += sections
    return "\n".join(lines).rstrip() + "\n"


def generate() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    import dyngrad

    torch_api = json.loads(DATA.read_text())
    return render(torch_api, collect(dyngrad))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump-torch", action="store_true",
                        help=f"write {DATA.relative_to(ROOT)} from the installed torch")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 if {DOC.relative_to(ROOT)} is stale; write nothing")
    args = parser.parse_args(argv)
    if args.dump_torch:
        dump_torch(DATA)
        return 0
    text = generate()
    if args.check:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC.relative_to(ROOT)} is stale: run `python tools/api_coverage.py` to refresh it",
                  file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text)
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
