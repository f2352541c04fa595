"""Tensor creation: from data, filled, ranges; and the random number :class:`Generator`
(never NumPy's global random state). The random draws themselves (``rand``, ``randn``,
``normal``, ...) are Functions in ``ops/random.py``, so that transforms see them."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from . import _backend as B
from .autograd.grad_mode import state as _ctx
from .tensor import Tensor, check_device

__all__ = [
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
    "linspace", "eye", "zeros_like", "ones_like", "full_like", "empty_like",
    "manual_seed", "seed", "initial_seed", "Generator", "default_generator", "get_rng_state",
    "set_rng_state", "scalar_tensor", "from_dask", "compute",
]


class Generator:
    """A random number generator (NumPy's PCG64 behind PyTorch's API).

    Random values do not match PyTorch's bit for bit (a different algorithm); seeding makes
    them reproducible within dyngrad. Pass one as ``generator=`` to the sampling functions
    (``rand``, ``randn``, ``randint``, ``randperm``, ``bernoulli``, ``normal``, the in-place
    fills such as ``uniform_``). A new generator starts from a fixed seed, as PyTorch's.

    Args:
        device (str or device, optional): only ``'cpu'``. Default: ``'cpu'``.
    Raises:
        RuntimeError: for a device other than the CPU and meta.

    Example:
        >>> import dyngrad
        >>> g = dyngrad.Generator().manual_seed(0)
        >>> a = dyngrad.rand(3, generator=g)
        >>> b = dyngrad.rand(3, generator=g.manual_seed(0))
        >>> bool(dyngrad.equal(a, b)), g.initial_seed()
        (True, 0)
    """

    def __init__(self, device: Any = "cpu") -> None:
        check_device(device)
        self._seed = 67280421310721
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        _generators.add(self)

    def manual_seed(self, seed: int) -> Generator:
        """Reseed; returns self. As PyTorch's: a seed in ``[-2**63, 2**64)``, a negative one
        taken modulo ``2**64`` (``initial_seed()`` then reports that), others a ValueError."""
        s = int(seed)
        if not -(2**63) <= s < 2**64:
            raise ValueError(f"manual_seed: seed {s} is out of range: a seed must be in [-2**63, 2**64) "
                             "(PyTorch: 'Overflow when unpacking long long')")
        self._seed = s % 2**64
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self) -> int:
        s = int(np.random.SeedSequence().entropy % (2**63))
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The state as a uint8 tensor (restorable with ``set_state``)."""
        import json

        raw = json.dumps(self._rng.bit_generator.state).encode()
        return Tensor._make(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, state: Tensor) -> Generator:
        import json

        self._rng.bit_generator.state = json.loads(bytes(state._data.astype(np.uint8)).decode())
        return self

    @property
    def rng(self) -> np.random.Generator:
        return self._rng


_generators: weakref.WeakSet = weakref.WeakSet()  # every live Generator (see rng_snapshot)
default_generator = Generator()


def rng_snapshot() -> list:
    """The state of every live Generator (the default one and the user's), for
    :func:`rng_restore`: what vmap replays so that ``randomness='same'`` run as a loop over
    examples (or over chunks) gives each example the same draws whichever Generator a
    draw names, and what ``'error'`` compares to see that the loop drew."""
    return [(g, g._rng, g._rng.bit_generator.state) for g in list(_generators)]


def rng_restore(snapshot: list) -> None:
    """Put every Generator of ``snapshot`` back in its state then (a reseed since is undone)."""
    for g, rng, state in snapshot:
        g._rng = rng
        rng.bit_generator.state = state


def rng_moved(snapshot: list) -> bool:
    """Whether some Generator of ``snapshot`` drew (or was reseeded) since."""
    return any(g._rng is not rng or rng.bit_generator.state != state for g, rng, state in snapshot)


def manual_seed(seed: int) -> Generator:
    """Seed the default generator, so ``rand``/``randn``/``randint``/dropout draw the same
    numbers again.

    Args:
        seed (int): the seed.
    Returns:
        Generator: the default generator (``dyngrad.default_generator``).
    Raises:
        ValueError: a seed that is not an integer, or one outside ``[-2**63, 2**64)``
            (as PyTorch; a negative seed is taken modulo ``2**64``, as PyTorch).

    Example:
        >>> import dyngrad
        >>> _ = dyngrad.manual_seed(0); a = dyngrad.randn(3)
        >>> _ = dyngrad.manual_seed(0); b = dyngrad.randn(3)
        >>> bool(dyngrad.equal(a, b))
        True
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from fresh OS entropy (non-deterministic) and return the seed.

    Returns:
        int: the new seed, in ``[0, 2**63)`` (what :func:`initial_seed` reports after).
    Raises:
        Nothing: it cannot fail.

    Example:
        >>> import dyngrad
        >>> s = dyngrad.seed()
        >>> dyngrad.initial_seed() == s
        True
    """
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with (``manual_seed`` or ``seed``).

    Before any seeding it is 67280421310721, ``torch.Generator()``'s default (PyTorch's
    process-wide default generator starts from a random seed instead).

    Returns:
        int: the seed.
    Raises:
        Nothing: it cannot fail.

    Example:
        >>> import dyngrad
        >>> _ = dyngrad.manual_seed(7)
        >>> dyngrad.initial_seed()
        7
    """
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """State of the default generator, as a uint8 tensor for :func:`set_rng_state`.

    The bytes are dyngrad's own (NumPy's PCG64 state), not interchangeable with PyTorch's.

    Returns:
        Tensor: ``(k)``, uint8.
    Raises:
        Nothing: it cannot fail.

    Example:
        >>> import dyngrad
        >>> state = dyngrad.get_rng_state()
        >>> a = dyngrad.rand(3)
        >>> dyngrad.set_rng_state(state)
        >>> bool(dyngrad.equal(a, dyngrad.rand(3)))
        True
    """
    return default_generator.get_state()


def set_rng_state(state: Tensor) -> None:
    """Restore the default generator's state (from :func:`get_rng_state`).

    Args:
        state (Tensor): ``(k)``, uint8, a state :func:`get_rng_state` returned.
    Raises:
        TypeError: when ``state`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> state = dyngrad.get_rng_state()
        >>> a = dyngrad.randn(2)
        >>> dyngrad.set_rng_state(state)
        >>> bool(dyngrad.equal(a, dyngrad.randn(2)))
        True
    """
    if not isinstance(state, Tensor):
        raise TypeError(f"set_rng_state(): expected a uint8 Tensor (from get_rng_state()), but got {type(state).__name__}")
    default_generator.set_state(state)


def rng_of(generator: Generator | None) -> np.random.Generator:
    """The NumPy generator behind ``generator`` (the default Generator for None): what a
    random Function's forward draws from (ops/random.py)."""
    return (generator or default_generator).rng


def _gen(generator: Generator | None) -> np.random.Generator:
    """``rng_of`` for a draw that is not a random Function (``nn.init``, rrelu's slopes,
    ``random_split``): the active transforms are asked first (``before_random``), so that
    vmap's ``randomness`` still governs it (``'error'`` raises, ``'different'`` makes vmap
    run the function once per example)."""
    for interp in _ctx.interpreters:
        interp.before_random()
    return rng_of(generator)


def _finish(arr: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._make(arr)
    if requires_grad:
        t.requires_grad = True
    return t


def _float(dtype: Any) -> np.dtype:
    nd = B.to_np_dtype(dtype) if dtype is not None else B.get_default_dtype().np
    return nd


def _size(size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"size must be a sequence of ints, got {size!r}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def tensor(data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new leaf tensor copying ``data`` (nested lists, numbers, NumPy arrays, tensors).

    Python floats give the default dtype (float32), ints int64, bools bool, as in PyTorch.

    Args:
        data: a number, a (nested) list or tuple, an ndarray or a Tensor; always copied.
        dtype: the result's dtype (default: inferred from ``data``).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
        pin_memory (bool): accepted for compatibility; no effect.
    Returns:
        Tensor: a leaf of ``data``'s shape: ``()`` for a number, ``(2, 2)`` for
            ``[[1, 2], [3, 4]]``.
    Raises:
        RuntimeError: ``requires_grad`` with a non-floating dtype, or a device other than
            the CPU and meta (as ``zeros(..., device=...)``).
        TypeError: ``data`` that is not numeric (PyTorch: ValueError for strings).
        ValueError: ragged nested lists.

    Example:
        >>> import dyngrad
        >>> dyngrad.tensor([[1, 2], [3, 4]])
        tensor([[1, 2],
                [3, 4]])
        >>> dyngrad.tensor([1.0, 2.0]).dtype, dyngrad.tensor([1, 2]).dtype
        (dyngrad.float32, dyngrad.int64)
        >>> dyngrad.tensor(2.0, requires_grad=True)
        tensor(2., requires_grad=True)
    """
    check_device(device)
    if isinstance(data, Tensor):
        data = data._data
    arr = B.asarray(data, dtype)
    arr = np.array(arr, copy=True) if type(arr) is np.ndarray else B.copy(arr)  # (CuPy, Dask: kept)
    return _finish(arr, requires_grad)


def scalar_tensor(s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor (the default float dtype unless ``dtype`` is given).

    Args:
        s (number): the value.
        dtype (dtype, optional): keyword only. Default: ``None`` (the default float dtype,
            also for an int ``s``).
        device: keyword only; ``None`` or ``'cpu'``.
        requires_grad (bool): keyword only. Default: ``False``.
    Returns:
        Tensor: ``()``.
    Raises:
        ValueError: when ``s`` is not a number (e.g. a str; PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.scalar_tensor(3), dyngrad.scalar_tensor(3, dtype=dyngrad.int64)
        (tensor(3.), tensor(3))
    """
    return tensor(float(s) if dtype is None else s, dtype=dtype, requires_grad=requires_grad)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a Tensor, sharing memory where it can (``tensor`` always copies).

    A Tensor of the wanted dtype is returned itself; an ndarray of the wanted dtype is wrapped
    without a copy (writes show both ways, as ``from_numpy``); anything else (lists, numbers,
    a cast) is copied. A Tensor cast to another dtype keeps its graph (``ToCopyBackward0``).

    Derivative: ``grad_data = grad_output`` (cast back) when ``data`` is a Tensor that requires
    grad; otherwise the result does not require grad.

    Args:
        data (Tensor, ndarray, sequence or number): the values ``(*)``.
        dtype (dtype, optional): the wanted dtype. Default: ``None`` (``data``'s own, or the
            inferred one: floats give the default dtype, ints int64).
        device (str or device, optional): only ``'cpu'``. Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``data``'s shape.
    Raises:
        RuntimeError: for a device other than the CPU and meta.
        TypeError: when ``data`` holds strings or other non-numbers.
        ValueError: for ragged nested lists.

    Example:
        >>> import dyngrad, numpy as np
        >>> a = np.zeros(2)
        >>> t = dyngrad.as_tensor(a)
        >>> t.add_(1)
        tensor([1., 1.], dtype=dyngrad.float64)
        >>> a
        array([1., 1.])
        >>> dyngrad.as_tensor(t) is t, dyngrad.as_tensor([1, 2], dtype=dyngrad.float32)
        (True, tensor([1., 2.]))
    """
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or B.to_np_dtype(dtype) == data.dtype):
        return Tensor._make(B.asarray(data))
    return Tensor._make(B.asarray(data, dtype))


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """Wrap ``ndarray`` as a Tensor sharing its memory: changes show both ways.

    Args:
        ndarray (numpy.ndarray): the array; its dtype is kept (float64 stays float64).
    Returns:
        Tensor: ``(*)``, a leaf with ``ndarray``'s shape and dtype, not requiring grad.
    Raises:
        TypeError: not an ndarray, or an unsupported dtype.

    Example:
        >>> import numpy as np, dyngrad
        >>> a = np.zeros(3)
        >>> t = dyngrad.from_numpy(a)
        >>> a[0] = 5.0
        >>> t
        tensor([5., 0., 0.], dtype=dyngrad.float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    B.from_np_dtype(ndarray.dtype)
    return Tensor._make(ndarray)


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, out: Any = None) -> Tensor:
    """Zeros of shape ``size``.

    Args:
        *size (int): the shape, as ints or one tuple/list: ``zeros(2, 3)`` or ``zeros((2, 3))``.
        dtype: the result's dtype (default: the default float dtype, float32).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
        out: not supported (None).
    Returns:
        Tensor: ``(*size)``, e.g. ``(2, 3)`` for ``zeros(2, 3)``.
    Raises:
        RuntimeError: a negative size, ``requires_grad`` with a non-floating dtype, or a
            device other than the CPU and meta.
        TypeError: a size that is not ints, or a ``dtype`` that is not a dyngrad dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.zeros(2, 3)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """
    check_device(device)
    return _finish(np.zeros(_size(size), dtype=_float(dtype)), requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Ones of shape ``size``.

    Args:
        *size (int): the shape, as ints or one tuple/list.
        dtype: the result's dtype (default: the default float dtype, float32).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
    Returns:
        Tensor: ``(*size)``.
    Raises:
        RuntimeError: a negative size, ``requires_grad`` with a non-floating dtype, or a
            device other than the CPU and meta.
        TypeError: a size that is not ints, or a ``dtype`` that is not a dyngrad dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.ones(2, dtype=dyngrad.int64)
        tensor([1, 1])
    """
    check_device(device)
    return _finish(np.ones(_size(size), dtype=_float(dtype)), requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of shape ``size``: uninitialised in PyTorch, zeros here (deterministic).

    Args:
        *size (int): the shape, as ints or one tuple/list.
        dtype: the result's dtype (default: the default float dtype, float32).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
    Returns:
        Tensor: ``(*size)``, filled with zeros.
    Raises:
        RuntimeError: a negative size, ``requires_grad`` with a non-floating dtype, or a
            device other than the CPU and meta.
        TypeError: a size that is not ints, or a ``dtype`` that is not a dyngrad dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.empty(2, 2).shape
        dyngrad.Size([2, 2])
    """
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor of shape ``size`` with ``fill_value`` everywhere.

    Args:
        size: the shape, a tuple/list of ints (an int is refused, as by PyTorch).
        fill_value: the value; the dtype is inferred from it as PyTorch does (a Python float
            gives the default float dtype, an int int64, a bool bool).
        dtype: the result's dtype (overrides the inference).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
    Returns:
        Tensor: ``(*size)``.
    Raises:
        RuntimeError: a negative size, ``requires_grad`` with a non-floating dtype, or a
            device other than the CPU and meta.
        TypeError: an int ``size``, a ``fill_value`` that is not a number (a str), or a
            ``dtype`` that is not a dyngrad dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.full((2,), 7)
        tensor([7, 7])
        >>> dyngrad.full((2,), 0.5)
        tensor([0.5000, 0.5000])
    """
    check_device(device)
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    if dtype is None:
        dtype = B.result_type(fill_value)
    return _finish(np.full(_size((size,)), fill_value, dtype=B.to_np_dtype(dtype)), requires_grad)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (excluded) in steps of ``step``: ``arange(n)`` is
    ``0, 1, ..., n-1``.

    Args:
        start: the first value; with ``end`` omitted, the end (and the start is 0).
        end: the bound, not included.
        step: the difference between neighbours (not 0; its sign must lead to ``end``).
        dtype: the result's dtype (default: int64 when all arguments are ints, else the
            default float dtype).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
    Returns:
        Tensor: ``(L,)`` with ``L = ceil((end - start) / step)``.
    Raises:
        RuntimeError: step 0, a step with the wrong sign, ``requires_grad`` with an integer
            dtype, or a device other than the CPU and meta.
        TypeError: a bound or step that is not a number.

    Example:
        >>> import dyngrad
        >>> dyngrad.arange(4)
        tensor([0, 1, 2, 3])
        >>> dyngrad.arange(1, 2, 0.25)
        tensor([1.0000, 1.2500, 1.5000, 1.7500])
    """
    check_device(device)
    if end is None:
        start, end = 0, start
    vals = [getattr(v, "item", lambda v=v: v)() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("arange: upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = np.int64 if all(isinstance(v, int) for v in vals) else B.get_default_dtype().np
    nd = B.to_np_dtype(dtype)
    n = int(np.ceil((end - start) / step))
    arr = (start + np.arange(n, dtype=np.float64) * step).astype(nd) if nd.kind == "f" else np.arange(start, end, step, dtype=nd)
    return _finish(arr, requires_grad)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    Args:
        start (float): the first value.
        end (float): the last value.
        steps (int): how many values (0 gives an empty tensor).
        dtype: the result's dtype (default: the default float dtype, float32).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
    Returns:
        Tensor: shape ``(steps,)``.
    Raises:
        RuntimeError: a negative ``steps``.

    Example:
        >>> import dyngrad
        >>> dyngrad.linspace(0, 1, 5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    check_device(device)
    if steps < 0:
        raise RuntimeError("linspace: number of steps must be non-negative")
    arr = np.linspace(float(start), float(end), int(steps), dtype=np.float64).astype(_float(dtype))
    return _finish(arr, requires_grad)


def eye(n: int, m: int | None = None, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The identity matrix: ones on the diagonal, zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns (default ``n``).
        dtype: the result's dtype (default: the default float dtype, float32).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
    Returns:
        Tensor: ``(n, m)``.
    Raises:
        TypeError: a non-integer ``n`` or ``m``.
        RuntimeError: a negative ``n`` or ``m`` (``n must be greater or equal to 0, got -1``,
            as PyTorch), ``requires_grad`` with a non-floating dtype, or a device other than
            the CPU.

    Example:
        >>> import dyngrad
        >>> dyngrad.eye(2, 3)
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    check_device(device)
    for arg, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{arg} must be greater or equal to 0, got {v}")
    return _finish(np.eye(n, m, dtype=_float(dtype)), requires_grad)


def _like(input: Tensor, dtype: Any) -> np.dtype:
    return B.to_np_dtype(dtype) if dtype is not None else input._data.dtype


def zeros_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """Zeros with ``input``'s shape (and dtype unless given).

    Args:
        input (Tensor): ``(*)``, the tensor whose shape (and dtype) to copy; its values are
            not read.
        dtype: the result's dtype (default: ``input.dtype``).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
        memory_format: accepted for compatibility; no effect.
    Returns:
        Tensor: ``(*)``, ``input``'s shape; a new leaf (never part of ``input``'s graph).
    Raises:
        TypeError: ``input`` is not a Tensor (the ``dyngrad`` namespace's face, dyngrad/_out.py).
        TypeError: a ``dtype`` that is not a dyngrad dtype.
        RuntimeError: ``requires_grad`` with a non-floating dtype, or a device other than
            the CPU and meta (as ``zeros(..., device=...)``).

    Example:
        >>> import dyngrad
        >>> dyngrad.zeros_like(dyngrad.tensor([[1, 2, 3]]))
        tensor([[0, 0, 0]])
    """
    check_device(device)
    if input._is_wrapper:  # a transform's wrapper (vmap): the result is wrapped like it
        return input._full_like(0, _like(input, dtype))
    return _finish(np.zeros(input._data.shape, dtype=_like(input, dtype)), requires_grad)


def ones_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """Ones with ``input``'s shape (and dtype unless given).

    Args:
        input (Tensor): ``(*)``, the tensor whose shape (and dtype) to copy; its values are
            not read.
        dtype: the result's dtype (default: ``input.dtype``).
        device: ``"cpu"`` (or None), or ``"meta"`` (a tensor with a shape and no values).
        requires_grad (bool): make the result a leaf that requires grad.
        memory_format: accepted for compatibility; no effect.
    Returns:
        Tensor: ``(*)``, ``input``'s shape; a new leaf.
    Raises:
        TypeError: ``input`` is not a Tensor (the ``dyngrad`` namespace's face, dyngrad/_out.py).
        TypeError: a ``dtype`` that is not a dyngrad dtype.
        RuntimeError: ``requires_grad`` with a non-floating dtype, or a device other than
            the CPU and meta (as ``zeros(..., device=...)``).

    Example:
        >>> import dyngrad
        >>> dyngrad.ones_like(dyngrad.zeros(2, dtype=dyngrad.float64))
        tensor([1., 1.], dtype=dyngrad.float64)
    """
    check_device(device)
    if input._is_wrapper:  # a transform's wrapper (vmap): the result is wrapped like it
        return input._full_like(1, _like(input, dtype))
    return _finish(np.ones(input._data.shape, dtype=_like(input, dtype)), requires_grad)


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """A tensor with ``input``'s shape whose values are unspecified in PyTorch; dyngrad gives zeros.

    dyngrad never returns uninitialised memory, so this is :func:`zeros_like`. Not
    differentiable (a new leaf).

    Args:
        input (Tensor): ``(*)``; only its shape and dtype are used.
        dtype (dtype, optional): keyword-only. Default: ``None`` (``input``'s dtype).
        device (str or device, optional): keyword-only; only the CPU. Default: ``None``.
        requires_grad (bool, optional): keyword-only; make the result a leaf that requires
            grad. Default: ``False``.
        memory_format (optional): keyword-only; accepted for compatibility. Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape.
    Raises:
        RuntimeError: when ``requires_grad`` is set for a non-floating dtype.
        AttributeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.empty_like(dyngrad.ones(2, 3), dtype=dyngrad.int64)
        tensor([[0, 0, 0],
                [0, 0, 0]])
    """
    check_device(device)
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False, memory_format: Any = None) -> Tensor:
    """A tensor with ``input``'s shape filled with ``fill_value``.

    The value is converted to the dtype (a float truncates toward zero into an integer dtype;
    an int that does not fit raises, except that a negative int wraps into ``uint8``, as
    PyTorch). Not differentiable (a new leaf).

    Args:
        input (Tensor): ``(*)``; only its shape and dtype are used.
        fill_value (number or 0-d Tensor): the value.
        dtype (dtype, optional): keyword-only. Default: ``None`` (``input``'s dtype).
        device (str or device, optional): keyword-only; only the CPU. Default: ``None``.
        requires_grad (bool, optional): keyword-only; make the result a leaf that requires
            grad. Default: ``False``.
        memory_format (optional): keyword-only; accepted for compatibility. Default: ``None``.
    Returns:
        Tensor: ``(*)``, ``input``'s shape.
    Raises:
        RuntimeError: when an int ``fill_value`` does not fit the dtype, or ``requires_grad``
            is set for a non-floating dtype.
        ValueError: when ``fill_value`` is not a number (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.full_like(dyngrad.ones(2, dtype=dyngrad.int64), 2.7)
        tensor([2, 2])
        >>> dyngrad.full_like(dyngrad.ones(2), 7, requires_grad=True)
        tensor([7., 7.], requires_grad=True)
    """
    check_device(device)
    nd = np.dtype(_like(input, dtype))
    if type(fill_value) is int and nd.kind in "iu":  # PyTorch's int conversion (uint8 -1 is 255)
        fill_value = B.int_fill_value(fill_value, nd)
    if input._is_wrapper and isinstance(fill_value, (bool, int, float)):  # (see zeros_like)
        return input._full_like(fill_value, _like(input, dtype))
    return _finish(np.full(input._data.shape, fill_value, dtype=_like(input, dtype)), requires_grad)


def from_dask(array: Any, *, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A tensor whose array is a Dask array: ops on it build a Dask graph lazily (forward and
    backward), and nothing is computed until ``.compute()`` / ``.persist()``,
    :func:`dyngrad.compute`, or reading a value (``.item()``, ``bool()``, printing).
    ``dyngrad.tensor(dask_array)`` is the same; docs/backends.md says what Dask cannot do.

    Args:
        array (dask.array.Array): ``(*)``, any chunks; not copied (Dask arrays are immutable).
        dtype (dtype, optional): keyword only; a cast (lazy). Default: ``None`` (float16/32/64
            kept, other integers int64, as ``tensor`` does for NumPy arrays).
        requires_grad (bool): keyword only. Default: ``False``.
    Returns:
        Tensor: ``(*)``, holding the Dask array.
    Raises:
        TypeError: when ``array`` is not a Dask array.

    Example:
        >>> import dyngrad, dask.array as da
        >>> x = dyngrad.from_dask(da.arange(4.0, chunks=2), requires_grad=True)
        >>> (x * x).sum().backward()
        >>> type(x.grad._data).__name__, x.grad.compute()
        ('Array', tensor([0., 2., 4., 6.], dtype=dyngrad.float64))
    """
    if not B.is_dask(array):
        raise TypeError(f"from_dask(): expected a dask.array.Array, got {type(array).__name__}")
    return _finish(B.foreign_asarray(array, dtype), requires_grad)


def compute(*tensors: Any, **kwargs: Any) -> tuple:
    """Compute several Dask tensors in one pass (their graphs share work: the gradients of a
    model's parameters, say), on the default scheduler or a ``dask.distributed`` Client.
    NumPy tensors pass through.

    Args:
        *tensors (Tensor): tensors (or None).
        **kwargs: passed to ``dask.compute`` (``scheduler=...``).
    Returns:
        tuple: a Tensor with a NumPy array for each tensor, without history (None stays None).
    Raises:
        TypeError: for an argument that is not a Tensor or None.

    Example:
        >>> import dyngrad, dask.array as da
        >>> a = dyngrad.from_dask(da.ones(3, chunks=1))
        >>> dyngrad.compute(a.sum(), a * 2)
        (tensor(3., dtype=dyngrad.float64), tensor([2., 2., 2.], dtype=dyngrad.float64))
    """
    for t in tensors:
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"compute(): expected Tensors, got {type(t).__name__}")
    lazy = [i for i, t in enumerate(tensors) if t is not None and B.is_dask(t._data)]
    out: list[Any] = [None if t is None else (t if i not in lazy else None) for i, t in enumerate(tensors)]
    if lazy:
        import dask

        values = dask.compute(*[tensors[i]._data for i in lazy], **kwargs)
        for i, v in zip(lazy, values):
            out[i] = Tensor._make(B.wrap_result(v))
    return tuple(t if t is None or i in lazy else t.detach() for i, t in enumerate(out))


# device="meta": the tensor's array becomes a shape-only MetaArray (_tensor/metadata.py);
# the *_like forms also follow a meta input, the random ones leave the stream untouched
from ._tensor.metadata import meta_device as _meta_device  # noqa: E402

zeros = _meta_device(zeros)
ones = _meta_device(ones)
empty = _meta_device(empty)
full = _meta_device(full)
arange = _meta_device(arange)
linspace = _meta_device(linspace)
eye = _meta_device(eye)
tensor = _meta_device(tensor)
zeros_like = _meta_device(zeros_like, like=True)
ones_like = _meta_device(ones_like, like=True)
empty_like = _meta_device(empty_like, like=True)
full_like = _meta_device(full_like, like=True)
