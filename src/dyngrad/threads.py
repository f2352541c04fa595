"""``set_num_threads`` / ``get_num_threads`` (PyTorch's names): the number of threads of the
BLAS library NumPy calls (OpenBLAS, MKL, BLIS), through ``threadpoolctl`` (the ``threads``
extra: ``pip install dyngrad[threads]``). dyngrad's own code is single-threaded Python, so
the BLAS threads are the only intra-op threads there are.
"""

from __future__ import annotations

import operator
import os
import warnings
from typing import Any

__all__ = ["set_num_threads", "get_num_threads"]

_limits: list[Any] = []  # the active threadpoolctl limit object (kept alive while it applies)


def _controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def set_num_threads(int: int) -> None:  # noqa: A002 - PyTorch's parameter name
    """Use ``int`` threads in the BLAS library behind NumPy's matrix products.

    Args:
        int (int): the number of threads, at least 1.

    Raises:
        RuntimeError: a number below 1 (PyTorch's check).

    Without ``threadpoolctl`` installed, warns and changes nothing (the BLAS library reads
    ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` only when it starts).

    Example:
        >>> import dyngrad
        >>> n = dyngrad.get_num_threads()
        >>> dyngrad.set_num_threads(1)
        >>> dyngrad.get_num_threads()
        1
        >>> dyngrad.set_num_threads(n)
    """
    n = operator.index(int)
    if n < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, but got {n}")
    ctl = _controller()
    if ctl is None:
        warnings.warn(
            "dyngrad.set_num_threads needs threadpoolctl to change the BLAS library's threads "
            "(pip install 'dyngrad[threads]'); nothing was changed",
            stacklevel=2,
        )
        return
    _limits.clear()
    _limits.append(ctl.limit(limits=n, user_api="blas"))


def get_num_threads() -> int:
    """The number of threads the BLAS library behind NumPy uses (the largest, if NumPy
    loaded several); ``os.cpu_count()`` when threadpoolctl is not installed.

    Returns:
        int: at least 1.
    Raises:
        Nothing: without threadpoolctl it falls back to ``os.cpu_count()``.

    Example:
        >>> import dyngrad
        >>> dyngrad.get_num_threads() >= 1
        True
    """
    ctl = _controller()
    if ctl is None:
        return os.cpu_count() or 1
    blas = [lib.num_threads for lib in ctl.lib_controllers if lib.user_api == "blas"]
    return max(blas) if blas else 1
