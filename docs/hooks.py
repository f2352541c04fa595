"""MkDocs hooks for the docs build (mkdocs.yml: ``hooks``).

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


def on_files(files: Files, config: Any) -> Files:
    if files.get_file_from_path("from-pytorch.md") is None:
        files.append(File.generated(config, "from-pytorch.md", content=PLACEHOLDER))
    return files
