"""``dyngrad.save`` / ``dyngrad.load``: tensors and nested containers (module and optimizer
state dicts) in a format that cannot run code.

Format: safetensors (https://github.com/huggingface/safetensors) when the ``safetensors``
package is importable, else a NumPy ``.npz`` archive. Either way the arrays are stored as
raw typed buffers under their real dotted names (the path of dict keys and list indices
leading to them: ``layers.0.weight`` for a module's state dict, ``relu.layers.0.weight``
for a dict of state dicts, ``state.0.momentum_buffer`` for an optimizer's), so any
safetensors or NumPy reader sees meaningful names; the nesting (dicts, lists, tuples,
Python scalars, strings, None, which tensors require grad, and which array each tensor
is) as a JSON document: in the safetensors header's ``__metadata__['dyngrad']``, or in the
npz member ``__dyngrad__``. Two paths that spell the same name (``{"a.b": x, "a": {"b":
y}}``) get ``#1``, ``#2`` suffixes; a lone Tensor is stored as ``tensor``. Files written by
older versions (array keys ``t0``, ``t1``, ...) load unchanged: the metadata names each
tensor's array, whatever the key. As with ``torch.save``, sharing survives a round trip:
an object stored twice (``{"a": t, "b": t}``) loads as one object, and tensors sharing
memory (a view and its base, ``p`` and ``p.data``) are stored as one array (named after
the tensor that covers it all, else ``<first name>.storage``) plus each one's offset and
strides, and load sharing memory again. Loading parses JSON and
raw buffers only; it never unpickles (``numpy.load(allow_pickle=False)``), so a crafted file
cannot execute code. Saving writes a temporary file in the destination's folder and
``os.replace``-s it into place, so a crash never leaves a half-written file where a good
one was.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _backend as B
from .tensor import Tensor

if TYPE_CHECKING:
    import zipfile

# json, tempfile, zipfile and the PyTorch-checkpoint reader are imported where used (on
# save/load), not by ``import dyngrad`` (import time, benchmarks/RESULTS.md)

__all__ = ["save", "load"]

_FORMAT = "dyngrad-1"
_ST_DTYPES = {
    "F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
    "I16": np.int16, "I8": np.int8, "U8": np.uint8, "U16": np.uint16, "U32": np.uint32,
    "U64": np.uint64, "BOOL": np.bool_, "C64": np.complex64, "C128": np.complex128,
}


def _have_safetensors() -> bool:
    try:
        import safetensors.numpy  # noqa: F401
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------- encoding
# array names that cannot be used as is: safetensors' header entry, the npz metadata
# member, and the parameter names of ``numpy.savez``
_RESERVED = frozenset({"__metadata__", "__dyngrad__", "file", "allow_pickle"})


def _array_key(path: tuple[str, ...], arrays: dict[str, np.ndarray]) -> str:
    """The dotted name of the tensor at ``path`` (``"tensor"`` for the root), made unique."""
    base = ".".join(path) or "tensor"
    key, n = base, 0
    while key in arrays or key in _RESERVED:
        n += 1
        key = f"{base}#{n}"
    return key


_PARAM_MODULE = "dyngrad.nn.parameter"


def parameter_class() -> type:
    """``dyngrad.nn.Parameter`` (imported when a file holds one: nn imports this module)."""
    from .nn.parameter import Parameter

    return Parameter


def _root(arr: np.ndarray) -> np.ndarray:
    """The ndarray that owns ``arr``'s memory (the end of its chain of ``.base`` arrays)."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _leaves(obj: Any) -> Iterator[tuple[Any, tuple[str, ...]]]:
    """Every Tensor in ``obj`` (through dicts, lists and tuples) with its path."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(obj, ())]
    while stack:
        o, path = stack.pop()
        if isinstance(o, Tensor):
            yield o, path
        elif isinstance(o, dict):
            stack.extend((v, (*path, str(k))) for k, v in o.items())
        elif isinstance(o, (list, tuple)):
            stack.extend((v, (*path, str(i))) for i, v in enumerate(o))


class _Shared:
    """A block of memory that several saved tensors view: stored once, as the contiguous
    array ``flat`` (the elements from the lowest to the highest any of them reaches; with
    the shape of the tensor that covers it all, if one does, e.g. the base of the views);
    each tensor is recorded by its element offset into ``flat`` and its element strides."""

    def __init__(self, root: np.ndarray, members: list[tuple[Tensor, tuple[str, ...]]]) -> None:
        it = root.itemsize
        start = root.__array_interface__["data"][0]
        spans = []
        for t, _ in members:
            lo, hi = np.lib.array_utils.byte_bounds(t._data) if hasattr(np.lib, "array_utils") \
                else np.byte_bounds(t._data)  # type: ignore[attr-defined]
            spans.append((lo - start, hi - start))
        lo = min(a for a, _ in spans)
        hi = max(b for _, b in spans)
        self.flat = root.ravel(order="K")[lo // it : hi // it]  # (a view: root is contiguous)
        self.base_addr = start + lo
        # the member covering the whole block names the stored array (the base of views)
        whole = [(t, p) for (t, p), (a, b) in zip(members, spans) if (a, b) == (lo, hi) and t._data.flags.c_contiguous]
        self.path = whole[0][1] if whole else (*members[0][1], "storage")
        if whole:  # stored with that tensor's shape, so other readers see it as it is
            self.flat = whole[0][0]._data
        self.key: str | None = None

    def view_of(self, arr: np.ndarray) -> list[Any]:
        it = arr.itemsize
        off = (arr.__array_interface__["data"][0] - self.base_addr) // it
        return [int(off), [int(st) // it for st in arr.strides]]


def _shareable(arr: np.ndarray) -> bool:
    """Can ``arr`` be stored as a view of its owner's memory (same dtype, owner contiguous,
    whole-element strides, no broadcast (zero-stride) dims, writeable)?"""
    root = _root(arr)
    if arr.dtype != root.dtype or B.kind(arr) not in "biufc" or not arr.flags.writeable:
        return False
    if not (root.flags.c_contiguous or root.flags.f_contiguous) or arr.size == 0:
        return False
    return all(st % arr.itemsize == 0 and (st != 0 or n == 1) for st, n in zip(arr.strides, arr.shape))


def _sharing(obj: Any) -> dict[int, _Shared]:
    """``id(tensor) -> _Shared`` for the distinct tensors of ``obj`` that share memory with
    another one (a view and its base, two views of one tensor, ``p`` and ``p.data``):
    ``torch.save`` keeps that sharing, so ``save``/``load`` does too."""
    paths: dict[int, tuple[Tensor, tuple[str, ...]]] = {}
    for t, path in _leaves(obj):  # (an object met twice: named by its first path in order)
        if id(t) not in paths or path < paths[id(t)][1]:
            paths[id(t)] = (t, path)
    groups: dict[int, list[tuple[Tensor, tuple[str, ...]]]] = {}
    for t, path in paths.values():
        arr = t._data
        if isinstance(arr, np.ndarray) and _shareable(arr):
            groups.setdefault(id(_root(arr)), []).append((t, path))
    out: dict[int, _Shared] = {}
    for members in groups.values():
        if len(members) > 1:
            members.sort(key=lambda m: m[1])  # (paths: the stored name does not depend on order)
            sh = _Shared(_root(members[0][0]._data), members)
            for t, _ in members:
                out[id(t)] = sh
    return out


def _encode(obj: Any, arrays: dict[str, np.ndarray]) -> Any:
    """The JSON tree of ``obj``; arrays are moved into ``arrays`` under their dotted paths
    (see :func:`_array_key`)."""
    root: list[Any] = [None]
    stack: list[tuple[Any, list, int, str, tuple[str, ...]]] = [(obj, root, 0, "obj", ())]
    shared = _sharing(obj)
    first: dict[int, dict] = {}  # id(object) -> its node, for an object stored twice
    while stack:
        o, parent, slot, where, path = stack.pop()
        if isinstance(o, (Tensor, np.ndarray)) and id(o) in first:
            # the same object again: one array, and the loaded file gives one object again
            # (as torch.load does: ``d["a"] is d["b"]``)
            node = first[id(o)]
            if "o" not in node:
                node["o"] = len(first)
            parent[slot] = node
            continue
        if isinstance(o, (Tensor, np.ndarray)):
            arr = o._data if isinstance(o, Tensor) else o
            if type(arr) is not np.ndarray:  # a GPU (CuPy) or Dask tensor is saved from the host (docs/backends.md)
                arr = B.to_host(arr)
            if B.kind(arr) not in "biufc":
                raise TypeError(f"dyngrad.save: {where} is an array of dtype {arr.dtype}, which cannot be stored")
            sh = shared.get(id(o))
            if sh is not None:  # shares memory with another saved tensor: a view of one block
                if sh.key is None:
                    sh.key = _array_key(sh.path, arrays)
                    arrays[sh.key] = sh.flat
                node = {"T": "tensor", "k": sh.key, "s": list(arr.shape), "v": sh.view_of(arr)}
            else:
                key = _array_key(path, arrays)
                arrays[key] = arr if arr.flags.c_contiguous else arr.copy(order="C")
                node = {"T": "tensor" if isinstance(o, Tensor) else "ndarray", "k": key, "s": list(arr.shape)}
            first[id(o)] = node
            if isinstance(o, Tensor) and o.requires_grad:
                node["rg"] = True
            if isinstance(o, Tensor) and type(o).__name__ == "Parameter" and type(o).__module__ == _PARAM_MODULE:
                node["P"] = True  # loads as a Parameter, as torch.load does
        elif o is None or isinstance(o, (bool, str)):
            node = o
        elif isinstance(o, (int, np.integer)):
            node = int(o)
        elif isinstance(o, (float, np.floating)):
            f = float(o)
            node = f if np.isfinite(f) else {"T": "float", "v": repr(f)}
        elif isinstance(o, dict):
            items: list[Any] = []
            node = {"T": "dict", "items": items}
            for k, v in o.items():
                if isinstance(k, bool) or not isinstance(k, (str, int, np.integer)):
                    raise TypeError(f"dyngrad.save: {where} has a key {k!r} of type {type(k).__name__}; "
                                    "only str and int keys can be stored")
                items.append([k if isinstance(k, str) else {"int": int(k)}, None])
                stack.append((v, items[-1], 1, f"{where}[{k!r}]", (*path, str(k))))
        elif isinstance(o, (list, tuple)):
            seq: list[Any] = [None] * len(o)
            node = {"T": "tuple" if isinstance(o, tuple) else "list", "items": seq}
            for i, v in enumerate(o):
                stack.append((v, seq, i, f"{where}[{i}]", (*path, str(i))))
        else:
            raise TypeError(
                f"dyngrad.save: {where} is a {type(o).__name__}; only Tensors, ndarrays, dicts, lists, "
                "tuples, numbers, strings and None can be stored (no pickling, by design)"
            )
        parent[slot] = node
    return root[0]


def _decode(tree: Any, arrays: dict[str, np.ndarray], name: str) -> Any:
    """Inverse of :func:`_encode`; any unexpected node is a RuntimeError naming ``name``."""

    def bad(msg: str) -> RuntimeError:
        return RuntimeError(f"dyngrad.load: {name} is not a valid dyngrad file: {msg}")

    root: list[Any] = [None]
    stack: list[tuple[Any, list, int]] = [(tree, root, 0)]
    same: dict[Any, Any] = {}  # node "o" -> the object decoded for it
    while stack:
        n, parent, slot = stack.pop()
        if n is None or isinstance(n, (bool, int, float, str)):
            out: Any = n
        elif isinstance(n, dict) and n.get("T") in ("tensor", "ndarray") and n.get("o") in same:
            out = same[n["o"]]
        elif isinstance(n, dict) and n.get("T") == "tensor" and "v" in n:
            out = _shared_view(n, arrays, bad)
            if "o" in n:
                same[n["o"]] = out
        elif isinstance(n, dict) and n.get("T") in ("tensor", "ndarray"):
            arr = arrays.get(n.get("k"))  # type: ignore[arg-type]
            if arr is None:
                raise bad(f"the structure refers to a missing array {n.get('k')!r}")
            shape = n.get("s")
            if isinstance(shape, list) and tuple(shape) != arr.shape:
                if int(np.prod(shape, dtype=np.int64)) != arr.size:
                    raise bad(f"array {n.get('k')!r} has {arr.size} elements, its recorded shape is {shape}")
                arr = arr.reshape(shape)  # safetensors stores 0-d arrays as shape [1]
            if not arr.flags.writeable:
                arr = arr.copy()
            if n["T"] == "ndarray":
                out = arr
            else:
                out = (parameter_class() if n.get("P") else Tensor)._make(arr)
                if n.get("rg"):
                    out.requires_grad_(True)
            if "o" in n:
                same[n["o"]] = out
        elif isinstance(n, dict) and n.get("T") == "float" and n.get("v") in ("inf", "-inf", "nan"):
            out = float(n["v"])
        elif isinstance(n, dict) and n.get("T") == "dict" and isinstance(n.get("items"), list):
            out = {}
            pending = []
            for it in n["items"]:
                if not (isinstance(it, list) and len(it) == 2):
                    raise bad("a malformed dict entry")
                k = it[0]
                if isinstance(k, dict) and isinstance(k.get("int"), int):
                    k = k["int"]
                elif not isinstance(k, str):
                    raise bad(f"a dict key {k!r}")
                out[k] = None
                pending.append((it[1], k))
            for v, k in pending:
                stack.append((v, _DictSlot(out), k))  # type: ignore[arg-type]
        elif isinstance(n, dict) and n.get("T") in ("list", "tuple") and isinstance(n.get("items"), list):
            out = (_TupleLater if n["T"] == "tuple" else list)([None] * len(n["items"]))
            for i, v in enumerate(n["items"]):
                stack.append((v, out, i))
        else:
            raise bad(f"an unknown node {str(n)[:60]!r}")
        parent[slot] = out
    return _finish_tuples(root[0])


def _shared_view(n: dict, arrays: dict[str, np.ndarray], bad: Callable[[str], RuntimeError]) -> Tensor:
    """The tensor of node ``n``: a view (element offset and strides ``n["v"]``) of the 1-D
    block ``arrays[n["k"]]``, shared with the other tensors viewing it."""
    flat = arrays.get(n.get("k"))  # type: ignore[arg-type]
    if flat is None:
        raise bad(f"the structure refers to a missing array {n.get('k')!r}")
    v, shape = n.get("v"), n.get("s")
    try:
        off, strides = int(v[0]), [int(st) for st in v[1]]  # type: ignore[index]
        shape = [int(d) for d in shape]  # type: ignore[union-attr]
    except (TypeError, ValueError, IndexError):
        raise bad(f"a malformed view {str(v)[:60]!r} of array {n.get('k')!r}") from None
    if not flat.flags.writeable:  # (once per block: every view shares the copy)
        flat = arrays[n["k"]] = flat.copy()
    flat = flat.reshape(-1)  # (a view: stored arrays are contiguous)
    if len(strides) != len(shape) or off < 0 or min(shape, default=1) < 1:
        raise bad(f"a malformed view {str(v)[:60]!r} of array {n.get('k')!r}")
    lo = off + sum((d - 1) * st for d, st in zip(shape, strides) if st < 0)
    hi = off + sum((d - 1) * st for d, st in zip(shape, strides) if st > 0)
    if lo < 0 or hi >= flat.size:
        raise bad(f"a view of array {n.get('k')!r} reaches outside its {flat.size} elements")
    it = flat.itemsize
    arr = np.ndarray(tuple(shape), flat.dtype, buffer=flat, offset=off * it, strides=tuple(st * it for st in strides))
    out = (parameter_class() if n.get("P") else Tensor)._make(arr)
    if n.get("rg"):
        out.requires_grad_(True)
    return out


class _DictSlot:
    """Lets the decoder write ``parent[slot] = value`` into a dict entry."""

    def __init__(self, d: dict) -> None:
        self.d = d

    def __setitem__(self, k: Any, v: Any) -> None:
        self.d[k] = v


class _TupleLater(list):
    """A list that becomes a tuple once its items are decoded."""


def _finish_tuples(obj: Any) -> Any:
    """Replace every _TupleLater by a tuple (iteratively, children before parents)."""
    order: list[Any] = []
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, (list, dict)):
            order.append(o)
            stack.extend(o.values() if isinstance(o, dict) else o)
    for o in reversed(order):
        it = o.items() if isinstance(o, dict) else enumerate(o)
        for k, v in list(it):
            if isinstance(v, _TupleLater):
                o[k] = tuple(v)
    return tuple(obj) if isinstance(obj, _TupleLater) else obj


# ---------------------------------------------------------------------- save
def _to_bytes(obj: Any) -> bytes:
    import json
    arrays: dict[str, np.ndarray] = {}
    tree = _encode(obj, arrays)
    doc = json.dumps({"format": _FORMAT, "tree": tree})
    if _have_safetensors():
        import safetensors.numpy

        return safetensors.numpy.save(arrays, metadata={"dyngrad": doc})
    buf = io.BytesIO()
    np.savez(buf, __dyngrad__=np.frombuffer(doc.encode(), dtype=np.uint8), **arrays)
    return buf.getvalue()


def save(obj: Any, f: Any, *args: Any, **kwargs: Any) -> None:
    """Save ``obj`` (a Tensor, or dicts/lists/tuples nesting Tensors, ndarrays, numbers,
    strings and None: e.g. ``model.state_dict()`` or ``optimizer.state_dict()``) to ``f``.

    Args:
        obj: what to save.
        f: a path (str or os.PathLike) or a binary file object with ``write``.
    Raises:
        TypeError: ``obj`` contains something else (a Module, a function, ...); the message
            names where (e.g. ``obj['layer']``). Nothing is pickled, by design.
        OSError: the destination cannot be written (the old file, if any, is untouched).
    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
        >>> dyngrad.save({"w": dyngrad.ones(3)}, path)
        >>> dyngrad.load(path)["w"]
        tensor([1., 1., 1.])
    """
    import tempfile
    data = _to_bytes(obj)
    if hasattr(f, "write"):
        f.write(data)
        return
    path = os.fspath(f)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 -> what open() would give, as torch.save
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------- load
def _read_safetensors(raw: bytes, name: str) -> tuple[Any, dict[str, np.ndarray]]:
    import json

    def bad(msg: str) -> RuntimeError:
        return RuntimeError(f"dyngrad.load: {name} is not a valid safetensors file ({msg}); truncated or corrupt?")

    if len(raw) < 8:
        raise bad(f"only {len(raw)} bytes")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8:
        raise bad(f"the header claims {n} bytes but the file has {len(raw) - 8} after the size field")
    try:
        header = json.loads(raw[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise bad(f"unreadable header: {e}") from None
    if not isinstance(header, dict):
        raise bad("the header is not a JSON object")
    body = memoryview(raw)[8 + n :]
    meta = header.pop("__metadata__", None) or {}
    arrays: dict[str, np.ndarray] = {}
    for key, info in header.items():
        try:
            dt = np.dtype(_ST_DTYPES[info["dtype"]])
            shape = tuple(int(s) for s in info["shape"])
            start, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise bad(f"tensor {key!r} has an unsupported or malformed entry {str(info)[:80]}") from None
        count = int(np.prod(shape, dtype=np.int64))
        if not (0 <= start <= end <= len(body)) or end - start != count * dt.itemsize:
            raise bad(f"tensor {key!r} lies outside the data ({start}..{end} of {len(body)} bytes)")
        arrays[key] = np.frombuffer(body[start:end], dtype=dt).reshape(shape).copy()
    doc = meta.get("dyngrad") if isinstance(meta, dict) else None
    if doc is None:  # a plain safetensors file (e.g. from another library): a flat dict
        return None, arrays
    try:
        parsed = json.loads(doc)
    except json.JSONDecodeError as e:
        raise bad(f"unreadable dyngrad metadata: {e}") from None
    return parsed, arrays


def _read_npz(raw: bytes, name: str) -> tuple[Any, dict[str, np.ndarray]]:
    import json
    import zipfile
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            others = [m for m in zf.namelist() if not m.endswith(".npy")]
        if others:
            pk = any(m.endswith(".pkl") for m in others)
            raise RuntimeError(
                f"dyngrad.load: {name} is a zip archive with members that are not NumPy arrays "
                f"({', '.join(others[:3])})"
                + ("; it holds a pickle (a torch.save checkpoint?), which dyngrad refuses to load because "
                   "unpickling can execute arbitrary code" if pk else "")
            )
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except ValueError as e:
        if "pickle" in str(e).lower() or "object" in str(e).lower():
            raise RuntimeError(
                f"dyngrad.load: {name} contains pickled Python objects; dyngrad refuses to load them "
                "because unpickling can execute arbitrary code"
            ) from None
        raise RuntimeError(f"dyngrad.load: {name} is not a valid .npz file ({e}); truncated or corrupt?") from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as e:
        raise RuntimeError(f"dyngrad.load: {name} is not a valid .npz file ({e}); truncated or corrupt?") from None
    doc = arrays.pop("__dyngrad__", None)
    if doc is None:
        return None, arrays
    try:
        return json.loads(doc.tobytes().decode("utf-8")), arrays
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RuntimeError(f"dyngrad.load: {name} has unreadable dyngrad metadata ({e})") from None


def _torch_zip(raw: bytes) -> zipfile.ZipFile | None:
    import zipfile

    from ._torch_format import is_torch_zip

    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, EOFError):
        return None
    if is_torch_zip(zf):
        return zf
    zf.close()
    return None


def load(f: Any, map_location: Any = None, *, weights_only: bool = True, **kwargs: Any) -> Any:
    """Load what :func:`save` wrote, a checkpoint ``torch.save`` wrote (zip format), or a
    plain safetensors / npz file (as a flat dict of Tensors). Never executes code from the
    file.

    A ``torch.save`` checkpoint is read with a restricted unpickler (``_torch_format.py``):
    tensors, storages and plain containers only, as ``torch.load(weights_only=True)``;
    bfloat16 tensors become float32 (exactly, with a warning). State dicts of modules and
    optimizers load; a whole pickled module (its class would have to be imported) is
    refused with an error naming the class.

    Args:
        f: a path or a binary file object with ``read``.
        map_location: accepted for compatibility; only the CPU exists.
        weights_only: accepted for compatibility; loading is always weights-only.
    Returns:
        the saved object, with Tensors (``requires_grad`` as saved) and tuples restored.
    Raises:
        FileNotFoundError: no such file.
        pickle.UnpicklingError: a torch checkpoint that refers to any other global (named).
        RuntimeError: a legacy-format pickle file (refused: unpickling can run code), an npz
            holding Python objects, or a truncated/corrupt/unknown file; the message names
            the file.

    Example:
        >>> import dyngrad, io
        >>> buf = io.BytesIO()
        >>> dyngrad.save({"w": dyngrad.ones(2)}, buf)
        >>> _ = buf.seek(0)
        >>> dyngrad.load(buf)
        {'w': tensor([1., 1.])}
    """
    from ._torch_format import load_torch_zip
    if hasattr(f, "read"):
        raw = f.read()
        name = repr(getattr(f, "name", "<file object>"))
    else:
        name = repr(os.fspath(f))
        with open(f, "rb") as fh:
            raw = fh.read()
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError(f"dyngrad.load: {name} must be opened in binary mode")
    raw = bytes(raw)
    if raw[:4] == b"PK\x03\x04" or raw[:4] == b"PK\x05\x06":
        zf = _torch_zip(raw)
        if zf is not None:  # a torch.save checkpoint: read safely (_torch_format.py)
            with zf:
                return load_torch_zip(zf, name)
        tree, arrays = _read_npz(raw, name)
    elif raw[8:9] != b"{" and (raw[:1] == b"\x80" or raw[:2] in (b"(d", b"(l", b"]q", b"}q", b"cc")):
        # (a safetensors file starts with its header's size, whose low byte may be 0x80, then "{")
        raise RuntimeError(
            f"dyngrad.load: {name} looks like a pickle file (e.g. from torch.save or pickle.dump); "
            "dyngrad refuses to unpickle because it can execute arbitrary code. Re-save the weights "
            "with dyngrad.save or safetensors."
        )
    else:
        tree, arrays = _read_safetensors(raw, name)
    if tree is None:
        return {k: Tensor._make(v) for k, v in arrays.items()}
    if not isinstance(tree, dict) or tree.get("format") != _FORMAT:
        raise RuntimeError(f"dyngrad.load: {name} has dyngrad metadata of an unknown format")
    return _decode(tree.get("tree"), arrays, name)
