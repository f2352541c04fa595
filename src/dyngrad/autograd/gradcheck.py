"""Numerical gradient checks: compare the derivatives backward computes with central finite
differences ``(f(x + eps) - f(x - eps)) / (2 eps)``.

* slow mode (default) builds both full Jacobians, one per (input, output) pair;
* fast mode compares the scalar ``v^T J u`` for random unit ``u`` (per input) and ``v``
  (per output): two forwards per input and one backward per output.

The numerical pass always runs in float64: float32 (or float16) inputs are copied to
float64 for it, so a correct float32 Function does not fail for lack of precision; the
analytical pass runs on the inputs as given, with tolerances no tighter than the input
dtype allows. On failure :class:`GradcheckError` lists, per input and output, the worst
entries with their indices, both values and the absolute and relative errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .backprop import grad as autograd_grad
from .. import _backend as B

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian"]

_WORST = 5  # entries shown per mismatching (input, output) pair


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical derivatives differ.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0], dtype=dyngrad.float64, requires_grad=True)
        >>> try:
        ...     dyngrad.autograd.gradcheck(lambda t: t.detach() * t, (x,))   # drops a term
        ... except dyngrad.autograd.GradcheckError as e:
        ...     print(type(e).__name__, isinstance(e, RuntimeError))
        GradcheckError True
    """


def _as_tuple(x: Any) -> tuple:
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _outputs(func: Callable, inputs: Sequence[Any]) -> tuple:
    out = func(*inputs)
    return tuple(o for o in _as_tuple(out) if isinstance(o, Tensor))


def _diff_idx(inputs: tuple) -> list[int]:
    return [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]


def _check_inputs(inputs: tuple) -> list[int]:
    idx = _diff_idx(inputs)
    for i in idx:
        if B.kind(inputs[i]._data) != "f":
            raise ValueError(
                f"gradcheck: input {i} has dtype {inputs[i].dtype!r}, which is not floating "
                "point; only floating point inputs can be checked"
            )
    if not idx:
        ints = [
            f"input {i} ({x.dtype!r})" for i, x in enumerate(inputs)
            if isinstance(x, Tensor) and B.kind(x._data) != "f"
        ]
        hint = (
            f"; {', '.join(ints)} {'is' if len(ints) == 1 else 'are'} not floating point and "
            "cannot require grad: pass float64 tensors created with requires_grad=True"
            if ints else "; create the inputs with requires_grad=True"
        )
        raise ValueError("gradcheck expects at least one input tensor to require gradient" + hint)
    return idx


def _to_f64(inputs: tuple) -> tuple:
    """float64 copies of the floating point tensor inputs (same requires_grad)."""
    out = []
    for x in inputs:
        if isinstance(x, Tensor) and B.kind(x._data) == "f" and x._data.dtype != np.float64:
            c = Tensor._make(x._data.astype(np.float64))
            c._requires_grad = x._requires_grad
            out.append(c)
        else:
            out.append(x)
    return tuple(out)


def _flat_outputs(func: Callable, inputs: tuple) -> list[np.ndarray]:
    return [o._data.astype(np.float64).ravel() for o in _outputs(func, inputs)]


def get_numerical_jacobian(func: Callable, inputs: Any, eps: float = 1e-6) -> list:
    """Per differentiable input, per output, the ``(input.numel(), output.numel())``
    finite-difference Jacobian (rows: input elements). Inputs are perturbed in place (their
    version counter is not bumped), which works for non-contiguous inputs too."""
    inputs = _as_tuple(inputs)
    with grad_mode.no_grad():  # gradgradcheck's func turns grad mode back on inside
        return _numerical(func, inputs, eps)


def _numerical(func: Callable, inputs: tuple, eps: float) -> list:
    jac = []
    outs = _outputs(func, inputs)
    for i in _diff_idx(inputs):
        arr = inputs[i]._data
        cols = [np.zeros((arr.size, o._data.size)) for o in outs]
        for j in range(arr.size):
            ix = np.unravel_index(j, arr.shape)
            orig = arr[ix].copy()
            arr[ix] = orig + eps
            plus = _flat_outputs(func, inputs)
            arr[ix] = orig - eps
            minus = _flat_outputs(func, inputs)
            arr[ix] = orig
            for k in range(len(outs)):
                cols[k][j] = (plus[k] - minus[k]) / (2 * eps)
        jac.append(cols)
    return jac


def get_analytical_jacobian(func: Callable, inputs: Any) -> list:
    """Same layout as :func:`get_numerical_jacobian`, computed with backward (one pass per
    output element)."""
    inputs = _as_tuple(inputs)
    diff = [inputs[i] for i in _diff_idx(inputs)]
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    jac = [[np.zeros((x._data.size, o._data.size)) for o in outs] for x in diff]
    for k, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for m in range(o._data.size):
            go = np.zeros(o._data.shape, dtype=o._data.dtype)
            go.flat[m] = 1
            gs = autograd_grad(o, diff, Tensor._make(go), retain_graph=True, allow_unused=True)
            for i, g in enumerate(gs):
                if g is not None:
                    jac[i][k][:, m] = g._data.astype(np.float64).ravel()
    return jac


def _tolerances(inputs: tuple, outs: tuple, eps: float, atol: float, rtol: float) -> tuple:
    """Tolerances no tighter than the lowest precision among inputs and outputs."""
    dts = [x._data.dtype for x in inputs if isinstance(x, Tensor) and B.kind(x._data) == "f"]
    dts += [o._data.dtype for o in outs if B.kind(o._data) == "f"]
    finfo = max((np.finfo(d).eps for d in dts), default=np.finfo(np.float64).eps)
    if finfo > np.finfo(np.float64).eps:  # float32 / float16 somewhere
        atol = max(atol, float(finfo) * 100)
        rtol = max(rtol, float(finfo) * 1000)
    return atol, rtol


def _fmt_index(j: int, shape: tuple) -> str:
    if not shape:
        return "()"
    return "(" + ", ".join(str(int(v)) for v in np.unravel_index(j, shape)) + ")"


def _mismatch(i: int, k: int, n: np.ndarray, a: np.ndarray, ishape: tuple, oshape: tuple, atol: float, rtol: float) -> str:
    err = np.abs(a - n)
    excess = err - (atol + rtol * np.abs(n))
    order = np.argsort(-excess, axis=None)[:_WORST]
    bad = int(np.sum(excess > 0))
    lines = [
        f"Jacobian mismatch for output {k} with respect to input {i} "
        f"({bad} of {n.size} entries outside atol={atol:g} + rtol={rtol:g} * |numerical|); worst:",
        f"  {'input index':>14} {'output index':>14} {'numerical':>13} {'analytical':>13} {'abs err':>10} {'rel err':>10}",
    ]
    for flat in order:
        r, c = np.unravel_index(flat, n.shape)
        if excess[r, c] <= 0:
            break
        rel = err[r, c] / abs(n[r, c]) if n[r, c] != 0 else float("inf")
        lines.append(
            f"  {_fmt_index(r, ishape):>14} {_fmt_index(c, oshape):>14} {n[r, c]:>13.6g} "
            f"{a[r, c]:>13.6g} {err[r, c]:>10.3g} {rel:>10.3g}"
        )
    if np.all(a == 0) and np.any(n != 0):
        lines.append("  (the analytical gradient is all zeros: does backward return a gradient for this input?)")
    return "\n".join(lines)


def _fail(msg: str, raise_exception: bool) -> bool:
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _slow(func: Callable, inputs: tuple, num_inputs: tuple, outs: tuple, eps: float, atol: float, rtol: float) -> list[str]:
    num = get_numerical_jacobian(func, num_inputs, eps)
    ana = get_analytical_jacobian(func, inputs)
    idx = _diff_idx(inputs)
    problems = []
    for pos, (n_i, a_i) in enumerate(zip(num, ana)):
        i = idx[pos]
        for k, (n, a) in enumerate(zip(n_i, a_i)):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                problems.append(_mismatch(i, k, n, a, inputs[i]._data.shape, outs[k]._data.shape, atol, rtol))
    return problems


def _fast(func: Callable, inputs: tuple, num_inputs: tuple, outs: tuple, eps: float, atol: float, rtol: float) -> list[str]:
    rng = np.random.default_rng(0)
    idx = _diff_idx(inputs)
    us = {}
    for i in idx:
        u = rng.standard_normal(inputs[i]._data.shape)
        us[i] = u / max(np.linalg.norm(u), 1e-12)
    vs = [rng.standard_normal(o._data.shape) for o in outs]
    # numerical: v_k . (J_ki u_i) by a directional central difference
    num = {}
    with grad_mode.no_grad():  # gradgradcheck's func turns grad mode back on inside
        for i in idx:
            arr = num_inputs[i]._data
            orig = arr.copy()
            arr[...] = orig + eps * us[i]
            plus = _flat_outputs(func, num_inputs)
            arr[...] = orig - eps * us[i]
            minus = _flat_outputs(func, num_inputs)
            arr[...] = orig
            for k in range(len(outs)):
                num[i, k] = float(vs[k].ravel() @ ((plus[k] - minus[k]) / (2 * eps)))
    # analytical: (J_ki^T v_k) . u_i, one backward per output
    diff = [inputs[i] for i in idx]
    ana = {}
    with grad_mode.enable_grad():
        outs_g = _outputs(func, inputs)
    for k, o in enumerate(outs_g):
        gs: Sequence[Tensor | None] = [None] * len(idx)
        if o.requires_grad:
            v = Tensor._make(vs[k].astype(o._data.dtype))
            gs = autograd_grad(o, diff, v, retain_graph=True, allow_unused=True)
        for pos, i in enumerate(idx):
            g = gs[pos]
            ana[i, k] = 0.0 if g is None else float(np.sum(g._data.astype(np.float64) * us[i]))
    problems = []
    for (i, k), n in num.items():
        a = ana[i, k]
        if abs(a - n) > atol + rtol * abs(n):
            rel = abs(a - n) / abs(n) if n != 0 else float("inf")
            problems.append(
                f"Jacobian mismatch for output {k} with respect to input {i} (fast mode: v^T J u "
                f"for random unit u, v):\n  numerical {n:.6g}, analytical {a:.6g}, abs err "
                f"{abs(a - n):.3g}, rel err {rel:.3g}\n  rerun with fast_mode=False to see the "
                "worst entries with their indices"
            )
    return problems


def _check_reentrant(func: Callable, inputs: tuple, nondet_tol: float) -> str | None:
    """Backward twice with the same grad_outputs must agree within nondet_tol."""
    idx = _diff_idx(inputs)
    diff = [inputs[i] for i in idx]
    results = []
    with grad_mode.enable_grad():
        outs = [o for o in _outputs(func, inputs) if o.requires_grad]
    if not outs:
        return None
    gos = [Tensor._make(np.ones(o._data.shape, dtype=o._data.dtype)) for o in outs]
    for _ in range(2):
        gs = autograd_grad(outs, diff, gos, allow_unused=True, retain_graph=True)
        results.append([None if g is None else g._data.astype(np.float64) for g in gs])
    for pos, (g1, g2) in enumerate(zip(*results)):
        if g1 is None or g2 is None:
            continue
        d = float(np.max(np.abs(g1 - g2))) if g1.size else 0.0
        if d > nondet_tol:
            return (
                f"Backward is not reentrant: two backward passes through the same graph gave "
                f"gradients for input {idx[pos]} differing by up to {d:.3g} (> nondet_tol="
                f"{nondet_tol:g}). A random or stateful backward? Set nondet_tol."
            )
    return None


def _check_undefined(func: Callable, inputs: tuple, nondet_tol: float = 0.0) -> str | None:
    """Backward with all-zero grad_outputs must work and give zero gradients."""
    idx = _diff_idx(inputs)
    with grad_mode.enable_grad():
        outs = [o for o in _outputs(func, inputs) if o.requires_grad]
    if not outs:
        return None
    gos = [Tensor._make(np.zeros(o._data.shape, dtype=o._data.dtype)) for o in outs]
    try:
        gs = autograd_grad(outs, [inputs[i] for i in idx], gos, allow_unused=True)
    except Exception as e:  # noqa: BLE001
        return f"Backward fails with zero (undefined) output gradients: {type(e).__name__}: {e}"
    for pos, g in enumerate(gs):
        if g is not None and g._data.size and float(np.max(np.abs(g._data))) > nondet_tol:
            return (
                f"Backward with zero output gradients returned a non-zero gradient for input "
                f"{idx[pos]}: backward must be linear in grad_output"
            )
    return None


def _check_dtypes(func: Callable, inputs: tuple) -> str | None:
    idx = _diff_idx(inputs)
    with grad_mode.enable_grad():
        outs = [o for o in _outputs(func, inputs) if o.requires_grad]
    if not outs:
        return None
    gos = [Tensor._make(np.ones(o._data.shape, dtype=o._data.dtype)) for o in outs]
    gs = autograd_grad(outs, [inputs[i] for i in idx], gos, allow_unused=True)
    for pos, g in enumerate(gs):
        x = inputs[idx[pos]]
        if g is not None and (g._data.dtype != x._data.dtype or g._data.shape != x._data.shape):
            return (
                f"Gradient for input {idx[pos]} has dtype {g.dtype!r} and shape {list(g.shape)}, "
                f"but the input has dtype {x.dtype!r} and shape {list(x.shape)}"
            )
    return None


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
        inputs: a Tensor or tuple of arguments; the Tensors that require grad are checked.
            float32 inputs are fine: the numerical pass runs on float64 copies.
        eps: finite-difference step (in float64).
        atol, rtol: pass when ``|analytical - numerical| <= atol + rtol * |numerical|``
            everywhere (raised to what float32/float16 can represent, when present).
        raise_exception: raise GradcheckError on failure instead of returning False.
        nondet_tol: allowed difference between two backward passes (0: must be equal).
        check_undefined_grad: also check that backward works with all-zero output
            gradients (what undefined gradients are materialized as) and returns zeros.
        check_grad_dtypes: also check each gradient's dtype and shape equal its input's.
        check_batched_grad: also check that backward with a batch of grad_outputs
            (``grad(..., is_grads_batched=True)``, i.e. vmap over the backward formulas)
            equals one backward per vector and needs no loop fallback.
        check_batched_forward_grad: the same for forward mode (a batch of tangents).
        check_forward_ad: also compare forward-mode AD (jvp) with the numerical Jacobian.
        fast_mode: compare ``v^T J u`` for random u, v instead of full Jacobians.
    Returns:
        True when everything agrees (False on failure when ``raise_exception=False``).
    Raises:
        GradcheckError: on mismatch, when raise_exception.
        ValueError: when no input requires grad (naming the inputs that are not floating
            point).
    Example:
        >>> x = dyngrad.randn(3, dtype=dyngrad.float64, requires_grad=True)
        >>> gradcheck(dyngrad.sin, (x,))
        True
    """
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    if check_forward_ad:
        from .forward_ad import check_forward_ad as _check_fwd  # deferred: it imports gradcheck

        if not _check_fwd(func, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception):
            return False
    if not check_backward_ad:
        return True
    num_inputs = _to_f64(inputs)
    with grad_mode.no_grad():
        outs = _outputs(func, inputs)
        num_outs = _outputs(func, num_inputs)
    atol, rtol = _tolerances(inputs, outs, eps, atol, rtol)
    if any(o._data.dtype != np.float64 for o in num_outs if B.kind(o._data) == "f"):
        # func computes in lower precision even on float64 inputs: widen step and tolerance
        eps = max(eps, 1e-3)
        atol, rtol = max(atol, 1e-3), max(rtol, 1e-2)
    problems = (_fast if fast_mode else _slow)(func, inputs, num_inputs, outs, eps, atol, rtol)
    from . import _batched_check as _batched  # deferred: it imports forward_ad, which imports us
    for extra, on in (
        (lambda: _check_reentrant(func, inputs, nondet_tol), True),
        (lambda: _check_undefined(func, inputs, nondet_tol), check_undefined_grad),
        (lambda: _check_dtypes(func, inputs), check_grad_dtypes),
        (lambda: _batched.check_batched_grad(func, inputs, atol, rtol), check_batched_grad),
        (lambda: _batched.check_batched_forward_grad(func, inputs, atol, rtol), check_batched_forward_grad),
    ):
        if on:
            p = extra()
            if p:
                problems.append(p)
    if problems:
        return _fail("gradcheck failed:\n" + "\n".join(problems), raise_exception)
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
    """Check second derivatives: gradcheck of ``(inputs, v) -> vjp(func, inputs, v)``,
    built with ``create_graph=True``; reverse over reverse (``check_rev_over_rev``, the
    default) and/or forward over reverse (``check_fwd_over_rev``: forward mode through the
    vjp against finite differences).

    ``grad_outputs`` (one per output) default to random tensors of each output's dtype
    that require grad. Same arguments, returns and raises as :func:`gradcheck`.

    Args:
        func: a function of Tensors returning a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple of arguments; the Tensors that require grad are checked
            (use float64: finite differences in float32 are too coarse).
        grad_outputs: one vector per output for the vjp (default: random, requiring grad).
        eps, atol, rtol, raise_exception, nondet_tol, check_undefined_grad, check_grad_dtypes,
            check_batched_grad, fast_mode, masked: as for :func:`gradcheck`.
        gen_non_contig_grad_outputs: make the random ``grad_outputs`` non-contiguous.
        check_fwd_over_rev: also check forward mode through the vjp.
        check_rev_over_rev: check reverse over reverse (the default).
    Returns:
        bool: True when the second derivatives match (False instead of raising when
        ``raise_exception=False``).
    Raises:
        GradcheckError: a mismatch, with both Jacobians (when ``raise_exception``).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.randn(3, dtype=dyngrad.float64, requires_grad=True)
        >>> dyngrad.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))
        True
    """
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    if not (check_rev_over_rev or check_fwd_over_rev):
        return True
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        gos = []
        for o in outs:
            g = rng.standard_normal(o._data.shape).astype(o._data.dtype)
            if gen_non_contig_grad_outputs and g.ndim:
                g = np.repeat(g[..., None], 2, axis=-1)[..., 0]
            gos.append(Tensor._make(g).requires_grad_())
        grad_outputs = tuple(gos)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = _diff_idx(inputs)

    def vjp_fn(*args: Any) -> tuple:
        ins, gs_out = list(args[:n_in]), args[n_in:]
        for i in diff_idx:  # forward mode passes duals that need not require grad
            if not ins[i].requires_grad:
                leaf = ins[i].detach().requires_grad_()
                for interp in grad_mode.state.interpreters:  # (forward mode: keep its tangent)
                    interp.share(ins[i], leaf)
                ins[i] = leaf
        with grad_mode.enable_grad():  # also inside gradcheck's no_grad numerical pass
            os_ = _outputs(func, ins)
            pairs = [(o, g) for o, g in zip(os_, gs_out) if o.requires_grad]
            gs: Sequence[Tensor | None] = autograd_grad(
                [o for o, _ in pairs], [ins[i] for i in diff_idx], [g for _, g in pairs],
                create_graph=True, allow_unused=True,
            )
        if not grad_mode.is_grad_enabled() and not grad_mode.state.interpreters:  # (detach drops tangents)
            gs = [None if g is None else g.detach() for g in gs]
        return tuple(g for g in gs if g is not None)

    # rev-over-rev: backward of the vjp; fwd-over-rev: forward mode through the vjp
    return gradcheck(
        vjp_fn, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
        raise_exception=raise_exception, nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad, fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev,
    )
