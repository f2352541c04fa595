"""All built-in operations, one module per family. Each op is an autograd.Function with
its forward and backward side by side and a public function below it."""

from .arithmetic import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .indexing import *  # noqa: F403
from .linalg import *  # noqa: F403
from .reduction import *  # noqa: F403
from .shape import *  # noqa: F403
from . import arithmetic, elementwise, indexing, linalg, reduction, shape

_FAMILIES = (arithmetic, elementwise, indexing, linalg, reduction, shape)

#: Names that are also Tensor methods (``x.exp()`` forwards to ``ops.exp(x)``).
TENSOR_METHODS = frozenset().union(*(getattr(m, "TENSOR_METHODS", ()) for m in _FAMILIES))
__all__ = [n for m in _FAMILIES for n in m.__all__]
