"""The autograd graph as Graphviz DOT: ``make_dot`` (a ``graphviz.Digraph``, the optional
``graphviz`` package) and ``to_dot`` (the DOT source as a string, no dependency); ``draw``
renders the same graph as an image with matplotlib, for machines without Graphviz.

Boxes are backward nodes (name, output shapes and dtypes; with ``show_saved`` also each
saved tensor's shape, dtype, bytes and version), light blue boxes are leaves (labelled by
parameter name when ``params`` names them), the green box is the output. Edges point from
the producer of an input to the node that consumed it, as in torchviz. The walk is an
explicit stack, so graphs of any depth render.

Example:
    >>> y = model(x)
    >>> make_dot(y, params=dict(model.named_parameters())).render("graph", format="svg")
"""

from __future__ import annotations

from typing import Any

__all__ = ["make_dot", "to_dot", "draw"]

_DTYPE = {"float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64", "int32": "i32", "bool": "bool"}


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_shape_cache: dict = {}


def _shape(shape: Any, dtype: Any) -> str:
    key = (tuple(shape), dtype)
    text = _shape_cache.get(key)
    if text is None:
        dt = getattr(dtype, "name", str(dtype))
        text = f"({', '.join(str(d) for d in shape)}) {_DTYPE.get(dt, dt)}"
        if len(_shape_cache) < 4096:
            _shape_cache[key] = text
    return text


def _saved_lines(node: Any) -> list[str]:
    from .autograd.ledger import _entries

    lines = []
    for what, arr, s in _entries(node):
        if arr is None:
            lines.append(f"{what}: (opaque)")
            continue
        ver = f" v{s.version}" if s is not None and s.version >= 0 else ""
        lines.append(f"{what}: {_shape(arr.shape, arr.dtype)} {arr.nbytes} B{ver}")
    if node.__dict__.get("_freed"):
        lines.append("(saved tensors freed)")
    return lines


def _walk(outputs: Any, params: dict | None, show_saved: bool) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """The graph behind ``outputs``: nodes ``(id, label, fill colour)`` and edges
    ``(producer id, consumer id)``, walked with an explicit stack."""
    from .autograd.graph import AccumulateGrad
    from .tensor import Tensor

    if isinstance(outputs, Tensor) or not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    names = {id(v): k for k, v in (params or {}).items()}
    nodes: list[tuple[str, str, str]] = []
    edges: list[tuple[str, str]] = []
    stack = []
    seen: set = set()
    for k, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"make_dot: expected Tensors, got {type(out).__name__}")
        oid = f"out{k}"
        label = names.get(id(out), f"output{k if len(outputs) > 1 else ''}")
        nodes.append((oid, f"{label}\n{_shape(out.shape, out.dtype)}", "darkolivegreen1"))
        node = out.grad_fn
        if node is None and out.requires_grad:
            node = out._accumulator()
        if node is not None:
            edges.append((str(id(node)), oid))
            stack.append(node)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        nid = str(id(node))
        if type(node) is AccumulateGrad:
            v = node.variable
            label = names.get(id(v), "")
            nodes.append((nid, (f"{label}\n" if label else "") + _shape(v.shape, v.dtype), "lightblue"))
        else:
            parts = [node.name()]
            shapes = [_shape(*m) for m in node._output_meta if m is not None]
            if shapes:
                parts.append(" | ".join(shapes))
            if show_saved:
                parts.extend(_saved_lines(node))
            site = node.__dict__.get("_site")
            if site:
                parts.append(site.rsplit("/", 1)[-1])
            nodes.append((nid, "\n".join(parts), "lightgray"))
        for child, _ in node.next_functions:
            if child is None:
                continue
            edges.append((str(id(child)), nid))
            if id(child) not in seen:
                stack.append(child)
    return nodes, edges


def _lines(outputs: Any, params: dict | None, show_saved: bool) -> list[str]:
    """Body lines (nodes and edges) of the DOT graph."""
    nodes, edges = _walk(outputs, params, show_saved)
    body = []
    for nid, label, fill in nodes:
        colour = "" if fill == "lightgray" else f" fillcolor={fill}"
        body.append(f'\t{nid} [label="{_esc(label)}"{colour}]')
    body.extend(f"\t{a} -> {b}" for a, b in edges)
    return body


def _layers(nodes: list[tuple[str, str, str]], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Layer of each node: its longest distance (in edges) from an output, so every edge
    points one or more layers towards the outputs (Kahn's order, no recursion)."""
    consumers: dict[str, list[str]] = {n[0]: [] for n in nodes}
    n_out = {n[0]: 0 for n in nodes}
    for a, b in edges:
        consumers[a].append(b)
        n_out[a] += 1
    producers: dict[str, list[str]] = {n[0]: [] for n in nodes}
    for a, b in edges:
        producers[b].append(a)
    layer = {n: 0 for n in n_out}
    ready = [n for n, c in n_out.items() if c == 0]
    left = dict(n_out)
    while ready:
        b = ready.pop()
        for a in producers[b]:
            layer[a] = max(layer[a], layer[b] + 1)
            left[a] -= 1
            if left[a] == 0:
                ready.append(a)
    return layer


def draw(output: Any, path: str, params: dict | None = None, show_saved: bool = False) -> str:
    """Draw the graph behind ``output`` as an image with matplotlib: no Graphviz needed.

    A layered drawing: outputs at the top, each node one row below its lowest consumer,
    nodes in a row ordered by the mean position of their consumers (fewer crossings), the
    same boxes and colours as :func:`to_dot`.

    Args:
        output: a Tensor or a sequence of Tensors.
        path: the image file to write; its extension picks the format (``.png``, ``.svg``, ``.pdf``).
        params: ``{name: tensor}`` used to label leaves.
        show_saved: list each node's saved tensors.
    Returns:
        str: ``path``.
    Raises:
        ImportError: when matplotlib is missing (``pip install dyngrad[demo]``).
        TypeError: when ``output`` holds something other than Tensors.

    Example:
        >>> import os, tempfile
        >>> import dyngrad
        >>> w = dyngrad.randn(3, requires_grad=True)
        >>> png = os.path.join(tempfile.mkdtemp(), "graph.png")
        >>> draw((w * 2).sum(), png, params={"w": w}) == png and os.path.getsize(png) > 0
        True
    """
    nodes, edges = _walk(output, params, show_saved)
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("dyngrad.viz.draw needs matplotlib: pip install dyngrad[demo] (or use to_dot)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    layer = _layers(nodes, edges)
    label = {n: lab for n, lab, _ in nodes}
    fill = {n: f for n, _, f in nodes}
    rows: dict[int, list[str]] = {}
    for n, _, _ in nodes:
        rows.setdefault(layer[n], []).append(n)
    consumers: dict[str, list[str]] = {n: [] for n in layer}
    for a, b in edges:
        consumers[a].append(b)
    x: dict[str, float] = {}
    for depth in sorted(rows):
        row = rows[depth]
        if depth:
            row.sort(key=lambda n: sum(x[c] for c in consumers[n]) / max(1, len(consumers[n])))
        for i, n in enumerate(row):
            x[n] = i - (len(row) - 1) / 2
    width = max(len(r) for r in rows.values())
    fig, ax = plt.subplots(figsize=(max(4.0, 2.6 * width), max(3.0, 1.1 * len(rows))))
    for a, b in edges:  # an edge that skips rows bends, so it is not hidden behind the rows it skips
        bend = 0.0 if layer[a] - layer[b] <= 1 else 0.35
        ax.annotate("", xy=(x[b], -layer[b]), xytext=(x[a], -layer[a]),
                    arrowprops=dict(arrowstyle="->", color="0.4", lw=0.8, shrinkA=14, shrinkB=14,
                                    connectionstyle=f"arc3,rad={bend}"))
    for n in layer:
        ax.text(x[n], -layer[n], label[n], ha="center", va="center", fontsize=7, family="monospace",
                bbox=dict(boxstyle="round,pad=0.3", fc=fill[n].replace("darkolivegreen1", "#caff70"), ec="0.3"))
    ax.set_xlim(-width / 2 - 0.2, width / 2 + 0.2)
    ax.set_ylim(-max(rows) - 0.6, 0.6)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


_GRAPH_ATTR = {"rankdir": "BT", "size": "12,12"}
_NODE_ATTR = {"style": "filled", "shape": "box", "align": "left", "fontsize": "10", "ranksep": "0.1", "height": "0.2",
              "fontname": "monospace"}


def to_dot(output: Any, params: dict | None = None, show_saved: bool = False) -> str:
    """The graph behind ``output`` as DOT source (no graphviz package needed).

    Args:
        output: a Tensor or a sequence of Tensors.
        params: ``{name: tensor}`` used to label leaves (e.g. ``dict(model.named_parameters())``).
        show_saved: list each node's saved tensors (shape, dtype, bytes, version).
    Returns:
        the DOT text (``digraph { ... }``).

    Raises:
        TypeError: ``output`` that is not a Tensor or a sequence of Tensors (naming the type).
        AttributeError: ``params`` that is not a dict.

    Example:
        >>> import dyngrad
        >>> from dyngrad.viz import to_dot
        >>> w = dyngrad.ones(2, requires_grad=True)
        >>> dot = to_dot((w * 3).sum(), params={"w": w})
        >>> dot.startswith("digraph"), "MulBackward0" in dot, 'label="w' in dot
        (True, True, True)
    """
    attrs = " ".join(f'{k}="{v}"' for k, v in _NODE_ATTR.items())
    head = ["digraph {", "\tgraph [" + " ".join(f'{k}="{v}"' for k, v in _GRAPH_ATTR.items()) + "]",
            f"\tnode [{attrs}]"]
    return "\n".join(head + _lines(output, params, show_saved) + ["}"]) + "\n"


def make_dot(output: Any, params: dict | None = None, show_saved: bool = False) -> Any:
    """The graph behind ``output`` as a ``graphviz.Digraph`` (``.source`` works without the
    ``dot`` program; ``.render(...)`` needs it).

    Args:
        output, params, show_saved: as in :func:`to_dot`.
    Returns:
        graphviz.Digraph.
    Raises:
        ImportError: when the graphviz package is missing (``pip install dyngrad[viz]``).

    Example:
        >>> import dyngrad
        >>> from dyngrad.viz import make_dot
        >>> w = dyngrad.ones(2, requires_grad=True)
        >>> g = make_dot((w * 3).sum(), params={"w": w})     # doctest: +SKIP
        >>> g.render("graph", format="svg")                  # doctest: +SKIP
    """
    try:
        import graphviz
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "make_dot needs the graphviz Python package: pip install dyngrad[viz] (or use "
            "dyngrad.viz.to_dot, which returns the DOT source without it)"
        ) from None
    dot = graphviz.Digraph(node_attr=_NODE_ATTR, graph_attr=_GRAPH_ATTR)
    dot.body.extend(line + "\n" for line in _lines(output, params, show_saved))
    return dot
