"""The state half of :class:`~dyngrad.nn.Module`: dtype conversion, ``state_dict`` and
``load_state_dict`` (a mixin, so module.py stays readable)."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor, check_device


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns, as PyTorch's: a named tuple of the missing and the
    unexpected keys, shown as ``<All keys matched successfully>`` when both are empty."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _shape_str(shape: tuple) -> str:
    return f"dyngrad.Size({list(shape)})"


class _StateMixin:
    """Methods of Module that convert or save/load its parameters and buffers."""

    def _apply_tensors(self, convert: Callable[[np.ndarray], np.ndarray]) -> Any:
        for m in self.modules():
            for store in (m._parameters, m._buffers):
                for t in store.values():
                    if t is None:
                        continue
                    new = convert(t._data)
                    if new is not t._data:
                        t._data = new
                        t._bump()
                        if t._grad is not None:
                            t._grad = Tensor._make(convert(t._grad._data))
        return self

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """``to(dtype)``, ``to(device)``, ``to(tensor)``: cast floating parameters and buffers
        in place (integer buffers keep their dtype, as PyTorch); returns self.

        Raises: RuntimeError for a non-CPU device; TypeError for a non-floating dtype."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (B.dtype, np.dtype, type)):
                dtype = a
            else:
                device = a
        if device is not None and str(device) == "meta":  # shape-only parameters and buffers
            from .._tensor.metadata import to_meta

            self._apply_tensors(to_meta)
            device = None
        if device is not None:  # "cuda[:n]": CuPy arrays on that GPU; "cpu": back to the host
            kind, _ = B.parse_device(device)
            check_device(device)
            if kind in ("cuda", "cpu"):
                self._apply_tensors(lambda a: B.to_device(a, device))
        if dtype is None:
            return self
        nd = B.to_np_dtype(dtype)
        if nd.kind != "f":
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")
        return self._apply_tensors(lambda a: a.astype(nd) if B.kind(a) == "f" and a.dtype != nd else a)

    def float(self) -> Any:
        return self.to(B.float32)

    def double(self) -> Any:
        return self.to(B.float64)

    def half(self) -> Any:
        return self.to(B.float16)

    def cpu(self) -> Any:
        """Move parameters and buffers to the host (NumPy arrays); returns self."""
        return self.to("cpu")

    def cuda(self, device: Any = None) -> Any:
        """Move parameters and buffers to GPU ``device`` (CuPy arrays); returns self.
        Raises RuntimeError without CuPy or a GPU."""
        return self.to("cuda" if device is None else device if isinstance(device, str) else f"cuda:{device}")

    def type(self, dst_type: Any) -> Any:
        return self.to(dst_type)

    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict:
        """Ordered ``{dotted_name: tensor}`` of parameters and persistent buffers (detached,
        sharing memory, unless ``keep_vars``)."""
        out = OrderedDict() if destination is None else destination
        for mp, m in self.named_modules(prefix=prefix.rstrip(".")):
            pre = mp + ("." if mp else "")
            for k, v in m._parameters.items():
                if v is not None:
                    out[pre + k] = v if keep_vars else v.detach()
            for k, v in m._buffers.items():
                if v is not None and k not in m._non_persistent_buffers_set:
                    out[pre + k] = v if keep_vars else v.detach()
        return out

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """Copy values from ``state_dict`` into parameters and persistent buffers.

        Returns:
            ``_IncompatibleKeys(missing_keys, unexpected_keys)``, a named tuple shown as
            ``<All keys matched successfully>`` when both are empty (as PyTorch). A norm
            layer's ``num_batches_tracked`` that ``state_dict`` lacks keeps its value and is not
            reported missing (PyTorch's rule for old checkpoints).
        Raises:
            RuntimeError: naming all missing and unexpected keys (``strict``) and every shape
            mismatch (always, as PyTorch) in one message.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
        own = self.state_dict(keep_vars=True)
        # a norm layer's num_batches_tracked may be absent (checkpoints from before PyTorch 0.4.1):
        # PyTorch keeps the module's own counter and does not report the key missing
        optional = {f"{mp}.num_batches_tracked" if mp else "num_batches_tracked"
                    for mp, m in self.named_modules() if m._buffers.get("num_batches_tracked") is not None}
        missing = [k for k in own if k not in state_dict and k not in optional]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        pending = []
        for k, t in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            arr = v._data if isinstance(v, Tensor) else np.asarray(v)
            if arr.shape != t._data.shape:
                errors.append(
                    f"size mismatch for {k}: copying a param with shape {_shape_str(arr.shape)} from checkpoint, "
                    f"the shape in current model is {_shape_str(t._data.shape)}."
                )
                continue
            pending.append((t, arr))
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected))
                )
            if missing:
                errors.insert(
                    0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing))
                )
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(self._get_name(), "\n\t".join(errors))
            )
        for t, arr in pending:
            if assign:
                t._data = arr.copy()
            else:
                if type(t._data) is not np.ndarray:
                    B.writeable(t._data)  # a Dask tensor is immutable: refused (docs/backends.md)
                np.copyto(t._data, arr, casting="unsafe")
            t._bump()
        return _IncompatibleKeys(missing, unexpected)
