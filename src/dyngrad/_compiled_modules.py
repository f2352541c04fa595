"""Which modules the optional compiled build compiles (docs/how-to/compiled-build.md).

``setup.py`` reads ``MODULES`` (without importing dyngrad) and, when the build is asked for
(``DYNGRAD_COMPILE=1 pip install .``) and Cython is importable, compiles each of these
pure-Python modules with Cython in pure-Python mode; the ``.py`` files stay the reference
and ship beside the extension modules. ``dyngrad.__compiled__`` (``compiled()`` below)
reports which of them were loaded compiled.
"""

from __future__ import annotations

import importlib
import importlib.machinery

# Dotted names, one per line: a plain list so that a change to these modules' bodies never
# touches the build. Each must compile with Cython's pure-Python mode unchanged. Only the
# autograd core: adding tensor.py, graph.py and the ops modules of a chain's ops (nine more)
# measured no further gain (benchmarks/RESULTS.md, "compiled build"); presumably because a
# call from interpreted code into a compiled function costs more than CPython 3.11's inlined
# Python-to-Python call, eating what compiling their short bodies saves.
MODULES = [
    "dyngrad.autograd.function",
    "dyngrad.autograd.engine",
    "dyngrad.autograd.backprop",
]


def compiled() -> tuple[str, ...]:
    """The modules of ``MODULES`` that this process loaded as compiled extension modules.

    Returns:
        tuple[str, ...]: dotted module names; empty for the pure-Python install.
    """
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    out = []
    for name in MODULES:
        mod = importlib.import_module(name)
        if (getattr(mod, "__file__", None) or "").endswith(suffixes):
            out.append(name)
    return tuple(out)
