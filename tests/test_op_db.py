"""Checks that every entry of the op database (tests/op_db/) drives besides its family's golden,
gradcheck and dtype tests (tests/ops/test_<family>.py): forward mode against central
differences and reverse mode, vmap against a loop, and batched gradients against a loop of
vjps. An entry that a check does not apply to says why in its ``skips``; the coverage table
is ``python -m tests.op_db``. The transform-rule entries (tests/op_db/rules.py, vmap_*.py)
take only the batched-grad check here: their tables' own tests check forward mode and vmap
and also assert that the op's own rule ran."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import forward_ad as fwAD
from dyngrad.func import vmap
from tests.op_db import CHECKS, GOLDEN_FAMILIES, OP_DB, OpInfo, params, select
from tests.ops.harness import cases, make_case_inputs, to_dyngrad

B = 3  # examples per vmap / batched-grad check


def _is_float(x: object) -> bool:
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def _call(info: OpInfo, args: list) -> dyngrad.Tensor:
    return info.fn(*args, **info.kwargs)


def _np(out: object) -> np.ndarray:
    return out.detach().numpy() if isinstance(out, dyngrad.Tensor) else np.asarray(out)


def _shifted(ins: tuple, us: dict, h: float) -> list:
    return to_dyngrad([np.asarray(x + h * us[i]) if i in us else x for i, x in enumerate(ins)])


def _example(info: OpInfo, k: int) -> tuple:
    """The base case's inputs (k = 0) or another draw from the same input maker (k > 0)."""
    if k == 0:
        return make_case_inputs(info, "base")
    shapes = cases(info)["base"]
    rng = np.random.default_rng(info.seed(f"example{k}"))
    if info.make_inputs is not None:
        ins = info.make_inputs(rng, shapes)
    else:
        ins = [rng.uniform(lo, hi, size=s) for s, (lo, hi) in zip(shapes, info.domains())]
    return tuple(np.asarray(x) if isinstance(x, np.generic) else x for x in ins)


def _numpy(t: dyngrad.Tensor | None, like: np.ndarray) -> np.ndarray:
    return np.zeros_like(like) if t is None else np.asarray(t.detach().numpy())


# ------------------------------------------------------------------ forward mode
@pytest.mark.parametrize("info", params("forward_ad"))
def test_forward_mode_tangent_equals_central_differences_and_agrees_with_reverse_mode(info: OpInfo) -> None:
    ins = make_case_inputs(info, "base")
    rng = np.random.default_rng(info.seed("tangent"))
    us = {i: rng.standard_normal(x.shape) for i, x in enumerate(ins) if _is_float(x)}
    plain = to_dyngrad(ins)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(t, dyngrad.from_numpy(np.array(us[i]))) if i in us else t
                 for i, t in enumerate(plain)]
        out = _call(info, duals)
        primal, tangent = fwAD.unpack_dual(out)
    want_out = _np(_call(info, to_dyngrad(ins)))
    np.testing.assert_allclose(_np(primal), want_out, rtol=1e-12, atol=0, equal_nan=True,
                               err_msg=f"{info.name}: the primal differs from the plain forward")
    if tangent is not None:
        assert tangent.shape == out.shape and tangent.dtype == out.dtype, (tangent.shape, tangent.dtype)
    jvp = _numpy(tangent, want_out)

    # central differences along u (no autograd involved)
    h = info.eps
    with dyngrad.no_grad():
        plus, minus = _np(_call(info, _shifted(ins, us, h))), _np(_call(info, _shifted(ins, us, -h)))
    fd = (plus - minus) / (2 * h)
    np.testing.assert_allclose(jvp, fd, rtol=info.grad_rtol, atol=info.grad_atol,
                               err_msg=f"{info.name}: jvp (forward mode) differs from central differences")

    # <v, J u> = <J^T v, u> with reverse mode's vjp
    leaves = to_dyngrad(ins, requires_grad=True)
    rev = _call(info, leaves)
    diff = [(t, us[i]) for i, t in enumerate(leaves) if i in us]
    v = rng.standard_normal(rev.shape)
    grads = dyngrad.autograd.grad(rev, [t for t, _ in diff], dyngrad.from_numpy(np.array(v)).to(rev.dtype),
                                  allow_unused=True)
    lhs = float(np.nansum(v * jvp))
    rhs = sum(float(np.nansum(_numpy(g, u) * u)) for g, (_, u) in zip(grads, diff))
    assert lhs == pytest.approx(rhs, rel=1e-7, abs=1e-9), f"{info.name}: <v, Ju> = {lhs} but <J^T v, u> = {rhs}"


# ------------------------------------------------------------------ vmap
@pytest.mark.parametrize("info", params("vmap"))
def test_vmap_over_three_examples_equals_a_loop_over_them(info: OpInfo) -> None:
    examples = [_example(info, k) for k in range(B)]
    first = examples[0]
    mapped = [i for i, x in enumerate(first) if _is_float(x)] or \
             [i for i, x in enumerate(first) if isinstance(x, np.ndarray)]
    # unmapped arguments (indices, masks, Python numbers) are the first example's in every example
    examples = [tuple(x if i in mapped else first[i] for i, x in enumerate(e)) for e in examples]
    want = [_np(_call(info, to_dyngrad(e))) for e in examples]
    args = [dyngrad.from_numpy(np.stack([e[i] for e in examples])) if i in mapped else a
            for i, a in enumerate(to_dyngrad(first))]
    dims = tuple(0 if i in mapped else None for i in range(len(first)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a per-op loop fallback is still checked for its values
        got = _np(vmap(lambda *a: _call(info, list(a)), in_dims=dims)(*args))
    want = np.stack(want)
    assert got.shape == want.shape, f"{info.name}: vmap gave shape {got.shape}, the loop {want.shape}"
    assert got.dtype == want.dtype, f"{info.name}: vmap gave dtype {got.dtype}, the loop {want.dtype}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11, equal_nan=True, err_msg=info.name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=info.name)


# ------------------------------------------------------------------ batched gradients
@pytest.mark.parametrize("info", params("batched_grad"))
def test_batched_grad_equals_a_loop_of_vector_jacobian_products(info: OpInfo) -> None:
    ins = make_case_inputs(info, "base")
    leaves = to_dyngrad(ins, requires_grad=True)
    diff = [t for t, x in zip(leaves, ins) if _is_float(x)]
    out = _call(info, leaves)
    if info.function is not None and not out.requires_grad:
        pytest.skip(f"{info.name}: a rule-table entry whose output has no gradient")
    assert out.requires_grad, f"{info.name}: the output does not require grad"
    vs = np.random.default_rng(info.seed("batched")).standard_normal((B,) + tuple(out.shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = dyngrad.autograd.grad(out, diff, dyngrad.from_numpy(np.array(vs)).to(out.dtype), retain_graph=True,
                                    is_grads_batched=True, allow_unused=True)
    for k in range(B):
        want = dyngrad.autograd.grad(out, diff, dyngrad.from_numpy(np.array(vs[k])).to(out.dtype), retain_graph=True,
                                     allow_unused=True)
        for j, (g, w) in enumerate(zip(got, want)):
            x = diff[j].detach().numpy()
            g_k = np.zeros_like(x) if g is None else g.detach().numpy()[k]
            np.testing.assert_allclose(g_k, _numpy(w, x), rtol=1e-9, atol=1e-11, equal_nan=True,
                                       err_msg=f"{info.name}: batched grad {k} of input {j}")


# ------------------------------------------------------------------ the db itself
def test_every_entry_names_a_known_check_and_a_reason_for_each_skip() -> None:
    for info in OP_DB:
        assert set(info.skips) <= set(CHECKS), info.name
        assert all(isinstance(r, str) and r.strip() for r in info.skips.values()), info.name


def test_entry_names_are_unique_within_each_family() -> None:
    seen: dict[tuple[str, str], int] = {}
    for info in OP_DB:
        seen[(info.family, info.name)] = seen.get((info.family, info.name), 0) + 1
    assert [k for k, n in seen.items() if n > 1] == []


def test_a_skip_without_a_reason_is_refused() -> None:
    with pytest.raises(ValueError, match="need a reason"):
        OpInfo("nothing", dyngrad.exp, skips={"vmap": ""})
    with pytest.raises(ValueError, match="unknown checks"):
        OpInfo("nothing", dyngrad.exp, skips={"vamp": "typo"})


def test_most_differentiable_golden_entries_take_the_forward_mode_check() -> None:
    differentiable = [i for fam in GOLDEN_FAMILIES.values() for i in fam.SPECS if i.differentiable]
    assert len(select("forward_ad", differentiable)) >= 0.9 * len(differentiable)
