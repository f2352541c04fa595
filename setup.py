"""The optional compiled build (docs/how-to/compiled-build.md); metadata is in pyproject.toml.

A plain ``pip install .`` or ``pip install -e .`` builds pure Python and needs no compiler.
``DYNGRAD_COMPILE=1 pip install .`` compiles the modules listed in
src/dyngrad/_compiled_modules.py with Cython (pure-Python mode: the same ``.py`` source,
which also ships in the wheel); pip fetches Cython into the build environment.
``DYNGRAD_COMPILE=auto`` does the same but falls back to pure Python when a module fails
to build (no compiler, no Python headers).
"""

from __future__ import annotations

import ast
import os
import pathlib

from setuptools import setup

HERE = pathlib.Path(__file__).resolve().parent
MODE = os.environ.get("DYNGRAD_COMPILE", "").strip().lower()
if MODE in ("", "0", "no", "false", "off"):
    MODE = ""
elif MODE in ("1", "yes", "true", "on"):
    MODE = "1"
elif MODE != "auto":
    raise SystemExit(f"DYNGRAD_COMPILE must be 1, auto or 0, not {MODE!r}")


def _module_list() -> list[str]:
    """MODULES from src/dyngrad/_compiled_modules.py, read without importing dyngrad."""
    tree = ast.parse((HERE / "src/dyngrad/_compiled_modules.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "MODULES" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise SystemExit("src/dyngrad/_compiled_modules.py defines no MODULES list")


def _compiled_build() -> dict:
    if not MODE:
        return {}
    try:
        from Cython.Build import cythonize
    except ImportError:
        # pip's first pass (get_requires_for_build_wheel) reads setup_requires and installs
        # Cython into the isolated build environment before building the wheel.
        return {"setup_requires": ["cython>=3.1"]}
    from setuptools import Extension
    from setuptools.command.build_ext import build_ext

    class build_ext_not_in_place(build_ext):
        """Refuses to write extension modules into src/ (``pip install -e .``, ``--inplace``):
        there they would shadow the ``.py`` files for every interpreter that reads src/, and
        keep running the old code after the ``.py`` is edited."""

        def run(self) -> None:
            if self.inplace or getattr(self, "editable_mode", False):
                raise SystemExit(
                    "DYNGRAD_COMPILE: the compiled build is not editable; install it with "
                    "`DYNGRAD_COMPILE=1 pip install .` (the pure-Python `pip install -e .` needs no flag)"
                )
            super().run()

    exts = [Extension(name, [str(pathlib.Path("src", *name.split(".")).with_suffix(".py"))])
            for name in _module_list()]
    exts = cythonize(
        exts,
        build_dir="build/cython",  # the generated C stays out of src/
        language_level=3,
        compiler_directives={
            # Annotations are documentation here, not C types: with the default (True)
            # Cython enforces them at run time (e.g. rejects an int where a float is
            # annotated), which the pure-Python source does not do.
            "annotation_typing": False,
            "binding": True,  # functions keep inspect.signature, __qualname__, __doc__
            "embedsignature": True,
        },
        quiet=True,
    )
    for ext in exts:  # set after cythonize, which does not carry `optional` over
        ext.optional = MODE == "auto"  # a failed compile: a warning, that module stays Python
    return {"cmdclass": {"build_ext": build_ext_not_in_place}, "ext_modules": exts}


setup(**_compiled_build())
