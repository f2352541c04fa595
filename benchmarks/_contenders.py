"""The libraries a step benchmark compares, each limited to the same number of threads:
dyngrad, and PyTorch when it is installed (imported by the *_step.py benchmarks, which run
as scripts from this folder)."""

from __future__ import annotations

from typing import Any

import dyngrad


def contenders(threads: int) -> list[tuple[str, Any]]:
    """``[("dyngrad", dyngrad), ("torch", torch)]`` (torch only when installed), with
    PyTorch's intra-op threads and the BLAS threads (threadpoolctl, when installed) set to
    ``threads``."""
    libs: list[tuple[str, Any]] = [("dyngrad", dyngrad)]
    try:
        import torch

        torch.set_num_threads(threads)
        libs.append(("torch", torch))
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads)
    except ImportError:
        pass
    return libs
