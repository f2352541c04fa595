"""dyngrad.scipy.special: scipy.special's names and arguments on Tensors: values equal SciPy's
(when installed), gradients pass gradcheck, arrays in give arrays out."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad
import dyngrad.scipy.special as ds
from dyngrad.func import grad

ss = pytest.importorskip("scipy.special")

X = np.array([[0.2, -1.3, 2.0], [0.5, 0.1, -0.4]])
POS = np.abs(X) + 0.3
P = np.array([0.2, 0.7, 0.45])

CASES = [
    ("expit", (X,)), ("erf", (X,)), ("erfc", (X,)), ("ndtr", (X,)), ("expm1", (X,)),
    ("log1p", (POS,)), ("gammaln", (POS,)), ("digamma", (POS,)), ("psi", (POS,)), ("entr", (POS,)),
    ("logit", (P,)), ("erfinv", (P,)), ("ndtri", (P,)), ("xlogy", (X, POS)), ("xlog1py", (X, POS)),
]


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_a_scipy_special_function_equals_scipys_and_is_differentiable(name, args):
    f = getattr(ds, name)
    r = f(*args)
    assert type(r) is np.ndarray  # arrays in, arrays out
    np.testing.assert_allclose(r, getattr(ss, name)(*args), rtol=1e-12, atol=1e-14)
    ts = [dyngrad.tensor(a, requires_grad=True) for a in args]
    assert isinstance(f(*ts), dyngrad.Tensor)
    assert dyngrad.autograd.gradcheck(f, ts)


def test_polygamma_equals_scipys():
    np.testing.assert_allclose(ds.polygamma(2, POS), ss.polygamma(2, POS), rtol=1e-10)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
def test_logsumexp_softmax_and_log_softmax_follow_scipys_axis_rules(axis):
    for f, ref in ((ds.logsumexp, ss.logsumexp), (ds.softmax, ss.softmax), (ds.log_softmax, ss.log_softmax)):
        np.testing.assert_allclose(f(X, axis=axis), ref(X, axis=axis), rtol=1e-12, atol=1e-14)
        t = dyngrad.tensor(X, requires_grad=True)
        assert dyngrad.autograd.gradcheck(lambda x, f=f: f(x, axis=axis), (t,))


def test_logsumexp_takes_weights_and_keepdims():
    b = np.array([[1.0, 0.5, 2.0]])
    np.testing.assert_allclose(ds.logsumexp(X, axis=1, b=b, keepdims=True), ss.logsumexp(X, axis=1, b=b, keepdims=True), rtol=1e-12)
    with pytest.raises(TypeError, match="return_sign"):
        ds.logsumexp(X, return_sign=True)


def test_grad_through_a_scipy_special_call_is_an_ndarray():
    g = grad(lambda x: ds.logsumexp(x))(np.zeros(4))
    assert type(g) is np.ndarray
    np.testing.assert_allclose(g, np.full(4, 0.25))
