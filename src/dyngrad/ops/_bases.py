"""Base classes of the built-in ops: a rule is written once (DESIGN.md, idea 7).

* :class:`Op`: every built-in Function. Its backward node is named ``<Name>Backward0``
  (PyTorch's ``grad_fn.name()`` for the first overload); an op whose PyTorch name differs
  says so with ``_node_name``.
* :class:`Elementwise`: an op applied to each element of its broadcast tensor inputs. It
  states its derivative once, ``derivative(ctx)`` (``f'(x)``, from what forward saved), and
  gets ``backward`` (``grad * f'``), ``jvp`` (``tangent * f'``) and its batching rule (the
  op applied to the batched array) from the base. PyTorch's derivatives.yaml does the same
  with ``auto_element_wise``.
* :class:`Linear`: an op linear in its floating tensor inputs (shape ops, sums, indexing,
  concatenation): its ``jvp`` is the op applied to the tangents (derivatives.yaml's
  ``auto_linear``). It states ``backward`` and its batching rule itself.

The rule protocol is :class:`~dyngrad.autograd.function.Function`'s own (``jvp(ctx,
*tangents)``, ``vmap(info, in_dims, *args) -> (outputs, out_dims)``): the bases only fill
the methods in, so a class may still override any of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._batching import pointwise_promoting, unary
from .. import _backend as B

__all__ = ["Op", "Elementwise", "Linear"]


class Op(Function):
    """Base of the built-in Functions: marks them ``trusted`` (the public Function attribute a
    user's Function may set too) and names their node ``<Name>Backward0`` unless the class
    sets ``_node_name`` (PyTorch's name differs)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if cls.__module__ != __name__:  # a concrete op, not one of the bases below
            cls.trusted = True
            if "_node_name" not in cls.__dict__:
                cls._node_name = f"{cls.__name__}Backward0"
        super().__init_subclass__(**kwargs)


_promoting = staticmethod(pointwise_promoting())


def _elementwise_vmap(info: Any, in_dims: tuple, *args: Any, **kwargs: Any) -> Any:
    """Batching rule of :class:`Elementwise`: with one tensor argument (the first), the op
    applied to the batched array as is (batch dim kept); otherwise batch dims to the front and
    per-example ranks aligned first (:func:`~dyngrad.ops._batching.pointwise_promoting`;
    positions in ``no_promote`` broadcast but are not promoted)."""
    if in_dims[0] is not None and sum(isinstance(a, Tensor) for a in args) == 1:
        return unary(info, in_dims, *args, **kwargs)
    return info.function._promoting(info, in_dims, *args, **kwargs)


class Elementwise(Op):
    """Base of elementwise ops: state ``derivative(ctx)`` once, get backward, jvp and vmap.

    ``derivative(ctx)`` returns ``f'`` as a Tensor (or number) that broadcasts against the
    output, computed with dyngrad ops from ``ctx.saved_tensors`` (so backward stays
    differentiable). An op of several inputs returns a tuple with one partial derivative
    per forward input (None for inputs without one: numbers, masks); ``derivative`` may
    consult ``ctx.needs_input_grad`` to skip work. Then:

    * ``backward(ctx, grad) = grad * f'`` per input (None where not needed);
    * ``jvp(ctx, *tangents) = sum(tangent_i * f'_i)`` over the inputs with a tangent;
    * ``vmap``: the op applied to the batched values (see :func:`_elementwise_vmap`).
    """

    no_promote: tuple = ()  # positions whose dtype does not take part in type promotion
    vmap = _elementwise_vmap
    _promoting: Any = _promoting

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "no_promote" in cls.__dict__:
            cls._promoting = staticmethod(pointwise_promoting(*cls.no_promote))

    @staticmethod
    def derivative(ctx: Any) -> Any:
        """``f'`` (one input) or a tuple of partial derivatives, one per forward input."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Any:
        d = ctx._forward_cls.derivative(ctx)
        n = ctx.needs_input_grad
        if type(d) is not tuple:
            return g * d if len(n) == 1 else (g * d, *(None,) * (len(n) - 1))
        return tuple(None if di is None or not ni else g * di for di, ni in zip(d, n))

    @classmethod
    def jvp(cls, ctx: Any, *tangents: Any) -> Any:
        d = cls.derivative(ctx)
        if type(d) is not tuple:
            u = tangents[0]
            return None if u is None else u * d
        ts = [u * di for u, di in zip(tangents, d) if u is not None and di is not None]
        if not ts:
            return None
        return sum(ts[1:], ts[0])


class Linear(Op):
    """Base of ops linear in their floating tensor inputs: ``jvp`` applies the op to the
    tangents (a floating input without a tangent contributes zeros; integer and bool
    tensors, such as indices and masks, and non-tensor arguments are passed as they are).

    The op states ``backward`` (the transposed map) and ``vmap`` itself. Its ``forward``
    must take every argument positionally (``jvp`` sees only the positional ones).
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        sig = cls._sig
        if "jvp" not in cls.__dict__ and sig is not None and any(
            p.kind is p.KEYWORD_ONLY for p in sig.parameters.values()
        ):
            raise TypeError(f"{cls.__name__}: a Linear op's forward takes no keyword-only arguments")

    @classmethod
    def jvp(cls, ctx: Any, *tangents: Any) -> Any:
        args = list(ctx._fwd_inputs)
        for i, (a, u) in enumerate(zip(args, tangents)):
            if u is not None:
                args[i] = u
            elif isinstance(a, Tensor) and B.kind(a._data) in "fc":
                args[i] = Tensor._make(np.zeros_like(a._data))
        return cls.apply(*args)
