"""A griffe extension for the docs build: read a Google-style ``Example:`` section (PyTorch's
spelling, used throughout dyngrad's docstrings) as griffe's ``Examples:`` section, so its
``>>>`` lines render as code rather than as Markdown text."""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.M)


class ExampleSections(griffe.Extension):
    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is not None and "Example:" in doc.value:
            doc.value = _EXAMPLE.sub(r"\1Examples:", doc.value)
