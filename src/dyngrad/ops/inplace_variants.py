"""The ``name_`` in-place forms of ops that have no hand-written in-place version: each is
``inplace(op, self, *args)`` (ops/_util.py): the out-of-place op runs, its result is written
into ``self``'s memory (cast to ``self``'s dtype where NumPy's ``same_kind`` allows it, else
PyTorch's "result type ... can't be cast" RuntimeError), the version counter is bumped and,
while a graph is recorded, ``self`` takes over the op's history. Gradients are the op's.

The comparisons (``eq_``, ``lt_``, ...) write 1/0 in ``self``'s dtype; as in PyTorch a
tensor that requires grad keeps requiring it, with a zero gradient (recorded as
``input.masked_fill(True, 0) + (input == other)``). The logical ops (``logical_and_``, ...)
record nothing, as PyTorch's: ``self`` keeps its history.

The shape-changing forms (``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``,
``swapdims_``/``swapaxes_``) change ``self``'s shape instead of its values: ``self`` becomes
the view op's result over the same memory and takes its history (``UnsqueezeBackward``...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd import grad_mode
from ..tensor import Tensor
from ._util import inplace, recording
from .. import _backend as B

# (name_, the out-of-place op's name in dyngrad.ops)
_VALUE_OPS = (
    "absolute", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr", "arccos", "arccosh", "arcsin",
    "arcsinh", "arctan2", "arctan", "arctanh", "atan2", "baddbmm", "bitwise_not", "clamp_max", "clamp_min",
    "cumprod", "cumsum", "divide", "float_power", "floor_divide", "fmod", "hypot", "igamma", "igammac",
    "index_add", "index_copy", "index_fill", "lerp", "multiply", "negative", "remainder", "scatter_reduce",
    "subtract", "tril", "triu", "true_divide", "index_reduce",
)
_COMPARISONS = ("eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal")
_LOGICAL = ("logical_and", "logical_or", "logical_xor", "logical_not")
_VIEWS = ("unsqueeze", "squeeze", "t", "transpose", "swapdims", "swapaxes")

__all__ = [f"{n}_" for n in _VALUE_OPS + _COMPARISONS + _LOGICAL + _VIEWS]


def _ops() -> Any:
    from .. import ops  # the package: every op is imported by the time one of these runs

    return ops


def _value_variant(name: str) -> Any:
    def variant(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        op = getattr(_ops(), name)
        if name in ("cumsum", "cumprod") and kwargs.get("dtype") is not None:

            if B.to_np_dtype(kwargs["dtype"]) != input._data.dtype:
                raise RuntimeError(f"Bad in-place call: input tensor dtype {input.dtype} and output tensor dtype "
                                   f"{kwargs['dtype']} should match")
        return inplace(op, input, *args, **kwargs)

    variant.__name__ = variant.__qualname__ = f"{name}_"
    variant.__doc__ = (f"In-place :func:`dyngrad.{name}`: writes the result into ``input`` and returns it; "
                       "bumps the version counter. Gradients are ``{name}``'s.").replace("{name}", name)
    return variant


def _logical_variant(name: str) -> Any:
    def variant(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        with grad_mode.no_grad():
            out = getattr(_ops(), name)(input.detach(), *args, **kwargs)
        from ._util import _write

        _write(input, out._data, getattr(_ops(), name))  # PyTorch records nothing (even on a leaf)
        return input

    variant.__name__ = variant.__qualname__ = f"{name}_"
    variant.__doc__ = (f"In-place :func:`dyngrad.{name}`: writes 1/0 in ``input``'s dtype and returns "
                       "``input``; bumps the version counter. As in PyTorch it records nothing: ``input`` keeps "
                       "its history (``grad_fn``).")
    return variant


def _comparison_variant(name: str) -> Any:
    def compare(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        op = getattr(_ops(), name)
        out = op(input, *args, **kwargs)
        if grad_mode.state.enabled and input._requires_grad and B.kind(input._data) in "fc":
            # keep requiring grad with a zero gradient, as PyTorch's EqBackward0 & co.
            keep = input.masked_fill(Tensor._make(np.ones((), dtype=np.bool_)), 0)
            return keep + out
        return out

    compare.__name__ = name

    def variant(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(compare, input, *args, **kwargs)

    variant.__name__ = variant.__qualname__ = f"{name}_"
    variant.__doc__ = (f"In-place :func:`dyngrad.{name}`: writes 1/0 in ``input``'s dtype and returns "
                       "``input``; bumps the version counter.")
    return variant


def _view_variant(name: str) -> Any:
    def variant(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        op = getattr(_ops(), name)
        with grad_mode.no_grad():  # the view of the same memory (NumPy views: no copy)
            new = op(Tensor._make(input._data), *args, **kwargs)._data
        if recording(input):
            input._check_inplace()
            from ._view_inplace import _alias

            result = op(_alias(input), *args, **kwargs)  # the view op's node on self's old history
            input._data = new
            input.grad_fn = result.grad_fn
            input._output_nr = result._output_nr
            input._requires_grad = result._requires_grad
        else:
            input._data = new
        return input

    variant.__name__ = variant.__qualname__ = f"{name}_"
    variant.__doc__ = (f"In-place :meth:`Tensor.{name}`: ``input`` takes the new shape over the same memory "
                       "(no copy) and returns itself.")
    return variant


for _n in _VALUE_OPS:
    globals()[f"{_n}_"] = _value_variant(_n)
for _n in _COMPARISONS:
    globals()[f"{_n}_"] = _comparison_variant(_n)
for _n in _LOGICAL:
    globals()[f"{_n}_"] = _logical_variant(_n)
for _n in _VIEWS:
    globals()[f"{_n}_"] = _view_variant(_n)
del _n
