"""The ``out=`` keyword of PyTorch's functions, for the common ops of the ``dyngrad``
namespace (``torch.add(a, b, out=c)``).

``_with_out(op)`` is the namespace's face of ``op``: without ``out`` it is ``op`` itself; with
``out`` it computes the result and writes it into ``out`` (resized when its shape differs,
with PyTorch's warning when ``out`` was not empty; the dtype must be castable as PyTorch's
``same_kind`` rule), bumps ``out``'s version counter and returns ``out``. As in PyTorch, an
``out=`` call does not record a graph: it raises when grad mode is on and an argument requires
grad. ``dyngrad.ops.<name>`` itself (what dyngrad's own code calls) stays unwrapped.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import ops as _ops
from ._backend import _FROM_NP
from .autograd import grad_mode
from .ops._util import check_no_partial_overlap
from .tensor import Tensor

__all__ = ["OUT_OPS", "input_checked", "not_tensor_error"]

#: the names of the namespace's functions that take ``out=``
OUT_OPS = (
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "matmul", "mm", "bmm", "mv",
    "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "abs", "neg", "sin", "cos", "tan", "tanh", "pow",
    "clamp", "clip", "where", "cat", "concat", "stack", "sum", "mean", "prod", "cumsum", "cumprod", "maximum",
    "minimum", "addmm", "baddbmm", "logsumexp", "remainder", "fmod", "floor", "ceil", "round", "trunc", "sign",
    "reciprocal", "erf", "lerp", "atan2", "outer", "dot",
)


def _requires_grad(args: Any) -> bool:
    for a in args:
        if isinstance(a, Tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (list, tuple)) and _requires_grad(a):
            return True
    return False


_SCALAR_TYPES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
                 "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool"}


def _scalar_type(dt: np.dtype) -> str:
    """PyTorch's name of a dtype in its messages (``Float``, ``Long``)."""
    name = _FROM_NP[dt].name
    return _SCALAR_TYPES.get(name, name)


def write_out(out: Tensor, result: Tensor, name: str) -> Tensor:
    """Write ``result`` into ``out`` (PyTorch's ``out=`` contract); returns ``out``.

    Raises:
        TypeError: ``out`` is not a Tensor. RuntimeError: a dtype ``out`` cannot hold
            (``same_kind`` casting), or ``out`` requires grad.
    """
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if out.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    r = result._data
    if not np.can_cast(r.dtype, out._data.dtype, casting="same_kind"):
        raise RuntimeError(f"result type {_scalar_type(r.dtype)} can't be cast to the desired output type "
                           f"{_scalar_type(out._data.dtype)}")
    if out._data.shape != r.shape:
        if out._data.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape {list(out._data.shape)}, "
                          f"which does not match the required output shape {list(r.shape)}. This behavior is "
                          "deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                          "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                          "elements with t.resize_(0).", UserWarning, stacklevel=3)
        out._data = r.astype(out._data.dtype, copy=True)
    else:
        np.copyto(out._data, r, casting="same_kind")
    out._vc[0] += 1
    return out


def not_tensor_error(name: str, args: tuple, kwargs: dict, err: AttributeError) -> Exception:
    """The error to raise when ``name(*args, **kwargs)`` failed with ``err`` (an
    AttributeError): PyTorch's TypeError when ``input`` (the first argument) is not a
    Tensor (``abs(): argument 'input' (position 1) must be Tensor, not int``), else ``err``.

    Called only on the error path (the namespace's faces catch the AttributeError), so the
    happy path pays nothing."""
    if args:
        x, where = args[0], " (position 1)"
    elif "input" in kwargs:
        x, where = kwargs["input"], ""
    else:
        return err
    if isinstance(x, Tensor):
        return err
    return TypeError(f"{name}(): argument 'input'{where} must be Tensor, not {type(x).__name__}")


def _with_out(fn: Callable, name: str) -> Callable:
    @functools.wraps(fn)
    def op(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        try:
            if out is None:
                return fn(*args, **kwargs)
            if grad_mode.is_grad_enabled() and (_requires_grad(args) or _requires_grad(kwargs.values())):
                raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                                   "differentiation, but one of the arguments requires grad.")
            if isinstance(out, Tensor):  # an input partially overlapping out: PyTorch's RuntimeError
                check_no_partial_overlap(out, args, kwargs)
            with grad_mode.no_grad():
                result = fn(*args, **kwargs)
            return write_out(out, result, name)
        except AttributeError as e:  # a non-Tensor input (zero cost unless raised, Python 3.11)
            raise not_tensor_error(name, args, kwargs, e) from None

    op.__doc__ = _doc_with_out(fn.__doc__ or "")
    return op


_OUT_ARG = ("        out (Tensor, optional): keyword-only; the result is written into it (resized if its shape\n"
            "            differs; not differentiable). Default: ``None``.\n")


_OUT_RAISES = ("        RuntimeError: with ``out``, when an argument requires grad (grad mode on),\n"
               "            ``out``'s dtype cannot hold the result's (``same_kind`` casting), or an input\n"
               "            partially overlaps ``out``'s memory.\n"
               "        TypeError: when ``out`` is not a Tensor.\n")


def _append_to_section(lines: list[str], header: str, text: str) -> list[str] | None:
    """``lines`` with ``text`` added at the end of the ``header:`` section (None when absent)."""
    start = next((i for i, ln in enumerate(lines) if ln.strip() == header), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and lines[end].startswith("        "):  # the entries end at a blank
        end += 1                                                      # line or the next section
    return lines[:end] + [text] + lines[end:]


def _doc_with_out(doc: str) -> str:
    """``doc`` with the ``out`` keyword listed last under ``Args:`` and its errors under
    ``Raises:`` (or a note when it has no Args)."""
    lines = _append_to_section(doc.splitlines(keepends=True), "Args:", _OUT_ARG)
    if lines is None:
        return doc + "\n\n    Also takes ``out=``: see dyngrad/_out.py.\n"
    return "".join(_append_to_section(lines, "Raises:", _OUT_RAISES) or lines)


def _with_input_check(fn: Callable, name: str) -> Callable:
    """The namespace's face of ``fn`` (not an ``out=`` op): ``fn`` itself, with PyTorch's
    TypeError for a non-Tensor ``input`` (see :func:`not_tensor_error`)."""

    @functools.wraps(fn)
    def op(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AttributeError as e:  # (zero cost unless raised, Python 3.11)
            raise not_tensor_error(name, args, kwargs, e) from None

    return op


def _takes_input(fn: Any) -> bool:
    if not callable(fn) or isinstance(fn, type):
        return False
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return code is not None and code.co_argcount > 0 and code.co_varnames[0] == "input"


#: the wrapped functions, by name (re-exported by the dyngrad namespace)
WRAPPED = {name: _with_out(getattr(_ops, name), name) for name in OUT_OPS}


def input_checked(namespace: dict, names: Any) -> dict:
    """The faces of the functions ``names`` of ``namespace`` whose first parameter is
    ``input`` (a Tensor), outside :data:`OUT_OPS`: each raises PyTorch's TypeError for a
    non-Tensor ``input`` instead of the AttributeError of its body."""
    return {n: _with_input_check(namespace[n], n) for n in names
            if n not in WRAPPED and n in namespace and _takes_input(namespace[n])}

# ``true_divide`` is ``div`` (as in PyTorch); its face gets its own short docstring.
WRAPPED["true_divide"].__doc__ = """Alias of :func:`dyngrad.div` (true division, PyTorch's ``torch.true_divide``).

    Derivative: as :func:`dyngrad.div`'s: ``grad_input = grad_output / other``,
    ``grad_other = -grad_output * input / other ** 2``.

    Args:
        input (Tensor or number): ``(*)``, the dividend.
        other (Tensor or number): broadcastable with ``input``, the divisor.
        out (Tensor, optional): keyword only; write the result here (see dyngrad/_out.py).
    Returns:
        Tensor: the broadcast shape; floating (integers divide in the default float dtype).
    Raises:
        RuntimeError: when the shapes do not broadcast.
        TypeError: when an operand is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> dyngrad.true_divide(dyngrad.tensor([1, 2]), 2)
        tensor([0.5000, 1.0000])
    """
