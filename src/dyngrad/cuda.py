"""``dyngrad.cuda``: GPUs through CuPy (docs/backends.md).

``is_available()`` is True when CuPy is installed and finds a GPU; then ``device="cuda"``,
``x.cuda()`` and ``model.to("cuda")`` put tensors on it as CuPy arrays. Without CuPy or a
GPU the functions here answer as PyTorch's do on a machine without CUDA, so scripts that
begin with ``device = "cuda" if torch.cuda.is_available() else "cpu"`` run unchanged.
"""

from __future__ import annotations

from . import _backend as B

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize"]


def is_available() -> bool:
    """True when CuPy is installed and finds at least one GPU.

    Returns:
        bool: ``device_count() > 0``.
    Raises:
        Nothing: a missing CuPy, driver or GPU gives False.

    Example:
        >>> import dyngrad
        >>> dyngrad.cuda.is_available() == (dyngrad.cuda.device_count() > 0)
        True
    """
    return B.cuda_device_count() > 0


def device_count() -> int:
    """The number of GPUs CuPy finds (0 without CuPy or a GPU).

    Returns:
        int: how many ``cuda:N`` devices there are.
    Raises:
        Nothing: a missing CuPy, driver or GPU gives 0.

    Example:
        >>> import dyngrad
        >>> dyngrad.cuda.device_count() >= 0
        True
    """
    return B.cuda_device_count()


def manual_seed(seed: int) -> None:
    """Seed CuPy's random generator of the current GPU (a no-op without a GPU; seed the CPU
    one with ``dyngrad.manual_seed``)."""
    if is_available():
        B._cupy().random.seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed CuPy's generator on every GPU (a no-op without one)."""
    for i in range(device_count()):
        with B._cupy().cuda.Device(i):
            B._cupy().random.seed(seed)


def synchronize(device: object = None) -> None:
    """Wait for the GPU's queued work (CuPy's ``Device.synchronize``); a no-op without one
    (CPU operations are synchronous)."""
    if is_available():
        B._cupy().cuda.Device(None if device is None else B.parse_device(device)[1]).synchronize()


# --- apisurface
__all__ += ["empty_cache", "memory_allocated", "max_memory_allocated"]


def empty_cache() -> None:
    """Free the unused blocks of CuPy's memory pool (a no-op without a GPU)."""
    if is_available():
        B._cupy().get_default_memory_pool().free_all_blocks()


def memory_allocated(device: object = None) -> int:
    """Bytes CuPy's memory pool holds in use (0 without a GPU)."""
    return int(B._cupy().get_default_memory_pool().used_bytes()) if is_available() else 0


def max_memory_allocated(device: object = None) -> int:
    """Always 0, as :func:`memory_allocated`."""
    return 0
