"""Live comparison with PyTorch 2.13 of the dtype and argument checks of
tests/ops/test_dtype_arg_checks.py: the same exception types, the same wrapped seeds.
Skipped when torch is not installed."""

from __future__ import annotations

import pytest

import dyngrad as dg
from tests.ops.test_dtype_arg_checks import FLOAT_ONLY

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__
    return str(r.dtype).split(".")[-1] if hasattr(r, "dtype") else r


def _both(make):
    return _outcome(lambda: make(torch)), _outcome(lambda: make(dg))


@pytest.mark.parametrize("name", FLOAT_ONLY + ["relu", "relu6", "hardtanh", "threshold", "softsign", "sigmoid", "tanh"])
@pytest.mark.parametrize("values", [[1, -2], [True, False]], ids=["int64", "bool"])
def test_activation_dtype_checks_match(name, values) -> None:
    def make(lib):
        F, t = lib.nn.functional, lib.tensor(values)
        if name in ("softmax", "log_softmax", "glu"):
            return getattr(F, name)(t, dim=0)
        if name == "threshold":
            return F.threshold(t, 0, 5)
        return getattr(lib, name)(t) if name in ("sigmoid", "tanh") else getattr(F, name)(t)

    want, got = _both(make)
    assert got == want


@pytest.mark.parametrize("seed", [-1, -5, -(2**63), 2**64 - 1, 2**64, 2**70, -(2**63) - 1, 7])
def test_manual_seed_matches(seed) -> None:
    want, got = _both(lambda lib: lib.manual_seed(seed).initial_seed())
    assert got == want
    want, got = _both(lambda lib: lib.Generator().manual_seed(seed).initial_seed())
    assert got == want
    dg.manual_seed(0)


@pytest.mark.parametrize("call", ["full(2, 1.0)", "full((2,), 1.0)", "full([2, 3], 1)", "randint(5, 2)",
                                  "randint(5, (2,))", "randint(0, 5, 2)", "randint(0, 5, (2,))",
                                  "ones(2).float_power_(2)", "ones(2, dtype=lib.float64).float_power_(2)",
                                  "ones(2, dtype=lib.int64).float_power_(2)",
                                  "nonzero(lib.tensor([0, 1]), as_tuple=1)", "nonzero(lib.tensor([0, 1]), as_tuple=None)",
                                  "tensor([0, 1]).nonzero(as_tuple='x')"])
def test_argument_checks_match(call) -> None:
    want, got = _both(lambda lib: eval("lib." + call, {"lib": lib}))  # noqa: S307 - fixed strings above
    assert got == want
