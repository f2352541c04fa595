"""Forward mode through in-place ops on views, checked as a property: a random program of
in-place ops (on the dual itself or on views of it: slices, steps, transposes, diagonals,
rows) must leave the dual tensor a tangent equal to the central finite difference of the
same program run without forward mode. Also the tangent object the caller passed to
``make_dual`` is updated in place (as PyTorch's), and the primal never gains a tangent."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
from dyngrad.autograd import forward_ad as fwd

VIEWS = ["all", "slice", "step", "t", "diag", "row", "col"]
OPS = ["mul", "add", "sin", "square", "self_scaled", "mul_tensor"]


def _view(x, kind):  # noqa: ANN001, ANN202
    return {
        "all": lambda: x,
        "slice": lambda: x[1:, :3],
        "step": lambda: x[:, ::2],
        "t": lambda: x.t(),
        "diag": lambda: x.diagonal(),
        "row": lambda: x[1],
        "col": lambda: x[:, 2],
    }[kind]()


def _apply(v, op, c):  # noqa: ANN001, ANN202
    if op == "mul":
        v.mul_(c)
    elif op == "add":
        v.add_(c)
    elif op == "sin":
        v.sin_()
    elif op == "square":
        v.mul_(v.clone())
    elif op == "self_scaled":
        v.copy_(v * c + 1.0)
    else:
        v.mul_(dyngrad.full(v.shape, c, dtype=dyngrad.float64))


def _run(x, prog):  # noqa: ANN001, ANN202
    for kind, op, c in prog:
        _apply(_view(x, kind), op, c)
    return x


programs = st.lists(
    st.tuples(st.sampled_from(VIEWS), st.sampled_from(OPS), st.floats(-2.0, 2.0).filter(lambda c: abs(c) > 0.1)),
    min_size=1,
    max_size=4,
)


@settings(max_examples=60, deadline=None)
@given(prog=programs, seed=st.integers(0, 2**16))
def test_tangent_after_inplace_ops_on_views_equals_the_finite_difference(prog: list, seed: int) -> None:
    rs = np.random.RandomState(seed)
    x0, u = rs.uniform(-1, 1, (3, 4)), rs.uniform(-1, 1, (3, 4))
    with fwd.dual_level():
        primal = dyngrad.tensor(x0.copy())
        tangent = dyngrad.tensor(u.copy())
        d = fwd.make_dual(primal, tangent)
        _run(d, prog)
        got = fwd.unpack_dual(d).tangent
        assert got is tangent  # updated in place, the caller's object (as PyTorch)
        assert fwd.unpack_dual(primal).tangent is None  # the primal never gains one
    eps = 1e-6
    plus = _run(dyngrad.tensor(x0 + eps * u), prog)._data
    minus = _run(dyngrad.tensor(x0 - eps * u), prog)._data
    np.testing.assert_allclose(got._data, (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d._data, _run(dyngrad.tensor(x0), prog)._data)


@settings(max_examples=40, deadline=None)
@given(prog=programs, seed=st.integers(0, 2**16), derive=st.sampled_from(["clone", "add", "mul1", "view"]))
def test_inplace_ops_on_a_result_never_change_its_inputs_tangent(prog: list, seed: int, derive: str) -> None:
    rs = np.random.RandomState(seed)
    x0, u = rs.uniform(-1, 1, (3, 4)), rs.uniform(-1, 1, (3, 4))
    make = {"clone": lambda a: a.clone(), "add": lambda a: a + 0.5, "mul1": lambda a: a * 1.0,
            "view": lambda a: a.view(3, 4)}[derive]
    with fwd.dual_level():
        d = fwd.make_dual(dyngrad.tensor(x0.copy()), dyngrad.tensor(u.copy()))
        y = make(d)
        _run(y, prog)
        got = fwd.unpack_dual(y).tangent._data.copy()
        dt = fwd.unpack_dual(d).tangent._data
        if derive != "view":  # a view shares its base's values and tangent (as in PyTorch)
            np.testing.assert_array_equal(dt, u)
    eps = 1e-6
    plus = _run(make(dyngrad.tensor(x0 + eps * u)), prog)._data
    minus = _run(make(dyngrad.tensor(x0 - eps * u)), prog)._data
    np.testing.assert_allclose(got, (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-6)
