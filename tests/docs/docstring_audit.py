"""Which public names lack the docstring sections the API reference needs.

"Public" is exact: every name in ``__all__`` of the modules the API reference documents
(``DOCUMENTED_MODULES``, the pages under docs/reference/) that is a function or a class.
Constants, dtypes and submodules are not checked. A name re-exported by several of these
modules is checked once, under the first module that lists it.

A docstring is a class's own docstring followed by its ``__init__``'s (each dedented on its
own). Sections are Google-style headers (``Args:``) on a line of their own (``Returns:``,
``Raises:`` and ``Shape:`` may carry text after the colon); a section's body is that text and
the lines below indented deeper than the header. A name passes when it has

- ``Args`` (``Args:``/``Arguments:``/``Parameters:``/``Keyword Args:``) when it takes
  arguments (a class: its constructor; ``self`` does not count, nor a bare
  ``(*args, **kwargs)``),
- ``Returns`` (``Returns:``/``Yields:``) when it is a function that returns something (not a
  class, and not annotated ``-> None``),
- ``Raises`` (``Raises:``) when it takes arguments (say which error wrong arguments give),
- ``Shape``, the shapes in PyTorch notation, when it handles tensors:

  - an ``nn.Module`` subclass whose ``forward`` (its own or inherited, not ``Module``'s)
    has a parameter or return annotated with ``Tensor`` needs a ``Shape:`` section whose
    body names a shape like ``(N, C)``;
  - any other function or class with a parameter (a class: of ``__init__``) or return
    annotated with ``Tensor`` (the word, anywhere in the annotation: ``Tensor | None``,
    ``tuple[Tensor, Tensor]``) needs a shape in its ``Args`` or ``Returns`` body;

  a shape is a parenthesised tuple in double backticks: ````(N, C)````, ````(*)````,
  ````()```` (a 0-d tensor). Unannotated names are not checked for shapes,
- an example: an ``Example:``/``Examples:`` section or a ``>>>`` line.

Tensor methods are public names too: every attribute of ``dyngrad.Tensor`` whose name does
not start with ``_`` and that is a function or a property defined in dyngrad (the class body
or its mixins in dyngrad/_tensor/), listed as ``dyngrad.Tensor.name``. The same rules apply,
with ``self`` not counted; a property has no arguments (it needs Returns, a shape when
annotated with ``Tensor``, and an example). A method written as a bare forward
``(self, *args, **kwargs)`` to the function it is the method form of (``x.exp()`` is
``dyngrad.exp(x)``; dyngrad/_tensor/method_docs.py finds it) is checked against that
function's signature, its first argument being ``self``. Dunder methods (``__add__``) are not
checked: the operators are documented by their named functions (``add``), as in PyTorch.
Slot attributes without a docstring of their own (``grad_fn``) are documented under the
class's ``Attributes:``.

The baseline (docstring_baseline.txt) lists, one line per name, ``name: Section, ...`` the
sections each name still lacks; names are sorted and grouped by module and first letter
(a blank line between groups), so engineers finishing different names merge cleanly. It
may only shrink: ``python -m tests.docs.docstring_audit --write-baseline`` rewrites it from
the code but refuses (exit 1, listing them) when a name would gain an entry or a section;
``--grow`` allows that (for a new rule, not for new names).
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

DOCUMENTED_MODULES = (
    "dyngrad", "dyngrad.autograd", "dyngrad.nn", "dyngrad.nn.functional", "dyngrad.optim",
    "dyngrad.func", "dyngrad.distributions", "dyngrad.utils.data", "dyngrad.utils.checkpoint",
    "dyngrad.viz", "dyngrad.distributed", "dyngrad.nn.parallel",
)

BASELINE = Path(__file__).with_name("docstring_baseline.txt")

#: every section the audit checks, in the order the baseline lists them
SECTIONS = ("Args", "Returns", "Raises", "Shape", "Example")

_HEADER = re.compile(r"^(?P<indent>[ \t]*)(?P<name>[A-Z][A-Za-z]*(?: [A-Za-z]+)?):[ \t]*(?P<rest>.*)$")
_INLINE_OK = {"Returns", "Return", "Yields", "Raises", "Shape"}  # "Returns: ``(N,)``." on one line
_ARGS_NAMES = {"Args", "Arguments", "Parameters", "Keyword Args", "Keyword Arguments"}
_RETURNS_NAMES = {"Returns", "Return", "Yields"}
_EXAMPLE = re.compile(r"^\s*(Examples?:\s*$|>>> )", re.M)
_SHAPE = re.compile(r"``\([^`]*\)``")
_TENSOR = re.compile(r"\bTensor\b")


def public_names() -> Iterator[tuple[str, object]]:
    """``("module.name", object)`` for every public function and class, each object once."""
    seen: set[int] = set()
    for modname in DOCUMENTED_MODULES:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            obj = getattr(mod, name)
            # a function of a module compiled by the optional build is Cython's function type
            # (docs/compiled-build.md), which inspect.isfunction does not accept
            cyfunc = type(obj).__name__ == "cython_function_or_method"
            if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj) or cyfunc):
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            yield f"{modname}.{name}", obj
    for qual, fn in tensor_methods():
        if id(fn) not in seen:
            seen.add(id(fn))
            yield qual, fn


#: ``id(method) -> signature`` of the Tensor methods that forward to a function (public_names)
_METHOD_SIGNATURES: dict[int, inspect.Signature] = {}


def tensor_methods() -> Iterator[tuple[str, object]]:
    """``("dyngrad.Tensor.name", function)`` for each public method and property of Tensor
    (a property as its getter)."""
    import dyngrad
    from dyngrad._tensor import method_docs

    for name in sorted(dir(dyngrad.Tensor)):
        if name.startswith("_"):
            continue
        attr = next((vars(k)[name] for k in dyngrad.Tensor.__mro__ if name in vars(k)), None)
        fn = attr.fget if isinstance(attr, property) else getattr(attr, "__func__", attr)
        if not inspect.isfunction(fn) or not fn.__module__.startswith("dyngrad"):
            continue
        sig = method_docs.method_signature(name, dyngrad)
        if sig is not None:
            _METHOD_SIGNATURES[id(fn)] = sig
        yield f"dyngrad.Tensor.{name}", fn


def _signature(obj: object) -> inspect.Signature | None:
    if id(obj) in _METHOD_SIGNATURES:
        return _METHOD_SIGNATURES[id(obj)]
    target = obj.__init__ if inspect.isclass(obj) else obj  # type: ignore[misc]
    if inspect.isclass(obj) and target is object.__init__:
        return None
    try:
        return inspect.signature(target)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _takes_arguments(obj: object) -> bool:
    sig = _signature(obj)
    if sig is None:
        return False
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    # a bare pass-through signature, (*args, **kwargs), names no argument to document
    if all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name in ("args", "kwargs") for p in params):
        return False
    return bool(params)


def _returns_something(obj: object) -> bool:
    if inspect.isclass(obj):
        return False
    try:
        sig = _signature(obj)
    except (TypeError, ValueError):
        return True
    return sig is None or sig.return_annotation not in (None, "None")


def _mentions_tensor(sig: inspect.Signature | None, *, returns: bool = True) -> bool:
    if sig is None:
        return False
    anns = [p.annotation for p in sig.parameters.values() if p.name not in ("self", "cls")]
    if returns:
        anns.append(sig.return_annotation)
    return any(a is not inspect.Parameter.empty and _TENSOR.search(str(a)) for a in anns)


def _module_forward(obj: object) -> object | None:
    """``obj.forward`` when ``obj`` is an ``nn.Module`` subclass with a forward of its own
    (or a base's) rather than ``Module``'s; else None."""
    if not inspect.isclass(obj):
        return None
    from dyngrad.nn import Module

    if not issubclass(obj, Module):
        return None
    forward = getattr(obj, "forward", None)
    return None if forward is None or forward is Module.forward else forward


def needs_shape(obj: object) -> str | None:
    """``"Shape"`` when ``obj`` must have a ``Shape:`` section (a tensor-handling nn.Module),
    ``"Args/Returns"`` when a shape must appear in its Args or Returns, else None."""
    if inspect.isclass(obj):
        from dyngrad.nn import Module

        if issubclass(obj, Module):
            forward = _module_forward(obj)
            try:
                fsig = inspect.signature(forward) if forward is not None else None  # type: ignore[arg-type]
            except (TypeError, ValueError):
                fsig = None
            return "Shape" if _mentions_tensor(fsig) else None
        return "Args/Returns" if _mentions_tensor(_signature(obj), returns=False) else None
    return "Args/Returns" if _mentions_tensor(_signature(obj)) else None


def _docstring(obj: object) -> str:
    parts = [obj.__doc__] if isinstance(obj.__doc__, str) else []
    if inspect.isclass(obj) and obj.__init__ is not object.__init__ and "__init__" in vars(obj):  # type: ignore[misc]
        init_doc = obj.__init__.__doc__  # type: ignore[misc]
        if isinstance(init_doc, str):
            parts.append(init_doc)
    return "\n".join(inspect.cleandoc(p) for p in parts)


def sections(doc: str) -> dict[str, str]:
    """``{header: body}`` of the Google-style sections in ``doc`` (bodies of repeated headers
    joined)."""
    out: dict[str, str] = {}
    lines = doc.splitlines()
    i = 0
    while i < len(lines):
        m = _HEADER.match(lines[i])
        if not m or (m["rest"].strip() and m["name"] not in _INLINE_OK):
            i += 1
            continue
        indent, body = len(m["indent"].expandtabs()), [m["rest"]]
        i += 1
        while i < len(lines):
            ln = lines[i]
            if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
                break
            body.append(ln)
            i += 1
        out[m["name"]] = out.get(m["name"], "") + "\n".join(body) + "\n"
    return out


def missing_sections(obj: object) -> list[str]:
    """The sections ``obj``'s docstring lacks, e.g. ``["Args", "Example"]`` (in SECTIONS order)."""
    doc = _docstring(obj)
    secs = sections(doc)
    args = "".join(b for h, b in secs.items() if h in _ARGS_NAMES)
    rets = "".join(b for h, b in secs.items() if h in _RETURNS_NAMES)
    has_args = any(h in _ARGS_NAMES for h in secs)
    has_returns = any(h in _RETURNS_NAMES for h in secs)
    takes = _takes_arguments(obj)
    missing = []
    if takes and not has_args:
        missing.append("Args")
    if _returns_something(obj) and not has_returns:
        missing.append("Returns")
    if takes and "Raises" not in secs:
        missing.append("Raises")
    shape = needs_shape(obj)
    if shape == "Shape" and not _SHAPE.search(secs.get("Shape", "")):
        missing.append("Shape")
    elif shape == "Args/Returns" and not _SHAPE.search(args + rets):
        missing.append("Shape")
    if not _EXAMPLE.search(doc):
        missing.append("Example")
    return missing


def audit() -> dict[str, list[str]]:
    """``{"module.name": [missing sections]}`` for every public name lacking any."""
    return {q: m for q, obj in public_names() if (m := missing_sections(obj))}


def read_baseline() -> dict[str, set[str]]:
    """``{"module.name": {sections it may still lack}}`` from the baseline file; a line with
    a bare name (the old format) may lack any section."""
    out: dict[str, set[str]] = {}
    lines = BASELINE.read_text().splitlines() if BASELINE.exists() else []
    for ln in lines:
        ln = ln.strip()
        if not ln or ln.startswith("#"):
            continue
        name, sep, secs = ln.partition(":")
        out[name.strip()] = {s.strip() for s in secs.split(",") if s.strip()} if sep else set(SECTIONS)
    return out


def _group(qual: str) -> tuple[str, str]:
    mod, _, name = qual.rpartition(".")
    return mod, name[:1]


def format_baseline(found: dict[str, list[str]]) -> str:
    header = (
        "# Public names (tests/docs/docstring_audit.py) and the docstring sections each still\n"
        "# lacks (of Args, Returns, Raises, Shape, Example). This list may only shrink:\n"
        "# tests/docs/test_docstrings.py fails when a name here gains a section (drop it from the\n"
        "# line, or the line when none is left) or a name lacks one not listed. Regenerate with\n"
        "# `python -m tests.docs.docstring_audit --write-baseline` (shrink-only). Sorted, one line\n"
        "# per name, grouped by module and first letter, so parallel edits merge cleanly.\n"
    )
    out, last = [header], None
    for q in sorted(found, key=lambda q: (_group(q), q)):
        if last is not None and _group(q) != last:
            out.append("\n")
        last = _group(q)
        out.append(f"{q}: {', '.join(found[q])}\n")
    return "".join(out)


def main(argv: list[str]) -> int:
    found = audit()
    total = sum(1 for _ in public_names())
    print(f"{len(found)} of {total} public names lack a section")
    for sec in SECTIONS:
        print(f"  missing {sec}: {sum(sec in m for m in found.values())}")
    if "--list" in argv:
        for q in sorted(found):
            print(f"{q}: {', '.join(found[q])}")
    if "--write-baseline" in argv:
        old = read_baseline()
        worse = {q: sorted(set(m) - old.get(q, set())) for q, m in found.items()}
        worse = {q: m for q, m in worse.items() if m}
        if worse and "--grow" not in argv:
            print("refusing to grow the baseline; these names lack sections it does not list "
                  "(write them, or pass --grow for a new rule):")
            for q, m in sorted(worse.items()):
                print(f"  {q}: {', '.join(m)}")
            return 1
        BASELINE.write_text(format_baseline(found))
        print(f"wrote {BASELINE} ({len(found)} names; {len(set(old) - set(found))} removed)")
    return 0


if __name__ == "__main__":  # python -m tests.docs.docstring_audit [--list] [--write-baseline [--grow]]
    import sys

    raise SystemExit(main(sys.argv[1:]))
