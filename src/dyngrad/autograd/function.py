"""``autograd.Function``: the one mechanism every operation goes through.

A Function subclass defines static ``forward(ctx, *args)`` and ``backward(ctx,
*grad_outputs)`` (or ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``) and is
called through ``apply``. Defining the class registers it: ``__init_subclass__`` creates
its backward node class, named ``<Name>Backward``, whose instances are both the ``ctx``
passed to forward/backward and the ``grad_fn`` of the outputs.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..tensor import Tensor
from . import anomaly_mode, grad_mode, profiler
from .graph import _TENSOR, Node, SavedTensor, _seq, rebase_retain_grad
from .. import _backend as B

_TENSOR.append(Tensor)  # SavedTensor's class of the alias of a saved output (graph.py)

# a subclass defining one of these has formulas of its own: its parent's array form of backward
# does not apply to it (Function.__init_subclass__, set_array_backward)
_FORMULA_KEYS = ("forward", "setup_context", "backward", "vjp", "derivative")

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable", "InplaceFunction",
           "TransformUnsupported"]

_state = grad_mode.state  # the thread's context (autograd/_context.py)
_anomaly = anomaly_mode.any_on  # process-wide count: a plain attribute, cheap to check
_prof = profiler.state


class FunctionCtx:
    """What ``forward`` can tell ``backward`` (``ctx``). Also any attribute you set.

    Example:
        >>> import dyngrad
        >>> class Scale(dyngrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x, factor):
        ...         ctx.save_for_backward(x)     # tensors: save_for_backward
        ...         ctx.factor = factor          # other values: plain attributes
        ...         return x * factor
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         print(ctx.needs_input_grad)
        ...         return g * ctx.factor, None
        >>> x = dyngrad.ones(2, requires_grad=True)
        >>> Scale.apply(x, 3.0).sum().backward()
        (True, False)
        >>> x.grad
        tensor([3., 3.])
    """

    _to_save: tuple = ()
    _dirty: tuple = ()
    _non_diff: tuple = ()
    needs_input_grad: tuple = ()
    if TYPE_CHECKING:  # provided by Node, the other base of BackwardCFunction
        _saved: tuple | None

        def name(self) -> str: ...

    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Save tensors (or None) for backward; read them back with ``saved_tensors``.

        Saved tensors are version-checked: modifying one in place before backward raises.
        Raises:
            TypeError: for anything that is not a Tensor or None.
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save Tensors or None, but argument {i} is of "
                    f"type {type(t).__name__}; store other values as ctx attributes"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Save tensors for a forward-mode rule (``jvp``)."""
        self._fwd_saved = tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare the inputs that forward modified in place; forward must return them."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that are not differentiable (indices, masks): they do not require
        grad, and their gradient in backward is always zeros."""
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward receives None (not zeros) for outputs that got no gradient."""
        self._materialize_grads = bool(value)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward``, in order.

        Raises:
            RuntimeError: after the graph was freed by a backward without retain_graph, or
                when a saved tensor was modified in place since it was saved.
        """
        saved = self._saved
        if saved is None:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (or directly access saved "
                f"tensors of {self.name()} after they have already been freed). Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved tensors after calling "
                "backward."
            )
        return tuple(None if s is None else s.unpack(self) for s in saved)

    @property
    def saved_variables(self) -> tuple:
        """Deprecated alias of :attr:`saved_tensors` (PyTorch warns too)."""
        import warnings

        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors


class BackwardCFunction(FunctionCtx, Node):
    """Base of the generated ``<Name>Backward`` node classes (ctx and grad_fn in one)."""

    _forward_cls: type[Function]

    def apply(self, *grad_outputs: Any) -> Any:
        return self._forward_cls._backward_impl(self, *grad_outputs)

    @property
    def _arg_names(self) -> tuple:
        return self._forward_cls._arg_names

    # ``grad_fn._saved_<name>`` / ``_raw_saved_<name>`` are per-class properties (see
    # _saved_properties), not a ``__getattr__``: a class with ``__getattr__`` defeats
    # CPython's attribute specialisation on every ctx/node attribute read of the hot path.


def _saved_property(name: str, raw: bool) -> property:
    def get(self: Any) -> Any:
        from .ledger import saved_attr

        return saved_attr(self, name, raw=raw)

    get.__name__ = f"_{'raw_' if raw else ''}saved_{name}"
    get.__doc__ = f"The value saved for backward under ``{name}`` (PyTorch's ``grad_fn.{get.__name__}``)."
    return property(get)


def _saved_properties(sig: inspect.Signature | None) -> dict:
    """``_saved_<name>`` and ``_raw_saved_<name>`` for each parameter of forward and for
    PyTorch's names ``self``, ``other``, ``result``, ``tensors`` and its names of a second
    argument (``exponent``, ``mat2``, ``vec``, ``vec2``; ledger.saved_attr)."""
    names = {"self", "other", "result", "tensors", "exponent", "mat2", "vec", "vec2"}
    if sig is not None:
        names.update(p.name for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
    props = {}
    for n in names:
        props[f"_saved_{n}"] = _saved_property(n, False)
        props[f"_raw_saved_{n}"] = _saved_property(n, True)
    return props


def _forward_called_directly(cls: type, impl: Callable) -> Callable:
    @functools.wraps(impl)
    def forward(*args: Any, **kwargs: Any) -> Any:
        if not args or not isinstance(args[0], FunctionCtx):
            raise RuntimeError(
                f"{cls.__name__}.forward was called directly, which records no graph (backward "
                f"would never run). Call {cls.__name__}.apply(...) instead."
            )
        return impl(*args, **kwargs)

    return staticmethod(forward)


class Function:
    """Base class of differentiable operations (PyTorch's ``torch.autograd.Function``).

    Subclass it with static ``forward(ctx, *args, **kwargs)`` and ``backward(ctx,
    *grad_outputs)``; call it as ``MyFn.apply(*args)``. ``backward`` gets one gradient per
    output (Tensors) and returns one per forward input (a Tensor of the input's shape, or
    one that broadcasts to it, or None). It runs under ``no_grad`` unless the caller asked
    for ``create_graph=True``, so a backward written with dyngrad ops is differentiable.

    Class attributes:
        strict_shapes (bool): if True, a gradient whose shape differs from its input's is an
            error instead of being summed down (see :func:`set_strict_shapes`).
        trusted (bool): False by default. True says the Function keeps the contracts every
            built-in op keeps: forward returns fresh output tensors, modifies no input
            without ``mark_dirty``, stores no tensors as ctx attributes, takes no tensors
            nested in lists, and a ``jvp`` returns tangents of its outputs' shapes. ``apply``
            then skips the checks that catch those mistakes (and takes a short path when
            grad mode is off), and broadcast gradients are reduced even in strict mode. Built-in
            ops set it through their base class (``ops._bases.Op``): there is one recording
            path, the same for users' Functions and built-in ones. Set it on your own
            Function only once ``dyngrad check`` passes on it.
        vmap (staticmethod): optional batching rule for :func:`dyngrad.func.vmap`,
            ``vmap(info, in_dims, *args) -> (outputs, out_dims)`` as in PyTorch: ``args``
            are the unwrapped inputs, ``in_dims[i]`` is where the batch dim of input ``i``
            is (None: not batched), ``info.batch_size`` its size. Without one, vmap runs
            the Function once per example (and warns). A rule that cannot run even so
            raises :class:`TransformUnsupported`.
        random (bool): False by default. True says forward draws random numbers (the
            built-in random ops of ``ops/random.py`` set it). Inside vmap every level then
            handles the call by its ``randomness`` mode, even when no argument is batched:
            ``'error'`` raises, ``'same'`` runs the Function once for the whole batch (its
            rule is called only when an argument is batched), ``'different'`` calls the
            ``vmap`` rule, which must draw one sample per example.

    Example:
        >>> import dyngrad
        >>> class Square(dyngrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, grad_output):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * grad_output      # d(x^2)/dx = 2x
        >>> x = dyngrad.tensor([1.0, 3.0], requires_grad=True)
        >>> y = Square.apply(x)
        >>> y.grad_fn.name()
        'SquareBackward'
        >>> y.sum().backward()
        >>> x.grad
        tensor([2., 6.])
    """

    _backward_cls: type[BackwardCFunction]
    _arg_names: tuple = ()
    _sig: inspect.Signature | None = None
    _has_setup_context = False
    trusted: bool = False  # see the class docstring: built-in ops set True (one recording path)
    strict_shapes: bool | None = None
    _node_name: str | None = None
    vmap: Any = None  # batching rule ``vmap(info, in_dims, *args) -> (outputs, out_dims)``
    random: bool = False  # forward draws random numbers (see the class docstring)
    generate_vmap_rule = False  # accepted for PyTorch compatibility; see docs/transforms.md
    # Optional array form of ``backward`` for first-order passes (engine invariant 6), given
    # with :func:`set_array_backward`; inherited only by subclasses that redefine nothing.
    _backward_arrays: Any = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        d = cls.__dict__
        if "vjp" in d and "backward" not in d:
            cls.backward = d["vjp"]  # type: ignore[method-assign]
        cls._has_setup_context = cls.setup_context is not Function.setup_context
        fwd = d.get("forward")
        if fwd is not None:
            impl = fwd.__func__ if isinstance(fwd, staticmethod) else fwd
            cls._forward_impl = staticmethod(impl)  # type: ignore[method-assign]
            try:
                sig = inspect.signature(impl)
            except (TypeError, ValueError):  # pragma: no cover
                sig = None
            params = list(sig.parameters.values()) if sig else []
            if not cls._has_setup_context and params:
                params = params[1:]  # drop ctx
                cls.forward = _forward_called_directly(cls, impl)  # type: ignore[method-assign]
            cls._arg_names = tuple(
                p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            ) or tuple(p.name for p in params)
            cls._sig = sig
        bwd = d.get("backward")
        if bwd is not None:
            cls._backward_impl = staticmethod(  # type: ignore[method-assign]
                bwd.__func__ if isinstance(bwd, staticmethod) else bwd
            )
        if cls._backward_arrays is not None and any(k in d for k in _FORMULA_KEYS):
            cls._backward_arrays = None  # the array form belongs to the parent's formulas
        name = cls._node_name or f"{cls.__name__}Backward"
        cls._backward_cls = type(name, (BackwardCFunction,), {
            "_forward_cls": cls, "_name": name,
            # (a subclass defined after its parent's set_array_backward inherits the plain function)
            "_backward_arrays": None if cls._backward_arrays is None else staticmethod(cls._backward_arrays),
            **_saved_properties(cls._sig)})
        if cls.strict_shapes is not None:
            cls._backward_cls._strict = cls.strict_shapes  # type: ignore[attr-defined]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            f"{type(self).__name__} is an autograd.Function: do not instantiate and call it; "
            f"call {type(self).__name__}.apply(...) instead."
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """Compute the outputs from the inputs (runs under ``no_grad``)."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        """Optional: with a ctx-less ``forward(*args)``, save what backward needs here."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Return one gradient per forward input (None where there is none)."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @staticmethod
    def _forward_impl(*args: Any) -> Any:  # replaced per subclass
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def _backward_impl(ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @classmethod
    def vjp(cls, ctx: Any, *grad_outputs: Any) -> Any:
        """Alias of ``backward`` (the vector-Jacobian product)."""
        return cls._backward_impl(ctx, *grad_outputs)

    @classmethod
    def _bind(cls, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        sig = cls._sig
        if sig is None:
            return args, kwargs
        try:
            bound = sig.bind(None, *args, **kwargs) if not cls._has_setup_context else sig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{cls.__name__}.apply: {e}") from None
        bound.apply_defaults()
        pos = bound.args if cls._has_setup_context else bound.args[1:]
        return tuple(pos), dict(bound.kwargs)

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` on ``args`` and, when grad mode is on and some Tensor argument
        requires grad, record a ``<Name>Backward`` node as the outputs' ``grad_fn``.

        Keyword arguments are bound to ``forward``'s signature.
        Raises:
            TypeError: a Tensor that requires grad nested inside a list/tuple argument (it
                would silently get no gradient); pass tensors as separate arguments.
            RuntimeError: in-place change of a leaf that requires grad (``mark_dirty``).
        """
        stack = _state.interpreters
        if stack:  # a transform is active (vmap, forward mode): transforms/interpreter.py
            for interp in reversed(stack):
                out = interp.process(cls, args, kwargs)
                if out is not NotImplemented:
                    return out
        kw: dict[str, Any] = _NO_KWARGS  # (shared and never written: no dict per call)
        if kwargs:
            args, kw = cls._bind(args, kwargs)
            if kw and _state.enabled:
                _check_keyword_only(cls, kw)
        bcls = cls._backward_cls
        ctx = bcls.__new__(bcls)
        enabled = _state.enabled
        if not enabled and cls.trusted and not _prof.active:
            # grad mode off (e.g. inside backward): nothing to record, no mode to switch
            ctx.needs_input_grad = (False,) * len(args)
            try:
                if cls._has_setup_context:
                    out = cls._forward_impl(*args, **kw)
                    cls.setup_context(ctx, args, out)
                    return out
                if kw:
                    return cls._forward_impl(ctx, *args, **kw)
                return cls._forward_impl(ctx, *args)
            except ValueError as e:  # (no cost unless raised)
                _broadcast_error(cls, args, e)
        requires = False
        if enabled:
            needs = []
            for a in args:
                if isinstance(a, Tensor):
                    if a._base is not None and a._vc[0] != a._view_ver:
                        a._refresh_view()  # a view whose base changed in place since
                    needs.append(a._requires_grad)
                else:
                    if type(a) in (list, tuple) and not cls.trusted:
                        _check_nested(cls, a)
                    needs.append(False)
            requires = True in needs
        if requires:
            ctx.needs_input_grad = tuple(needs)
            ctx._seq = next(_seq)
        else:
            ctx.needs_input_grad = (False,) * len(args)
        _state.enabled = False
        try:
            if _prof.active:  # profiler on: time forward (one boolean check when off)
                out = profiler.run_forward(cls, ctx, args, kw)
            elif cls._has_setup_context:
                out = cls._forward_impl(*args, **kw)
                cls.setup_context(ctx, args, out)
            elif kw:
                out = cls._forward_impl(ctx, *args, **kw)
            else:
                out = cls._forward_impl(ctx, *args)
        except ValueError as e:
            if cls.trusted:
                _broadcast_error(cls, args, e)
            raise
        finally:
            _state.enabled = enabled
        is_tuple = type(out) is tuple
        outs = out if is_tuple else (out,)
        dirty = ctx._dirty
        if not requires:
            if dirty or cls.trusted:
                return out
            if any(o is a for o in outs for a in args if isinstance(o, Tensor)):
                outs = tuple(o.detach() if any(o is a for a in args) else o for o in outs)
                return outs if is_tuple else outs[0]
            return out
        if _anomaly.count and anomaly_mode.state.anomaly:  # forward stack, for anomaly mode
            anomaly_mode.record_site(ctx)
        return _record(cls, ctx, args, outs, is_tuple, dirty)


def set_array_backward(cls: type[Function], fn: Callable) -> None:
    """Give ``cls`` (and its subclasses that keep its formulas) an array form of its backward
    for first-order passes: ``fn(ctx, *grad_arrays)`` gets one ndarray (or None) per output
    and returns what ``backward`` returns with ndarrays in place of Tensors, or
    ``NotImplemented`` to have ``backward`` run instead. It reads saved tensors with
    :func:`saved_arrays`. The engine validates its result as ``backward``'s (engine.py,
    invariants 3 and 6). Any Function may have one, through this same call."""
    stack = [cls]
    impl = cls._backward_impl
    while stack:
        c = stack.pop()
        if c is cls or (c._backward_impl is impl and c.__dict__.get("_backward_arrays") is None and not any(
                k in c.__dict__ for k in _FORMULA_KEYS)):
            c._backward_arrays = staticmethod(fn)
            c._backward_cls._backward_arrays = staticmethod(fn)
            stack.extend(c.__subclasses__())


def saved_arrays(ctx: Any) -> tuple | None:
    """The ndarrays of ``ctx.saved_tensors``, with the same checks (graph freed, modified in
    place, detached in place); None when some saved value can only be unpacked as a Tensor
    (a pack hook holds it, a transform's wrapper) or is not a NumPy array (Dask, CuPy:
    their gradients run the Tensor formulas): the array form then returns NotImplemented."""
    saved = ctx._saved
    if saved is None:
        return ctx.saved_tensors  # raises: the graph was freed
    out: list = []
    for s in saved:
        if s is None:
            out.append(None)
            continue
        d = s.unpack_data(ctx)
        if type(d) is not np.ndarray:  # None (only a Tensor will do), or a Dask/CuPy array
            return None
        out.append(d)
    return tuple(out)


def size_mismatch(a: tuple, b: tuple) -> str | None:
    """PyTorch's message for shapes ``a`` and ``b`` that do not broadcast ("The size of tensor
    a (3) must match the size of tensor b (4) at non-singleton dimension 0", the first
    mismatch from the right), or None when they broadcast."""
    n = max(len(a), len(b))
    for d in range(n - 1, -1, -1):
        sa = a[d - n + len(a)] if d - n + len(a) >= 0 else 1
        sb = b[d - n + len(b)] if d - n + len(b) >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            return f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at non-singleton dimension {d}"
    return None


def _broadcast_error(cls: type, args: tuple, e: ValueError) -> None:
    """A built-in op's NumPy broadcasting failure as PyTorch reports it (:func:`size_mismatch`
    of the first two tensor arguments that do not broadcast); any other ValueError is
    re-raised unchanged."""
    if "broadcast" not in str(e):
        raise e
    shapes = [tuple(a._data.shape) for a in args if isinstance(a, Tensor)]
    for i in range(len(shapes)):
        for j in range(i + 1, len(shapes)):
            msg = size_mismatch(shapes[i], shapes[j])
            if msg is not None:
                raise RuntimeError(f"{msg} ({cls.__name__}: shapes {list(shapes[i])} and {list(shapes[j])})") from None
    raise e


def _check_keyword_only(cls: type, kw: dict) -> None:
    """A keyword-only parameter of ``forward`` gets no edge in the graph: refuse a Tensor
    that requires grad there instead of silently giving it no gradient."""
    for name, v in kw.items():
        if isinstance(v, Tensor) and v._requires_grad:
            raise TypeError(
                f"{cls.__name__}.apply: keyword-only argument '{name}' of {cls.__name__}.forward "
                "is a Tensor that requires grad, but only positional arguments are tracked "
                "(it would get no gradient). Make it a positional parameter."
            )


def _check_nested(cls: type, seq: Any) -> None:
    stack = [seq]
    while stack:
        s = stack.pop()
        for item in s:
            if isinstance(item, Tensor) and item._requires_grad:
                raise TypeError(
                    f"{cls.__name__}.apply got a Tensor that requires grad inside a "
                    f"{type(s).__name__}; autograd does not track tensors nested in containers, so "
                    "it would silently get no gradient. Pass each tensor as its own argument."
                )
            if type(item) in (list, tuple):
                stack.append(item)


def _record_one(cls: type, ctx: Any, o: Any, shared: tuple | None = None) -> Any:
    """``_record`` for the common case: a built-in op with one fresh floating output.
    ``shared``: a producer's ``_output_meta`` (one ``(shape, dtype)``), reused as this node's
    when the output has that shape and dtype (no new metadata tuples per op)."""
    if not isinstance(o, Tensor):
        ctx._output_meta = (None,)
        return o
    d = o._data
    if o.grad_fn is not None:
        o = o.detach()
    dt = d.dtype
    if (dt.kind if type(d) is np.ndarray else B.kind(d)) != "f":
        raise RuntimeError(
            f"{cls.__name__}.forward returned a {o.dtype.name} tensor; only floating point "
            "outputs can require grad. Mark it with ctx.mark_non_differentiable()."
        )
    o.grad_fn = ctx
    o._output_nr = 0
    o._requires_grad = True
    sh = d.shape
    if shared is not None and shared[0][1] is dt and shared[0][0] == sh:
        ctx._output_meta = shared
    else:
        ctx._output_meta = ((sh, dt),)
    to_save = ctx._to_save
    if to_save:
        saved = []
        for t in to_save:
            saved.append(None if t is None else SavedTensor(t, t is o, 0))
        ctx._saved = tuple(saved)
        ctx._to_save = ()
    return o


_NO_EDGE = (None, 0)  # the edge of an input that needs no gradient (shared, immutable)
_NO_KWARGS: dict = {}  # apply's keyword arguments when none were given (read only)
_NO_GRAD_META = ((), None)  # _input_meta of a tensor input that needs no gradient (built-in ops)


def _record(cls: type[Function], ctx: Any, args: tuple, outs: tuple, is_tuple: bool, dirty: tuple) -> Any:
    """Connect the outputs of ``forward`` to the node ``ctx``."""
    if cls.trusted and not is_tuple and not dirty and not ctx._non_diff:
        # the common case, built-in ops: one fresh output (see _record_one)
        fast_edges = []
        imeta: list[tuple[Any, Any] | None] = []
        # (shape, dtype) of an input: the producer's own record of it (its _output_meta entry,
        # an immutable tuple) when the input still has that shape and dtype, so a chain of ops
        # shares one metadata tuple instead of making two (and a shape tuple) per op
        shared = None
        for a, needed in zip(args, ctx.needs_input_grad):
            if needed:
                fn = a.grad_fn
                if fn is None:
                    fn = a._accumulator()
                    nr = 0
                else:
                    nr = a._output_nr
                fast_edges.append((fn, nr))
                d = a._data
                om = fn._output_meta
                try:
                    m = om[nr]
                except IndexError:  # (a node without output metadata)
                    m = None
                if m is None or m[1] is not d.dtype or m[0] != d.shape:
                    m = (d.shape, d.dtype)
                elif shared is None and len(om) == 1:
                    shared = om
                imeta.append(m)
            else:
                # (the shape and dtype of an input without an edge are never read: engine._validate
                # drops its gradient before; a shared marker, not one more GC-tracked tuple per op)
                fast_edges.append(_NO_EDGE)
                imeta.append(_NO_GRAD_META if isinstance(a, Tensor) else None)
        ctx.next_functions = tuple(fast_edges)
        ctx._input_meta = shared if shared is not None and len(imeta) == 1 else tuple(imeta)
        o = outs[0]
        if type(o) is not Tensor or o.grad_fn is not None:
            return _record_one(cls, ctx, o, shared)
        # _record_one's body, inline for a fresh plain Tensor (one Python call less per op)
        d = o._data
        dt = d.dtype
        if (dt.kind if type(d) is np.ndarray else B.kind(d)) != "f":
            return _record_one(cls, ctx, o, shared)  # (raises)
        o.grad_fn = ctx
        o._output_nr = 0
        o._requires_grad = True
        sh = d.shape
        if shared is not None and shared[0][1] is dt and shared[0][0] == sh:
            ctx._output_meta = shared
        else:
            ctx._output_meta = ((sh, dt),)
        to_save = ctx._to_save
        if to_save:
            kept = []
            for t in to_save:
                kept.append(None if t is None else SavedTensor(t, t is o, 0))
            ctx._saved = tuple(kept)
            ctx._to_save = ()
        return o
    edges = []
    meta: list[tuple[Any, Any] | None] = []
    for a, needed in zip(args, ctx.needs_input_grad):
        if needed:
            fn = a.grad_fn
            edges.append((fn, a._output_nr) if fn is not None else (a._accumulator(), 0))
            d = a._data
            meta.append((d.shape, d.dtype))
        elif isinstance(a, Tensor):
            edges.append(_NO_EDGE)
            d = a._data
            meta.append((d.shape, d.dtype))
        else:
            edges.append(_NO_EDGE)
            meta.append(None)
    ctx.next_functions = tuple(edges)
    ctx._input_meta = tuple(meta)
    builtin = cls.trusted
    non_diff = ctx._non_diff
    new_outs = []
    ometa: list[tuple[Any, Any] | None] = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            new_outs.append(o)
            ometa.append(None)
            continue
        if dirty and any(o is d for d in dirty):
            if o._requires_grad and o.grad_fn is None and not _is_local_leaf(o):
                raise RuntimeError(
                    f"{cls.__name__}: a leaf Variable that requires grad is being used in an "
                    "in-place operation (mark_dirty). Clone it first, or do this under no_grad()."
                )
        elif o.grad_fn is not None or (not builtin and any(o is a for a in args)):
            o = o.detach()  # an input returned as is: a new alias with its own history
        if non_diff and any(o is n for n in non_diff):
            new_outs.append(o)
            ometa.append((o._data.shape, o._data.dtype))
            continue
        if (o._data.dtype.kind if type(o._data) is np.ndarray else B.kind(o._data)) != "f":
            raise RuntimeError(
                f"{cls.__name__}.forward returned a {o.dtype.name} tensor as output {i}; only "
                "floating point outputs can require grad. Mark it with "
                "ctx.mark_non_differentiable()."
            )
        old_fn, old_nr = o.grad_fn, o._output_nr
        o.grad_fn = ctx
        o._output_nr = i
        o._requires_grad = True
        if o._retains_grad:  # a dirty input keeps retain_grad on its new history
            rebase_retain_grad(o, old_fn, old_nr)
        if dirty and o._base is not None and any(o is d for d in dirty):
            o._rebase_dirty_view(cls.__name__)  # the base records the change (CopySlices)
        elif not builtin and not (dirty and any(o is d for d in dirty)) and any(
                isinstance(a, Tensor) and isinstance(a._data, np.ndarray) and isinstance(o._data, np.ndarray)
                and np.may_share_memory(o._data, a._data) for a in args):
            # a view of an input (or an input returned as is): an in-place change of it would
            # bypass this Function's backward, so it is refused, as PyTorch (tensor.py)
            o._nograd_view = 2  # type: ignore[attr-defined]  # a slot of Tensor (tensor.py)
        new_outs.append(o)
        ometa.append((o._data.shape, o._data.dtype))
    ctx._output_meta = tuple(ometa)
    if dirty or non_diff:  # they hold outputs: drop them, or out -> ctx -> out is a cycle
        ctx._dirty = ctx._non_diff = ()
    to_save = ctx._to_save
    if to_save:
        saved: list[SavedTensor | None] = []
        for t in to_save:
            if t is None:
                saved.append(None)
                continue
            nr = -1
            for j, o in enumerate(new_outs):
                if o is t:
                    nr = j
                    break
            saved.append(SavedTensor(t, nr >= 0, nr))
        ctx._saved = tuple(saved)
        ctx._to_save = ()
    if not cls.trusted:
        for k, v in ctx.__dict__.items():
            if isinstance(v, Tensor) and k != "_metadata":
                warnings.warn(
                    f"{cls.__name__}.forward stored a Tensor as ctx.{k}. Tensors kept as ctx "
                    "attributes are not version-checked, break double backward and keep memory "
                    "alive (a reference cycle when it is an output); use "
                    "ctx.save_for_backward() instead.",
                    stacklevel=3,
                )
    return tuple(new_outs) if is_tuple else new_outs[0]


def _is_local_leaf(t: Tensor) -> bool:
    """A leaf that an interpreter made to stand for a real input (forward mode's local
    leaves, transforms/dual.py), not a user's: modifying it in place is the in-place op on
    the real input. Asked of the interpreters the running call was lowered past."""
    return any(i.owns_leaf(t) for i in _state.resume_stack or ())


class InplaceFunction(Function):
    """Base for Functions that may work in place (PyTorch's
    ``torch.autograd.function.InplaceFunction``): a :class:`Function` whose instances carry an
    ``inplace`` flag for ``forward`` to honour (mark the modified input with ``ctx.mark_dirty``).

    Derivative: whatever the subclass's ``backward`` returns.

    Args:
        inplace (bool): whether the Function should modify its input. Default: ``False``.
    Raises:
        Nothing itself; ``apply`` raises what :class:`Function` raises (e.g. RuntimeError for an
            in-place op on a leaf that requires grad).

    Example:
        >>> import dyngrad
        >>> from dyngrad.autograd.function import InplaceFunction
        >>> class Double(InplaceFunction):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         return x * 2
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         return g * 2
        >>> Double(inplace=True).inplace, Double.apply(dyngrad.tensor([1.0, 3.0]))
        (True, tensor([2., 6.]))
    """

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace


class _DelayedErrorBackward(Node):
    _name = "DelayedError"

    def __init__(self, msg: str, edges: tuple) -> None:
        super().__init__()
        self.msg = msg
        self.next_functions = edges

    def apply(self, *grads: Any) -> Any:
        raise RuntimeError(self.msg)


def once_differentiable(fn: Callable) -> Callable:
    """Decorate ``backward`` that cannot itself be differentiated (it uses NumPy directly,
    say). It then always runs under ``no_grad``; differentiating its result (double
    backward) raises RuntimeError instead of silently returning wrong zeros.

    Args:
        fn: the ``backward`` staticmethod to wrap.
    Returns:
        Callable: ``fn`` running under ``no_grad``, whose results raise on a second derivative.

    Raises:
        RuntimeError: (from the second backward) differentiating the result of the wrapped ``backward``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.autograd.function import once_differentiable
        >>> class Cube(dyngrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return dyngrad.from_numpy(g.detach().numpy() * 3 * x.detach().numpy() ** 2)
        >>> x = dyngrad.tensor([2.0], requires_grad=True)
        >>> (g,) = dyngrad.autograd.grad((Cube.apply(x) ** 2).sum(), x, create_graph=True)
        >>> g.sum().backward()
        Traceback (most recent call last):
        ...
        RuntimeError: trying to differentiate twice a function that was marked with @once_differentiable (CubeBackward)...
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *grads: Any) -> Any:
        enabled = _state.enabled
        _state.enabled = False
        try:
            result = fn(ctx, *grads)
        finally:
            _state.enabled = enabled
        if not enabled or not any(isinstance(g, Tensor) and g._requires_grad for g in grads):
            return result
        edges = tuple(
            (g.grad_fn, g._output_nr) if g.grad_fn is not None else (g._accumulator(), 0)
            for g in grads
            if isinstance(g, Tensor) and g._requires_grad
        )
        node = _DelayedErrorBackward(
            f"trying to differentiate twice a function that was marked with "
            f"@once_differentiable ({getattr(ctx, 'name', lambda: '?')()})",
            edges,
        )
        single = not isinstance(result, tuple)
        res = (result,) if single else result
        out = []
        for r in res:
            if isinstance(r, Tensor):
                r = r.detach()
                r.grad_fn = node
                r._requires_grad = True
            out.append(r)
        return out[0] if single else tuple(out)

    wrapper._once_differentiable = True  # type: ignore[attr-defined]
    return wrapper


class TransformUnsupported(RuntimeError):
    """The active transform cannot express this call, not even one Function call at a time
    (a rule that refuses, an index whose values decide a shape, plain code reading the values
    a transform holds). The transform's public face catches it and runs the user's function
    without the transform: ``func.vmap`` runs it once per example, with a warning giving this
    message. Defined here, with the Function protocol, so that ops and the layers below the
    transforms can refuse without naming a transform."""
