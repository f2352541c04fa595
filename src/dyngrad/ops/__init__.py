"""All built-in operations, one module per family (a family too big for one file is split
by meaning: shape -> rearrange, splitting; reduction -> statistics, arg_reduce; indexing ->
gather, masking; linalg -> contraction; decomp -> spectral; random -> random_fills,
sampling; the special functions: special (erf family), gamma, xlogy). Each op is an
autograd.Function with its forward and backward side by side and a public function below
it."""

from .activation import *  # noqa: F403
from .arithmetic import *  # noqa: F403
from .arg_reduce import *  # noqa: F403
from .comparison import *  # noqa: F403
from .contraction import *  # noqa: F403
from .conv import *  # noqa: F403
from .copying import *  # noqa: F403
from .decomp import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .fused import *  # noqa: F403
from .gamma import *  # noqa: F403
from .gather import *  # noqa: F403
from .indexing import *  # noqa: F403
from .linalg import *  # noqa: F403
from .masking import *  # noqa: F403
from .random import *  # noqa: F403
from .random_fills import *  # noqa: F403
from .rearrange import *  # noqa: F403
from .reduction import *  # noqa: F403
from .sampling import *  # noqa: F403
from .shape import *  # noqa: F403
from .sorting import *  # noqa: F403
from .spectral import *  # noqa: F403
from .splitting import *  # noqa: F403
from .statistics import *  # noqa: F403
from .triangular import *  # noqa: F403
from .xlogy import *  # noqa: F403
from .matfuncs import *  # noqa: F403
from .composite import *  # noqa: F403
from .counting import *  # noqa: F403
from . import _array_backward  # noqa: E402,F401  - array forms of hot backward formulas (engine invariant 6)
from .linalg_extra import *  # noqa: F403
from .scan import *  # noqa: F403
from .scatter_reduce import *  # noqa: F403
from .lu import *  # noqa: F403
from .lobpcg import *  # noqa: F403
from .everyday import *  # noqa: F403
import importlib as _importlib

_FAMILY_NAMES = (
    "activation", "arithmetic", "arg_reduce", "comparison", "contraction", "conv", "copying", "decomp", "elementwise",
    "fused", "gamma", "gather", "indexing", "linalg", "masking", "random", "random_fills", "rearrange", "reduction",
    "sampling", "shape", "sorting", "spectral", "splitting", "statistics", "triangular", "xlogy",
    "matfuncs",
    "composite", "counting", "linalg_extra", "scan", "scatter_reduce", "lu", "lobpcg", "everyday",
)
# (by module path: ``ops.gather`` is the op, which shadows its module's name)
_FAMILIES = tuple(_importlib.import_module(f"{__name__}.{n}") for n in _FAMILY_NAMES)

#: Names that are also Tensor methods (``x.exp()`` forwards to ``ops.exp(x)``).
TENSOR_METHODS = frozenset().union(*(getattr(m, "TENSOR_METHODS", ()) for m in _FAMILIES))
__all__ = [n for m in _FAMILIES for n in m.__all__]

# What Tensor's methods reach besides the ops, through tensor.py's one upward import
# (DESIGN.md section 2): a stale view's history and mark_dirty on a view
# (_view_inplace.py), and backward() (the ops sit above backprop: this import points down).
# Not in __all__: they are not ops.
from ._view_inplace import rebase_dirty_view, refresh_view  # noqa: E402
# the generic ``name_`` forms (Tensor methods only, not top-level names: not in __all__)
from . import inplace_variants  # noqa: E402
from . import device  # noqa: E402  (to_device: Tensor.to(device), .cuda(), .cpu(); docs/backends.md)
from ..autograd.backprop import backward  # noqa: E402


def _numpy_style_keywords(fn):  # noqa: ANN001, ANN202
    """``fn`` also accepting NumPy's names ``axis`` for ``dim`` and ``keepdims`` for
    ``keepdim``, as PyTorch's argument parser does (``x.sum(axis=0, keepdims=True)``)."""
    import functools

    @functools.wraps(fn)
    def aliased(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if kwargs:
            for alias, name in (("axis", "dim"), ("keepdims", "keepdim")):
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got both {name!r} and its alias {alias!r}")
                    kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return aliased


def _alias_numpy_keywords() -> None:
    import inspect

    for name in __all__:
        fn = globals()[name]
        if not inspect.isfunction(fn):
            continue
        params = inspect.signature(fn).parameters
        if ("dim" in params or "keepdim" in params) and "axis" not in params and "keepdims" not in params:
            globals()[name] = _numpy_style_keywords(fn)


_alias_numpy_keywords()
