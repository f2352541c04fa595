"""``check_function``: one run that verifies a user's custom ``autograd.Function``, and the
``dyngrad check module:FnClass --inputs "randn(3,4), randn(4)"`` command line.

Checks (each a row of the report): backward arity against forward's parameters (by name),
gradient shapes and dtypes per input, gradient against finite differences (float64),
double backward (gradgradcheck, or an explicit ``once_differentiable``), tensors stored as
ctx attributes, in-place modification with and without ``mark_dirty``, broadcasting inputs,
non-contiguous inputs, zero-size inputs, and whether saved memory is released after
backward. Random forwards (dropout) are checked by replaying the default generator's state
before every call.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import grad_mode
from .checker_variants import (
    FAIL,
    PASS,
    SKIP,
    WARN,
    _check_memory,
    _copy,
    _dtype_label,
    _f64,
    _grads,
    _outs,
    _short,
    _variants,
)
from .function import Function
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .. import _backend as B

__all__ = ["check_function", "CheckReport", "CheckResult", "parse_inputs", "main"]



class CheckResult:
    """One row: ``name``, ``status`` (pass / FAIL / warn / skip), ``message`` and ``dtype``
    (the floating dtype the check ran in, e.g. ``"float32"``; ``"-"`` when it did not run)."""

    __slots__ = ("name", "status", "message", "dtype")

    def __init__(self, name: str, status: str, message: str = "", dtype: str = "-") -> None:
        self.name, self.status, self.message, self.dtype = name, status, message, dtype

    def __repr__(self) -> str:
        return f"CheckResult({self.name!r}, {self.status!r}, {self.message!r}, dtype={self.dtype!r})"


class CheckReport:
    """What :func:`check_function` found. ``ok`` is True when no check failed; ``str()`` is
    a table; ``report["gradient"]`` is one row by name. ``dtype`` is the dtype of the
    example inputs: the checks run in it, except the numerical ones (float64)."""

    def __init__(self, fn_name: str, skip: Any = (), dtype: str = "float64") -> None:
        self.fn_name = fn_name
        self.skip = set(skip)
        self.dtype = dtype
        self.results: list[CheckResult] = []

    def add(self, name: str, status: str, message: str = "", dtype: str | None = None) -> None:
        """Add a row; ``dtype`` defaults to the inputs' dtype (``"-"`` for a skipped check)."""
        if name in self.skip:
            status, message = SKIP, "skipped on request"
        if dtype is None or status == SKIP:
            dtype = "-" if status == SKIP else self.dtype
        self.results.append(CheckResult(name, status, message, dtype))

    @property
    def ok(self) -> bool:
        return all(r.status != FAIL for r in self.results)

    @property
    def failed(self) -> list[CheckResult]:
        return [r for r in self.results if r.status == FAIL]

    def summary(self) -> str:
        """The counts line: passed, warned, failed and skipped checks, each counted apart.

        Returns:
            str: e.g. ``"8 passed, 1 warned, 0 failed, 1 skipped (10 checks)"``.
        """
        n = {s: sum(r.status == s for r in self.results) for s in (PASS, WARN, FAIL, SKIP)}
        return (
            f"{n[PASS]} passed, {n[WARN]} warned, {n[FAIL]} failed, {n[SKIP]} skipped "
            f"({len(self.results)} checks)"
        )

    def __getitem__(self, name: str) -> CheckResult:
        for r in self.results:
            if r.name == name:
                return r
        raise KeyError(name)

    def __str__(self) -> str:
        w = max(len(r.name) for r in self.results) if self.results else 10
        d = max([5] + [len(r.dtype) for r in self.results])
        lines = [
            f"dyngrad check {self.fn_name}",
            f"  inputs in {self.dtype}; the gradient and double backward checks compare in float64",
            f"  {'check':<{w}}  status  {'dtype':<{d}}  details",
        ]
        for r in self.results:
            msg = r.message.replace("\n", "\n" + " " * (w + d + 14))
            lines.append(f"  {r.name:<{w}}  {r.status:<6}  {r.dtype:<{d}}  {msg}")
        lines.append(f"{'OK' if self.ok else 'FAILED'}: {self.summary()}")
        return "\n".join(lines)

    __repr__ = __str__


def _rng_replay(fn: Callable) -> tuple[Callable, Callable, Callable]:
    """Wrap ``fn`` so every call starts from the same default-generator state; the second
    wrapper also clones the tensors that require grad and silences warnings."""
    from ..creation import default_generator

    bitgen = default_generator.rng.bit_generator
    state = bitgen.state

    def replay(*args: Any) -> Any:
        default_generator.rng.bit_generator.state = state
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # clone tensors that require grad: forward may legally modify them (mark_dirty)
            return fn(*[a.clone() if isinstance(a, Tensor) and a.requires_grad else a for a in args])

    drew: list[Any] = []

    def raw(*args: Any) -> Any:
        default_generator.rng.bit_generator.state = state
        out = fn(*args)
        if not drew and default_generator.rng.bit_generator.state != state:
            drew.append(True)
        return out

    def used() -> bool:
        return bool(drew)

    return raw, replay, used

FAST_ABOVE = 512  # inputs with more elements in total use gradcheck's fast mode


def _fast(ins: tuple) -> bool:
    return sum(x._data.size for x in ins if isinstance(x, Tensor)) > FAST_ABOVE


_KINK_H = 1e-6  # the one-sided step of the kink probe (gradcheck's own step is 1e-6 too)
_KINK_SHIFT = 1e-3  # how far the re-check moves an input entry off its kink


def _flat_outputs(res: Any) -> np.ndarray:
    return np.concatenate([np.asarray(o._data, dtype=np.float64).reshape(-1) for o in _outs(res)
                           if isinstance(o, Tensor) and o._data.dtype.kind == "f"] or [np.zeros(0)])


def _moved(fn: Callable, base: tuple, i: int, j: int, delta: float) -> np.ndarray:
    """``fn``'s outputs (flat) with entry ``j`` of input ``i`` moved by ``delta``."""
    y = base[i]._data.copy()
    y.reshape(-1)[j] += delta
    return _flat_outputs(fn(*(base[:i] + (Tensor._make(y),) + base[i + 1:])))


def _kinks(fn: Callable, ins: tuple) -> list[tuple[int, int, float, float, float]]:
    """The input entries where ``fn`` has a kink: its one-sided slopes (steps of
    ``_KINK_H``) differ, as ReLU's or abs's at 0. There the function is not differentiable,
    central finite differences average the two slopes and the derivative of the gradient is
    a spike of size jump / (2 h): a gradient check fails whatever backward returns.
    Returns ``(input, flat index, value, left slope, right slope)`` (the largest slope change
    over the outputs); empty for inputs too large to probe entry by entry."""
    if _fast(ins):
        return []
    found = []
    with grad_mode.no_grad(), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        base = tuple(Tensor._make(x._data.copy()) if isinstance(x, Tensor) else x for x in ins)
        f0 = _flat_outputs(fn(*base))
        for i, x in enumerate(base):
            if not isinstance(x, Tensor) or x._data.dtype.kind != "f" or not ins[i].requires_grad:
                continue
            for j in range(x._data.size):
                left = (f0 - _moved(fn, base, i, j, -_KINK_H)) / _KINK_H
                right = (_moved(fn, base, i, j, _KINK_H) - f0) / _KINK_H
                if left.shape != right.shape or not left.size:
                    continue
                gap = np.abs(left - right)
                k = int(np.argmax(gap))
                if gap[k] > 1e-3 * (1.0 + abs(left[k]) + abs(right[k])):
                    found.append((i, j, float(x._data.reshape(-1)[j]), float(left[k]), float(right[k])))
    return found


def _off_kinks(ins: tuple, kinks: list) -> tuple:
    """``ins`` with each kink entry moved by ``_KINK_SHIFT`` (relative to its size)."""
    out = list(_copy(ins))
    for i, j, v, _, _ in kinks:
        out[i]._data.reshape(-1)[j] = v + _KINK_SHIFT * max(1.0, abs(v))
    return tuple(out)


def _kink_note(kinks: list, names: tuple, passes_off: bool, what: str) -> str:
    def where(i: int, j: int, v: float, shape: tuple) -> str:
        idx = ", ".join(str(int(t)) for t in np.unravel_index(j, shape)) if shape else ""
        return f"{names[i] if i < len(names) else f'input{i}'}[{idx}] = {v:g}"

    shown = "; ".join(f"{where(i, j, v, sh)} (slope {lf:g} from the left, {rt:g} from the right)"
                      for (i, j, v, lf, rt), sh in kinks[:3]) + (f"; {len(kinks) - 3} more" if len(kinks) > 3 else "")
    head = (f"the example inputs sit on a kink of the function (not differentiable there): {shown}. Finite "
            f"differences straddle it, so {what} cannot be checked at those entries.")
    if passes_off:
        return (f"{head} With them moved by {_KINK_SHIFT:g} the check passes: backward is right away from the kink; "
                "choose example inputs off it.")
    return f"{head} With them moved by {_KINK_SHIFT:g} it still fails: fix backward's formula."


def _grad_check(report: CheckReport, name: str, fn: Callable, ins: tuple, what: str, names: tuple = ()) -> None:
    if _fast(ins):
        what += " (fast mode: v^T J u, inputs are large)"
    try:
        gradcheck(fn, ins, check_undefined_grad=False, fast_mode=_fast(ins))
        report.add(name, PASS, what, "float64")
    except GradcheckError as e:
        kinks = _kinks(fn, ins)
        if kinks:
            try:
                gradcheck(fn, _off_kinks(ins, kinks), check_undefined_grad=False)
                ok_off = True
            except Exception:  # noqa: BLE001
                ok_off = False
            note = _kink_note([(k, ins[k[0]]._data.shape) for k in kinks], names, ok_off, "the gradient")
            report.add(name, WARN if ok_off else FAIL, f"{what}: {note}" + ("" if ok_off else f"\n{_short(e, 900)}"),
                       "float64")
            return
        report.add(name, FAIL, f"{what}: analytical gradient differs from finite differences; fix backward's formula.\n{_short(e, 900)}", "float64")
    except Exception as e:  # noqa: BLE001
        report.add(name, FAIL, f"{what}: {_short(e)}", "float64")


CHECKS = (
    "ctx tensors", "in-place", "backward arity", "grad shapes/dtypes", "memory released", "gradient",
    "double backward", "broadcasting", "non-contiguous", "zero-size",
)


def check_function(fn_cls: type, *example_inputs: Any, double_backward: bool = True, skip: Any = ()) -> CheckReport:
    """Run every check on ``fn_cls.apply(*example_inputs)`` and return the report.

    Args:
        fn_cls: an ``autograd.Function`` subclass.
        *example_inputs: arguments for ``apply`` (Tensors of any floating dtype; other
            values passed as is). The checks run on copies requiring grad in the inputs'
            own dtype (a float32 Function is checked in float32: gradient dtypes, shapes,
            input variants), except ``gradient`` and ``double backward``, which compare
            with finite differences in float64. Each row's ``dtype`` says which.
        double_backward: also check second derivatives (skipped when backward is
            ``once_differentiable``).
        skip: names of checks (see ``CHECKS``) to report as skipped, e.g. ``("gradient",)``
            for a deliberate surrogate gradient (straight-through, gradient reversal).
    Returns:
        a :class:`CheckReport` (``.ok``, printable table).
    Raises:
        TypeError: when ``fn_cls`` is not a Function subclass.

    Example:
        >>> import dyngrad
        >>> class Square(dyngrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * g
        >>> report = dyngrad.autograd.check_function(Square, dyngrad.randn(3, 2))
        >>> report.ok, report["gradient"].status
        (True, 'pass')
    """
    if not (isinstance(fn_cls, type) and issubclass(fn_cls, Function) and fn_cls is not Function):
        raise TypeError(f"{getattr(fn_cls, '__name__', fn_cls)!r} is not a subclass of dyngrad.autograd.Function")
    report = CheckReport(fn_cls.__name__, skip, _dtype_label(example_inputs))
    raw_apply, apply, rng_used = _rng_replay(fn_cls.apply)
    skip = set(skip)
    unknown = skip - set(CHECKS)
    if unknown:
        raise ValueError(f"unknown check name(s) {sorted(unknown)}; known: {', '.join(CHECKS)}")
    names = fn_cls._arg_names
    def argname(i: int) -> str:
        return f"'{names[i]}'" if i < len(names) else f"#{i}"
    ins = _copy(example_inputs)  # the user's dtype; only the numerical checks use float64
    tensor_idx = [i for i, x in enumerate(ins) if isinstance(x, Tensor) and x.requires_grad]
    if not tensor_idx:
        report.add("inputs", FAIL, "no floating point Tensor among the example inputs: nothing to differentiate")
        return report
    # ---- forward: ctx tensors, in-place modification
    clones = tuple(x.clone() if i in tensor_idx else x for i, x in enumerate(ins))  # in-place safe
    versions = [x._version if isinstance(x, Tensor) else None for x in clones]
    with warnings.catch_warnings(record=True) as caught, grad_mode.enable_grad():
        warnings.simplefilter("always")
        try:
            out = raw_apply(*clones)
        except Exception as e:  # noqa: BLE001
            report.add("forward", FAIL, f"{fn_cls.__name__}.apply raised {_short(e)}")
            return report
    ctx_warn = [str(w.message) for w in caught if "as ctx." in str(w.message)]
    report.add(
        "ctx tensors", FAIL if ctx_warn else PASS,
        "; ".join(ctx_warn) if ctx_warn else "tensors reach backward through save_for_backward only",
    )
    outs = _outs(out)
    node = next((o.grad_fn for o in outs if isinstance(o, Tensor) and o.grad_fn is not None), None)
    dirty = tuple(c for c in clones if isinstance(c, Tensor) and any(o is c for o in outs))  # mark_dirty keeps identity
    changed = [
        i for i in tensor_idx
        if clones[i]._version != versions[i] or not np.array_equal(clones[i]._data, ins[i]._data, equal_nan=True)
    ]
    undeclared = [i for i in changed if not any(d is clones[i] for d in dirty)]
    if undeclared:
        who = ", ".join(argname(i) for i in undeclared)
        bare = ", ".join(names[i] if i < len(names) else f"input{i}" for i in undeclared)
        report.add("in-place", FAIL, f"forward modified input {who} in place without ctx.mark_dirty({bare}): "
                   "autograd does not know the input changed, so gradients using it are wrong. Call "
                   "ctx.mark_dirty() on it and return it, or compute out of place (e.g. x.clone()).")
    elif changed:
        returned = all(any(o is clones[i] for o in outs) for i in changed)
        report.add("in-place", PASS if returned else FAIL,
                   "modified inputs are declared with mark_dirty and returned" if returned else
                   "inputs given to mark_dirty must be returned by forward")
    else:
        report.add("in-place", PASS, "forward does not modify its inputs" + (" (mark_dirty declared, nothing modified)" if dirty else ""))
    if node is None:
        report.add("graph", FAIL, "no output has a grad_fn: forward returned no differentiable tensor")
        return report
    # ---- raw backward: arity by parameter name, missing gradients, shapes and dtypes
    gos = [
        Tensor._make(np.ones(o._data.shape, dtype=o._data.dtype)) if isinstance(o, Tensor) and B.kind(o._data) == "f" else None
        for o in outs
    ]
    try:
        with grad_mode.no_grad():
            raw = node.apply(*gos)
    except Exception as e:  # noqa: BLE001
        report.add("backward arity", FAIL, f"backward raised {_short(e)}")
        raw = None
    if raw is not None:
        raw = raw if isinstance(raw, tuple) else tuple(raw) if isinstance(raw, list) else (raw,)
        n_passed, n_params = len(ins), max(len(names), len(ins))
        extra_ok = len(raw) > n_passed and len(raw) <= n_params and all(r is None for r in raw[n_passed:])
        if len(raw) == n_passed or extra_ok:
            report.add("backward arity", PASS, f"{len(raw)} gradient(s) for forward({', '.join(names)})")
        else:
            missing = names[len(raw):n_passed] if len(raw) < n_passed else ()
            hint = f"; add gradients (None if not differentiable) for {', '.join(missing)}" if missing else ""
            report.add("backward arity", FAIL, f"backward returned {len(raw)} gradient(s) but forward takes "
                       f"{n_passed} input(s) ({', '.join(names)}){hint}")
        msgs, bad = [], False
        for i, x in enumerate(ins):
            g = raw[i] if i < len(raw) else None
            if i not in tensor_idx:
                if g is not None:
                    bad = True
                    msgs.append(f"{argname(i)} is not a Tensor but got a gradient: return None for it")
                continue
            if g is None:
                bad = True
                msgs.append(f"{argname(i)} requires grad but backward returned None for it (missing gradient)")
            elif not isinstance(g, Tensor):
                bad = True
                msgs.append(f"gradient for {argname(i)} is a {type(g).__name__}, not a Tensor")
            elif g._data.shape != x._data.shape:
                if B.is_broadcastable_to(x._data.shape, g._data.shape):
                    msgs.append(f"{argname(i)}: gradient shape {list(g.shape)} reduced to {list(x.shape)} by the engine")
                else:
                    bad = True
                    msgs.append(f"gradient for {argname(i)} has shape {list(g.shape)} but {argname(i)} has shape "
                                f"{list(x.shape)}: backward must return a gradient of the input's shape")
            elif g._data.dtype != x._data.dtype:
                msgs.append(f"{argname(i)}: gradient dtype {g.dtype!r} cast to {x.dtype!r}")
            else:
                msgs.append(f"{argname(i)}: {list(g.shape)} {g.dtype!r}")
        report.add("grad shapes/dtypes", FAIL if bad else PASS, "; ".join(msgs))
    try:  # a backward the engine rejects blocks the remaining checks
        _grads(apply, _copy(example_inputs), tensor_idx)
    except Exception as e:  # noqa: BLE001
        for name in CHECKS[CHECKS.index("memory released"):]:
            report.add(name, SKIP, f"not run: backward fails ({_short(e, 160)})")
        return report
    # ---- memory released after backward (reference counting only)
    _check_memory(report, apply, ins, tensor_idx)
    # ---- numerical gradient, second derivative
    fn = apply
    _grad_check(report, "gradient", fn, _f64(example_inputs), "float64 finite differences", names)
    once = getattr(fn_cls._backward_impl, "_once_differentiable", False)
    if not double_backward:
        report.add("double backward", SKIP, "not requested")
    elif once:
        report.add("double backward", PASS, "backward is declared @once_differentiable (double backward raises)", "-")
    else:
        try:
            gradgradcheck(fn, _f64(example_inputs), check_undefined_grad=False, fast_mode=_fast(example_inputs))
            report.add("double backward", PASS, "second derivatives match (gradgradcheck)", "float64")
        except Exception as e:  # noqa: BLE001
            ins64 = _f64(example_inputs)
            kinks = _kinks(fn, ins64) if isinstance(e, GradcheckError) else []
            if kinks:  # the gradient jumps there: its numerical derivative is a spike, not a bug
                try:
                    gradgradcheck(fn, _off_kinks(ins64, kinks), check_undefined_grad=False)
                    ok_off = True
                except Exception:  # noqa: BLE001
                    ok_off = False
                note = _kink_note([(k, ins64[k[0]]._data.shape) for k in kinks], names, ok_off,
                                  "the second derivative")
                report.add("double backward", WARN if ok_off else FAIL,
                           note + ("" if ok_off else f"\n{_short(e, 700)}"), "float64")
            else:
                report.add("double backward", FAIL,
                           "second derivative is wrong: write backward with differentiable dyngrad Tensor ops "
                           "(no ._data, .numpy(), detach() or tensors stored on ctx), or decorate it with "
                           f"@once_differentiable if it cannot be.\n{_short(e, 700)}", "float64")
    # ---- input variants
    _variants(report, fn, example_inputs, tensor_idx, names)
    if rng_used():
        report.add("randomness", PASS, "forward draws random numbers: the generator state was replayed before every call")
    return report

def main(argv: list[str] | None = None) -> int:
    """``dyngrad check module:FnClass --inputs "randn(3,4), randn(4)"`` (see
    :mod:`dyngrad.autograd.checker_cli`). Returns the exit code: 0 all checks pass, 1 a
    check fails, 2 bad arguments."""
    from .checker_cli import main as _main

    return _main(argv)


def parse_inputs(text: str) -> tuple:
    """Parse ``--inputs`` safely; see :func:`dyngrad.autograd.checker_cli.parse_inputs`."""
    from .checker_cli import parse_inputs as _parse

    return _parse(text)
