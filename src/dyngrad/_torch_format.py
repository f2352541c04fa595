"""Reading the files ``torch.save`` writes (the zip format of PyTorch >= 1.6), safely.

A PyTorch checkpoint is a zip archive ``<name>/data.pkl`` (a pickle of the saved object)
plus one raw little-endian buffer per storage, ``<name>/data/<key>``. Unpickling can run
arbitrary code, so this reader never imports or calls anything the file names: its
unpickler's ``find_class`` answers only an allowlist (PyTorch's ``weights_only`` idea)
with dyngrad's own stand-ins, and raises ``pickle.UnpicklingError`` naming any other
global. Every object a pickle builds comes from ``find_class`` (GLOBAL, STACK_GLOBAL,
INST and the extension-registry opcodes all go through it), and storages come from
``persistent_load``, which only reads archive members.

Allowed: ``torch._utils._rebuild_tensor_v2`` / ``_rebuild_tensor`` / ``_rebuild_parameter``
/ ``_rebuild_parameter_with_state`` (tensors, rebuilt as dyngrad Tensors owning a contiguous
copy of their elements: tensors that shared a storage in the file, views or tied weights,
load as independent tensors, and strides are not kept), the typed storage classes (``torch.FloatStorage`` ...: the element type),
``collections.OrderedDict`` and ``builtins`` set / frozenset / complex. That covers state
dicts of modules and optimizers and nested containers of tensors and Python values; a
whole pickled ``nn.Module`` (its class would have to be imported) is refused.
"""

from __future__ import annotations

import collections
import io
import pickle
import warnings
import zipfile
from typing import Any

import numpy as np

from .tensor import Tensor

__all__ = ["is_torch_zip", "load_torch_zip"]

_STORAGES = {
    "FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
    "BFloat16Storage": "bfloat16", "LongStorage": np.int64, "IntStorage": np.int32,
    "ShortStorage": np.int16, "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
}
_UNSUPPORTED = {"ComplexFloatStorage": "complex64", "ComplexDoubleStorage": "complex128",
                "QInt8Storage": "qint8", "QUInt8Storage": "quint8", "QInt32Storage": "qint32"}


def _parameter(data: Tensor, requires_grad: Any) -> Tensor:
    """``torch._utils._rebuild_parameter``: a saved ``nn.Parameter`` loads as one."""
    from .serialization import parameter_class

    p = parameter_class()._make(data._data)
    p.requires_grad_(bool(requires_grad))
    return p


class _StorageType:
    """Stand-in for ``torch.<X>Storage``: only its element type is used."""

    __slots__ = ("name", "dtype")

    def __init__(self, name: str) -> None:
        self.name = name
        self.dtype = _STORAGES[name]

    def __setstate__(self, state: Any) -> None:  # a BUILD opcode aimed at the stand-in
        raise pickle.UnpicklingError("dyngrad.load: the checkpoint tries to change a storage type (BUILD); refused")

    def __reduce__(self) -> Any:  # pragma: no cover - never pickled
        raise TypeError("not picklable")


class _Storage:
    """One storage of the archive: its flat elements (bfloat16 kept as raw uint16)."""

    def __init__(self, flat: np.ndarray, bf16: bool) -> None:
        self.flat = flat
        self.bf16 = bf16
        self._native: np.ndarray | None = None

    def native(self, name: str) -> np.ndarray:
        """The storage as one writeable array in native byte order (bfloat16 as float32),
        made once: every tensor of the storage is a view of it, so tensors that shared
        a storage when saved (a view and its base, tied weights) share memory when loaded,
        as with ``torch.load``."""
        if self._native is None:
            try:
                arr = np.array(self.flat, dtype=self.flat.dtype.newbyteorder("="), copy=True)
            except MemoryError:
                raise RuntimeError(
                    f"dyngrad.load: {name}: a storage of {self.flat.size} elements needs more memory than is available"
                ) from None
            if self.bf16:  # bfloat16: the upper half of a float32
                arr = (arr.astype(np.uint32) << 16).view(np.float32)
            self._native = arr
        return self._native


class _Reader:
    """State of one load: the archive, its storages (shared by key), the notes to give."""

    def __init__(self, zf: zipfile.ZipFile, prefix: str, name: str) -> None:
        self.zf, self.prefix, self.name = zf, prefix, name
        self.storages: dict[str, _Storage] = {}
        self.bf16 = False

    def storage(self, pid: Any) -> _Storage:
        if not isinstance(pid, tuple) or len(pid) < 5 or pid[0] != "storage" or not isinstance(pid[1], _StorageType):
            raise pickle.UnpicklingError(f"dyngrad.load: {self.name} has an unknown persistent id {str(pid)[:80]!r}")
        _, st, key, _location, numel = pid[:5]
        key = str(key)
        got = self.storages.get(key)
        if got is not None:
            return got
        try:
            raw = self.zf.read(f"{self.prefix}data/{key}")
        except KeyError:
            raise RuntimeError(f"dyngrad.load: {self.name} lacks the storage data/{key}; truncated or corrupt?") from None
        bf16 = st.dtype == "bfloat16"
        dt = np.dtype("<u2") if bf16 else np.dtype(st.dtype).newbyteorder("<")
        if len(raw) < int(numel) * dt.itemsize:
            raise RuntimeError(
                f"dyngrad.load: {self.name}: storage data/{key} has {len(raw)} bytes, fewer than its "
                f"{numel} elements need; truncated or corrupt?"
            )
        flat = np.frombuffer(raw, dtype=dt, count=int(numel))
        self.bf16 |= bf16
        got = self.storages[key] = _Storage(flat, bf16)
        return got

    def rebuild(self, storage: Any, offset: int, size: Any, stride: Any, requires_grad: bool = False) -> Tensor:
        if not isinstance(storage, _Storage):
            raise pickle.UnpicklingError(f"dyngrad.load: {self.name}: a tensor without a storage")
        size, stride, offset = tuple(int(v) for v in size), tuple(int(v) for v in stride), int(offset)
        flat = storage.flat
        if all(n > 0 for n in size):  # (a 0-d tensor too: one element at offset)
            last = offset + sum((n - 1) * s for n, s in zip(size, stride))
            if offset < 0 or last >= flat.size or min(stride, default=0) < 0:
                raise RuntimeError(
                    f"dyngrad.load: {self.name}: a tensor of size {list(size)} and stride {list(stride)} "
                    f"at offset {offset} reaches outside its storage of {flat.size} elements; corrupt?"
                )
            it = flat.itemsize
            if any(s == 0 and n > 1 for n, s in zip(size, stride)):
                # an expanded tensor (stride 0): copy its distinct elements only and broadcast
                # them back, read-only as dyngrad's expand() (a 1-element storage expanded to
                # 10^9 elements costs one element, as in PyTorch)
                small = tuple(1 if s == 0 else n for n, s in zip(size, stride))
                sub = np.lib.stride_tricks.as_strided(flat[offset:], shape=small, strides=[s * it for s in stride])
                sub = np.array(sub, dtype=sub.dtype.newbyteorder("="), copy=True)
                if storage.bf16:
                    sub = (sub.astype(np.uint32) << 16).view(np.float32)
                t = Tensor._make(np.broadcast_to(sub, size))
                if requires_grad:
                    t.requires_grad_(True)
                return t
            nat = storage.native(self.name)
            it = nat.itemsize
            arr = np.ndarray(size, nat.dtype, buffer=nat, offset=offset * it, strides=tuple(s * it for s in stride))
        else:
            arr = np.zeros(size, dtype=np.float32 if storage.bf16 else flat.dtype.newbyteorder("="))
        t = Tensor._make(arr)
        if requires_grad:
            t.requires_grad_(True)
        return t


class _Unpickler(pickle.Unpickler):
    def __init__(self, data: bytes, reader: _Reader) -> None:
        super().__init__(io.BytesIO(data))
        self.reader = reader

    def find_class(self, module: str, name: str) -> Any:
        r = self.reader
        if module == "torch._utils":
            if name == "_rebuild_tensor_v2":
                return lambda storage, offset, size, stride, requires_grad, hooks, metadata=None: r.rebuild(
                    storage, offset, size, stride, requires_grad)
            if name == "_rebuild_tensor":
                return lambda storage, offset, size, stride: r.rebuild(storage, offset, size, stride)
            if name in ("_rebuild_parameter", "_rebuild_parameter_with_state"):
                return lambda data, requires_grad, hooks, state=None: _parameter(data, requires_grad)
        if module == "torch" and name in _STORAGES:
            return _StorageType(name)
        if module == "torch" and name in _UNSUPPORTED:
            raise RuntimeError(
                f"dyngrad.load: {r.name} holds {_UNSUPPORTED[name]} tensors, a dtype dyngrad does not have "
                "(no complex or quantized dtypes); convert them in PyTorch before saving"
            )
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if module == "builtins" and name in ("set", "frozenset", "complex"):
            return {"set": set, "frozenset": frozenset, "complex": complex}[name]
        raise pickle.UnpicklingError(
            f"dyngrad.load: {r.name} refers to the global '{module}.{name}', which dyngrad does not "
            "load: only tensors, their storages and plain containers are allowed (as torch.load's "
            "weights_only=True), because unpickling anything else can run code. Save a state_dict() "
            "instead of a whole object."
        )

    def persistent_load(self, pid: Any) -> Any:
        return self.reader.storage(pid)


def is_torch_zip(zf: zipfile.ZipFile) -> bool:
    """Whether the archive is a ``torch.save`` checkpoint (it holds ``<name>/data.pkl``)."""
    return any(n.endswith("data.pkl") for n in zf.namelist())


def load_torch_zip(zf: zipfile.ZipFile, name: str) -> Any:
    """The object a ``torch.save`` checkpoint holds, with tensors as dyngrad Tensors.

    Raises:
        pickle.UnpicklingError: the pickle refers to a global outside the allowlist.
        RuntimeError: a truncated or corrupt archive, a big-endian file.
    """
    pkl = sorted((n for n in zf.namelist() if n.endswith("data.pkl")), key=len)[0]
    prefix = pkl[: -len("data.pkl")]
    names = set(zf.namelist())
    if f"{prefix}byteorder" in names and zf.read(f"{prefix}byteorder").strip() not in (b"little", b""):
        raise RuntimeError(f"dyngrad.load: {name} was written on a big-endian machine, which dyngrad does not read")
    reader = _Reader(zf, prefix, name)
    try:
        obj = _Unpickler(zf.read(pkl), reader).load()
    except (EOFError, ValueError, TypeError, IndexError, AttributeError, zipfile.BadZipFile) as e:
        raise RuntimeError(f"dyngrad.load: {name} is not a readable torch checkpoint ({e}); truncated or corrupt?") from None
    if reader.bf16:
        warnings.warn(
            f"dyngrad.load: {name} holds bfloat16 tensors; dyngrad has no bfloat16 and converted them "
            "to float32 exactly (every bfloat16 value is a float32)",
            stacklevel=3,
        )
    return obj
