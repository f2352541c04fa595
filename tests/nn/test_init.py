"""nn.init: bounds and moments of each initialiser, generator use, no graph recording."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad
from dyngrad.nn import init


def test_calculate_gain_table() -> None:
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == pytest.approx(math.sqrt(1 / 3))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swishy")


def test_fan_in_and_fan_out_of_conv_weight() -> None:
    assert init._calculate_fan_in_and_fan_out(dyngrad.empty(8, 3, 5, 5)) == (75, 200)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(dyngrad.empty(3))


def _w(*shape):
    return dyngrad.empty(*shape, dtype=dyngrad.float64, requires_grad=True)


@pytest.mark.parametrize(
    ("fn", "kw", "std"),
    [
        (init.kaiming_uniform_, {}, math.sqrt(2 / 1.0001) / math.sqrt(200)),
        (init.kaiming_normal_, {"nonlinearity": "relu"}, math.sqrt(2) / math.sqrt(200)),
        (init.kaiming_normal_, {"mode": "fan_out", "nonlinearity": "relu"}, math.sqrt(2) / math.sqrt(300)),
        (init.xavier_uniform_, {}, math.sqrt(2 / 500)),
        (init.xavier_normal_, {"gain": 2.0}, 2 * math.sqrt(2 / 500)),
        (init.normal_, {"std": 0.3}, 0.3),
        (init.trunc_normal_, {"std": 0.5, "a": -1.0, "b": 1.0}, None),
    ],
)
def test_initialisers_fill_in_place_with_expected_spread(fn, kw, std) -> None:
    w = _w(300, 200)
    out = fn(w, **kw)
    assert out is w and w.is_leaf and w.requires_grad and w.grad_fn is None
    if std is not None:
        assert abs(w._data.std() - std) < 0.05 * std
    if fn is init.trunc_normal_:
        assert w._data.min() >= -1 and w._data.max() <= 1


def test_uniform_constant_ones_zeros_eye() -> None:
    w = _w(50, 40)
    init.uniform_(w, -0.5, 0.25)
    assert w._data.min() >= -0.5 and w._data.max() <= 0.25
    np.testing.assert_array_equal(init.constant_(w, 3.0)._data, 3.0)
    np.testing.assert_array_equal(init.ones_(w)._data, 1.0)
    np.testing.assert_array_equal(init.zeros_(w)._data, 0.0)
    np.testing.assert_array_equal(init.eye_(_w(2, 3))._data, np.eye(2, 3))


def test_initialisers_use_the_given_generator_reproducibly() -> None:
    a, b = _w(4, 4), _w(4, 4)
    init.kaiming_uniform_(a, generator=dyngrad.Generator().manual_seed(5))
    init.kaiming_uniform_(b, generator=dyngrad.Generator().manual_seed(5))
    np.testing.assert_array_equal(a._data, b._data)
    dyngrad.manual_seed(1)
    init.normal_(a)
    dyngrad.manual_seed(1)
    init.normal_(b)
    np.testing.assert_array_equal(a._data, b._data)


def test_init_bumps_the_version_counter() -> None:
    w = _w(2, 2)
    v = w._version
    init.zeros_(w)
    assert w._version > v


def test_bad_mode_raises() -> None:
    with pytest.raises(ValueError, match="Mode fan_sideways not supported"):
        init.kaiming_uniform_(_w(2, 2), mode="fan_sideways")


def test_init_fills_follow_vmaps_randomness_modes_as_random_ops():
    x = dyngrad.zeros(3, 5)
    diff = dyngrad.func.vmap(lambda a: dyngrad.nn.init.uniform_(a.clone()), randomness="different")(x).numpy()
    same = dyngrad.func.vmap(lambda a: dyngrad.nn.init.normal_(a.clone()), randomness="same")(x).numpy()
    assert not (diff[0] == diff[1]).all() and (same[0] == same[1]).all() and (same[1] == same[2]).all()
    with pytest.raises(RuntimeError, match="randomness error mode"):
        dyngrad.func.vmap(lambda a: dyngrad.nn.init.uniform_(a.clone()))(x)


def test_init_of_a_parameter_records_nothing():
    p = dyngrad.nn.Parameter(dyngrad.zeros(3))
    dyngrad.nn.init.uniform_(p, -1, 1)
    assert p.requires_grad and p.grad_fn is None and p.is_leaf


def test_sparse_zeroes_the_same_number_of_entries_in_every_column() -> None:
    w = _w(10, 40)
    out = init.sparse_(w, sparsity=0.25, std=0.5, generator=dyngrad.Generator().manual_seed(3))
    assert out is w and w.grad_fn is None and w.is_leaf
    zeros = (w == 0).sum(0)
    assert zeros.tolist() == [3] * 40  # ceil(0.25 * 10) per column
    nz = w.detach().numpy()[w.detach().numpy() != 0]
    assert nz.size == 10 * 40 - 3 * 40 and 0.35 < nz.std() < 0.65
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.sparse_(dyngrad.empty(2, 3, 4), 0.1)
    with pytest.raises(TypeError, match="expected a Tensor"):
        init.sparse_(np.zeros((2, 2)), 0.1)


_DEPRECATED = [
    ("uniform", (), {"a": -0.5, "b": 0.5}),
    ("normal", (), {"std": 0.2}),
    ("constant", (1.5,), {}),
    ("eye", (), {}),
    ("dirac", (), {}),
    ("xavier_uniform", (), {"gain": 2.0}),
    ("xavier_normal", (), {}),
    ("kaiming_uniform", (), {"a": 1.0}),
    ("kaiming_normal", (), {"mode": "fan_out"}),
    ("orthogonal", (), {}),
    ("sparse", (0.5,), {}),
]


@pytest.mark.parametrize(("old", "args", "kw"), _DEPRECATED)
def test_the_deprecated_names_warn_and_fill_as_the_underscore_ones(old, args, kw) -> None:
    new = getattr(init, old + "_")
    shape = (4, 3, 3) if old == "dirac" else (4, 6)
    a, b = dyngrad.empty(*shape), dyngrad.empty(*shape)
    dyngrad.manual_seed(7)
    with pytest.warns(FutureWarning, match=rf"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`\."):
        out = getattr(init, old)(a, *args, **kw)
    dyngrad.manual_seed(7)
    new(b, *args, **kw)
    assert out is a and getattr(init, old).__name__ == old
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert old in init.__all__ and old in dyngrad.nn.init.__dict__
