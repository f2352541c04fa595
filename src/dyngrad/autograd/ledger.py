"""The saved-tensor ledger: what a graph holds for backward, per node and per op type.

``saved_tensor_report(output)`` walks the graph behind ``output`` (iteratively) and counts
the bytes of every tensor saved for backward, plus tensors kept as ctx attributes. Views
and tensors sharing memory are counted once: each array is reduced to its base buffer and
each buffer is charged to the first node (in walk order) that holds it. Exposed as
``dyngrad.autograd.graph.saved_tensor_report``.

Also here: ``grad_fn._saved_<name>`` access (see :func:`saved_attr`).

The ledger knows nodes and tensors only by their attributes (a node has ``next_functions``,
a tensor a ``grad_fn`` and an array ``._data``) and imports nothing from dyngrad, so it sits
below ``autograd.graph``, which re-exports it (the layers in docs/architecture.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["saved_tensor_report", "SavedTensorReport", "saved_attr", "iter_graph"]


def iter_graph(roots: Any) -> list:
    """Every node reachable from ``roots`` (nodes, tensors, or a sequence of them), in
    depth-first pre-order, each once; no recursion."""
    if not isinstance(roots, (list, tuple)):
        roots = [roots]
    stack = []
    for r in roots:
        n = r if hasattr(r, "next_functions") else r.grad_fn  # a node, or a tensor's node
        if n is not None:
            stack.append(n)
    stack.reverse()
    seen: set = set()
    order = []
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        order.append(n)
        for child, _ in reversed(n.next_functions):
            if child is not None and id(child) not in seen:
                stack.append(child)
    return order


def _base(arr: np.ndarray) -> np.ndarray:
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _array_of(obj: Any) -> np.ndarray | None:
    """The array inside what a pack hook returned: an ndarray, a Tensor, or the first of
    those in a tuple/list (None when opaque, e.g. a file name)."""
    if isinstance(obj, np.ndarray):
        return obj
    d = getattr(obj, "_data", None)
    if isinstance(d, np.ndarray):
        return d
    if isinstance(obj, (tuple, list)):
        for item in obj:
            a = _array_of(item) if not isinstance(item, (tuple, list)) else None
            if a is not None:
                return a
    return None


def _is_tensor(v: Any) -> bool:
    """A tensor (its array in ``._data``; a plain ndarray is not counted as one)."""
    return not isinstance(v, np.ndarray) and isinstance(getattr(v, "_data", None), np.ndarray) and hasattr(v, "grad_fn")


def _entries(node: Any) -> list[tuple[str, Any, Any]]:
    """``(label, array or None, SavedTensor or None)`` for what ``node`` holds."""
    out = []
    saved = node.__dict__.get("_saved")
    for k, s in enumerate(saved or ()):
        if s is None:
            continue
        if s.tensor is not None:
            out.append((f"saved[{k}]", s.tensor._data, s))
        else:  # packed by saved_tensors_hooks: count it if it is (or holds) an array
            out.append((f"saved[{k}] (packed)", _array_of(s.packed), s))
    if type(node).__name__ == "AccumulateGrad":
        return out  # it refers to its leaf; nothing is saved
    for name, v in node.__dict__.items():
        if name != "_metadata" and _is_tensor(v):
            out.append((f"ctx.{name}", v._data, None))
    return out


class SavedTensorReport:
    """Result of :func:`saved_tensor_report`.

    Attributes:
        total_bytes (int): bytes of distinct buffers held for backward.
        nodes (list[dict]): per node, ``{"node", "name", "bytes", "entries"}`` where each
            entry is ``{"what", "shape", "dtype", "bytes", "shared", "version"}`` (``shared``:
            the buffer was already charged to an earlier node or entry).
        by_op (dict[str, dict]): per node type, ``{"nodes": count, "bytes": total}``.
        freed_nodes (int): nodes whose saved tensors were already freed by a backward.
    """

    def __init__(self) -> None:
        self.total_bytes = 0
        self.nodes: list[dict] = []
        self.by_op: dict[str, dict] = {}
        self.freed_nodes = 0

    def __str__(self) -> str:
        lines = ["Saved tensors by op type:", f"  {'op':<28} {'nodes':>6} {'bytes':>12}"]
        for name, d in sorted(self.by_op.items(), key=lambda kv: -kv[1]["bytes"]):
            lines.append(f"  {name:<28} {d['nodes']:>6} {d['bytes']:>12,}")
        lines.append("Per node:")
        for n in self.nodes:
            if not n["entries"]:
                continue
            lines.append(f"  {n['name']} ({n['bytes']:,} bytes)")
            for e in n["entries"]:
                shared = " shared, counted once" if e["shared"] else ""
                ver = "" if e["version"] is None else f" v{e['version']}"
                lines.append(f"    {e['what']:<20} {str(e['shape']):<16} {e['dtype']:<8} {e['bytes']:>10,} B{ver}{shared}")
        if self.freed_nodes:
            lines.append(f"({self.freed_nodes} node(s) already freed by backward)")
        lines.append(f"Total: {self.total_bytes:,} bytes")
        return "\n".join(lines)

    __repr__ = __str__


def saved_tensor_report(output: Any) -> SavedTensorReport:
    """Bytes held for backward by the graph behind ``output``, per node and per op type.

    Args:
        output: a Tensor (or node, or a sequence of them) whose graph to inspect.
    Returns:
        a :class:`SavedTensorReport`; ``print()`` it for a table, or read ``total_bytes``,
        ``by_op`` and ``nodes``.
    Example:
        >>> y = (x @ w).tanh()
        >>> saved_tensor_report(y).total_bytes   # x, w and tanh's output
    """
    rep = SavedTensorReport()
    charged: set = set()
    for node in iter_graph(output):
        if node.__dict__.get("_freed"):
            rep.freed_nodes += 1
        entries: list[dict[str, Any]] = []
        node_bytes = 0
        for what, arr, s in _entries(node):
            if arr is None:
                entries.append({"what": what, "shape": None, "dtype": "?", "bytes": 0, "shared": False, "version": None})
                continue
            base = _base(arr)
            shared = id(base) in charged
            nbytes = 0 if shared else base.nbytes
            charged.add(id(base))
            node_bytes += nbytes
            ver = s.version if s is not None and s.version >= 0 else None
            entries.append({"what": what, "shape": tuple(arr.shape), "dtype": arr.dtype.name, "bytes": nbytes,
                            "shared": shared, "version": ver})
        name = node.name()
        rep.nodes.append({"node": node, "name": name, "bytes": node_bytes, "entries": entries})
        d = rep.by_op.setdefault(name, {"nodes": 0, "bytes": 0})
        d["nodes"] += 1
        d["bytes"] += node_bytes
        rep.total_bytes += node_bytes
    return rep


#: PyTorch's names for an op's second argument, read as ``grad_fn._saved_<name>``
_SECOND_ARG = frozenset({"other", "exponent", "mat2", "vec", "vec2"})


def saved_attr(node: Any, name: str, raw: bool = False) -> Any:
    """``node._saved_<name>``: a saved tensor by the forward parameter it came from
    (``_saved_x``; ``_saved_self`` is the first parameter and ``_saved_other`` the second,
    PyTorch's names for binary ops), ``_saved_result`` (an output), ``_saved_tensors`` (all,
    in order), or a non-tensor value stored on ctx (``_saved_beta`` is ``ctx.beta``). A
    tensor parameter whose slot of ``save_for_backward`` holds None (not needed for the
    gradients asked) is None, as PyTorch's undefined saved tensor. With ``raw``
    (``node._raw_saved_<name>``), the :class:`~dyngrad.autograd.graph.SavedTensor` itself.

    Raises:
        AttributeError: when no saved value has that name.
    """
    cls = type(node).__name__
    if name == "tensors" and not raw:
        return node.saved_tensors
    saved = node.__dict__.get("_saved") or ()
    params: tuple = getattr(node, "_arg_names", ())
    if name == "self" and params:
        name = params[0]
    elif name in _SECOND_ARG and len(params) >= 2 and name not in params:
        name = params[1]  # PyTorch's name of the second argument (mul's other, pow's exponent, mm's mat2)
    if not raw and name in params and node.__dict__.get(f"{name}_scalar") is not None:
        return node.__dict__[f"{name}_scalar"]  # a Python number argument (pow's exponent: 2)
    want_output = name == "result"
    if name in params or want_output:
        if node.__dict__.get("_freed"):
            node.saved_tensors  # noqa: B018 - raises PyTorch's "backward through the graph a second time"
        i = params.index(name) if not want_output else -1
        edge = node.next_functions[i] if 0 <= i < len(node.next_functions) else None
        values = node.saved_tensors if saved else ()
        for s, v in zip(saved, values):
            if s is None or v is None:
                continue
            if want_output and s.is_output:
                return s if raw else v
            if not want_output and not s.is_output and edge is not None and edge[0] is not None:
                t = s.tensor
                if t is None:  # packed by a saved-tensors hook: the tensor it was packed from
                    origin = getattr(s, "origin", None)
                    t = origin() if origin is not None else None
                    t = v if t is None else t
                key = (t.grad_fn, t._output_nr) if t.grad_fn is not None else (
                    t._acc() if t._acc is not None else None, 0)
                if key[0] is edge[0] and key[1] == edge[1]:
                    return s if raw else v
        if not want_output and len(saved) == len(params) and saved[i] is None and name not in node.__dict__:
            return None  # the slot of this parameter was saved as None
    if not raw and name in node.__dict__ and not name.startswith("_"):
        return node.__dict__[name]
    raise AttributeError(
        f"'{cls}' object has no attribute '_saved_{name}' (saved values are matched to forward "
        f"parameters {list(params)} by their graph edge; use grad_fn._saved_tensors for all)"
    )
