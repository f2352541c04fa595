"""Table-driven op test harness: one :class:`OpSpec` per op drives every standard check.

How to add an op
----------------
The entries live in the op database, ``tests/op_db/`` (one module per family; the entry type
is :class:`tests.op_db.info.OpInfo`, also importable here as ``OpSpec``); every check runs in
``tests/test_op_db.py``, parametrized over all entries, through the functions below.

1. Append an ``OpSpec`` to your family's ``SPECS`` list (e.g. ``tests/op_db/elementwise.py``),
   or add a family module (see ``tests/op_db/__init__.py``)::

       OpSpec("log1p", dg.log1p, "log1p", domain=(-0.9, 3.0))
       OpSpec("atan2", dg.atan2, "atan2", arity=2, shapes=((2, 3), (3,)))
       OpSpec("gelu_tanh", F.gelu, "nn.functional.gelu", kwargs={"approximate": "tanh"})

   ``fn`` is called as ``fn(*inputs, **kwargs)`` with dyngrad Tensors (Python scalars pass
   through unchanged); ``torch_fn`` is a dotted name in the ``torch`` namespace or a callable
   ``f(torch, *inputs, **kwargs)``; ``torch_kwargs`` overrides ``kwargs`` for torch.
   Inputs come from ``make_inputs(rng, shapes)`` (default: uniform in ``domain``, one
   float64 array per shape). Return bool/int arrays for non-differentiable tensor
   arguments (e.g. ``where``'s condition), Python numbers for scalar arguments, and name
   float inputs that take no gradient in ``constant``.
2. Regenerate the golden file with the family's generator (needs torch), e.g.
   ``/tmp/venv/bin/python tests/golden/gen_elementwise.py``, and commit the ``.npz``.
3. Run ``python -m tests.op_db`` to see which checks the entry takes; a check that cannot
   apply gets ``skips={"check": "the reason"}``. Live comparisons with torch
   (``tests/oracle``) can use :func:`torch_reference` and :func:`dyngrad_reference`.

Cases: every spec is checked on ``shapes`` ("base"), on each of ``broadcast`` ("bcast0",
...), on 0-d inputs ("scalar", when ``zero_dim``) and on zero-size inputs ("empty", when
``zero_size``). Golden files store the inputs themselves, so the default suite never
depends on a NumPy random stream or on torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import dyngrad
from dyngrad.autograd import gradcheck, gradgradcheck
from tests.op_db.info import OpInfo, Shapes

OpSpec = OpInfo  # the name the family tables used before the op database

__all__ = [
    "OpSpec", "cases", "make_case_inputs", "to_dyngrad", "run_forward_vs_golden",
    "run_backward_vs_golden", "run_node_name_check", "run_gradcheck", "run_gradgradcheck", "run_dtype_check",
    "generate_golden", "torch_reference", "dyngrad_reference", "load_golden", "spec_ids", "case_params",
]


def spec_ids(specs: Sequence[OpSpec]) -> list[str]:
    return [s.name for s in specs]


def case_params(specs: Sequence[OpSpec]) -> list:
    """``pytest.param(spec, case, id="name-case")`` for every spec and case, to use as
    ``@pytest.mark.parametrize("spec,case", case_params(SPECS))``."""
    import pytest

    return [pytest.param(s, c, id=f"{s.name}-{c}") for s in specs for c in cases(s)]


def cases(spec: OpSpec) -> dict[str, Shapes]:
    """Case name -> input shapes for the spec (base, bcastN, scalar, empty)."""
    out: dict[str, Shapes] = {"base": tuple(spec.shapes)}
    for i, b in enumerate(spec.broadcast):
        out[f"bcast{i}"] = tuple(b)
    if spec.zero_dim:
        out["scalar"] = ((),) * spec.arity
    if spec.zero_size:
        # the highest-rank inputs get a leading 0 (others still broadcast against them)
        r = max(len(s) for s in spec.shapes)
        out["empty"] = tuple((0,) + tuple(s[1:]) if len(s) == r else tuple(s) for s in spec.shapes)
    return out


def make_case_inputs(spec: OpSpec, case: str, shapes: Shapes | None = None) -> tuple:
    """Inputs for ``case`` (deterministic per spec and case): float64 arrays, other arrays,
    Python scalars."""
    shapes = cases(spec)[case] if shapes is None else shapes
    rng = np.random.default_rng(spec.seed(case))
    if spec.make_inputs is not None:
        ins = spec.make_inputs(rng, shapes)
    else:
        ins = [rng.uniform(lo, hi, size=s) for s, (lo, hi) in zip(shapes, spec.domains())]
    # NumPy scalars (0-d results) are 0-d tensors; plain Python numbers stay scalars
    return tuple(np.asarray(x) if isinstance(x, np.generic) else x for x in ins)


def _differentiable(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def to_dyngrad(inputs: Sequence[Any], requires_grad: bool = False, dtype: Any = None,
               constant: Sequence[int] = ()) -> list:
    """Arrays -> dyngrad Tensors (float ones cast to ``dtype``; those not in ``constant``
    requiring grad when asked)."""
    out = []
    for i, x in enumerate(inputs):
        if isinstance(x, np.ndarray):
            a = x.astype(dtype) if (dtype is not None and x.dtype.kind == "f") else x.copy()
            t = dyngrad.from_numpy(a) if hasattr(dyngrad, "from_numpy") else dyngrad.tensor(a)
            if requires_grad and a.dtype.kind == "f" and i not in constant:
                t.requires_grad_()
            out.append(t)
        else:
            out.append(x)
    return out


def _call(spec: OpSpec, inputs: Sequence[Any]) -> Any:
    return spec.fn(*inputs, **spec.kwargs)


# ------------------------------------------------------------------ golden values
def _key(spec: OpSpec, case: str, part: str) -> str:
    return f"{spec.name}|{case}|{part}"


def load_golden(path: str) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _golden_inputs(spec: OpSpec, golden: dict, case: str) -> list:
    kinds = str(golden[_key(spec, case, "kinds")])
    ins = []
    for i, k in enumerate(kinds):
        v = golden[_key(spec, case, f"in{i}")]
        ins.append(v.item() if k == "s" else v)
    return ins


def run_forward_vs_golden(spec: OpSpec, golden: dict, case: str = "base") -> None:
    """Compare ``spec.fn`` on the stored inputs with torch's stored output (value, shape,
    dtype kind)."""
    if _key(spec, case, "out") not in golden:
        raise AssertionError(f"no golden values for {spec.name!r} case {case!r}: rerun the generator")
    ins = _golden_inputs(spec, golden, case)
    out = _call(spec, to_dyngrad(ins))
    want = golden[_key(spec, case, "out")]
    got = out.detach().numpy() if isinstance(out, dyngrad.Tensor) else np.asarray(out)
    assert got.shape == want.shape, f"{spec.name}[{case}]: shape {got.shape} != torch {want.shape}"
    assert got.dtype.kind == want.dtype.kind, f"{spec.name}[{case}]: dtype {got.dtype} vs torch {want.dtype}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=spec.rtol, atol=spec.atol, equal_nan=True,
                                   err_msg=f"{spec.name}[{case}] forward")
    else:
        np.testing.assert_array_equal(got, want, err_msg=f"{spec.name}[{case}] forward")


def run_backward_vs_golden(spec: OpSpec, golden: dict, case: str = "base") -> None:
    """Backpropagate the stored upstream gradient and compare the input grads with torch's."""
    ins = _golden_inputs(spec, golden, case)
    if _key(spec, case, "gout") not in golden:
        raise AssertionError(f"no golden gradients for {spec.name!r} case {case!r}: rerun the generator")
    ts = to_dyngrad(ins, requires_grad=True, constant=spec.constant)
    out = _call(spec, ts)
    gout = dyngrad.from_numpy(golden[_key(spec, case, "gout")].copy())
    diff = [t for t in ts if isinstance(t, dyngrad.Tensor) and t.requires_grad]
    grads = dyngrad.autograd.grad(out, diff, gout, allow_unused=True)
    j = 0
    for i, (x, d) in enumerate(zip(ins, spec.diff_inputs(ins))):
        if not d:
            continue
        want = golden[_key(spec, case, f"grad{i}")]
        g = grads[j]
        j += 1
        got = np.zeros_like(x) if g is None else g.numpy()
        assert got.shape == want.shape, f"{spec.name}[{case}] grad{i}: shape {got.shape} != {want.shape}"
        np.testing.assert_allclose(got, want, rtol=spec.rtol * 10, atol=spec.atol * 10, equal_nan=True,
                                   err_msg=f"{spec.name}[{case}] grad of input {i}")


# ------------------------------------------------------------------ gradient checks
def _grad_cases(spec: OpSpec) -> list[str]:
    return [c for c in cases(spec) if c != "empty"]


def run_gradcheck(spec: OpSpec, case: str | None = None, check_forward_ad: bool = False) -> None:
    """float64 gradcheck on the base, broadcast and 0-d cases (or only ``case``); with
    ``check_forward_ad`` the base case also compares the forward-mode Jacobian."""
    for c in [case] if case else _grad_cases(spec):
        ts = to_dyngrad(make_case_inputs(spec, c), requires_grad=True, constant=spec.constant)
        assert gradcheck(lambda *a: _call(spec, a), tuple(ts), eps=spec.eps,
                         atol=spec.grad_atol, rtol=spec.grad_rtol,
                         check_forward_ad=check_forward_ad and c == "base"), f"{spec.name}[{c}]"


def run_gradgradcheck(spec: OpSpec, case: str | None = None) -> None:
    """float64 gradgradcheck (second derivatives through a differentiable backward)."""
    for c in [case] if case else _grad_cases(spec):
        ts = to_dyngrad(make_case_inputs(spec, c), requires_grad=True, constant=spec.constant)
        assert gradgradcheck(lambda *a: _call(spec, a), tuple(ts), eps=spec.eps, atol=spec.grad_atol,
                             rtol=spec.grad_rtol, fast_mode=spec.gradgrad_fast), f"{spec.name}[{c}]"


# ------------------------------------------------------------------ dtypes
def run_dtype_check(spec: OpSpec) -> None:
    """float32 in -> float32 out and float64 in -> float64 out (``out_dtype="same"``), or a
    bool result; integer inputs give the default float dtype (``int_result``)."""
    ins = make_case_inputs(spec, "base")
    ref = None
    for np_dt, dg_dt in ((np.float64, dyngrad.float64), (np.float32, dyngrad.float32)):
        out = _call(spec, to_dyngrad(ins, dtype=np_dt))
        want = {"bool": dyngrad.bool, "int64": dyngrad.int64, "float64": dyngrad.float64}.get(spec.out_dtype, dg_dt)
        assert out.dtype == want, f"{spec.name}: {np.dtype(np_dt)} input gave {out.dtype}, expected {want}"
        if ref is None:
            ref = out.numpy()
        elif ref.dtype.kind == "f" and spec.compare_float32:
            np.testing.assert_allclose(out.numpy(), ref, rtol=2e-4, atol=2e-5, equal_nan=True,
                                       err_msg=f"{spec.name}: float32 result far from float64")
    if spec.int_result is None:
        return
    ints = []
    rng = np.random.default_rng(spec.seed("int"))
    doms = spec.domains()
    for i, x in enumerate(ins):
        if _differentiable(x):
            lo, hi = doms[min(i, len(doms) - 1)]
            lo_i, hi_i = int(np.ceil(lo)), int(np.floor(hi))
            if lo_i > hi_i:
                return
            ints.append(rng.integers(lo_i, hi_i + 1, size=x.shape))
        else:
            ints.append(x)
    out = _call(spec, to_dyngrad(ints))
    want = {"float": dyngrad.get_default_dtype(), "same": dyngrad.int64, "bool": dyngrad.bool}[spec.int_result]
    assert out.dtype == want, f"{spec.name}: int64 input gave {out.dtype}, expected {want}"


def dyngrad_reference(spec: OpSpec, inputs: Sequence[Any], gout: np.ndarray | None = None) -> tuple:
    """Same contract as :func:`torch_reference`, computed with dyngrad."""
    ts = to_dyngrad(inputs, requires_grad=spec.differentiable, constant=spec.constant)
    out = _call(spec, ts)
    grads: list = []
    diff = [t for t in ts if isinstance(t, dyngrad.Tensor) and t.requires_grad]
    if gout is not None and diff and out.requires_grad:
        gs = dyngrad.autograd.grad(out, diff, dyngrad.from_numpy(np.array(gout)), allow_unused=True)
        grads = [None if g is None else g.numpy() for g in gs]
    return out.detach().numpy(), grads


# ------------------------------------------------------------------ torch side
def _torch_callable(torch: Any, spec: OpSpec) -> Callable[..., Any]:
    if callable(spec.torch_fn):
        return lambda *a, **k: spec.torch_fn(torch, *a, **k)
    obj = torch
    for part in spec.torch_fn.split("."):
        obj = getattr(obj, part)
    return obj


def torch_reference(torch: Any, spec: OpSpec, inputs: Sequence[Any], gout: np.ndarray | None = None) -> tuple:
    """Run torch on ``inputs``: returns ``(out, grads)`` as NumPy (grads: one per
    differentiable input, None when torch gives none or ``gout`` is None)."""
    ts = []
    for x, d in zip(inputs, spec.diff_inputs(inputs)):
        if isinstance(x, np.ndarray):
            t = torch.from_numpy(x.copy())
            if d and spec.differentiable:
                t.requires_grad_()
            ts.append(t)
        else:
            ts.append(x)
    kw = spec.kwargs if spec.torch_kwargs is None else spec.torch_kwargs
    out = _torch_callable(torch, spec)(*ts, **kw)
    grads: list = []
    diff = [t for t in ts if isinstance(t, torch.Tensor) and t.requires_grad]
    if gout is not None and diff and out.requires_grad:
        gs = torch.autograd.grad(out, diff, torch.from_numpy(gout), allow_unused=True)
        grads = [None if g is None else g.numpy() for g in gs]
    return out.detach().numpy(), grads


def _torch_node_name(torch: Any, spec: OpSpec, inputs: Sequence[Any]) -> str:
    ts = [torch.from_numpy(x.copy()).requires_grad_() if d else
          (torch.from_numpy(x.copy()) if isinstance(x, np.ndarray) else x)
          for x, d in zip(inputs, spec.diff_inputs(inputs))]
    kw = spec.kwargs if spec.torch_kwargs is None else spec.torch_kwargs
    out = _torch_callable(torch, spec)(*ts, **kw)
    return "" if out.grad_fn is None else type(out.grad_fn).__name__


def run_node_name_check(spec: OpSpec, golden: dict) -> None:
    """``out.grad_fn``'s name equals PyTorch's (e.g. ``ExpBackward0``) on the base case.

    Raises:
        AssertionError: the names differ, or the golden file has no node name for the entry
            (a file that predates node names must be regenerated, not pass silently).
    """
    key = _key(spec, "base", "node")
    if key not in golden:
        raise AssertionError(f"the golden file has no node name for {spec.name!r} ({key!r}): "
                             "regenerate it with its tests/golden/gen_<family>.py")
    ts = to_dyngrad(_golden_inputs(spec, golden, "base"), requires_grad=True, constant=spec.constant)
    out = _call(spec, ts)
    got = "" if out.grad_fn is None else out.grad_fn.name()
    assert got == str(golden[key]), f"{spec.name}: grad_fn {got!r}, PyTorch {str(golden[key])!r}"


def generate_golden(specs: Sequence[OpSpec], path: str) -> None:
    """Run torch on every spec's cases and save inputs, outputs, a fixed random upstream
    gradient and the input grads into ``path`` (npz keyed ``name|case|part``)."""
    import torch

    data: dict[str, np.ndarray] = {}
    names = [s.name for s in specs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicate spec names: {sorted(dup)}")
    for spec in specs:
        for case in cases(spec):
            ins = make_case_inputs(spec, case)
            out, _ = torch_reference(torch, spec, ins)
            rng = np.random.default_rng(spec.seed(case) + 1)
            gout = rng.standard_normal(out.shape) if out.dtype.kind == "f" else None
            _, grads = torch_reference(torch, spec, ins, gout)
            data[_key(spec, case, "kinds")] = np.array("".join("t" if isinstance(x, np.ndarray) else "s" for x in ins))
            for i, x in enumerate(ins):
                data[_key(spec, case, f"in{i}")] = np.asarray(x)
            data[_key(spec, case, "out")] = out
            if spec.differentiable and case == "base":
                data[_key(spec, case, "node")] = np.array(_torch_node_name(torch, spec, ins))
            if gout is not None and spec.differentiable:
                data[_key(spec, case, "gout")] = gout
                j = 0
                for i, (x, d) in enumerate(zip(ins, spec.diff_inputs(ins))):
                    if d:
                        g = grads[j] if j < len(grads) else None
                        j += 1
                        data[_key(spec, case, f"grad{i}")] = np.zeros_like(x) if g is None else g
    np.savez_compressed(path, **data)
