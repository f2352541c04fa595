"""PyTorch 2.13's dtype and argument checks (issue 12 leftovers): activations without integer
or bool kernels, bool refused by relu/hardtanh, manual_seed's range (a negative seed taken
modulo 2**64), an int ``size`` refused by full/randint, float_power_ on a non-float64 tensor,
a non-bool ``as_tuple``. Expected behaviour as printed by PyTorch 2.13
(tests/oracle/test_dtype_arg_checks_oracle.py compares live)."""

from __future__ import annotations

import pytest

import dyngrad
from dyngrad.nn import functional as F

INTS = dyngrad.tensor([1, -2])
BOOLS = dyngrad.tensor([True, False])

# PyTorch 2.13: NotImplementedError ("silu_cpu" not implemented for 'Long') for int and bool
FLOAT_ONLY = ["elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "hardswish", "hardsigmoid", "leaky_relu",
              "logsigmoid", "softshrink", "hardshrink", "rrelu", "glu", "softmax", "log_softmax"]


def _call(name, t):
    return getattr(F, name)(t, dim=0) if name in ("softmax", "log_softmax", "glu", "softmin") else getattr(F, name)(t)


@pytest.mark.parametrize("name", FLOAT_ONLY)
@pytest.mark.parametrize("t,dtype", [(INTS, "Long"), (BOOLS, "Bool")], ids=["int64", "bool"])
def test_float_only_activations_refuse_ints_and_bools(name, t, dtype) -> None:
    with pytest.raises(NotImplementedError, match=rf"^{name}\(\): not implemented for '{dtype}'"):
        _call(name, t.clone())


def test_softmax_with_a_dtype_casts_first_as_pytorch() -> None:
    y = F.softmax(INTS, dim=0, dtype=dyngrad.float32)
    assert y.dtype == dyngrad.float32 and abs(float(y.sum()) - 1.0) < 1e-6
    assert F.softmin(INTS, dim=0, dtype=dyngrad.float64).dtype == dyngrad.float64


@pytest.mark.parametrize("fn,kernel", [(dyngrad.relu, "relu"), (F.relu, "relu"), (lambda t: t.relu_(), "relu"),
                                       (F.hardtanh, "hardtanh"), (F.relu6, "hardtanh")])
def test_bool_refused_by_relu_and_hardtanh(fn, kernel) -> None:
    with pytest.raises(RuntimeError, match=f"Boolean inputs not supported for {kernel}"):
        fn(BOOLS.clone())


@pytest.mark.parametrize("name", ["threshold", "softsign"])
def test_bool_refused_by_threshold_and_softsign(name) -> None:
    with pytest.raises(NotImplementedError, match="Boolean inputs not supported"):
        F.threshold(BOOLS, 0.5, 0.0) if name == "threshold" else F.softsign(BOOLS)


def test_what_pytorch_takes_in_integers_still_works() -> None:
    assert dyngrad.relu(INTS).tolist() == [1, 0] and dyngrad.relu(INTS).dtype == dyngrad.int64
    assert dyngrad.sigmoid(INTS).dtype == dyngrad.float32
    assert F.softsign(INTS).dtype == dyngrad.float32
    assert F.threshold(INTS, 0, 5).tolist() == [1, 5]


@pytest.mark.parametrize("seed,initial", [(-1, 2**64 - 1), (-(2**63), 2**63), (2**64 - 1, 2**64 - 1), (-5, 2**64 - 5)])
def test_manual_seed_takes_pytorchs_range_and_wraps_negative_seeds(seed, initial) -> None:
    assert dyngrad.manual_seed(seed).initial_seed() == initial
    assert dyngrad.initial_seed() == initial
    a = dyngrad.randn(3)
    dyngrad.manual_seed(initial)
    assert dyngrad.equal(a, dyngrad.randn(3))  # the same stream as the wrapped seed
    assert dyngrad.Generator().manual_seed(seed).initial_seed() == initial
    dyngrad.manual_seed(0)


@pytest.mark.parametrize("seed", [2**64, 2**70, -(2**63) - 1])
def test_manual_seed_refuses_seeds_outside_64_bits(seed) -> None:
    with pytest.raises(ValueError, match="out of range"):
        dyngrad.manual_seed(seed)
    with pytest.raises(ValueError, match="out of range"):
        dyngrad.Generator().manual_seed(seed)


def test_int_size_refused_by_full_and_randint() -> None:
    with pytest.raises(TypeError, match=r"^full\(\): argument 'size' \(position 1\) must be tuple of ints, not int$"):
        dyngrad.full(2, 1.0)
    with pytest.raises(TypeError, match=r"^randint\(\): argument 'size' \(position 2\) must be tuple of ints, not int$"):
        dyngrad.randint(5, 2)
    with pytest.raises(TypeError, match=r"randint\(\): argument 'size' \(position 3\)"):
        dyngrad.randint(0, 5, 2)
    assert dyngrad.full((2,), 1.0).tolist() == [1.0, 1.0] and dyngrad.full([2, 3], 1).shape == (2, 3)
    assert dyngrad.full(dyngrad.Size([2]), 1.0).shape == (2,)
    assert dyngrad.randint(5, (2,)).shape == (2,) and dyngrad.randint(1, 5, [3]).shape == (3,)


@pytest.mark.parametrize("dtype,name", [(dyngrad.float32, "Float"), (dyngrad.int64, "Long")])
def test_float_power__needs_a_float64_self(dtype, name) -> None:
    with pytest.raises(RuntimeError, match=f"has dtype {name} but the operation's result requires dtype Double"):
        dyngrad.ones(2, dtype=dtype).float_power_(2)
    x = dyngrad.tensor([2.0, 3.0], dtype=dyngrad.float64)
    assert x.float_power_(2).tolist() == [4.0, 9.0]


@pytest.mark.parametrize("value", [1, 0, None, "x"])
def test_nonzero_as_tuple_must_be_bool(value) -> None:
    with pytest.raises(TypeError, match=rf"nonzero\(\): argument 'as_tuple' must be bool, not {type(value).__name__}"):
        dyngrad.nonzero(dyngrad.tensor([0, 1]), as_tuple=value)
    with pytest.raises(TypeError, match="as_tuple"):
        dyngrad.tensor([0, 1]).nonzero(as_tuple=value)
    assert dyngrad.tensor([0, 1]).nonzero(as_tuple=True)[0].tolist() == [1]


def test_hardtanh_of_integers_stays_integer() -> None:
    y = F.hardtanh(dyngrad.tensor([-3, 0, 3]), -1.5, 2.7)
    assert y.dtype == dyngrad.int64 and y.tolist() == [-1, 0, 2]  # PyTorch 2.13's values
    assert F.relu6(dyngrad.tensor([-3, 0, 9], dtype=dyngrad.int32)).tolist() == [0, 0, 6]
    assert F.relu6(dyngrad.tensor([-3, 0, 9], dtype=dyngrad.int32)).dtype == dyngrad.int32
