"""All built-in operations, one module per family. Each op is an autograd.Function with
its forward and backward side by side and a public function below it."""

from .activation import *  # noqa: F403
from .arithmetic import *  # noqa: F403
from .comparison import *  # noqa: F403
from .conv import *  # noqa: F403
from .copying import *  # noqa: F403
from .decomp import *  # noqa: F403
from .elementwise import *  # noqa: F403
from .fused import *  # noqa: F403
from .indexing import *  # noqa: F403
from .linalg import *  # noqa: F403
from .reduction import *  # noqa: F403
from .shape import *  # noqa: F403
from .sorting import *  # noqa: F403
from . import activation, arithmetic, comparison, conv, copying, decomp, elementwise, fused, indexing, linalg, reduction, shape, sorting

_FAMILIES = (
    activation, arithmetic, comparison, conv, copying, decomp, elementwise, fused, indexing, linalg, reduction, shape, sorting,
)

#: Names that are also Tensor methods (``x.exp()`` forwards to ``ops.exp(x)``).
TENSOR_METHODS = frozenset().union(*(getattr(m, "TENSOR_METHODS", ()) for m in _FAMILIES))
__all__ = [n for m in _FAMILIES for n in m.__all__]
