"""``torch.backends`` as dyngrad has it: flags that PyTorch scripts set as boilerplate
(``torch.backends.cudnn.benchmark = True``, ``cudnn.deterministic``, ``mps.is_available()``,
``cuda.matmul.allow_tf32``). dyngrad runs on NumPy on the CPU: the flags are accepted and
kept, and change nothing; the availability queries answer False.

Example:
    >>> import dyngrad
    >>> dyngrad.backends.cudnn.benchmark = True
    >>> dyngrad.backends.mps.is_available(), dyngrad.backends.cudnn.is_available()
    (False, False)
"""

from __future__ import annotations

import sys
from types import SimpleNamespace

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "openmp", "opt_einsum"]


def _unavailable() -> bool:
    return False


cudnn = SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True,
                        is_available=_unavailable, version=lambda: None)
mps = SimpleNamespace(is_available=_unavailable, is_built=_unavailable)
cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                                              allow_bf16_reduced_precision_reduction=True),
                       is_built=_unavailable, flash_sdp_enabled=_unavailable)
mkldnn = SimpleNamespace(enabled=True, is_available=_unavailable)
openmp = SimpleNamespace(is_available=_unavailable)
opt_einsum = SimpleNamespace(enabled=False, strategy=None, is_available=_unavailable)

# ``import dyngrad.backends.cudnn`` (PyTorch's ``import torch.backends.cudnn as cudnn``): the
# flag namespaces are reachable as submodules too
for _name in ("cudnn", "mps", "cuda", "mkldnn", "openmp", "opt_einsum"):
    sys.modules[f"{__name__}.{_name}"] = globals()[_name]  # type: ignore[assignment]
del _name
