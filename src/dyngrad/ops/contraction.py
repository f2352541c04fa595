"""Tensor contractions (second file of the linalg family, re-exported by
:mod:`dyngrad.ops.linalg`): ``einsum`` on NumPy's einsum with a differentiable backward,
and ``tensordot`` built on it."""

from __future__ import annotations

import math
import string
from collections import Counter
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Op
from ._batching import front
from ._util import norm_dim, wrap

__all__ = ["einsum", "tensordot"]
TENSOR_METHODS: set[str] = set()

_ELL = "..."


def _tokens(sub: str, equation: str) -> list:
    out, i = [], 0
    while i < len(sub):
        if sub.startswith(_ELL, i):
            if _ELL in out:
                raise RuntimeError(f"einsum(): found more than one ellipsis in a subscript of '{equation}'")
            out.append(_ELL)
            i += 3
        elif sub[i].isalpha():
            out.append(sub[i])
            i += 1
        else:
            raise RuntimeError(f"einsum(): invalid subscript '{sub[i]}' in equation '{equation}' (letters and '...' only)")
    return out


def _parse(equation: str, n: int) -> tuple:
    """``'ij,jk->ik'`` -> ``([['i','j'], ['j','k']], ['i','k'])``; implicit form: the
    output is every letter used once, sorted, after the ellipsis (NumPy/PyTorch rule)."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    ins = [_tokens(s, equation) for s in lhs.split(",")]
    if len(ins) != n:
        raise RuntimeError(
            f"einsum(): the equation '{equation}' names {len(ins)} operand(s) but {n} were given"
        )
    if arrow:
        out = _tokens(rhs, equation)
        used = {t for ts in ins for t in ts}
        for t in out:
            if t not in used:
                raise RuntimeError(f"einsum(): output subscript {t} does not appear in the equation for any input operand")
    else:
        counts = Counter(t for ts in ins for t in ts if t != _ELL)
        ell = [_ELL] if any(_ELL in ts for ts in ins) else []
        out = ell + sorted(c for c, k in counts.items() if k == 1)
    return ins, out


def _eq(ins: list, out: list) -> str:
    return ",".join("".join(ts) for ts in ins) + "->" + "".join(out)


class Einsum(Op):
    """``out = einsum(equation, *operands)`` (NumPy's einsum).

    ``grad_operand_i = einsum(out_subs, subs_j (j != i) -> subs_i; grad, operands_j)``: the
    gradient of a multilinear contraction w.r.t. one factor is the contraction of the
    output gradient with all other factors (e.g. Giles 2008, sec. 3; the rule autograd
    libraries use). Letters (or an ellipsis) summed only inside operand ``i`` are
    broadcast back (``expand``); ellipsis dims broadcast from other operands are summed. Written with einsum, so
    differentiable again. A letter repeated inside one operand (a diagonal: ``'ii->'``,
    ``'ii->i'``) gets the gradient of its diagonal written back on the diagonal.
    """

    @staticmethod
    def forward(ctx: Any, equation: tuple, *operands: Tensor) -> Tensor:
        ins, out = equation
        ctx.ins, ctx.out = ins, out
        ctx.save_for_backward(*operands)
        drop_ell = _ELL not in out and any(_ELL in ts for ts in ins)  # NumPy cannot sum '...' away
        if not all(B.native(o._data) for o in operands):
            try:
                return wrap(_einsum_xp(ins, out, [o._data for o in operands]))
            except ValueError as e:
                shapes = ", ".join(str(list(o._data.shape)) for o in operands)
                raise RuntimeError(f"einsum(): '{_eq(ins, out)}' does not fit operand shapes {shapes}: {e}") from None
        try:
            r = np.einsum(_eq(ins, [_ELL] * drop_ell + list(out)), *(o._data for o in operands), optimize=len(operands) > 2)
            if drop_ell:
                r = np.sum(r, axis=tuple(range(r.ndim - len(out))))
        except ValueError as e:
            shapes = ", ".join(str(list(o._data.shape)) for o in operands)
            raise RuntimeError(f"einsum(): '{_eq(ins, out)}' does not fit operand shapes {shapes}: {e}") from None
        return wrap(r)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        ops_ = ctx.saved_tensors
        ins, out = ctx.ins, ctx.out
        grads: list = [None]
        for i in range(len(ops_)):
            if not ctx.needs_input_grad[i + 1]:
                grads.append(None)
                continue
            grads.append(_operand_grad(g, ops_, ins, out, i))
        return tuple(grads)

    # hand-written: bilinear (product rule): neither linear nor elementwise
    @staticmethod
    def jvp(ctx: Any, _: Any, *us: Any) -> Any:
        """Forward mode: ``t = sum_i einsum(eq, ..., u_i, ...)`` (product rule: the
        contraction is linear in each operand)."""
        eq, ops_ = ctx._fwd_inputs[0], ctx._fwd_inputs[1:]
        ts = [Einsum.apply(eq, *ops_[:i], u, *ops_[i + 1:]) for i, u in enumerate(us) if u is not None]
        return sum(ts[1:], ts[0])

    @staticmethod
    def vmap(info: Any, in_dims: tuple, equation: tuple, *operands: Tensor) -> Any:
        """Batching rule: a fresh letter for the batch dim, put first in the subscripts of
        the batched operands (batch dim moved to the front) and of the output; unbatched
        operands are shared, so their gradients sum over the batch."""
        ins, out = equation
        used = {t for ts in ins for t in ts} | set(out)
        free = [c for c in string.ascii_letters if c not in used]
        if not free or any(d is not None and not isinstance(d, int) for d in in_dims[1:]):
            return NotImplemented
        z = free[0]
        new_ins = tuple(ts if d is None else (z, *ts) for ts, d in zip(ins, in_dims[1:]))
        ops_ = [front(o, d) for o, d in zip(operands, in_dims[1:])]
        return info.function.apply((new_ins, [z, *out]), *ops_), 0


def _einsum_xp(ins: list, out: list, arrays: list) -> Any:
    """``np.einsum`` with the Array API standard's functions only (for array-api-strict and
    other Array API arrays): each operand's repeated letters become its diagonal
    (``linalg.diagonal``), size-1 broadcast dims are dropped, letters no other operand or the
    output uses are summed, then the operands are contracted pairwise as one batched
    ``matmul`` each (batch letters, kept letters, summed letters), the result permuted to
    the output's order and broadcast where only size-1 dims carried a letter. The same sums
    as NumPy's (rounded possibly differently). Mixed dtypes promote with NumPy's rule, as
    ``np.einsum``. Raises ValueError when sizes do not fit."""
    xp = B.namespace(*arrays)
    rt = np.result_type(*(B.np_dtype_of(a) for a in arrays))
    arrays = [B.astype(a, rt, copy=False) for a in arrays]
    ell_rank = max((a.ndim - (len(ts) - 1) for ts, a in zip(ins, arrays) if _ELL in ts), default=0)
    ell = [f"\0{k}" for k in range(ell_rank)]  # one private letter per broadcast dim
    size: dict = {}
    ops: list = []
    for ts, a in zip(ins, arrays):
        if _ELL in ts:
            e = ts.index(_ELL)
            k = a.ndim - (len(ts) - 1)
            ts = list(ts[:e]) + ell[ell_rank - k:] + list(ts[e + 1:])
        ts = list(ts)
        for t, n in zip(ts, a.shape):  # sizes: a letter of size 1 broadcasts
            if n != 1:
                if size.get(t, 1) not in (1, n):
                    raise ValueError(f"subscript {t!r} has sizes {size[t]} and {n}")
                size[t] = n
            else:
                size.setdefault(t, 1)
        while True:  # a repeated letter: its diagonal
            seen = {t: i for i, t in reversed(list(enumerate(ts)))}
            rep_ = next(((seen[t], j) for j, t in enumerate(ts) if seen[t] != j), None)
            if rep_ is None:
                break
            i, j = rep_
            if a.shape[i] != a.shape[j]:
                raise ValueError(f"repeated subscript {ts[i]!r} has sizes {a.shape[i]} and {a.shape[j]}")
            a = xp.linalg.diagonal(xp.moveaxis(a, (i, j), (-2, -1)))
            ts = [t for k, t in enumerate(ts) if k not in (i, j)] + [ts[i]]
        ops.append([a, ts])
    outs = [t for t in out if t != _ELL]
    if _ELL in out:
        e = out.index(_ELL)
        outs = outs[:e] + ell + outs[e:]
    for op in ops:  # drop size-1 dims of letters that are larger elsewhere (broadcast)
        a, ts = op
        drop = [k for k, t in enumerate(ts) if a.shape[k] == 1 and size[t] != 1]
        if drop:
            op[0] = xp.reshape(a, tuple(n for k, n in enumerate(a.shape) if k not in drop))
            op[1] = [t for k, t in enumerate(ts) if k not in drop]

    def sum_private(i: int) -> None:
        a, ts = ops[i]
        keep = set(outs).union(*(set(o[1]) for j, o in enumerate(ops) if j != i))
        axes = tuple(k for k, t in enumerate(ts) if t not in keep)
        if axes:
            ops[i] = [xp.sum(a, axis=axes, dtype=a.dtype), [t for t in ts if t in keep]]

    for i in range(len(ops)):
        sum_private(i)
    while len(ops) > 1:
        (a, ta), (b, tb) = ops[0], ops[1]
        rest = set(outs).union(*(set(o[1]) for o in ops[2:]))
        batch = [t for t in ta if t in tb and t in rest]
        con = [t for t in ta if t in tb and t not in rest]
        a_only = [t for t in ta if t not in tb]
        b_only = [t for t in tb if t not in ta]
        a = xp.permute_dims(a, tuple(ta.index(t) for t in batch + a_only + con))
        b = xp.permute_dims(b, tuple(tb.index(t) for t in batch + con + b_only))
        nb, na, nc, nn = (math.prod(size[t] for t in g) for g in (batch, a_only, con, b_only))
        r = xp.matmul(xp.reshape(a, (nb, na, nc)), xp.reshape(b, (nb, nc, nn)))
        ops[:2] = [[xp.reshape(r, tuple(size[t] for t in batch + a_only + b_only)), batch + a_only + b_only]]
        sum_private(0)
    a, ts = ops[0]
    present = [t for t in outs if t in ts]
    if ts != present:
        a = xp.permute_dims(a, tuple(ts.index(t) for t in present))
    if present != outs:  # letters only size-1 dims carried: broadcast
        a = xp.reshape(a, tuple(size[t] if t in ts else 1 for t in outs))
        a = xp.broadcast_to(a, tuple(size[t] for t in outs))
    return a


def _operand_grad(g: Tensor, ops_: tuple, ins: list, out: list, i: int) -> Tensor:
    toks, x = list(ins[i]), ops_[i]
    letters = [t for t in toks if t != _ELL]
    uniq = list(dict.fromkeys(toks))  # a repeated letter (diagonal) is handled once, then embedded
    avail = set(out).union(*(set(ins[j]) for j in range(len(ins)) if j != i))
    has_ell = _ELL in toks
    kept = [t for t in uniq if t != _ELL and t in avail]
    missing = [t for t in uniq if t != _ELL and t not in avail]
    bout = ([_ELL] if _ELL in avail else []) + kept
    others = [ops_[j] for j in range(len(ops_)) if j != i]
    res = Einsum.apply((tuple([out] + [ins[j] for j in range(len(ins)) if j != i]), bout), g, *others)
    shape = x._data.shape
    ell_rank = len(shape) - len(letters)
    e0 = toks.index(_ELL) if has_ell else 0
    ell_shape = shape[e0 : e0 + ell_rank] if has_ell else ()
    axis = [k if k < e0 or not has_ell else k + ell_rank - 1 for k in range(len(toks))]
    size = {t: shape[axis[k]] for k, t in enumerate(toks) if t != _ELL}
    target = tuple(ell_shape) + tuple(size[t] for t in kept)
    if has_ell and _ELL not in avail:  # the ellipsis dims were summed out: broadcast back
        res = res.reshape((1,) * ell_rank + res._data.shape).expand(target)
    elif res._data.shape != target:  # broadcast ellipsis dims of the other operands: sum down
        res = res.sum_to_size(target)
    cur = ([_ELL] if has_ell else []) + kept + missing
    if missing:
        res = res.reshape(target + (1,) * len(missing)).expand(target + tuple(size[t] for t in missing))
    pos, k = {}, 0
    for t in cur:
        n = ell_rank if t == _ELL else 1
        pos[t] = list(range(k, k + n))
        k += n
    perm = [a for t in uniq for a in pos[t]]
    if perm != sorted(perm):
        res = res.permute(perm)
    if len(uniq) == len(toks):
        return res
    # embed the diagonal: a size-1 dim at each repeated position, expand, mask off-diagonal
    first = {t: k for k, t in reversed(list(enumerate(toks)))}
    new_shape, mask = [], np.ones(shape, dtype=bool)
    for k, t in enumerate(toks):
        if t == _ELL:
            new_shape += list(ell_shape)
        elif first[t] == k:
            new_shape.append(size[t])
        else:
            new_shape.append(1)
            a0, ak = axis[first[t]], axis[k]
            r = np.arange(size[t])
            mask &= r.reshape([-1 if d == a0 else 1 for d in range(len(shape))]) == r.reshape(
                [-1 if d == ak else 1 for d in range(len(shape))]
            )
    return res.reshape(tuple(new_shape)).expand(shape) * wrap(B.like(mask, x._data, dtype=B.np_dtype_of(x._data)))


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation: the sum of products of ``operands`` over the subscripts not in the output.

    ``einsum('ij,jk->ik', a, b)`` is ``a @ b``. The implicit form (no ``->``: the output holds
    the subscripts seen once, sorted), ``...`` for broadcast leading dims, spaces, any number
    of operands, and the operands as one list (``einsum(eq, [a, b])``) are supported. Mixed
    dtypes are promoted with NumPy's rules (PyTorch refuses them).

    Derivative: each operand's gradient is the einsum of ``grad_output`` with the other
    operands, mapped back to its subscripts (repeated subscripts: on the diagonal).

    Args:
        equation (str): the subscripts, e.g. ``'bij,bjk->bik'``.
        *operands (Tensor): one per comma-separated term, each with as many dims as its
            subscripts (more with ``...``).
    Returns:
        Tensor: one dim per output subscript (and the broadcast ``...`` dims):
            ``(I, K)`` for ``'ij,jk->ik'`` with operands ``(I, J)`` and ``(J, K)``.
    Raises:
        RuntimeError: for a malformed equation, a wrong number of operands, or shapes that do
            not fit it (the equation and shapes are named).
        TypeError: when an operand is not a Tensor.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> dyngrad.einsum('ii', a)
        tensor(5., grad_fn=<EinsumBackward0>)
        >>> dyngrad.einsum('ij,j->i', a, dyngrad.tensor([1.0, -1.0])).sum().backward()
        >>> a.grad
        tensor([[ 1., -1.],
                [ 1., -1.]])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for o in operands:
        if not isinstance(o, Tensor):
            raise TypeError(f"einsum(): operands must be Tensors, got {type(o).__name__}")
    ins, out = _parse(equation, len(operands))
    for ts, o in zip(ins, operands):
        n_letters = len([t for t in ts if t != _ELL])
        nd = o._data.ndim
        if (_ELL in ts and nd < n_letters) or (_ELL not in ts and nd != n_letters):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({n_letters}) does not match "
                f"the number of dimensions ({nd}) of operand shape {list(o._data.shape)} in '{equation}'"
            )
    return Einsum.apply((tuple(ins), out), *operands)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Contract ``a``'s dims ``dims[0]`` with ``b``'s dims ``dims[1]`` (or the last
    ``dims`` of ``a`` with the first ``dims`` of ``b`` when an int); the result has
    ``a``'s free dims then ``b``'s. Implemented as an :func:`einsum` (same gradient).

    Derivative: ``grad_a`` is ``grad_output`` contracted with ``b`` over ``b``'s free dims
    (and ``grad_b`` likewise with ``a``), the einsum rule.

    Args:
        a (Tensor): ``(*)``.
        b (Tensor): ``(*)``, promoted with ``a``.
        dims (int or pair of sequences of int): how many trailing dims of ``a`` meet the
            leading dims of ``b``, or ``(dims_a, dims_b)`` listing them. Default: ``2``.
    Returns:
        Tensor: ``a``'s free dims then ``b``'s.
    Raises:
        RuntimeError: contracted sizes differ, a negative dims count, or more dims than
            either operand has.
        IndexError: bad dim.

    Example:
        >>> import dyngrad
        >>> a = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> b = dyngrad.tensor([1.0, -1.0], requires_grad=True)
        >>> y = dyngrad.tensordot(a, b, ([0], [0]))
        >>> y.detach()
        tensor([-2., -2.])
        >>> y.sum().backward()
        >>> b.grad
        tensor([3., 7.])
        >>> dyngrad.tensordot(dyngrad.ones(2, 3, 4), dyngrad.ones(3, 4, 5)).shape
        dyngrad.Size([2, 5])
    """
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot: dims={dims} exceeds the ranks of shapes {list(a.shape)} and {list(b.shape)}")
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
    da = [norm_dim(d, na, "tensordot") for d in da]
    db = [norm_dim(d, nb, "tensordot") for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    letters = iter(string.ascii_letters)
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for x, y in zip(da, db):
        if a._data.shape[x] != b._data.shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a._data.shape[x]} in dim {x} "
                f"and second has size {b._data.shape[y]} in dim {y} (shapes {list(a.shape)} and {list(b.shape)})"
            )
        sb[y] = sa[x]
    out = [sa[k] for k in range(na) if k not in da] + [sb[k] for k in range(nb) if k not in db]
    return Einsum.apply(((tuple(sa), tuple(sb)), out), a, b)
