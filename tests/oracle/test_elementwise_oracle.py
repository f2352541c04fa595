"""Live comparison with PyTorch (skipped without torch): for every elementwise and
activation OpSpec, hypothesis draws broadcast-compatible shapes (including 0-d and
zero-size) and values; outputs and input gradients must match at rtol 1e-6 (float64)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from tests.op_db import activation, elementwise  # noqa: E402
from tests.ops.harness import dyngrad_reference, torch_reference  # noqa: E402

pytestmark = pytest.mark.oracle
ALL_SPECS = elementwise.SPECS + activation.SPECS


@st.composite
def operand_shapes(draw, arity):
    """A result shape and, per operand, a shape that broadcasts to it (trailing dims kept,
    some dropped from the front or set to 1)."""
    base = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    if arity == 1:
        return (base,)
    shapes = []
    for _ in range(arity):
        k = draw(st.integers(0, len(base)))
        shapes.append(tuple(1 if draw(st.booleans()) else d for d in base[k:]))
    shapes[0] = base if draw(st.booleans()) else shapes[0]
    return tuple(shapes)


def _close(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs torch {want.shape}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("spec", ALL_SPECS, ids=lambda s: s.name)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_outputs_and_gradients_match_live_torch(spec, data):
    shapes = data.draw(operand_shapes(spec.arity), label="shapes")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    ins = _inputs(spec, shapes, seed)
    try:
        want_out, _ = torch_reference(torch, spec, ins)
    except RuntimeError:  # torch shape quirks on zero-size broadcasts: nothing to compare
        assume(False)
    got_out, _ = dyngrad_reference(spec, ins)
    _close(got_out, want_out, f"{spec.name} forward on {shapes}")
    if not spec.differentiable or want_out.dtype.kind != "f":
        return
    gout = np.random.default_rng(seed).standard_normal(want_out.shape)
    try:
        _, want_g = torch_reference(torch, spec, ins, gout)
    except RuntimeError:  # torch's clamp backward fails on the same zero-size broadcast
        assume(False)
    _, got_g = dyngrad_reference(spec, ins, gout)
    diff = [x for x in ins if isinstance(x, np.ndarray) and x.dtype.kind == "f"]
    for i, x in enumerate(diff):
        w = want_g[i] if i < len(want_g) and want_g[i] is not None else np.zeros_like(x)
        g = got_g[i] if i < len(got_g) and got_g[i] is not None else np.zeros_like(x)
        _close(g, w, f"{spec.name} grad of input {i} on {shapes}")


def _inputs(spec, shapes, seed):
    """The spec's input maker (or its uniform domain) on the drawn shapes and seed."""
    rng = np.random.default_rng(seed)
    if spec.make_inputs is not None:
        ins = spec.make_inputs(rng, shapes)
    else:
        ins = [rng.uniform(lo, hi, size=s) for s, (lo, hi) in zip(shapes, spec.domains())]
    return tuple(np.asarray(x) if isinstance(x, np.generic) else x for x in ins)
