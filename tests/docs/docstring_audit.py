"""Which public names lack the docstring sections the API reference needs.

"Public" is exact: every name in ``__all__`` of the modules the API reference documents
(``DOCUMENTED_MODULES``, the pages under docs/reference/) that is a function or a class.
Constants, dtypes and submodules are not checked. A name re-exported by several of these
modules is checked once, under the first module that lists it.

A name passes when its docstring (a class's own docstring, or its ``__init__``'s) has
- ``Args:`` when it takes arguments (a class: its constructor; ``self`` does not count, nor
  a bare ``(*args, **kwargs)``),
- ``Returns:`` (or ``Yields:``) when it is a function that returns something (not a class,
  and not annotated ``-> None``),
- an example: an ``Example:``/``Examples:`` section or a ``>>>`` line.
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

_ARGS = re.compile(r"^\s*(Args|Arguments|Parameters|Keyword Args|Keyword Arguments):\s*$", re.M)
_RETURNS = re.compile(r"^\s*(Returns|Return|Yields):", re.M)
_EXAMPLE = re.compile(r"^\s*(Examples?:\s*$|>>> )", re.M)


def public_names() -> Iterator[tuple[str, object]]:
    """``("module.name", object)`` for every public function and class, each object once."""
    seen: set[int] = set()
    for modname in DOCUMENTED_MODULES:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj)):
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            yield f"{modname}.{name}", obj


def _takes_arguments(obj: object) -> bool:
    target = obj.__init__ if inspect.isclass(obj) else obj  # type: ignore[misc]
    if inspect.isclass(obj) and target is object.__init__:
        return False
    try:
        sig = inspect.signature(target)  # type: ignore[arg-type]
    except (TypeError, ValueError):
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
        ann = inspect.signature(obj).return_annotation  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return True
    return ann not in (None, "None")


def _docstring(obj: object) -> str:
    doc = obj.__doc__ if isinstance(obj.__doc__, str) else ""
    if inspect.isclass(obj) and obj.__init__ is not object.__init__:  # type: ignore[misc]
        init_doc = obj.__init__.__doc__  # type: ignore[misc]
        if isinstance(init_doc, str) and "__init__" in vars(obj):
            doc += "\n" + init_doc
    return inspect.cleandoc(doc) if doc else ""


def missing_sections(obj: object) -> list[str]:
    """The sections ``obj``'s docstring lacks, e.g. ``["Args", "Example"]``."""
    doc = _docstring(obj)
    missing = []
    if _takes_arguments(obj) and not _ARGS.search(doc):
        missing.append("Args")
    if _returns_something(obj) and not _RETURNS.search(doc):
        missing.append("Returns")
    if not _EXAMPLE.search(doc):
        missing.append("Example")
    return missing


def audit() -> dict[str, list[str]]:
    """``{"module.name": [missing sections]}`` for every public name lacking any."""
    return {q: m for q, obj in public_names() if (m := missing_sections(obj))}


def read_baseline() -> set[str]:
    lines = BASELINE.read_text().splitlines() if BASELINE.exists() else []
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


if __name__ == "__main__":  # python -m tests.docs.docstring_audit [--write-baseline]
    import sys

    found = audit()
    total = sum(1 for _ in public_names())
    print(f"{len(found)} of {total} public names lack a section")
    for sec in ("Args", "Returns", "Example"):
        print(f"  missing {sec}: {sum(sec in m for m in found.values())}")
    if "--write-baseline" in sys.argv:
        header = ("# Public names (tests/docs/docstring_audit.py) whose docstrings still lack Args, Returns or\n"
                  "# an Example. This list may only shrink: tests/docs/test_docstrings.py fails when a name\n"
                  "# here gains its sections (remove it) or a new public name lacks them (document it).\n")
        BASELINE.write_text(header + "".join(f"{q}\n" for q in sorted(found)))
