"""A griffe extension for the docs build, adapting dyngrad's Google-style docstrings to
griffe's parser:

- read an ``Example:`` section (PyTorch's spelling, used throughout dyngrad's docstrings)
  as griffe's ``Examples:`` section, so its ``>>>`` lines render as code rather than as
  Markdown text;
- put a blank line before each section header (``Returns:``, ``Raises:``, ...): griffe
  starts a section only after a blank line, and dyngrad's docstrings (docs/DOCSTYLE) write
  ``Args:``, ``Returns:`` and ``Raises:`` on consecutive lines, which griffe would otherwise
  render as one block of text after the parameter table;
- drop the Sphinx roles in front of cross-references (``:func:`dyngrad.exp``` renders as
  the code ``dyngrad.exp``, not as the text ":func:" before it)."""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:\s*$", re.M)
# a section header at the docstring's left margin, right after a non-blank line
_SECTION = re.compile(
    r"(?<=\S)([ \t]*\n)(?=(?:Args|Arguments|Parameters|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns|Return|Yields|Receives|Raises|Warns|Examples|Example|Attributes|Note|Notes|Warning|Warnings)"
    r":[ \t]*\n)"
)


_ROLE = re.compile(r":(?:func|meth|class|attr|data|mod|exc|obj):(?=`)")


class ExampleSections(griffe.Extension):
    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        doc = getattr(obj, "docstring", None)
        if doc is None:
            return
        value = _ROLE.sub("", _SECTION.sub(r"\1\n", doc.value))
        if "Example:" in value:
            value = _EXAMPLE.sub(r"\1Examples:", value)
        doc.value = value
