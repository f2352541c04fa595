"""Special functions (ops/gamma.py, ops/xlogy.py, erfinv in ops/special.py): one OpSpec per
op in tests/op_db/special_fns.py drives golden values (PyTorch 2.13, committed in
tests/golden/special_fns.npz), gradcheck, gradgradcheck, broadcast/0-d/zero-size cases and
dtypes; hand-written tests below cover poles and edges, accuracy against mpmath-derived
constants, in-place forms and misuse."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import dyngrad as dg

# (golden values, node names, gradcheck, gradgradcheck, dtypes, forward mode and vmap of these
# functions run from the op database: tests/op_db/special_fns.py, driven by tests/test_op_db.py)


# ------------------------------------------------------------------ hand-written cases
def _f64(*vals):
    return dg.tensor(list(vals), dtype=dg.float64)


def _same(got, want):
    got = np.asarray(got.numpy())
    want = np.asarray(want, dtype=np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~np.isnan(want)], want[~np.isnan(want)])
    # signed zeros and infinities
    np.testing.assert_array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)]))


INF, NAN = float("inf"), float("nan")


def test_lgamma_is_infinite_at_the_poles_and_at_both_infinities_as_in_pytorch():
    _same(dg.lgamma(_f64(0.0, -0.0, -1.0, -7.0, INF, -INF, NAN, 1.0, 2.0)),
          [INF, INF, INF, INF, INF, INF, NAN, 0.0, 0.0])


def test_digamma_gives_signed_infinity_at_zero_and_nan_at_negative_integers_as_in_pytorch():
    _same(dg.digamma(_f64(0.0, -0.0, -1.0, -3.0, INF, -INF, NAN)), [-INF, INF, NAN, NAN, INF, NAN, NAN])


def test_erfinv_is_infinite_at_plus_minus_one_and_nan_outside_as_in_pytorch():
    _same(dg.erfinv(_f64(1.0, -1.0, 1.5, -1.5, 0.0, -0.0, INF, NAN)), [INF, -INF, NAN, NAN, 0.0, -0.0, NAN, NAN])


def test_polygamma_is_infinite_at_the_poles_with_the_sign_of_its_order():
    out = dg.polygamma(2, _f64(0.0, -2.0)).numpy()
    assert (out == -INF).all()
    assert (dg.polygamma(3, _f64(0.0, -2.0)).numpy() == INF).all()
    assert (dg.polygamma(1, _f64(0.0, -2.0)).numpy() == INF).all()  # PyTorch: 1.6e32 at -2


# Reference values to 17 digits from mpmath (mp.dps = 40), written down here so the test
# needs neither mpmath nor torch: (x, digamma, trigamma, erfinv(x / 10))
MPMATH = [
    (0.3, -3.502524222200133, 12.245364546107732, 0.02659307523408841),
    (1.7, 0.2085478748734939, 0.7932328301639984, 0.15181693466541818),
    (5.5, 1.6110931485817512, 0.19934238698962767, 0.5341590877497024),
    (-0.7, -2.073952793628704, 14.28618087263834, -0.06211568056840391),
]


@pytest.mark.parametrize("x,psi,psi1,erfinv", MPMATH)
def test_digamma_trigamma_and_erfinv_agree_with_mpmath_to_1e_14(x, psi, psi1, erfinv):
    t = _f64(x)
    np.testing.assert_allclose(dg.digamma(t).item(), psi, rtol=1e-14)
    np.testing.assert_allclose(dg.polygamma(1, t).item(), psi1, rtol=1e-14)
    np.testing.assert_allclose(dg.erfinv(t / 10).item(), erfinv, rtol=1e-14)


def test_erfinv_inverts_erf_near_one():
    y = _f64(1 - 1e-15, 0.999999, -0.9999999999)
    np.testing.assert_allclose(dg.erf(dg.erfinv(y)).numpy(), y.numpy(), rtol=0, atol=2e-16)


def test_lgamma_gradient_is_digamma_and_digamma_gradient_is_trigamma_to_second_order():
    x = _f64(0.7, 2.5, 11.0).requires_grad_()
    (g,) = dg.autograd.grad(dg.lgamma(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), dg.digamma(x.detach()).numpy(), rtol=1e-15)
    (h,) = dg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), dg.polygamma(1, x.detach()).numpy(), rtol=1e-15)


def test_xlogy_is_zero_where_x_is_zero_unless_y_is_nan():
    _same(dg.xlogy(_f64(0.0, 0.0, 0.0, 1.0), _f64(0.0, NAN, -1.0, -1.0)), [0.0, NAN, 0.0, NAN])
    _same(dg.special.xlog1py(_f64(0.0, 0.0), _f64(-1.0, NAN)), [0.0, NAN])


def test_xlogy_accepts_a_python_number_on_either_side():
    np.testing.assert_allclose(dg.xlogy(2.0, _f64(3.0)).numpy(), [2 * math.log(3.0)])
    np.testing.assert_allclose(dg.xlogy(_f64(3.0), 2).numpy(), [3 * math.log(2.0)])


def test_entr_is_zero_at_zero_and_minus_infinity_below():
    _same(dg.special.entr(_f64(0.0, -1.0, 1.0, NAN)), [0.0, -INF, -0.0, NAN])


def test_polygamma_rejects_a_negative_order_with_pytorchs_error():
    with pytest.raises(RuntimeError, match="does not support negative n"):
        dg.polygamma(-1, _f64(1.0))


def test_mvlgamma_below_half_p_minus_one_is_the_sum_of_log_abs_gamma_and_p_below_1_raises():
    # PyTorch 2.13 no longer refuses elements <= (p - 1) / 2: torch.mvlgamma gives 4.9491 here
    x = _f64(0.9, 3.0)
    want = sum(dg.lgamma(x - i / 2) for i in range(3)) + 3 * 2 / 4 * math.log(math.pi)
    np.testing.assert_allclose(dg.mvlgamma(x, 3).numpy(), want.numpy(), rtol=1e-12)
    assert abs(dg.mvlgamma(x, 3)[0].item() - 4.9491) < 1e-4
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        dg.mvlgamma(_f64(3.0), 0)


def test_tensor_methods_forward_to_the_special_functions():
    x = _f64(1.5, 2.5)
    np.testing.assert_array_equal(x.polygamma(2).numpy(), dg.polygamma(2, x).numpy())
    np.testing.assert_array_equal(x.lgamma().numpy(), dg.lgamma(x).numpy())
    np.testing.assert_array_equal(x.mvlgamma(2).numpy(), dg.special.multigammaln(x, 2).numpy())
    y = x.clone()
    y.polygamma_(1)
    np.testing.assert_array_equal(y.numpy(), dg.polygamma(1, x).numpy())
    z = (x / 3).clone()
    z.erfinv_()
    np.testing.assert_array_equal(z.numpy(), dg.erfinv(x / 3).numpy())


def test_special_namespace_aliases_are_the_same_functions():
    # (dg.lgamma is the namespace's face of the op, dyngrad/_out.py: the same function inside)
    assert dg.special.gammaln is inspect.unwrap(dg.lgamma) and dg.special.psi is inspect.unwrap(dg.digamma)
    assert dg.special.expit is inspect.unwrap(dg.sigmoid)
    x = _f64(-40.0, 0.0, 1.0)
    np.testing.assert_allclose(dg.special.ndtr(x).numpy(), [0.5 * math.erfc(40 / math.sqrt(2)), 0.5,
                                                            0.5 * math.erfc(-1 / math.sqrt(2))], rtol=1e-15)


def test_float32_inputs_give_float32_results_close_to_float64():
    x = dg.tensor([0.3, 2.0, 7.5])
    for fn in (dg.lgamma, dg.digamma, lambda t: dg.polygamma(1, t), lambda t: dg.erfinv(t / 8)):
        out = fn(x)
        assert out.dtype == dg.float32
        np.testing.assert_allclose(out.numpy(), fn(x.double()).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["erf", "erfc"])
def test_vectorised_erf_kernels_agree_with_the_c_library_to_a_few_ulp(name):
    from dyngrad.ops import _specfun

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-6, 6, 20000), np.linspace(-30, 30, 6001), rng.uniform(-0.5, 0.5, 5000),
                        [0.0, -0.0, 0.46875, -0.46875, 4.0, -4.0, 26.5, 1e-300, 5e-324, np.inf, -np.inf, np.nan]])
    assert x.size >= _specfun._VECTOR_FROM  # the Cody path, not the per-element fallback
    got = getattr(_specfun, name)(x)
    ref = np.array([getattr(math, name)(v) for v in x])
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    ok = ~np.isnan(ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        ulp = np.where(got[ok] == ref[ok], 0.0, np.abs(got[ok] - ref[ok]) / np.spacing(np.abs(ref[ok])))
    assert ulp.max() <= 8, (name, x[ok][ulp.argmax()])
    assert np.array_equal(np.signbit(got[ok]), np.signbit(ref[ok]))  # erf(-0.0) = -0.0
    small = getattr(_specfun, name)(x[:100])  # per-element path
    np.testing.assert_array_equal(small, ref[:100])
