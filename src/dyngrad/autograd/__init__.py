"""dyngrad.autograd: Function, backward/grad, grad modes, gradcheck, graph tools."""

from . import forward_ad, functional, graph, profiler
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .backprop import backward, grad
from .checker import check_function  # noqa: E402 - verifier of custom Functions (issue 5)
from .engine import atomic_accumulation, set_strict_shapes
from .function import Function, FunctionCtx, InplaceFunction, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = [
    "Function", "FunctionCtx", "InplaceFunction", "once_differentiable", "backward", "grad",
    "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
    "is_inference_mode_enabled", "gradcheck", "gradgradcheck", "GradcheckError",
    "forward_ad", "functional", "profiler", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "graph", "set_strict_shapes", "atomic_accumulation",
    "check_function",
]
