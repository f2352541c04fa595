"""Every check of the op database (tests/op_db/), parametrized over all its entries: golden
values from PyTorch 2.13 (forward, backward, node name), gradcheck, gradgradcheck, result
dtypes, forward mode (against central differences and reverse mode, through the op's own jvp
rule), vmap against a loop (the batch dim first, last, on the first input only, and where
an entry asks, on the last only; no loop fallback), gradients through vmap, and batched
gradients against a loop of vjps. An entry that a check does not
apply to says why in its ``skips``; the coverage table is ``python -m tests.op_db``."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function
from dyngrad.autograd import forward_ad as fwAD
from dyngrad.func import vmap
from dyngrad.transforms import dual_apply as _dual
from tests.op_db import CHECKS, FAMILIES, MODULES, OP_DB, OpInfo, golden_path, params, select, xfail_marks
from tests.ops import harness as H

B = 3  # examples per vmap / batched-grad check
WHERE = ("first", "last", "only_first", "only_last")


def _call(info: OpInfo, args: list) -> dyngrad.Tensor:
    return info.fn(*args, **info.kwargs)


def _np(out: object) -> np.ndarray:
    return out.detach().numpy() if isinstance(out, dyngrad.Tensor) else np.asarray(out)


def _numpy(t: dyngrad.Tensor | None, like: np.ndarray) -> np.ndarray:
    return np.zeros_like(like) if t is None else np.asarray(t.detach().numpy())


def _leaves(info: OpInfo, ins: tuple) -> list:
    return H.to_dyngrad(ins, requires_grad=True, constant=info.constant)


@functools.cache
def _golden(family: str) -> dict:
    return H.load_golden(golden_path(family))


def _case_params(check: str) -> list:
    return [pytest.param(i, c, id=f"{i.family}-{i.name}-{c}") for i in select(check) for c in H.cases(i)]


# ------------------------------------------------------------------ golden values
@pytest.mark.parametrize("info,case", _case_params("golden_forward"))
def test_forward_matches_pytorch_golden_values(info: OpInfo, case: str) -> None:
    H.run_forward_vs_golden(info, _golden(info.family), case)


@pytest.mark.parametrize("info,case", _case_params("golden_backward"))
def test_backward_matches_pytorch_golden_gradients(info: OpInfo, case: str) -> None:
    H.run_backward_vs_golden(info, _golden(info.family), case)


@pytest.mark.parametrize("info", params("node_name"))
def test_grad_fn_is_named_as_in_pytorch(info: OpInfo) -> None:
    H.run_node_name_check(info, _golden(info.family))


def test_the_node_name_check_fails_when_the_golden_file_lacks_the_name() -> None:
    info = next(i for i in select("node_name"))
    golden = {k: v for k, v in _golden(info.family).items() if not k.endswith("|node")}
    with pytest.raises(AssertionError, match="no node name"):
        H.run_node_name_check(info, golden)


# ------------------------------------------------------------------ numerical gradients, dtypes
@pytest.mark.parametrize("info", params("gradcheck"))
def test_gradcheck_in_float64(info: OpInfo) -> None:
    """An entry naming the Function whose jvp rule it tests also compares the full forward-mode
    Jacobian on its base case (``check_forward_ad``)."""
    H.run_gradcheck(info, check_forward_ad=info.function is not None and info.applies("forward_ad"))


def _sampled(check: str, every: int) -> list:
    """The entries of ``check``: one in ``every`` (chosen by a hash of the name, so the same
    ones every run) in the default run, the rest marked ``slow`` (CI's second step runs
    them), to keep the default run near two minutes."""
    out = []
    for p in params(check):
        info = p.values[0]
        marks = list(p.marks) + ([] if info.seed(check) % every == 0 else [pytest.mark.slow])
        out.append(pytest.param(info, id=p.id, marks=marks))
    return out


@pytest.mark.parametrize("info", _sampled("gradgradcheck", 3))
def test_gradgradcheck_in_float64(info: OpInfo) -> None:
    H.run_gradgradcheck(info)


@pytest.mark.parametrize("info", params("dtype"))
def test_result_dtypes_follow_the_input_dtype(info: OpInfo) -> None:
    H.run_dtype_check(info)


# ------------------------------------------------------------------ forward mode
def _double_vjp_jvp(info: OpInfo, ins: tuple, us: dict, rng: np.random.Generator) -> np.ndarray:
    """``J u`` by differentiating the vjp ``v -> J^T v`` with respect to ``v`` (reverse mode
    only; at a random ``v``, since a zero ``v`` can take a backward's shortcut)."""
    leaves = _leaves(info, ins)
    out = _call(info, leaves)
    v = dyngrad.from_numpy(rng.standard_normal(out.shape)).to(out.dtype).requires_grad_()
    diff = [leaves[i] for i in us]
    gs = dyngrad.autograd.grad(out, diff, v, create_graph=True, allow_unused=True)
    pairs = [(g, dyngrad.from_numpy(np.array(us[i])).to(g.dtype)) for g, i in zip(gs, us)
             if g is not None and g.requires_grad]
    if not pairs:
        return np.zeros(out.shape)
    (jv,) = dyngrad.autograd.grad([g for g, _ in pairs], [v], [u for _, u in pairs], allow_unused=True)
    return np.zeros(out.shape) if jv is None else jv.detach().numpy()


@pytest.mark.parametrize("info", params("forward_ad"))
def test_forward_mode_runs_the_ops_rules_and_equals_finite_differences_and_reverse_mode(
        info: OpInfo, monkeypatch: pytest.MonkeyPatch) -> None:
    ins = H.make_case_inputs(info, "base")
    rng = np.random.default_rng(info.seed("tangent"))
    us = {i: rng.standard_normal(x.shape) for i, (x, d) in enumerate(zip(ins, info.diff_inputs(ins))) if d}
    fallbacks: list[type] = []
    rule_calls: list[int] = []
    double_vjp = _dual._double_vjp_apply

    def recording(lv, cls, *a):  # noqa: ANN001, ANN002, ANN202
        fallbacks.append(cls)
        return double_vjp(lv, cls, *a)

    monkeypatch.setattr(_dual, "_double_vjp_apply", recording)
    if info.function is not None:
        rule = info.function.jvp
        assert rule is not None, f"{info.name}: {info.function.__name__} has no jvp rule"

        def counting(ctx, *tangents):  # noqa: ANN001, ANN202
            rule_calls.append(len(tangents))
            return rule(ctx, *tangents)

        monkeypatch.setattr(info.function, "jvp", staticmethod(counting))
    with fwAD.dual_level():
        duals = [fwAD.make_dual(t, dyngrad.from_numpy(np.array(us[i])).to(t.dtype)) if i in us else t
                 for i, t in enumerate(H.to_dyngrad(ins))]
        out = _call(info, duals)
        primal, tangent = fwAD.unpack_dual(out)
    monkeypatch.undo()
    builtin = [c.__name__ for c in fallbacks if getattr(c, "trusted", False)]
    assert not builtin, f"{info.name}: the double-vjp fallback ran for {builtin} (a built-in op's jvp rule is missing)"
    if info.function is not None:
        assert rule_calls, f"{info.name}: {info.function.__name__}.jvp did not run (the double-vjp fallback ran instead)"
    want_out = _np(_call(info, H.to_dyngrad(ins)))
    np.testing.assert_allclose(_np(primal), want_out, rtol=1e-12, atol=0, equal_nan=True,
                               err_msg=f"{info.name}: the primal differs from the plain forward")
    if tangent is not None:
        assert tangent.shape == out.shape and tangent.dtype == out.dtype, (tangent.shape, tangent.dtype)
    jvp = _numpy(tangent, want_out)

    # central differences along u (no autograd involved)
    h = info.eps
    shifted = lambda s: H.to_dyngrad([np.asarray(x + s * us[i]) if i in us else x for i, x in enumerate(ins)])  # noqa: E731
    with dyngrad.no_grad():
        fd = (_np(_call(info, shifted(h))) - _np(_call(info, shifted(-h)))) / (2 * h)
    np.testing.assert_allclose(jvp, fd, rtol=info.grad_rtol, atol=info.grad_atol,
                               err_msg=f"{info.name}: jvp (forward mode) differs from central differences")

    # reverse mode: the double-vjp construction elementwise, and <v, J u> = <J^T v, u>
    if info.twice_differentiable:
        np.testing.assert_allclose(jvp, _double_vjp_jvp(info, ins, us, rng), rtol=1e-9, atol=1e-11,
                                   err_msg=f"{info.name}: jvp differs from the double-vjp construction")
    leaves = _leaves(info, ins)
    rev = _call(info, leaves)
    v = rng.standard_normal(rev.shape)
    grads = dyngrad.autograd.grad(rev, [leaves[i] for i in us], dyngrad.from_numpy(np.array(v)).to(rev.dtype),
                                  allow_unused=True)
    lhs = float(np.nansum(v * jvp))
    rhs = sum(float(np.nansum(_numpy(g, us[i]) * us[i])) for g, i in zip(grads, us))
    assert lhs == pytest.approx(rhs, rel=1e-7, abs=1e-9), f"{info.name}: <v, Ju> = {lhs} but <J^T v, u> = {rhs}"


# ------------------------------------------------------------------ vmap
def _example(info: OpInfo, k: int) -> tuple:
    """The base case's inputs (k = 0) or another draw from the same input maker (k > 0)."""
    if k == 0:
        return H.make_case_inputs(info, "base")
    rng = np.random.default_rng(info.seed(f"example{k}"))
    shapes = H.cases(info)["base"]
    if info.make_inputs is not None:
        ins = info.make_inputs(rng, shapes)
    else:
        ins = [rng.uniform(lo, hi, size=s) for s, (lo, hi) in zip(shapes, info.domains())]
    return tuple(np.asarray(x) if isinstance(x, np.generic) else x for x in ins)


def _mapped(info: OpInfo, first: tuple) -> list[int]:
    """The inputs vmap batches: the differentiated ones (and the integer ones when
    ``vmap_batch_ints``), else every array."""
    ints = [i for i, x in enumerate(first) if isinstance(x, np.ndarray) and x.dtype.kind in "iu"]
    diff = sorted({i for i, d in enumerate(info.diff_inputs(first)) if d} | set(ints if info.vmap_batch_ints else ()))
    return diff or [i for i, x in enumerate(first) if isinstance(x, np.ndarray)]


def _setup(info: OpInfo, where: str) -> tuple:
    """Per-example inputs, the vmap arguments and in_dims for one placement of the batch."""
    examples = [_example(info, k) for k in range(B)]
    first = examples[0]
    mapped = _mapped(info, first)
    if where == "only_first":
        mapped = mapped[:1]
    elif where == "only_last":
        mapped = mapped[-1:]
    # unmapped arguments (indices, masks, constants, numbers) are the first example's in every example
    examples = [tuple(x if i in mapped else first[i] for i, x in enumerate(e)) for e in examples]
    axis = -1 if where == "last" else 0
    args = [dyngrad.from_numpy(np.stack([e[i] for e in examples], axis=axis)) if i in mapped else a
            for i, a in enumerate(H.to_dyngrad(first))]
    dims = tuple(axis if i in mapped else None for i in range(len(first)))
    return examples, args, dims, mapped


def _vmap_params() -> list:
    out = []
    for info in select("vmap"):
        n_mapped = len(_mapped(info, H.make_case_inputs(info, "base")))
        for where in WHERE:
            if where == "only_last" and not info.vmap_only_last:
                continue
            if not where.startswith("only") or n_mapped > 1:
                out.append(pytest.param(info, where, id=f"{info.family}-{info.name}-{where}",
                                        marks=xfail_marks(info, f"vmap:{where}") + xfail_marks(info, "vmap")))
    return out


def _fallbacks(caught: list) -> list[str]:
    return [str(w.message) for w in caught
            if "no batching rule" in str(w.message) or "fell back to a loop" in str(w.message)]


@pytest.mark.parametrize("info,where", _vmap_params())
def test_vmap_over_three_examples_equals_a_loop_and_runs_batching_rules_only(info: OpInfo, where: str) -> None:
    examples, args, dims, _ = _setup(info, where)
    want = np.stack([_np(_call(info, H.to_dyngrad(e))) for e in examples])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _np(vmap(lambda *a: _call(info, list(a)), in_dims=dims)(*args))
    assert got.shape == want.shape, f"{info.name}: vmap gave shape {got.shape}, the loop {want.shape}"
    assert got.dtype == want.dtype, f"{info.name}: vmap gave dtype {got.dtype}, the loop {want.dtype}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=info.name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=info.name)
    bad = _fallbacks(caught)
    assert info.vmap_fallback is not None or not bad, f"{info.name}: ran as a loop: {bad}"


def _vmap_grad_params() -> list:
    return [pytest.param(info, where, id=f"{info.family}-{info.name}" + ("" if where == "first" else f"-{where}"),
                         marks=xfail_marks(info, "vmap_grad"))
            for info in select("vmap_grad") for where in ("first",) + (("only_last",) if info.vmap_only_last else ())]


@pytest.mark.parametrize("info,where", _vmap_grad_params())
def test_gradients_through_vmap_equal_per_example_gradients(info: OpInfo, where: str) -> None:
    """Batched inputs get the per-example gradients; an input shared by the examples (with
    ``where="only_last"``, the others) gets their sum."""
    examples, args, dims, _ = _setup(info, where)
    diff = [i for i, d in enumerate(info.diff_inputs(examples[0])) if d]
    for i in diff:
        args[i] = args[i].detach().requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the vmap check asserts that no loop ran)
        out = vmap(lambda *a: _call(info, list(a)), in_dims=dims)(*args)
    assert out.requires_grad, f"{info.name}: the output of vmap does not require grad"
    v = np.random.default_rng(info.seed("vmap_grad")).standard_normal(out.shape)
    got = dyngrad.autograd.grad(out, [args[i] for i in diff], dyngrad.from_numpy(v).to(out.dtype), allow_unused=True)
    per: dict[int, list] = {i: [] for i in diff}
    for k, e in enumerate(examples):
        leaves = _leaves(info, e)
        o = _call(info, leaves)
        gs = dyngrad.autograd.grad(o, [leaves[i] for i in diff], dyngrad.from_numpy(np.asarray(v[k])).to(o.dtype),
                                   allow_unused=True)
        for i, g in zip(diff, gs):
            per[i].append(_numpy(g, e[i]))
    for j, i in enumerate(diff):
        want = np.stack(per[i]) if dims[i] is not None else np.sum(per[i], axis=0)
        if dims[i] == -1:
            want = np.moveaxis(want, 0, -1)
        np.testing.assert_allclose(_numpy(got[j], want), want, rtol=1e-9, atol=1e-11,
                                   err_msg=f"{info.name}: gradient of input {i}")


# ------------------------------------------------------------------ batched gradients
@pytest.mark.parametrize("info", params("batched_grad"))
def test_batched_grad_equals_a_loop_of_vector_jacobian_products(info: OpInfo) -> None:
    ins = H.make_case_inputs(info, "base")
    leaves = _leaves(info, ins)
    diff = [t for t, d in zip(leaves, info.diff_inputs(ins)) if d]
    out = _call(info, leaves)
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


def test_no_two_entries_replace_the_same_old_table_entry() -> None:
    owners: dict[str, list[str]] = {}
    for info in OP_DB:
        for old in info.formerly:
            owners.setdefault(old, []).append(f"{info.family}-{info.name}")
    assert {k: v for k, v in owners.items() if len(v) > 1} == {}


def test_a_skip_without_a_reason_is_refused() -> None:
    with pytest.raises(ValueError, match="need a reason"):
        OpInfo("nothing", dyngrad.exp, skips={"vmap": ""})
    with pytest.raises(ValueError, match="unknown checks"):
        OpInfo("nothing", dyngrad.exp, skips={"vamp": "typo"})


def test_most_differentiable_entries_take_the_forward_mode_and_vmap_checks() -> None:
    differentiable = [i for i in OP_DB if i.differentiable]
    assert len(select("forward_ad", differentiable)) >= 0.9 * len(differentiable)
    assert len(select("vmap", OP_DB)) >= 0.9 * len(OP_DB)


def test_every_entry_with_a_function_names_a_function_with_a_jvp_rule() -> None:
    bad = [f"{i.family}-{i.name}" for i in OP_DB if i.function is not None
           and not (isinstance(i.function, type) and issubclass(i.function, Function) and i.function.jvp is not None)]
    assert bad == []


def test_every_module_of_the_op_database_registers_entries() -> None:
    empty = [name for name, mod in MODULES.items()
             if not (getattr(mod, "SPECS", None) or any(getattr(mod, "FAMILIES", {}).values()))]
    assert empty == [], f"modules of tests/op_db/ with neither SPECS nor FAMILIES: {empty}"
    assert sum(len(v) for v in FAMILIES.values()) == len(OP_DB)
    assert len({id(i) for i in OP_DB}) == len(OP_DB), "an entry is registered in two families"
