"""Every code block on the documentation site (docs/**/*.md) either runs or says why not.

The site's pages execute their ``python exec="on"`` blocks when MkDocs builds (markdown-exec,
mkdocs.yml), which only the docs step of CI does; this test runs the same blocks in the
default suite, so an example that rots fails here first. The rules, each checked below:

- every fence has a language (``text`` for output, ``bash``/``console`` for a shell, ...);
- every ``python`` fence runs: ``exec="on"`` (markdown-exec renders its source and output);
  one that must not run says so explicitly with ``exec="no"`` and a ``title`` naming the
  reason (it then is only highlighted);
- ``exec="on"`` blocks run as markdown-exec runs them: blocks with the same ``session`` on a
  page share their globals, in page order; a block without a session runs alone. A block
  that fails on purpose catches its own exception and prints it.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<info>[^`\n]*)$")


def _blocks(path: Path) -> list[tuple[int, str, dict[str, str], str]]:
    """``(line, language, options, code)`` for each fenced block of a page."""
    out, lines, i = [], path.read_text(encoding="utf-8").splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        info, indent, ticks = m["info"].strip(), len(m["indent"]), m["ticks"]
        lang, _, rest = info.partition(" ")
        opts = dict(tok.split("=", 1) for tok in shlex.split(rest) if "=" in tok)
        body, j = [], i + 1
        while j < len(lines) and not re.match(rf"^[ \t]*{ticks}[ \t]*$", lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        out.append((i + 1, lang, opts, "\n".join(body)))
        i = j + 1
    return out


PAGES = sorted(p for p in DOCS.rglob("*.md"))
BLOCKS = [(p, *b) for p in PAGES for b in _blocks(p)]


def _rel(p: Path) -> str:
    return str(p.relative_to(DOCS))


def test_the_docs_have_code_blocks_to_check():
    assert len(BLOCKS) > 50 and sum(b[2] == "python" for b in BLOCKS) > 40


def test_every_fence_has_a_language():
    bare = [f"{_rel(p)}:{ln}" for p, ln, lang, _, _ in BLOCKS if not lang]
    assert not bare, "fences without a language (use text for output, bash for a shell): " + ", ".join(bare)


def test_every_python_block_runs_or_says_why_not():
    silent = [
        f"{_rel(p)}:{ln}"
        for p, ln, lang, opts, _ in BLOCKS
        if lang in ("python", "py", "python3")
        and opts.get("exec") != "on"
        and not (opts.get("exec") == "no" and opts.get("title"))
    ]
    assert not silent, (
        'python blocks that neither run (exec="on") nor say why not (exec="no" title="..."): '
        + ", ".join(silent)
    )


def _sessions() -> list:
    """One pytest param per page and session (a block without a session is its own)."""
    groups: dict[tuple[str, str], list] = {}
    for p, ln, lang, opts, code in BLOCKS:
        if lang == "python" and opts.get("exec") == "on":
            key = (_rel(p), opts.get("session") or f"line {ln}")
            groups.setdefault(key, []).append((ln, code))
    return [pytest.param(k[0], v, id=f"{k[0]}[{k[1]}]") for k, v in groups.items()]


@pytest.mark.parametrize(("page", "blocks"), _sessions())
def test_the_executed_blocks_of_each_page_run(page, blocks, tmp_path, monkeypatch):
    import dyngrad

    if any("matplotlib" in code or "viz.draw(" in code for _, code in blocks):
        # the site builds with the docs extra (matplotlib); the test extra does not have it
        pytest.importorskip("matplotlib", reason=f"docs/{page} draws with matplotlib (the docs extra)")
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    state = dyngrad.default_generator.get_state()
    globs: dict = {"__name__": "__main__"}
    try:
        for ln, code in blocks:
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    exec(compile(code, f"{page}:{ln}", "exec"), globs)
                except Exception as e:  # name the block in the failure
                    raise AssertionError(f"the block at docs/{page}:{ln} raised {type(e).__name__}: {e}") from e
    finally:
        dyngrad.default_generator.set_state(state)
