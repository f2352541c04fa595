"""MkDocs hooks for the docs build (mkdocs.yml: ``hooks``).

``on_config`` gives the Tensor methods that forward to a function that function's signature
in the API reference (see its docstring).

``docs/from-pytorch.md`` (the generated PyTorch coverage table) is written by another tool;
while it does not exist, the build serves a placeholder page there, so the nav entry and
links to it never break and the real file simply takes over once it is committed.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

PLACEHOLDER = """# Coming from PyTorch

The generated table of which PyTorch names dyngrad covers, and how each differs, is not in
this build yet. Until it is, see [Operation coverage](ops.md) for the ops and
[the API reference](reference/index.md) for every public name.
"""


def on_config(config: Any) -> Any:
    """The API reference shows each Tensor method that forwards to a function (``x.exp()``)
    with that function's signature, ``exp(self)``, rather than the forward's
    ``exp(*args, **kwargs)`` (``__signature__``, set for the build only: ``import dyngrad``
    does not pay for computing 400 signatures)."""
    import dyngrad
    from dyngrad._tensor import method_docs

    for name in dir(dyngrad.Tensor):
        if not name.startswith("_") and (sig := method_docs.method_signature(name, dyngrad)) is not None:
            getattr(dyngrad.Tensor, name).__signature__ = sig
    return config


def on_files(files: Files, config: Any) -> Files:
    if files.get_file_from_path("from-pytorch.md") is None:
        files.append(File.generated(config, "from-pytorch.md", content=PLACEHOLDER))
    return files
