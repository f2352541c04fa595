"""The entry type of the op database (:class:`OpInfo`) and which checks an entry takes.

One ``OpInfo`` declares one op (or one notable argument setting of an op): the dyngrad
callable, the PyTorch reference (by name or callable), how inputs are made (domain, shapes,
or a maker), tolerances, and which checks apply. Every standard check reads the same entry:

==================  ==============================================================
check               what it asserts (where it runs)
==================  ==============================================================
``golden_forward``  output equals PyTorch 2.13's stored output (tests/ops/test_<family>)
``golden_backward`` input grads equal PyTorch's for a stored upstream gradient
``node_name``       ``grad_fn.name()`` is PyTorch's
``gradcheck``       float64 gradcheck on base/broadcast/0-d cases (with the forward-mode
                    Jacobian too when the entry names its ``function``)
``gradgradcheck``   float64 gradgradcheck (twice differentiable ops)
``dtype``           float32/float64/int64 result dtypes
``forward_ad``      the jvp (dual numbers) equals central differences along a random
                    tangent and reverse mode (the double-vjp construction elementwise when
                    twice differentiable, and <v, Ju> = <J^T v, u>); no built-in Function on
                    the way took the double-vjp fallback, and ``function``'s own jvp ran
``vmap``            vmap over 3 examples equals a loop over them, with the batch dim first,
                    last, and on the first input only; no loop fallback ran
``vmap_grad``       gradients through vmap equal per-example gradients
``batched_grad``    ``autograd.grad(..., is_grads_batched=True)`` equals a loop of vjps
==================  ==============================================================

Every check runs in tests/test_op_db.py, parametrized over the whole database.

An entry opts out of a check with ``skips={"vmap": "why not"}``: the reason is required and
is shown by ``python -m tests.op_db``. Flags that predate the db (``differentiable``,
``check_grad``, ``twice_differentiable``) still switch the gradient checks off.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Shapes = tuple[tuple[int, ...], ...]

CHECKS = ("golden_forward", "golden_backward", "node_name", "gradcheck", "gradgradcheck", "dtype",
          "forward_ad", "vmap", "vmap_grad", "batched_grad")


@dataclass
class OpInfo:
    """Declarative description of one op under test.

    Attributes:
        name: unique key within its family (golden npz keys and test ids), e.g. ``"gelu_tanh"``.
        fn: the dyngrad callable, ``fn(*inputs, **kwargs) -> Tensor``.
        torch_fn: dotted name in ``torch`` (``"nn.functional.elu"``) or a callable
            ``f(torch, *inputs, **kwargs)``; defaults to ``name``.
        arity: number of inputs produced by the default input maker.
        domain: ``(lo, hi)`` for all inputs, or one ``(lo, hi)`` per input.
        shapes: the base shapes, one per input (default ``(2, 3)`` each).
        broadcast: extra shape tuples that exercise broadcasting (gradcheck + golden).
        kwargs / torch_kwargs: keyword arguments for ``fn`` / for torch (default: kwargs).
        make_inputs: ``(rng, shapes) -> tuple`` override of the default input maker.
        rtol, atol: forward/backward tolerances against golden values (float64).
        grad_rtol, grad_atol, eps: gradcheck (and forward-mode) tolerances and step.
        differentiable: False for ops without a gradient (isnan, isinf...).
        check_grad: False to skip the numerical gradient checks (gradcheck, gradgradcheck,
            forward_ad), e.g. inputs built with ties at a kink, while golden gradients are
            still compared.
        compare_float32: compare float32 results with float64 ones in the dtype check.
        twice_differentiable: run gradgradcheck.
        zero_dim, zero_size: whether the 0-d and zero-size cases apply.
        out_dtype: ``"same"`` (float result keeps the float input dtype), or always ``"bool"``,
            ``"int64"`` or ``"float64"``.
        int_result: result dtype for integer inputs: ``"float"`` (default float dtype),
            ``"same"`` (int64 stays int64), ``"bool"``, or None to skip the int check.
        skips: check name (see :data:`CHECKS`) -> the reason it does not apply.
        family: the db family (set when the family is registered, ``tests/op_db/__init__``).
        function: the ``Function`` whose own jvp rule must run (the forward-mode check
            asserts it ran, not the double-vjp fallback).
        constant: indices of float inputs that take no gradient (targets, running stats):
            they do not require grad, get no tangent and are not batched by vmap.
        formerly: ``"table:name"`` of the entries of older spec tables this entry replaces.
        gradgrad_fast: run gradgradcheck in fast mode (``v^T J u`` for random u, v instead of
            the full second-order Jacobian), for entries whose gradgradcheck is new coverage
            beyond what another entry checks in full, to keep the default suite fast.
        vmap_fallback: why vmap may run this entry as a loop (the values are still
            compared); None asserts that only batching rules ran.
        vmap_batch_ints: vmap also batches the integer (index) inputs, so each example has its
            own indices.
        vmap_only_last: vmap (and the gradients through it) also run with only the last
            batched input batched (e.g. per-example indices into a shared tensor).
        xfail: ``"check"`` or ``"vmap:<placement>"`` -> a known dyngrad bug that makes it fail
            (a strict xfail: the test reports when the bug is fixed).
    """

    name: str
    fn: Callable[..., Any]
    torch_fn: str | Callable[..., Any] | None = None
    arity: int = 1
    domain: Any = (-2.0, 2.0)
    shapes: Shapes | None = None
    broadcast: Sequence[Shapes] = ()
    kwargs: dict = field(default_factory=dict)
    torch_kwargs: dict | None = None
    make_inputs: Callable[[np.random.Generator, Shapes], tuple] | None = None
    rtol: float = 1e-9
    atol: float = 1e-12
    grad_rtol: float = 1e-3
    grad_atol: float = 1e-5
    eps: float = 1e-6
    differentiable: bool = True
    check_grad: bool = True
    compare_float32: bool = True
    twice_differentiable: bool = True
    zero_dim: bool = True
    zero_size: bool = True
    out_dtype: str = "same"
    int_result: str | None = "float"
    skips: dict[str, str] = field(default_factory=dict)
    family: str = ""
    function: type | None = None
    constant: tuple[int, ...] = ()
    formerly: tuple[str, ...] = ()
    gradgrad_fast: bool = False
    vmap_fallback: str | None = None
    vmap_batch_ints: bool = False
    vmap_only_last: bool = False
    xfail: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.torch_fn is None:
            self.torch_fn = self.name
        if self.shapes is None:
            self.shapes = ((2, 3),) * self.arity
        self.arity = len(self.shapes)
        unknown = set(self.skips) - set(CHECKS)
        if unknown:
            raise ValueError(f"{self.name}: unknown checks in skips: {sorted(unknown)} (known: {CHECKS})")
        empty = [k for k, v in self.skips.items() if not (isinstance(v, str) and v.strip())]
        if empty:
            raise ValueError(f"{self.name}: skips need a reason, none given for {empty}")

    def domains(self) -> list[tuple[float, float]]:
        d = self.domain
        if isinstance(d[0], (int, float)):
            return [tuple(d)] * self.arity
        return [tuple(x) for x in d]

    def seed(self, case: str) -> int:
        return zlib.crc32(f"{self.name}|{case}".encode())

    def why_not(self, check: str) -> str | None:
        """None when ``check`` applies to this entry, else the reason it does not."""
        if check not in CHECKS:
            raise ValueError(f"unknown check {check!r} (known: {CHECKS})")
        if check in self.skips:
            return self.skips[check]
        grad_checks = ("golden_backward", "node_name", "gradcheck", "gradgradcheck", "forward_ad", "vmap_grad",
                       "batched_grad")
        if check in grad_checks and not self.differentiable:
            return "not differentiable"
        if check in ("gradcheck", "gradgradcheck", "forward_ad") and not self.check_grad:
            return "check_grad=False (numerical derivatives are not meaningful on these inputs)"
        if check == "gradgradcheck" and not self.twice_differentiable:
            return "not twice differentiable"
        return None

    def applies(self, check: str) -> bool:
        return self.why_not(check) is None

    def diff_inputs(self, inputs: Sequence[Any]) -> list[bool]:
        """Per input: is it differentiated (a float array that is not a ``constant``)?"""
        return [isinstance(x, np.ndarray) and x.dtype.kind == "f" and i not in self.constant
                for i, x in enumerate(inputs)]


def skip(infos: Sequence[OpInfo], names: Sequence[str], reason: str, *checks: str) -> None:
    """Mark the entries of ``infos`` named ``names`` as not taking ``checks``, for ``reason``.

    Raises:
        KeyError: a name that is not in ``infos`` (a renamed entry must not lose its skip).
        ValueError: an unknown check.
    """
    by_name = {i.name: i for i in infos}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise KeyError(f"no entries named {missing}")
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown} (known: {CHECKS})")
    for n in names:
        for c in checks:
            by_name[n].skips[c] = reason


def update(infos: Sequence[OpInfo], names: Sequence[str], **fields: Any) -> None:
    """Set ``fields`` on the entries of ``infos`` named ``names``.

    Raises:
        KeyError: a name that is not in ``infos``.
    """
    by_name = {i.name: i for i in infos}
    missing = [n for n in names if n not in by_name]
    if missing:
        raise KeyError(f"no entries named {missing}")
    for n in names:
        for k, v in fields.items():
            setattr(by_name[n], k, v)


def draw(rng: np.random.Generator, shape: tuple, domain: str = "real") -> np.ndarray:
    """A float64 array for a named domain: "real" (standard normal), "pos" (|N| + 0.5),
    "unit" (0.8 tanh(N), inside (-0.8, 0.8)), "spd" (a symmetric positive definite matrix)."""
    x = rng.standard_normal(shape)
    if domain == "pos":
        return np.abs(x) + 0.5
    if domain == "unit":
        return np.tanh(x) * 0.8
    if domain == "spd":
        a = rng.standard_normal(shape)
        return a @ a.T + shape[0] * np.eye(shape[0])
    if domain != "real":
        raise ValueError(f"unknown domain {domain!r} (known: real, pos, unit, spd)")
    return x


NO_GOLDEN = ("no golden values: written with dyngrad-only calls (a Function's apply, a helper), it "
             "is checked against loops, finite differences and reverse mode instead")


def rule_infos(table: Sequence[tuple], family: str, prepare: Callable[[str, list], list] | None = None,
               formerly: dict[str, tuple[str, ...]] | None = None, overrides: dict[str, dict] | None = None,
               **kw: Any) -> list[OpInfo]:
    """Entries for the rows ``(name, fn, shapes, domain[, function])`` (or ``(name, fn, shapes,
    function)``, domain "real") of a transform-rule table.

    Inputs are drawn from the named ``domain`` (see :func:`draw`), then ``prepare(name,
    arrays)`` may move them off the op's kinks. The golden, node-name and dtype checks do not
    apply (``NO_GOLDEN``); every other check does. ``kw`` goes to every :class:`OpInfo`,
    ``overrides[name]`` to one; ``formerly[name]`` names the old table entries it replaces.
    """
    unknown = (set(formerly or {}) | set(overrides or {})) - {row[0] for row in table}
    if unknown:
        raise KeyError(f"{family}: no rows named {sorted(unknown)}")
    out = []
    for row in table:
        name, fn, shapes = row[:3]
        if len(row) > 3 and not isinstance(row[3], str):
            domain, function = "real", row[3]
        else:
            domain = row[3]
            function = row[4] if len(row) > 4 else None

        def make(rng: np.random.Generator, shapes: Shapes, d: str = domain, n: str = name) -> tuple:
            xs = [draw(rng, s, d) for s in shapes]
            return tuple(prepare(n, xs) if prepare is not None else xs)

        args = dict(zero_dim=False, zero_size=False, int_result=None, grad_rtol=1e-5, grad_atol=1e-7,
                    gradgrad_fast=True)
        args.update(kw)
        args.update((overrides or {}).get(name, {}))
        args["formerly"] = tuple((formerly or {}).get(name, ()))
        skips = {c: NO_GOLDEN for c in ("golden_forward", "golden_backward", "node_name", "dtype")}
        skips.update(args.pop("skips", {}))
        args.setdefault("function", function)
        info = OpInfo(name, fn, shapes=tuple(tuple(s) for s in shapes), domain=domain, make_inputs=make,
                      family=family, skips=skips, **args)
        out.append(info)
    return out
