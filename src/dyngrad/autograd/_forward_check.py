"""``forward_ad.check_forward_ad``: forward-mode Jacobian vs central finite differences
(what ``gradcheck(..., check_forward_ad=True)`` runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .forward_ad import dual_level, make_dual, unpack_dual
from .gradcheck import GradcheckError
from .. import _backend as B

__all__ = ["check_forward_ad"]


def _run(func: Callable, vals: list) -> list:
    with grad_mode.no_grad():
        r = func(*vals)
    return [np.array(o._data, dtype=np.float64) for o in (r if isinstance(r, tuple) else (r,))]


def check_forward_ad(
    func: Callable, inputs: Any, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Compare the forward-mode Jacobian of ``func`` at ``inputs`` (one ``make_dual`` pass
    per input element, tangent = that basis vector) with central finite differences.

    Args:
        func: callable taking ``inputs`` and returning a Tensor or a tuple of Tensors.
        inputs: Tensor or tuple of arguments (use float64). The floating Tensors that require
            grad are checked (all floating Tensors when none requires grad), as gradcheck does.
        eps: finite-difference step; atol, rtol: pass when ``|fwd - num| <= atol + rtol*|num|``.
    Returns:
        True when every Jacobian entry agrees.
    Raises:
        GradcheckError: on a mismatch (naming output, input and element, with both
            Jacobian columns), unless ``raise_exception=False``, which returns False.
    """
    ins = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    base = [x.detach() if isinstance(x, Tensor) else x for x in ins]
    floats = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and B.kind(x._data) == "f"]
    chosen = [i for i in floats if ins[i].requires_grad] or floats
    for i in chosen:
        x = base[i]
        for j in range(x._data.size):
            u = np.zeros(x._data.size, dtype=x._data.dtype)
            u[j] = 1
            with dual_level():
                vals = list(base)
                vals[i] = make_dual(x, u.reshape(x._data.shape))
                with grad_mode.no_grad():
                    r = func(*vals)
                ana = []
                for o in r if isinstance(r, tuple) else (r,):
                    t = unpack_dual(o).tangent
                    ana.append(np.zeros(o._data.shape) if t is None else np.array(t._data, dtype=np.float64))
            xp, xm = x._data.copy().reshape(-1), x._data.copy().reshape(-1)
            xp[j] += eps
            xm[j] -= eps
            vp, vm = list(base), list(base)
            vp[i] = Tensor._make(xp.reshape(x._data.shape))
            vm[i] = Tensor._make(xm.reshape(x._data.shape))
            num = [(p - m) / (2 * eps) for p, m in zip(_run(func, vp), _run(func, vm))]
            for k, (a, n) in enumerate(zip(ana, num)):
                if not np.allclose(a, n, atol=atol, rtol=rtol):
                    if not raise_exception:
                        return False
                    err = float(np.max(np.abs(a - n)))
                    raise GradcheckError(
                        f"Jacobian mismatch for output {k} with respect to input {i} (element {j}) "
                        f"in forward mode: max abs error {err:.3g}\nnumerical: {n}\nforward-mode: {a}"
                    )
    return True
