"""What the NumPy-protocol modules share (numpy_ufunc.py, numpy_function.py, numpy_arrays.py,
numpy_linalg.py): which calls are traced, the refusal of a call without a rule, operands as
Tensors, the dtype casts (PyTorch's promotion; NumPy's float64 for integer inputs of
float-making calls) and writing results into ``out=``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)
from .. import _backend as B

__all__ = ["is_traced", "np_dtype", "promote_tensors", "refuse_or_run"]


def _o() -> Any:
    return _core._ops


def _walk(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        for v in x:
            yield from _walk(v)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _walk(v)
    else:
        yield x


def is_traced(*objs: Any) -> bool:
    """Whether a NumPy call on these values must go through dyngrad ops: a Tensor among them
    (also in lists, tuples, dicts) requires grad or is a transform's wrapper (vmap), or a
    transform (vmap, forward mode) is active, where a plain tensor may carry a tangent."""
    if _core.grad_mode.state.interpreters:  # the thread's context (tensor.py imports grad_mode)
        return any(isinstance(v, _core.Tensor) for v in _walk(objs))
    return any(isinstance(v, _core.Tensor) and (v._requires_grad or v._is_wrapper) for v in _walk(objs))


def _to_arrays(x: Any) -> Any:
    if isinstance(x, _core.Tensor):
        return x._data
    if isinstance(x, list):
        return [_to_arrays(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_to_arrays(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_arrays(v) for k, v in x.items()}
    return x


def refuse_or_run(what: str, fn: Callable[..., Any], args: Any, kwargs: dict, why: str = "") -> Any:
    """A NumPy call dyngrad has no rule for: TypeError naming it when its inputs are traced,
    else ``fn`` on the arrays (ndarray results, as NumPy gives)."""
    for v in _walk((args, kwargs)):
        if isinstance(v, _core.Tensor) and v._is_wrapper:
            v.__array__()  # a batched tensor refuses (vmap then falls back to a loop over f)
    if is_traced(args, kwargs):
        raise TypeError(
            f"{what} is not supported on dyngrad Tensors that require grad or are transformed "
            f"(vmap, forward mode){why}: its result would carry no gradient. Write it with "
            "supported NumPy functions or dyngrad ops (docs/numpy.md lists what is covered), or "
            "pass tensor.detach().numpy() if you only want its values."
        )
    return fn(*_to_arrays(args), **_to_arrays(kwargs))


def _operand(x: Any) -> Any:
    """An ndarray operand becomes a Tensor (a 0-d one too, as ops treat it); Tensors and
    Python/NumPy scalars stay (scalars do not upcast a tensor, as in PyTorch)."""
    if isinstance(x, np.ndarray):
        return _core.Tensor._make(x)
    return x


def _t(x: Any) -> Any:
    """An operand as a Tensor (ndarrays, lists and scalars are wrapped)."""
    return x if isinstance(x, _core.Tensor) else _core.Tensor._make(np.asarray(x))


def _ts(xs: Any) -> list:
    """Operands as Tensors of one dtype (for ops that take one dtype only)."""
    return promote_tensors([_t(x) for x in xs])


def _floats(x: Any) -> Any:
    """An operand as a Tensor, integer and bool ones in float64 (NumPy's float results)."""
    x = _t(x)
    return _o().to_dtype(x, np.dtype(np.float64)) if B.kind(x._data) in "biu" else x


def np_dtype(dtype: Any) -> np.dtype:
    """A NumPy dtype of a ``dtype=`` argument (a NumPy dtype or type, a string, a dyngrad dtype)."""
    return np.dtype(getattr(dtype, "np", dtype))


def _cast(x: Any, dt: np.dtype) -> Any:
    if isinstance(x, _core.Tensor) and x._data.dtype != dt:
        return _o().to_dtype(x, dt)
    return x


def _float_inputs(args: list) -> list:
    """NumPy's float results of integer inputs: int/bool tensors compute in float64 when no
    operand is a floating tensor (a float tensor sets the dtype, as in PyTorch)."""
    kinds = [B.kind(a._data) for a in args if isinstance(a, _core.Tensor)]
    if kinds and all(k in "biu" for k in kinds):
        return [_cast(a, np.dtype(np.float64)) for a in args]
    return args


def promote_tensors(args: list) -> list:
    """Tensor operands cast to their common dtype (for ops that take one dtype only)."""
    dts = [a._data.dtype for a in args if isinstance(a, _core.Tensor)]
    if len(set(dts)) > 1:
        common = np.result_type(*dts)
        return [_cast(a, common) for a in args]
    return args


def _write_out(out: tuple, results: tuple, inputs: tuple) -> Any:
    written = []
    for o, r in zip(out, results):
        if o is None:
            written.append(r)
        elif isinstance(o, _core.Tensor):
            src = r._data.dtype if isinstance(r, _core.Tensor) else np.asarray(r).dtype
            if not np.can_cast(src, o._data.dtype, casting="same_kind"):  # NumPy's rule for out=
                raise TypeError(
                    f"Cannot cast ufunc output from dtype('{src}') to dtype('{o._data.dtype}') with "
                    "casting rule 'same_kind' (out= a Tensor of another kind)"
                )
            written.append(_o().copy_(o, r))
        else:  # an ndarray out: values only
            if is_traced(inputs, r):
                raise RuntimeError(
                    "Can't write a Tensor that requires grad (or is transformed) into a NumPy "
                    "array (out= an ndarray): the array would carry no gradient. Pass a Tensor "
                    "as out=, or write tensor.detach().numpy() into the array."
                )
            np.copyto(o, r._data if isinstance(r, _core.Tensor) else r, casting="same_kind")
            written.append(o)
    return written[0] if len(written) == 1 else tuple(written)
