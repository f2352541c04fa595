"""Activations: one OpSpec per activation (and per notable argument setting) drives golden
values (tests/golden/activation.npz), gradcheck, gradgradcheck, 0-d/zero-size cases and
dtypes; hand-written tests cover kinks, in-place forms and misuse."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad as dg
import dyngrad.ops.activation as A
from tests.ops.harness import (
    OpSpec,
    case_params,
    load_golden,
    run_backward_vs_golden,
    run_dtype_check,
    run_forward_vs_golden,
    run_gradcheck,
    run_gradgradcheck,
)

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "..", "golden", "activation.npz")


def _act(name, fn=None, **kw):
    kw.setdefault("int_result", None)
    base = name.split(":")[0]
    return OpSpec(name.replace(":", "_"), fn or getattr(A, base), "nn.functional." + base, **kw)


SPECS = [
    _act("softplus", domain=(-5.0, 5.0)),
    _act("softplus:beta_threshold", kwargs={"beta": 2.0, "threshold": 1.0}),
    _act("relu6", domain=(-2.0, 8.0)),
    _act("hardtanh", domain=(-3.0, 3.0)),
    _act("hardtanh:range", kwargs={"min_val": -0.5, "max_val": 1.5}),
    _act("leaky_relu"),
    _act("leaky_relu:slope", kwargs={"negative_slope": 0.2}),
    _act("elu"),
    _act("elu:alpha", kwargs={"alpha": 0.5}),
    _act("selu"),
    _act("celu"),
    _act("celu:alpha", kwargs={"alpha": 2.0}),
    _act("gelu", domain=(-4.0, 4.0)),
    _act("gelu:tanh", domain=(-4.0, 4.0), kwargs={"approximate": "tanh"}),
    _act("silu", domain=(-6.0, 6.0)),
    _act("mish", domain=(-6.0, 6.0)),
    _act("hardswish", domain=(-5.0, 5.0)),
    # PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32 (rel. error 3e-8)
    _act("hardsigmoid", domain=(-5.0, 5.0), rtol=1e-8),
    _act("softsign"),
    _act("logsigmoid", domain=(-30.0, 30.0)),
    _act("tanhshrink"),
]


@pytest.fixture(scope="module")
def golden():
    return load_golden(GOLDEN_PATH)


@pytest.mark.parametrize("spec,case", case_params(SPECS))
def test_forward_matches_torch_golden(spec, case, golden):
    run_forward_vs_golden(spec, golden, case)


@pytest.mark.parametrize("spec,case", case_params(SPECS))
def test_backward_matches_torch_golden(spec, case, golden):
    run_backward_vs_golden(spec, golden, case)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_gradcheck_float64(spec):
    run_gradcheck(spec)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_gradgradcheck_float64(spec):
    run_gradgradcheck(spec)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_result_dtypes_follow_input_dtype(spec):
    run_dtype_check(spec)
