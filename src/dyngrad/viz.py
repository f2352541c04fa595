"""The autograd graph as Graphviz DOT: ``make_dot`` (a ``graphviz.Digraph``, the optional
``graphviz`` package) and ``to_dot`` (the DOT source as a string, no dependency).

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

__all__ = ["make_dot", "to_dot"]

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


def _lines(outputs: Any, params: dict | None, show_saved: bool) -> list[str]:
    """Body lines (nodes and edges) of the DOT graph."""
    from .autograd.graph import AccumulateGrad
    from .tensor import Tensor

    if isinstance(outputs, Tensor) or not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    names = {id(v): k for k, v in (params or {}).items()}
    body: list[str] = []
    stack = []
    seen: set = set()
    for k, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"make_dot: expected Tensors, got {type(out).__name__}")
        oid = f"out{k}"
        label = names.get(id(out), f"output{k if len(outputs) > 1 else ''}")
        body.append(f'\t{oid} [label="{_esc(label)}\\n{_shape(out.shape, out.dtype)}" fillcolor=darkolivegreen1]')
        node = out.grad_fn
        if node is None and out.requires_grad:
            node = out._accumulator()
        if node is not None:
            body.append(f"\t{id(node)} -> {oid}")
            stack.append(node)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        nid = id(node)
        if type(node) is AccumulateGrad:
            v = node.variable
            label = names.get(id(v), "")
            text = (f"{label}\\n" if label else "") + _esc(_shape(v.shape, v.dtype))
            body.append(f'\t{nid} [label="{text}" fillcolor=lightblue]')
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
            body.append(f'\t{nid} [label="{_esc(chr(10).join(parts))}"]')
        for child, _ in node.next_functions:
            if child is None:
                continue
            body.append(f"\t{id(child)} -> {nid}")
            if id(child) not in seen:
                stack.append(child)
    return body


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
