"""Open the built documentation site (site/, from `mkdocs build`) in headless Chromium and
check what a reader would see.

    python .ci/check_site.py [SITE_DIR] [--chromium /usr/bin/chromium]

Checks, each printed as it passes (exit status 1 and the reasons on the first failures):
- the home page, one tutorial page and one API reference page render: their heading and a
  known piece of text are visible (and the Tensor page lists its methods) (for the tutorial, output the build produced by running
  its code blocks, and a graph picture that loaded);
- the search box finds "save_for_backward";
- no internal link of any built page is broken: every <a href> to a local target points to
  a file of the site and, when it has a #fragment, to an id on that page;
and saves a screenshot of the tutorial page as SITE_DIR/screenshots/tutorial.png.

The pages are served by http.server on 127.0.0.1 (search needs http: its worker cannot load
from file://). The browser is Debian's chromium driven by playwright (playwright's own
browser download is not used).
"""

from __future__ import annotations

import argparse
import functools
import html.parser
import http.server
import sys
import threading
import time
import urllib.parse
from pathlib import Path


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = dict(attrs)
        if d.get("id"):
            self.ids.add(d["id"] or "")
        if tag == "a" and d.get("name"):
            self.ids.add(d["name"] or "")
        if tag == "a" and d.get("href") is not None:
            self.hrefs.append(d["href"] or "")


def _parse(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8", errors="replace"))
    return p


def _target(site: Path, page: Path, href: str) -> tuple[Path | None, str]:
    """The file an internal href points to (None for an external one) and its fragment."""
    parts = urllib.parse.urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:", "data:")):
        return None, ""
    if not parts.path:  # "#frag": this page
        return page, parts.fragment
    base = page.parent
    path = (site / parts.path.lstrip("/")) if parts.path.startswith("/") else (base / urllib.parse.unquote(parts.path))
    path = path.resolve()
    if path.is_dir() or parts.path.endswith("/"):
        path = path / "index.html"
    return path, urllib.parse.unquote(parts.fragment)


def broken_links(site: Path) -> tuple[int, int, list[str]]:
    """(pages, links checked, problems) for every internal <a href> of every built page."""
    site = site.resolve()
    pages = sorted(site.rglob("*.html"))
    parsed: dict[Path, _Links] = {}

    def links_of(path: Path) -> _Links:
        if path not in parsed:
            parsed[path] = _parse(path)
        return parsed[path]

    problems: list[str] = []
    checked = 0
    for page in pages:
        links = links_of(page)
        for href in set(links.hrefs):
            target, frag = _target(site, page, href)
            if target is None:
                continue
            checked += 1
            rel = page.relative_to(site)
            if site not in target.parents and target != site:
                problems.append(f"{rel}: {href} leaves the site")
            elif not target.exists():
                problems.append(f"{rel}: {href} -> missing {target.relative_to(site)}")
            elif frag and target.suffix == ".html":
                ids = links_of(target).ids
                if frag not in ids:
                    problems.append(f"{rel}: {href} -> no id {frag!r} on {target.relative_to(site)}")
    return len(pages), checked, problems


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", nargs="?", default="site")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args(argv)
    site = Path(args.site).resolve()
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    t0 = time.perf_counter()
    n_pages, n_links, problems = broken_links(site)
    check(not problems, f"internal links: {n_links} links on {n_pages} pages, {len(problems)} broken")
    for p in problems[:30]:
        print(f"       {p}")

    from playwright.sync_api import sync_playwright

    server, root = serve(site)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 1800})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))

            page.goto(root)
            h1 = page.locator("article h1").first
            check(h1.is_visible() and h1.inner_text().strip().rstrip("¶").strip() == "dyngrad",
                  "home page: heading 'dyngrad' visible")
            check(page.locator("article").get_by_role("heading", name="Where to start").first.is_visible(),
                  "home page: 'Where to start' visible")

            page.goto(root + "tutorials/custom-functions/")
            check(page.get_by_role("heading", name="Custom Functions, step by step").first.is_visible(),
                  "tutorial page: its heading visible")
            check(page.get_by_text("grad_fn MyReLUBackward").first.is_visible(),
                  "tutorial page: the output of its executed code visible ('grad_fn MyReLUBackward')")
            shots = site / "screenshots"
            shots.mkdir(exist_ok=True)
            page.screenshot(path=str(shots / "tutorial.png"))
            check((shots / "tutorial.png").stat().st_size > 10_000, "tutorial page: screenshot saved (site/screenshots/tutorial.png)")

            page.goto(root + "tutorials/debugging/")
            img = page.locator('img[alt="the autograd graph of loss"]').first
            img.scroll_into_view_if_needed()
            width = page.evaluate("(img) => img.complete ? img.naturalWidth : 0", img.element_handle())
            check(img.is_visible() and width > 100, f"debugging tutorial: the graph picture drawn by the build shows ({width} px wide)")

            page.goto(root + "reference/autograd/")
            check(page.get_by_role("heading", name="dyngrad.autograd").first.is_visible(),
                  "API page dyngrad.autograd: heading visible")
            check(page.locator('[id="dyngrad.autograd.Function"]').first.is_visible(),
                  "API page: dyngrad.autograd.Function documented")
            page.goto(root + "reference/tensor/")
            for method in ("backward", "exp", "add_", "view", "shape"):  # core, method form, in-place, own, property
                check(page.locator(f'[id="dyngrad.Tensor.{method}"]').count() == 1,
                      f"API page dyngrad.Tensor: Tensor.{method} documented")

            page.goto(root)
            box = page.locator("input.md-search__input")
            box.click()
            box.press_sequentially("save_for_backward", delay=20)
            results = page.locator(".md-search-result__item")
            try:
                results.first.wait_for(state="visible", timeout=15_000)
                found = results.count()
                text = page.locator(".md-search-result").inner_text()
            except Exception:  # noqa: BLE001 - reported as a failed check
                found, text = 0, ""
            check(found > 0 and "save_for_backward" in text,
                  f"search 'save_for_backward': {found} results")
            check(not errors, f"no JavaScript errors ({len(errors)}: {errors[:3]})")
            browser.close()
    finally:
        server.shutdown()
    print(f"  browser checks took {time.perf_counter() - t0:.1f} s")
    if failures:
        print(f"{len(failures)} site check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
