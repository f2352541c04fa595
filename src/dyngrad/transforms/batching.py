"""Batching for ``vmap``: :class:`BatchedTensor` and the dispatch to each Function's rule.

Inside :func:`dyngrad.func.vmap` the mapped inputs are BatchedTensors. A BatchedTensor
shows user code the *logical* (per-example) shape, dtype and ndim, while its values live
in ``_value``, an ordinary Tensor with one more dimension (``_bdim``) of size
``batch_size``. :meth:`Function.apply` sends every call that has a BatchedTensor argument
to :func:`batched_apply`, which

1. unwraps the BatchedTensors of the innermost vmap level to their values and notes where
   each batch dim is (``in_dims``, None for unbatched arguments);
2. calls the Function's batching rule ``vmap(info, in_dims, *args)`` (PyTorch's
   ``autograd.Function.vmap`` signature), which computes the whole batch at once and
   returns ``(outputs, out_dims)``; a Function without a rule (or whose rule returns
   ``NotImplemented`` for these arguments) runs once per example instead, and vmap warns
   which Functions did so;
3. wraps the outputs back as BatchedTensors.

The rules run ordinary Functions on the unwrapped tensors, so autograd records the
batched computation itself: gradients, ``create_graph`` and forward AD work unchanged.
Nested vmaps nest BatchedTensors, one level each; a rule's own ``apply`` calls then
dispatch at the next outer level.

Invariants: the values of a BatchedTensor are never read outside a Function. Its
``._data`` is a read-only stand-in with the logical shape whose values cannot be read
(NumPy ufuncs and functions on it, ``item()``, ``bool()``, ``tolist()``... raise
:class:`VmapUnsupported`); vmap catches that and runs the user's function once per
example instead, so data-dependent code is never silently computed on one example.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..autograd.function import TransformUnsupported
from ..tensor import Tensor
from .interpreter import Interpreter, active, pop, push

if TYPE_CHECKING:
    from ..autograd.function import Function

__all__ = ["BatchedTensor", "BatchInterpreter", "VmapInfo", "VmapUnsupported", "VmapLevel", "batched_apply",
           "random_apply", "RANDOMNESS_ERROR",
           "any_batched", "vmap_levels"]


# Raised inside vmap when the function does something the batched path cannot express
# (reads the values of a batched tensor, calls ``backward()``, draws random numbers with
# ``randomness='different'``...); :func:`dyngrad.func.vmap` catches it and runs the function
# once per example instead, with a warning giving its message. It is the transforms'
# generic refusal, defined with the Function protocol so that ops and nn raise it too.
VmapUnsupported = TransformUnsupported


class VmapInfo(NamedTuple):
    """The first argument of a batching rule ``vmap(info, in_dims, *args)``.

    Attributes:
        batch_size (int): size of the mapped dimension.
        randomness (str): ``"error"``, ``"different"`` or ``"same"`` (see vmap).
        function (type): the Function being batched (built-in rules re-apply it).

    Example (a custom Function's batching rule reads it):
        >>> import dyngrad
        >>> class Double(dyngrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g * 2
        ...     @staticmethod
        ...     def vmap(info, in_dims, x):
        ...         print("batch of", info.batch_size)
        ...         return Double.apply(x), in_dims[0]
        >>> dyngrad.func.vmap(Double.apply)(dyngrad.ones(3, 2)).shape[0]
        batch of 3
        3
    """

    batch_size: int
    randomness: str
    function: Any


class BatchInterpreter(Interpreter):
    """One active ``vmap`` call (an interpreter on the thread's stack): its batch size,
    randomness mode, and the names of the Functions that ran as a loop for lack of a rule
    (reported when vmap returns). ``depth`` is its nesting depth among vmap levels (1 for
    the outermost).

    Example (what a function under ``func.vmap`` runs inside):
        >>> import dyngrad
        >>> from dyngrad.transforms.batching import vmap_levels
        >>> def f(x):
        ...     (lvl,) = vmap_levels()
        ...     return x * lvl.batch_size
        >>> dyngrad.func.vmap(f)(dyngrad.ones(3, 2))
        tensor([[3., 3.],
                [3., 3.],
                [3., 3.]])
    """

    __slots__ = ("depth", "batch_size", "randomness", "fallbacks", "_examples")
    kind = "vmap"

    def __init__(self, depth: int, batch_size: int, randomness: str) -> None:
        self.depth = depth
        self.batch_size = batch_size
        self.randomness = randomness
        self.fallbacks: dict = {}
        self._examples: dict = {}

    def process(self, cls: type, args: tuple, kwargs: dict) -> Any:
        """The call goes to ``cls``'s batching rule at the innermost vmap level among its
        arguments (a BatchedTensor knows its level), or on down when none is batched. A
        random Function (``cls.random``) is handled at this level whatever its arguments,
        by this level's randomness mode (:func:`random_apply`)."""
        if cls.random:  # type: ignore[attr-defined]
            return random_apply(self, cls, args, kwargs)
        return batched_apply(cls, args, kwargs)

    def process_grad(self, grad: Any, outputs: Any, inputs: Any, grad_outputs: Any, **kw: Any) -> Any:
        """``autograd.grad`` on batched outputs/inputs: unwrapped (batched_autograd.py). With
        only the grad_outputs batched, the backward formulas run on BatchedTensors."""
        if any_batched(outputs, inputs):
            from .batched_autograd import batched_grad

            return batched_grad(grad, outputs, inputs, grad_outputs, **kw)
        return NotImplemented

    def before_random(self) -> None:
        """A draw that is not a random Function (``nn.init``, rrelu's slopes: they call
        ``creation._gen``) follows vmap's ``randomness`` as well as it can: ``'error'``
        refuses, ``'same'`` draws once for the whole batch, ``'different'`` needs one draw
        per example, which only the loop over examples gives for such a draw. Every
        enclosing vmap has a say ('error' first). Random Functions never come here: their
        batching rules draw per example in one call (:func:`random_apply`)."""
        modes = {lvl.randomness for lvl in vmap_levels()}
        if "error" in modes:
            raise RuntimeError(RANDOMNESS_ERROR)
        if "different" in modes:
            raise VmapUnsupported("a random draw that is not a random Function, with randomness='different'")

    def process_inplace(self, fn: Any, self_: Any, args: tuple, kwargs: dict) -> Any:
        if isinstance(self_, BatchedTensor) or any_batched(args):
            from .batched_autograd import batched_inplace

            return batched_inplace(fn, self_, *args, **kwargs)
        return NotImplemented

    def example(self, shape: tuple, dtype: np.dtype) -> np.ndarray:
        """The read-only stand-in ``._data`` of a BatchedTensor with logical ``shape``."""
        key = (shape, dtype)
        ex = self._examples.get(key)
        if ex is None:
            ex = np.zeros(shape, dtype).view(_ExampleArray)
            ex.flags.writeable = False
            self._examples[key] = ex
        return ex


VmapLevel = BatchInterpreter  # the name batching rules and older code use


def vmap_levels() -> tuple:
    """The active vmap levels of this thread, outermost first."""
    return active(BatchInterpreter)


def push_level(batch_size: int, randomness: str) -> BatchInterpreter:
    """Enter a vmap level (innermost last)."""
    lvl = BatchInterpreter(len(vmap_levels()) + 1, batch_size, randomness)
    return push(lvl)  # type: ignore[return-value]


def pop_level(lvl: BatchInterpreter) -> None:
    """Leave ``lvl`` (and any vmap level left above it after an error)."""
    for x in vmap_levels():
        if x.depth >= lvl.depth:
            pop(x)


def current_level() -> BatchInterpreter | None:
    levels = vmap_levels()
    return levels[-1] if levels else None


def _value_read(what: str) -> Exception:
    if not vmap_levels():
        return RuntimeError(
            f"{what} on a tensor created inside vmap, after vmap returned: a BatchedTensor escaped "
            "(stored in a list, a global or an attribute). Return it from the function instead."
        )
    return VmapUnsupported(
        f"{what} reads the values of a batched tensor outside an autograd.Function "
        "(data-dependent Python or NumPy code)"
    )


# NumPy functions that look only at shapes and dtypes, which the stand-in has right
_METADATA_FUNCS = {np.result_type, np.shape, np.ndim, np.size, np.can_cast, np.min_scalar_type}


def _plain(a: Any) -> Any:
    return a.view(np.ndarray) if isinstance(a, _ExampleArray) else a


class _ExampleArray(np.ndarray):
    """``._data`` of a BatchedTensor: right shape and dtype, unreadable values."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        raise _value_read(f"numpy.{ufunc.__name__}")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in _METADATA_FUNCS:
            return func(*(_plain(a) for a in args), **kwargs)
        raise _value_read(f"numpy.{func.__name__}")

    def __getitem__(self, index: Any) -> Any:
        raise _value_read("indexing ._data")

    def __setitem__(self, index: Any, value: Any) -> None:
        raise _value_read("writing into ._data")

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise _value_read("._data")

    item = tolist = astype = copy = fill = tobytes = __bool__ = __float__ = __int__ = _refuse
    __index__ = __iter__ = __array__ = __reduce__ = __reduce_ex__ = _refuse


def _refused_error(what: str) -> Exception:
    if not vmap_levels():
        return _value_read(what)
    return VmapUnsupported(f"{what} on a batched tensor")


def _refused(what: str) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise _refused_error(what)

    return method


class BatchedTensor(Tensor):
    """A Tensor inside ``vmap``: logical shape outside, batched values inside.

    Attributes:
        _value (Tensor): the values, shape = logical shape with ``batch_size`` inserted at
            ``_bdim`` (itself a BatchedTensor of an outer level under nested vmap).
        _bdim (int): where the batch dimension is in ``_value``.
        _level (VmapLevel): the vmap call this tensor belongs to.

    Autograd state (``requires_grad``, ``grad_fn``, ``grad``...) is that of ``_value``.
    Reading values (``item()``, ``bool()``, ``numpy()``...) raises VmapUnsupported, which
    makes vmap fall back to a loop.

    Example:
        >>> import dyngrad
        >>> seen = []
        >>> def f(x):
        ...     seen.append((type(x).__name__, list(x.shape), list(x._value.shape)))
        ...     return x.sum()
        >>> dyngrad.func.vmap(f)(dyngrad.ones(4, 3))
        tensor([3., 3., 3., 3.])
        >>> seen
        [('BatchedTensor', [3], [4, 3])]
    """

    __slots__ = ("_value", "_bdim", "_level")
    _is_wrapper = True
    _value: Tensor
    _bdim: int
    _level: VmapLevel

    @property
    def _requires_grad(self) -> bool:
        return self._value._requires_grad

    @_requires_grad.setter
    def _requires_grad(self, v: bool) -> None:
        self._value._requires_grad = v

    @property
    def grad_fn(self) -> Any:
        return self._value.grad_fn

    @grad_fn.setter
    def grad_fn(self, v: Any) -> None:
        raise VmapUnsupported("setting grad_fn of a batched tensor")

    @property
    def _output_nr(self) -> int:  # type: ignore[override]
        return self._value._output_nr

    @property
    def requires_grad(self) -> bool:
        return self._value.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._value.requires_grad = value

    @property  # type: ignore[misc]  # read-only: a batched tensor's grad is its value's
    def grad(self) -> Tensor | None:
        g = self._value.grad
        return None if g is None else wrap_batched(g, self._bdim, self._level)

    def detach(self) -> Tensor:
        return wrap_batched(self._value.detach(), self._bdim, self._level)

    def _full_like(self, fill: Any, dtype: np.dtype) -> Tensor:
        """``fill`` shaped like this tensor and batched like it (``zeros_like`` & co. inside
        vmap), so that writing per-example values into it in place works (as in PyTorch)."""
        from .batched_autograd import _bottom, _rewrap_like

        return _rewrap_like(Tensor._make(np.full(_bottom(self)._data.shape, fill, dtype=dtype)), self)

    def detach_(self) -> Tensor:
        self._value.detach_()
        return self

    @property
    def data(self) -> Tensor:
        """Refused (PyTorch raises too): under vmap, ``VmapUnsupported``, so vmap runs ``f``
        once per example, where ``.data`` is the example's detached Tensor."""
        raise _refused_error(".data")

    @data.setter
    def data(self, value: Tensor) -> None:
        raise _refused_error("setting .data")

    numpy = _refused("numpy()")
    __array__ = _refused("NumPy conversion (np.asarray, a NumPy function)")
    item = _refused("item()")
    tolist = _refused("tolist()")
    __float__ = _refused("float()")
    __int__ = _refused("int()")
    __index__ = _refused("use as an index")
    __bool__ = _refused("bool() (an if/while on a tensor)")
    backward = _refused("backward()")
    register_hook = register_post_accumulate_grad_hook = _refused("a tensor hook")
    retain_grad = _refused("retain_grad()")
    _accumulator = __deepcopy__ = data_ptr = _shallow = _attach = _refused("this operation")

    def __repr__(self) -> str:
        return f"BatchedTensor(lvl={self._level.depth}, bdim={self._bdim}, value=\n{self._value!r})"


def wrap_batched(value: Tensor, bdim: int, level: VmapLevel) -> BatchedTensor:
    """A BatchedTensor of ``level`` over ``value`` whose batch dim is ``bdim``."""
    shape = value.shape
    bt = object.__new__(BatchedTensor)
    bt._data = level.example(shape[:bdim] + shape[bdim + 1 :], value._data.dtype)
    bt._value = value
    bt._bdim = bdim
    bt._level = level
    bt._grad = None
    bt._vc = value._vc
    bt._retains_grad = False
    bt._hooks = bt._post_acc_hooks = bt._acc = bt._base = None
    return bt


def _level_of(a: Any) -> VmapLevel | None:
    """The innermost vmap level of ``a``, or of the BatchedTensors in a list/tuple ``a``."""
    if isinstance(a, BatchedTensor):
        return a._level
    if type(a) in (list, tuple):
        best = None
        for x in a:
            lv = _level_of(x) if type(x) in (list, tuple, BatchedTensor) else None
            if lv is not None and (best is None or lv.depth > best.depth):
                best = lv
        return best
    return None


def _unwrap(a: Any, level: VmapLevel) -> tuple[Any, Any]:
    """(value, bdim) of ``a`` at ``level``; lists/tuples give a list of bdims."""
    if isinstance(a, BatchedTensor) and a._level is level:
        return a._value, a._bdim
    if type(a) in (list, tuple) and _level_of(a) is level:
        pairs = [_unwrap(x, level) for x in a]
        return type(a)(p[0] for p in pairs), tuple(p[1] for p in pairs)
    return a, None


def batched_apply(cls: type[Function], args: tuple, kwargs: dict) -> Any:
    """``cls.apply(*args, **kwargs)`` when some argument may be a BatchedTensor; returns
    ``NotImplemented`` when none is (the caller then applies ``cls`` normally)."""
    level = _level_of(args)  # the innermost level among the arguments (args is a tuple)
    for a in kwargs.values():
        if isinstance(a, BatchedTensor) and (level is None or a._level.depth > level.depth):
            level = a._level
    if level is None:
        return NotImplemented
    if kwargs:
        args, kwargs = cls._bind(args, kwargs)
    vals, dims = [], []
    for a in args:
        v, d = _unwrap(a, level)
        vals.append(v)
        dims.append(d)
    if any(isinstance(v, BatchedTensor) and v._level is level for v in kwargs.values()):
        kw_dims = {k: v._bdim for k, v in kwargs.items() if isinstance(v, BatchedTensor) and v._level is level}
        kwargs = {k: (v._value if k in kw_dims else v) for k, v in kwargs.items()}
    else:
        kw_dims = {}
    info = VmapInfo(level.batch_size, level.randomness, cls)
    rule = getattr(cls, "vmap", None)
    res: Any = NotImplemented
    if rule is not None and not kw_dims:
        res = rule(info, tuple(dims), *vals, **kwargs)
        if res is not NotImplemented and not (isinstance(res, tuple) and len(res) == 2):
            raise TypeError(
                f"{cls.__name__}.vmap must return (outputs, out_dims) (or NotImplemented), got "
                f"a {type(res).__name__}"
            )
    if res is NotImplemented:
        res = _loop(cls, level, vals, dims, kwargs, kw_dims)
    out, out_dims = res
    return _wrap_outputs(cls, out, out_dims, level)


RANDOMNESS_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' "
    "or 'different' randomness flags on vmap or perform the randomness operation out of vmap"
)


def random_apply(level: BatchInterpreter, cls: type[Function], args: tuple, kwargs: dict) -> Any:
    """A random Function at vmap ``level``, by its randomness mode (PyTorch's rules):

    * ``'error'``: RuntimeError;
    * ``'same'`` with no argument batched at this level: ``cls`` runs once below this level,
      and its unbatched result is shared by every example;
    * otherwise the batching rule ``cls.vmap(info, in_dims, *args)`` runs below this level,
      reading ``info.randomness``: for ``'different'`` it draws one sample per example in
      one call (a leading batch dim), for ``'same'`` with a batched argument it draws one
      example's worth or raises as PyTorch does.

    Below this level the outer vmap levels handle the call again, each by its own mode (so
    ``vmap(vmap(f, randomness='different'), randomness='same')`` differs along the inner
    dim only)."""
    if level.randomness == "error":
        raise RuntimeError(RANDOMNESS_ERROR)
    if kwargs:
        args, kwargs = cls._bind(args, kwargs)
    vals, dims = [], []
    for a in args:
        v, d = _unwrap(a, level)
        vals.append(v)
        dims.append(d)
    if any(isinstance(v, BatchedTensor) and v._level is level for v in kwargs.values()):
        raise VmapUnsupported(f"{cls.__name__}: a batched keyword-only argument of a random Function")
    if level.randomness == "same" and all(d is None for d in dims):
        return level.lowered(cls.apply, *vals, **kwargs)
    rule = cls.vmap
    if rule is None:
        raise RuntimeError(
            f"vmap: {cls.__name__} draws random numbers (random = True) but has no vmap rule; "
            "a random Function needs one to draw one sample per example"
        )
    info = VmapInfo(level.batch_size, level.randomness, cls)
    res = level.lowered(rule, info, tuple(dims), *vals, **kwargs)
    if res is NotImplemented or not (isinstance(res, tuple) and len(res) == 2):
        raise TypeError(f"{cls.__name__}.vmap must return (outputs, out_dims), got {type(res).__name__}")
    out, out_dims = res
    return _wrap_outputs(cls, out, out_dims, level)


def _wrap_outputs(cls: type[Function], out: Any, out_dims: Any, level: VmapLevel) -> Any:
    if isinstance(out, tuple):
        if not isinstance(out_dims, tuple):
            out_dims = (out_dims,) * len(out)
        if len(out_dims) != len(out):
            raise RuntimeError(
                f"{cls.__name__}.vmap returned {len(out)} outputs but {len(out_dims)} out_dims"
            )
        items = [_wrap_outputs(cls, o, d, level) for o, d in zip(out, out_dims)]
        return type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    if isinstance(out, list):
        return [_wrap_outputs(cls, o, out_dims, level) for o in out]
    if isinstance(out, Tensor) and out_dims is not None:
        if not isinstance(out_dims, int) or not -out.ndim <= out_dims < out.ndim:
            raise RuntimeError(
                f"{cls.__name__}.vmap returned an output of shape {list(out.shape)} with out_dims "
                f"{out_dims!r}: expected an int naming its batch dim (or None if not batched)"
            )
        if out.shape[out_dims] != level.batch_size:
            raise RuntimeError(
                f"{cls.__name__}.vmap returned an output of shape {list(out.shape)} whose dim "
                f"{out_dims} (out_dims) has size {out.shape[out_dims]}, not the batch size "
                f"{level.batch_size}"
            )
        return wrap_batched(out, out_dims % out.ndim, level)
    return out


def _slice(v: Any, d: Any, b: int, clone: bool) -> Any:
    if d is None:
        return v
    if isinstance(d, tuple):
        return type(v)(_slice(x, dx, b, clone) for x, dx in zip(v, d))
    s = v.select(d, b)
    return s.clone() if clone else s


def _loop(cls: type[Function], level: VmapLevel, vals: list, dims: list, kwargs: dict, kw_dims: dict) -> tuple:
    """Run ``cls`` once per example and stack the outputs along dim 0 (no batching rule)."""
    n = level.batch_size
    if n == 0:
        raise VmapUnsupported(f"{cls.__name__} has no batching rule and the batch is empty")
    name = cls.__name__
    level.fallbacks[name] = level.fallbacks.get(name, 0) + 1
    clone = not cls.trusted  # a user's forward may modify its inputs in place (mark_dirty)
    same = level.randomness == "same"
    if same:  # every example draws what the first drew, from every Generator
        from ..creation import rng_restore, rng_snapshot

        snap = rng_snapshot()
    results = []
    for b in range(n):
        if same:
            rng_restore(snap)
        sl = [_slice(v, d, b, clone) for v, d in zip(vals, dims)]
        kw = {k: (_slice(v, kw_dims[k], b, clone) if k in kw_dims else v) for k, v in kwargs.items()}
        results.append((sl, cls.apply(*sl, **kw)))
    first = results[0][1]
    if isinstance(first, tuple):
        outs = tuple(_stack_one(cls, [r[1][j] for r in results]) for j in range(len(first)))
        out, out_dims = tuple(o[0] for o in outs), tuple(o[1] for o in outs)
        inplace = [j for j, o in enumerate(first) if any(o is x for x in results[0][0])]
    else:
        out, out_dims = _stack_one(cls, [r[1] for r in results])
        inplace = [0] if any(first is x for x in results[0][0]) else []
    if inplace:  # forward modified an input (a clone of its slice): write the stack back
        return _write_back(cls, results[0][0], first, vals, dims, out, out_dims)
    return out, out_dims


def _stack_one(cls: type[Function], items: list) -> tuple[Any, Any]:
    first = items[0]
    if isinstance(first, Tensor):
        from ..ops import stack  # deferred: the ops are built on this module's caller

        return stack(items, 0), 0
    if all(i is None for i in items):
        return None, None
    if all(type(i) is type(first) and i == first for i in items):
        return first, None
    raise VmapUnsupported(f"{cls.__name__} returned a non-tensor output that differs between examples")


def _write_back(cls: type[Function], slices: list, first: Any, vals: list, dims: list, out: Any, out_dims: Any) -> tuple:
    outs = out if isinstance(out, tuple) else (out,)
    odims = out_dims if isinstance(out, tuple) else (out_dims,)
    firsts = first if isinstance(first, tuple) else (first,)
    new = list(outs)
    for j, o in enumerate(firsts):
        for k, s in enumerate(slices):
            if o is s:
                v, d = vals[k], dims[k]
                from ..ops import movedim

                v.copy_(movedim(outs[j], 0, d))  # the input's values become the results
                new[j] = v
                odims = odims[:j] + (d,) + odims[j + 1 :]
    return (tuple(new), odims) if isinstance(out, tuple) else (new[0], odims[0])


def any_batched(*groups: Any) -> bool:
    for g in groups:
        if isinstance(g, BatchedTensor):
            return True
        if isinstance(g, (tuple, list)) and any(isinstance(x, BatchedTensor) for x in g):
            return True
    return False
