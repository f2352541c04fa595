"""dyngrad: a define-by-run reverse-mode autodiff engine with PyTorch's autograd API,
on NumPy arrays.

``import dyngrad as torch`` runs PyTorch-style autograd code: Tensors with
``requires_grad``/``grad``/``grad_fn``/``backward()``, ``autograd.Function`` subclasses,
``autograd.grad``, ``no_grad``, gradcheck, and ``nn``/``optim`` to train models.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING

from . import _backend
from ._backend import (
    bool_ as bool,  # noqa: A004 - PyTorch's name
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from .tensor import Tensor, is_tensor
from ._tensor.metadata import Size
from ._legacy_types import *  # noqa: F403 - FloatTensor, LongTensor, ... (legacy constructors)
from ._legacy_types import __all__ as _legacy_all
from .tensor import cpu as _cpu
from . import autograd
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .creation import *  # noqa: F403
from .creation import __all__ as _creation_all
from .ops import *  # noqa: F403
from .ops import __all__ as _ops_all
from . import ops, nn, utils, linalg, optim, func, cuda
from . import special  # distributions: imported on first use (__getattr__ below)

if _TYPE_CHECKING:
    from . import distributions
from . import accelerator, backends, jit, onnx
from ._runtime import (
    are_deterministic_algorithms_enabled,
    compile,
    get_default_device,
    set_default_device,
    use_deterministic_algorithms,
)
from .threads import get_num_threads, set_num_threads
from .serialization import load, save
from .custom_gradient import custom_gradient
from . import functional, profiler
from . import random  # noqa: E402  (PyTorch's torch.random module: the seeding functions)
from ._out import WRAPPED as _OUT_WRAPPED

globals().update(_OUT_WRAPPED)  # torch.add(..., out=t): the namespace's faces of these ops (dyngrad/_out.py)
from .functional import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes, broadcast_tensors,
                         cartesian_prod, cdist, chain_matmul, unravel_index)
from .func import vmap  # torch.vmap is torch.func.vmap
from ._out import input_checked as _input_checked

# PyTorch's TypeError for a non-Tensor ``input`` (dyngrad/_out.py)
globals().update(_input_checked(globals(), [n for n in list(globals()) if not n.startswith("_")]))

inf = float("inf")
nan = float("nan")
pi = 3.141592653589793
e = 2.718281828459045


class finfo:  # noqa: N801 - PyTorch's name
    """Machine limits of a floating dtype, as PyTorch's ``torch.finfo`` (Python numbers).

    Attributes: ``bits`` (int), ``eps`` (the gap between 1 and the next value), ``max``,
    ``min`` (the most negative), ``tiny`` and ``smallest_normal`` (the smallest positive
    normal value), ``resolution`` (``10 ** -precision``), all Python floats; ``dtype``, the
    dtype's name. Not differentiable (no tensors involved).

    Args:
        type (dtype, optional): a floating dtype. Default: ``None`` (the default dtype).
    Raises:
        TypeError: when ``type`` is not a floating dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.finfo(dyngrad.float32).eps == 2.0 ** -23
        True
        >>> dyngrad.finfo(dyngrad.float16)
        finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)
    """

    def __init__(self, type: object = None) -> None:
        import builtins  # this module rebinds ``float`` to float32, as PyTorch

        import numpy as _np

        nd = _np.dtype(_backend.to_np_dtype(type) if type is not None else get_default_dtype().np)
        if nd.kind != "f":
            raise TypeError("dyngrad.finfo() requires a floating point input type. Use dyngrad.iinfo to handle "
                            "'dyngrad.finfo'")
        fi = _np.finfo(nd)
        self.bits = builtins.int(fi.bits)
        self.eps = builtins.float(fi.eps)
        self.max = builtins.float(fi.max)
        self.min = builtins.float(fi.min)
        self.tiny = self.smallest_normal = builtins.float(fi.smallest_normal)
        self.resolution = 10.0 ** -fi.precision
        self.dtype = _backend.from_np_dtype(nd).name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


def iinfo(type: object) -> object:
    """Machine limits of an integer dtype (NumPy's ``iinfo``: ``min``, ``max``, ``bits``).

    Args:
        type (dtype): an integer dtype (not bool), e.g. ``dyngrad.int8``.
    Returns:
        numpy.iinfo: its limits (PyTorch returns ``torch.iinfo``, with the same attributes).
    Raises:
        TypeError: a floating or non-dtype argument (use :func:`finfo` for floating dtypes).

    Example:
        >>> import dyngrad
        >>> info = dyngrad.iinfo(dyngrad.int8)
        >>> info.min, info.max, info.bits
        (-128, 127, 8)
    """
    import numpy as _np

    nd = _backend.to_np_dtype(type)
    if nd.kind not in "iu":
        raise TypeError(f"dyngrad.iinfo() requires an integer input type, got {type}; use dyngrad.finfo for it")
    return _np.iinfo(nd)


double = float64
float = float32  # noqa: A001 - PyTorch's alias (torch.float is float32)
half = float16
long = int64
int = int32  # noqa: A001
short = int16

__version__ = "0.1.0"
# The optional compiled build (docs/how-to/compiled-build.md): the modules loaded compiled,
# as dotted names; () for the pure-Python install.
from ._compiled_modules import compiled as _compiled

__compiled__: tuple[str, ...] = _compiled()


def device(spec: object = "cpu") -> object:
    """The device object for ``spec``: the CPU, ``device(type='cpu')``, or a GPU through CuPy,
    ``device(type='cuda', index=N)`` (docs/backends.md).

    PyTorch's ``torch.device`` is a class that also names devices that are not present
    (``'cuda'`` on a machine without one); dyngrad's is a function that accepts only devices
    that exist (an index such as ``'cpu:0'`` is accepted and dropped). Not differentiable.

    Args:
        spec (str or device, optional): ``'cpu'``, ``'cpu:N'``, ``'cuda'``, ``'cuda:N'`` or a
            device. Default: ``'cpu'``.
    Returns:
        device: the CPU device (``str(...)`` is ``'cpu'``, ``.type`` is ``'cpu'``), or GPU N's.
    Raises:
        RuntimeError: for any other device (``'cuda'`` without CuPy or a GPU).
        TypeError: for more than one argument (PyTorch's ``device('cpu', 0)`` form is not taken).

    Example:
        >>> import dyngrad
        >>> dyngrad.device("cpu")
        device(type='cpu')
        >>> dyngrad.device("cpu").type, dyngrad.ones(2).device == dyngrad.device("cpu")
        ('cpu', True)
    """
    from .tensor import check_device
    from ._tensor.metadata import is_meta_device, meta

    if is_meta_device(spec):
        return meta
    check_device(spec)  # 'cuda[:N]' passes when CuPy finds that GPU (docs/backends.md)
    if spec is not None and _backend.parse_device(spec)[0] == "cuda":
        from ._tensor.metadata import _CudaDevice

        return _CudaDevice(_backend.check_cuda(_backend.parse_device(spec)[1]))
    return _cpu


def is_floating_point(input: Tensor) -> object:
    """True for tensors of a floating dtype (float16, float32, float64).

    Args:
        input (Tensor): ``(*)``, any tensor.
    Returns:
        bool: whether ``input.dtype`` is floating.
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.is_floating_point(dyngrad.tensor([1.0])), dyngrad.is_floating_point(dyngrad.tensor([1]))
        (True, False)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_floating_point(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_floating_point()


def numel(input: Tensor) -> object:
    """Number of elements: the product of ``input``'s sizes.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        int: ``prod(input.shape)`` (1 for a 0-d tensor).
    Raises:
        TypeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.numel(dyngrad.zeros(2, 3)), dyngrad.numel(dyngrad.tensor(1.0))
        (6, 1)
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.numel()


def result_type(tensor1: object, tensor2: object) -> dtype:
    """The dtype PyTorch's promotion gives ``tensor1 op tensor2``.

    Dimensioned tensors outrank 0-d tensors, which outrank Python numbers, within a category
    (bool < integer < floating): ``int64 tensor + 1.5`` is the default float dtype, a 0-d
    float64 tensor does not widen a float32 vector.

    Args:
        tensor1 (Tensor or number): an operand.
        tensor2 (Tensor or number): the other.
    Returns:
        dtype: the result dtype.
    Raises:
        TypeError: an operand that is neither a Tensor nor a number.

    Example:
        >>> import dyngrad
        >>> dyngrad.result_type(dyngrad.tensor([1]), 1.5)
        dyngrad.float32
        >>> dyngrad.result_type(dyngrad.tensor(1.0, dtype=dyngrad.float64), dyngrad.tensor([1.0]))
        dyngrad.float32
    """
    return _backend.from_np_dtype(_backend.result_type(tensor1, tensor2))


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both promote to (PyTorch's table: ``uint8`` and ``int8`` give
    ``int16``, an integer and ``float16`` give ``float16``).

    Args:
        type1 (dtype): a dyngrad dtype.
        type2 (dtype): another.
    Returns:
        dtype: the promoted dtype.
    Raises:
        TypeError: an argument that is not a dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.promote_types(dyngrad.uint8, dyngrad.int8), dyngrad.promote_types(dyngrad.int32, dyngrad.float16)
        (dyngrad.int16, dyngrad.float16)
    """
    return _backend.from_np_dtype(_backend.promote_types(type1, type2))


__all__ = [
    "Tensor", "is_tensor", "autograd", "nn", "utils", "ops", "linalg", "optim", "func", "vmap", "save", "load", "custom_gradient", "no_grad", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_grad_enabled", "dtype", "float16", "float32",
    "float64", "double", "float", "half", "int8", "int16", "int32", "int64", "long", "int",
    "short", "uint8", "bool", "get_default_dtype", "set_default_dtype", "device",
    "is_floating_point", "numel", "result_type", "promote_types", "cuda", "inf", "nan", "pi", "e",
    "Size", "finfo", "iinfo", "special", "distributions", "accelerator", "backends", "jit", "onnx", "compile",
    "set_default_device", "get_default_device", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "set_num_threads", "get_num_threads",
    "functional", "profiler", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
    "cartesian_prod", "cdist", "chain_matmul", "unravel_index",
] + list(_creation_all) + list(_ops_all) + list(_legacy_all)


# the method forms' docstrings (x.exp()), derived from the functions' (dyngrad/_tensor/method_docs.py)
from ._tensor._method_docstrings import install as _install_method_docs  # noqa: E402

_install_method_docs(Tensor)


def __getattr__(name: str) -> object:
    # dyngrad.distributions (31 modules) is imported on first use, not by ``import dyngrad``
    # (import time, benchmarks/RESULTS.md)
    if name == "distributions":
        import importlib

        return importlib.import_module(".distributions", __name__)
    raise AttributeError(f"module 'dyngrad' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"distributions"})
