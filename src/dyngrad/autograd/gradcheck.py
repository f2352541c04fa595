"""Numerical gradient checks: compare the Jacobian that backward computes with central
finite differences ``(f(x + eps) - f(x - eps)) / (2 eps)``.

First version: full (slow-mode) Jacobians. Use float64 inputs.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .backprop import grad as autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical Jacobians differ."""


def _as_tuple(x: Any) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _outputs(func: Callable, inputs: tuple) -> tuple:
    out = func(*inputs)
    return tuple(o for o in _as_tuple(out) if isinstance(o, Tensor))


def get_numerical_jacobian(func: Callable, inputs: tuple, eps: float = 1e-6) -> list:
    """Per (input, output) pair, the ``(input.numel(), output.numel())`` finite-difference
    Jacobian (rows: input elements)."""
    inputs = _as_tuple(inputs)
    with grad_mode.no_grad():
        outs = _outputs(func, inputs)
        jac = []
        for x in inputs:
            if not (isinstance(x, Tensor) and x.requires_grad):
                continue
            flat = x.data.reshape(-1)
            if not np.shares_memory(flat, x.data):  # pragma: no cover - non-contiguous input
                raise ValueError("gradcheck needs contiguous inputs")
            cols = [np.zeros((x.data.size, o.data.size)) for o in outs]
            for j in range(flat.size):
                orig = flat[j].copy()
                flat[j] = orig + eps
                plus = [o.data.astype(np.float64).ravel().copy() for o in _outputs(func, inputs)]
                flat[j] = orig - eps
                minus = [o.data.astype(np.float64).ravel().copy() for o in _outputs(func, inputs)]
                flat[j] = orig
                for k in range(len(outs)):
                    cols[k][j] = (plus[k] - minus[k]) / (2 * eps)
            jac.append(cols)
    return jac


def get_analytical_jacobian(func: Callable, inputs: tuple) -> list:
    """Same layout as :func:`get_numerical_jacobian`, computed with backward (one pass per
    output element)."""
    inputs = _as_tuple(inputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    jac = [[np.zeros((x.data.size, o.data.size)) for o in outs] for x in diff]
    for k, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for m in range(o.data.size):
            go = np.zeros(o.data.size, dtype=o.data.dtype)
            go[m] = 1
            gs = autograd_grad(o, diff, Tensor._make(go.reshape(o.data.shape)), retain_graph=True, allow_unused=True)
            for i, g in enumerate(gs):
                if g is not None:
                    jac[i][k][:, m] = g.data.astype(np.float64).ravel()
    return jac


def gradcheck(
    func: Callable,
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: Any = None,
) -> bool:
    """Check backward against finite differences for every input that requires grad.

    Args:
        func: maps the inputs to a Tensor or a tuple of Tensors.
        inputs: a Tensor or tuple of arguments (Tensors requiring grad are checked; use
            float64 for meaningful results).
        eps, atol, rtol: perturbation and tolerances: passes when
            ``|analytical - numerical| <= atol + rtol * |numerical|`` everywhere.
        raise_exception: raise GradcheckError on failure instead of returning False.
    Returns:
        True when the Jacobians agree.
    Raises:
        GradcheckError: on mismatch (with the worst entry named), when raise_exception.
        ValueError: when no input requires grad, or an input is not floating point.
    """
    inputs = _as_tuple(inputs)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    num = get_numerical_jacobian(func, inputs, eps)
    ana = get_analytical_jacobian(func, inputs)
    for i, (n_i, a_i) in enumerate(zip(num, ana)):
        for k, (n, a) in enumerate(zip(n_i, a_i)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                err = np.abs(a - n)
                j = np.unravel_index(np.argmax(err - rtol * np.abs(n)), err.shape)
                msg = (
                    f"Jacobian mismatch for output {k} with respect to input {i},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                    f"worst entry (input element {j[0]}, output element {j[1]}): numerical "
                    f"{n[j]:.6g}, analytical {a[j]:.6g}, abs error {err[j]:.3g}"
                )
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(
    func: Callable,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: gradcheck of ``(inputs, v) -> vjp(func, inputs, v)``.

    ``grad_outputs`` (one per output) default to random float64 tensors that require
    grad. Same returns and raises as :func:`gradcheck`.
    """
    inputs = _as_tuple(inputs)
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._make(rng.standard_normal(o.data.shape).astype(o.data.dtype)).requires_grad_()
            for o in outs
        )
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def vjp_fn(*args: Any) -> tuple:
        ins, gos = args[:n_in], args[n_in:]
        os_ = _outputs(func, ins)
        pairs = [(o, g) for o, g in zip(os_, gos) if o.requires_grad]
        gs = autograd_grad(
            [o for o, _ in pairs], [ins[i] for i in diff_idx], [g for _, g in pairs],
            create_graph=True, allow_unused=True,
        )
        return tuple(g for g in gs if g is not None)

    return gradcheck(vjp_fn, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception)
