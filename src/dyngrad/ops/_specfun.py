"""NumPy kernels of the special functions (no Tensors here): ``lgamma``, ``digamma``,
Hurwitz ``zeta``, ``polygamma`` and ``erfinv`` on float64 arrays.

NumPy has none of these and SciPy is not a dependency (nor installed in the test
environment, so a SciPy path could not be tested against the fallback). They are written
here in NumPy, following the algorithms PyTorch 2.13 itself uses (ATen/native/Math.h, from
Cephes), so that values agree with PyTorch's to a few ulp:

* ``lgamma``: the C library's ``lgamma`` per element through ctypes (what PyTorch's
  ``std::lgamma`` is; glibc's is within 1 ulp). Python's ``math.lgamma`` is a fallback only:
  it has its own Lanczos code, off by up to 1e-10 relative near the zeros at 1 and 2.
  ``+inf`` at the poles (0, -1, -2, ...) and at ``+-inf``, as PyTorch.
* ``digamma``: reflection ``psi(x) = psi(1 - x) - pi / tan(pi * frac(x))`` for ``x < 0``,
  the recurrence ``psi(x) = psi(x + 1) - 1/x`` up to ``x >= 10``, then the asymptotic
  series ``log x - 1/(2x) - sum B_2k / (2k x^2k)`` (A&S 6.3.18). ``psi(+-0) = -+inf``,
  ``nan`` at negative integers (PyTorch's calc_digamma).
* ``zeta(s, q)``: Euler-Maclaurin summation (Cephes ``zeta``, A&S 23.2.1 with 12 Bernoulli
  terms), ``inf`` at ``s = 1`` and at non-positive integer ``q``.
* ``polygamma(n, x) = (-1)**(n+1) n! zeta(n + 1, x)`` (A&S 6.4.10) for ``n >= 1``.
  PyTorch computes ``n = 1`` with a shorter series (calc_trigamma, about 1e-10 relative
  error); this one is accurate to about 1e-15, so the two differ by up to ~1e-10 there.
* ``gammainc(a, x)``: Cephes igam/igamc (power series for ``x <= max(1, a)``, continued
  fraction otherwise). Against mpmath: ~1e-15 relative for ``a <= 20``, ~1e-12 by
  ``a = 1000`` (the series cancels). PyTorch's own differs from mpmath by up to 2e-9 for
  ``a`` around 20-30, so the two agree to that.
* ``erfinv``: Giles' approximation (2010, "Approximating the erfinv function") as a start,
  refined by five Newton steps (the start is poor only in the far tail; four
  suffice there) on ``math.erf(x) - y`` (on ``log(math.erfc(x)) - log(1 - y)``
  for ``|y| > 0.5``: the tail uses the exact ``1 - y`` and a nearly quadratic function). ``+-inf`` at ``+-1``, ``nan``
  outside ``[-1, 1]``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _backend as B

_ERF = np.frompyfunc(math.erf, 1, 1)
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _lazy_on_dask(fn: Any) -> Any:
    """``fn`` (an elementwise NumPy kernel, some of it written in place) applied chunk by
    chunk (``map_blocks``) when its one array argument is a Dask array; with several Dask
    arrays, as one lazy task (_backend.lazy_kernel). NumPy arguments take the kernel as is.
    (The kernels' in-place NumPy code must never run on a Dask array: a write into one
    goes into a computed copy and is lost.)"""
    import functools

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        lazy = [i for i, a in enumerate(args) if type(a) is not np.ndarray and B.is_dask(a)]
        if not lazy:
            return fn(*args, **kwargs)
        if len(lazy) == 1 and all(np.ndim(a) == 0 for i, a in enumerate(args) if i != lazy[0]):
            k = lazy[0]

            def block(b: Any) -> Any:
                return fn(*args[:k], b, *args[k + 1:], **kwargs)

            return args[k].map_blocks(block, dtype=np.float64)
        shape = np.broadcast_shapes(*[np.shape(a) for a in args if hasattr(a, "shape")])
        return B.lazy_kernel(lambda *a: fn(*a, **kwargs), shape, np.float64, *args)

    return run


# ------------------------------------------------------------------ erf, erfc
# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23
# (1969) 631-637, as in his SPECFUN routine CALERF: a rational function of x**2 for
# |x| <= 0.46875 (erf), of |x| for 0.46875 < |x| <= 4 and of 1/x**2 beyond (erfc), the latter
# two times exp(-x**2) computed as exp(-xr**2) * exp(-(x - xr)(x + xr)) with xr = x rounded
# down to 1/16 (so the tail keeps full relative accuracy). Measured against the C library
# (math.erf/erfc) on 370k points in [-30, 30]: at most 4 ulp for erf and 7 ulp for erfc.
# Evaluated in blocks that stay in cache; small arrays go through math.erf per element,
# which is cheaper below a few thousand elements (about 80 NumPy calls per block here).
_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
      8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
      2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
      3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
      6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
      2.33520497626869185e-3)
_SQRPI = 5.6418958354775628695e-1

_CHUNK = 8192
_VECTOR_FROM = 4096  # elements; below this np.frompyfunc(math.erf) is faster


def _ratio(z: np.ndarray, lead: float, num_c: tuple, den_c: tuple, last_n: float, last_d: float,
           out: np.ndarray) -> None:
    """``out = P(z) / Q(z)`` by Horner's rule, both polynomials monic in the CALERF form."""
    num = lead * z
    den = z.copy()
    for a, b in zip(num_c, den_c):
        num += a
        num *= z
        den += b
        den *= z
    num += last_n
    den += last_d
    np.divide(num, den, out=out)


def _erfc_abs(y: np.ndarray, out: np.ndarray) -> None:
    """``out = erfc(y)`` for ``y = |x| > 0.46875`` (values for smaller ``y`` are overwritten)."""
    r = np.empty_like(y)
    _ratio(np.minimum(y, 4.0), _C[8], _C[:7], _D[:7], _C[7], _D[7], r)
    big = y > 4.0
    if big.any():
        yb = y[big]
        z = 1.0 / (yb * yb)
        t = np.empty_like(z)
        _ratio(z, _P[5], _P[:4], _Q[:4], _P[4], _Q[4], t)
        t *= z
        r[big] = (_SQRPI - t) / yb
    yr = np.trunc(y * 16.0)
    yr *= 0.0625
    dl = (y - yr) * (y + yr)
    np.negative(dl, out=dl)
    np.exp(dl, out=dl)
    yr *= yr
    np.negative(yr, out=yr)
    np.exp(yr, out=yr)
    yr *= dl
    yr *= r
    out[...] = yr


def _erf_block(x: np.ndarray, out: np.ndarray, complement: bool) -> None:
    y = np.abs(x)
    e = np.empty_like(x)
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        _erfc_abs(y, e)
    small = y <= 0.46875
    s = None
    if small.any():
        xs = x[small]
        s = np.empty_like(xs)
        _ratio(xs * xs, _A[4], _A[:3], _B[:3], _A[3], _B[3], s)
        s *= xs
    if complement:
        np.copyto(e, 2.0 - e, where=x < 0)
        if s is not None:
            e[small] = 1.0 - s
    else:
        e = 1.0 - e
        np.copysign(e, x, out=e)
        if s is not None:
            e[small] = s
    inf = np.isinf(x)
    if inf.any():
        e[inf] = np.where(x[inf] > 0, 0.0, 2.0) if complement else np.sign(x[inf])
    out[...] = e


def _erf_vector(x: np.ndarray, complement: bool) -> np.ndarray:
    flat = np.ascontiguousarray(x, dtype=np.float64).ravel()
    out = np.empty_like(flat)
    for i in range(0, flat.size, _CHUNK):
        _erf_block(flat[i : i + _CHUNK], out[i : i + _CHUNK], complement)
    return out.reshape(np.shape(x))


@_lazy_on_dask
def erf(x: np.ndarray) -> np.ndarray:
    """``erf(x)`` of a float64 array (Cody's rational approximations above; libm per
    element for arrays under ``_VECTOR_FROM`` elements)."""
    if np.size(x) < _VECTOR_FROM:
        return B.asarray_any(_ERF(x), dtype=np.float64)
    return _erf_vector(x, False)


@_lazy_on_dask
def erfc(x: np.ndarray) -> np.ndarray:
    """``erfc(x) = 1 - erf(x)`` of a float64 array, without cancellation for large ``x``."""
    if np.size(x) < _VECTOR_FROM:
        return B.asarray_any(_ERFC(x), dtype=np.float64)
    return _erf_vector(x, True)


# -- the same three rational approximations with the Array API standard's functions only
# (for arrays of a library without NumPy's in-place and masked writes: array-api-strict).
# Each branch is evaluated on the whole array at an argument clipped into its range, and
# ``where`` picks; no per-element libm, so it is Cody's accuracy (a few ulp) at every size.
def _ratio_std(z: Any, lead: float, num_c: tuple, den_c: tuple, last_n: float, last_d: float) -> Any:
    num = lead * z
    den = z
    for a, b in zip(num_c, den_c):
        num = (num + a) * z
        den = (den + b) * z
    return (num + last_n) / (den + last_d)


def erf_std(x: Any, complement: bool = False) -> Any:
    """``erf(x)`` (``erfc(x)`` with ``complement``) of a float64 array of any Array API
    library, with the standard's functions only: Cody's rational approximations, as
    :func:`erf` for large NumPy arrays (at most 4 ulp from the C library for erf, 7 for erfc).

    Args:
        x: a float64 array.
        complement (bool): compute ``erfc = 1 - erf`` (without cancellation for large ``x``).
    Returns:
        array: ``x``'s shape, float64, of ``x``'s library.
    Raises:
        TypeError: for an array that is not float64 (from the library).

    Example:
        >>> import numpy as np
        >>> from dyngrad.ops._specfun import erf_std
        >>> float(erf_std(np.asarray([0.5]))[0])  # doctest: +ELLIPSIS
        0.5204998778...
    """
    xp = B.array_module(x)
    with np.errstate(all="ignore"):
        y = xp.abs(x)
        r = _ratio_std(xp.minimum(y, 4.0), _C[8], _C[:7], _D[:7], _C[7], _D[7])
        yb = xp.maximum(y, 4.0)
        z = 1.0 / (yb * yb)
        t = _ratio_std(z, _P[5], _P[:4], _Q[:4], _P[4], _Q[4]) * z
        r = xp.where(y > 4.0, (_SQRPI - t) / yb, r)
        yf = xp.where(xp.isinf(y), 0.0, y)  # (the exp factors of an infinite x are unused)
        yr = xp.trunc(yf * 16.0) * 0.0625
        e = xp.exp(-(yr * yr)) * xp.exp(-((yf - yr) * (yf + yr))) * r  # erfc(|x|), |x| > 0.46875
        xs = xp.where(y <= 0.46875, x, 0.0)
        s = xs * _ratio_std(xs * xs, _A[4], _A[:3], _B[:3], _A[3], _B[3])  # erf(x), |x| <= 0.46875
        small = y <= 0.46875
        if complement:
            out = xp.where(small, 1.0 - s, xp.where(x < 0, 2.0 - e, e))
            return xp.where(xp.isinf(x), xp.where(x > 0, 0.0, xp.full_like(x, 2.0)), out)
        out = xp.where(small, s, xp.copysign(1.0 - e, x))
        return xp.where(xp.isinf(x), xp.sign(x), out)


def erfinv_std(y: Any) -> Any:
    """The inverse error function of a float64 array of any Array API library (Giles' start
    and the Newton steps of :func:`erfinv`, on :func:`erf_std`).

    Args:
        y: a float64 array.
    Returns:
        array: ``y``'s shape, float64: ``+-inf`` at ``+-1``, NaN outside ``[-1, 1]``.
    Raises:
        TypeError: for an array that is not float64 (from the library).

    Example:
        >>> import numpy as np
        >>> from dyngrad.ops._specfun import erfinv_std
        >>> round(float(erfinv_std(np.asarray([0.5]))[0]), 12)
        0.476936276204
    """
    xp = B.array_module(y)
    ay = xp.abs(y)
    with np.errstate(all="ignore"):
        x = _giles_std(xp, ay)
        inner = ay <= 0.5
        inside = ay < 1
        log_tail = xp.log(1.0 - ay)
        for _ in range(5):
            xs = xp.where(inside, x, 0.0)
            deriv = _NEWTON_SCALE * xp.exp(-xs * xs)
            r_in = (erf_std(xs) - ay) / deriv
            ec = erf_std(xs, True)
            r_tail = (xp.log(ec) - log_tail) * ec / -deriv
            x = xp.where(inside, xs - xp.where(inner, r_in, r_tail), x)
        x = xp.where(ay == 1, math.inf, x)
        x = xp.where(ay > 1, math.nan, x)
        x = xp.where(ay == 0, 0.0, x)
    return xp.copysign(x, y)


def _giles_std(xp: Any, y: Any) -> Any:
    w = -xp.log((1.0 - y) * (1.0 + y))
    central = w < 5.0
    wc = w - 2.5
    pc = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        pc = c + pc * wc
    wt = xp.sqrt(w) - 3.0
    pt = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        pt = c + pt * wt
    return xp.where(central, pc, pt) * y


def _libm_lgamma() -> Any:
    """The C library's ``lgamma`` (what PyTorch calls, glibc's is correct to < 1 ulp), or
    None where it cannot be loaded or fails a spot check."""
    try:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("m") or ctypes.util.find_library("ucrtbase")
        fn = ctypes.CDLL(name).lgamma if name else None
    except (OSError, AttributeError):  # pragma: no cover - platform without a loadable libm
        return None
    if fn is None:  # pragma: no cover
        return None
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    ok = abs(fn(0.5) - 0.5723649429247001) < 1e-15 and fn(1.0) == 0.0 and fn(0.0) == math.inf
    return fn if ok else None


# loaded on first use: finding libm imports ctypes.util (with subprocess, tempfile, shutil)
# and runs ldconfig, which ``import dyngrad`` should not pay for (benchmarks/RESULTS.md)
_C_LGAMMA: Any = False


def _lgamma1(v: float) -> float:
    global _C_LGAMMA
    if _C_LGAMMA is False:
        _C_LGAMMA = _libm_lgamma()
    if _C_LGAMMA is not None:
        return float(_C_LGAMMA(v))
    try:  # pragma: no cover - Python's own lgamma: ~1e-15 absolute, less near 1 and 2
        return math.lgamma(v)
    except (ValueError, OverflowError):  # pragma: no cover - a pole (non-positive integer)
        return math.inf


_LGAMMA = np.frompyfunc(_lgamma1, 1, 1)


@_lazy_on_dask
def lgamma(x: np.ndarray) -> np.ndarray:
    """``log|Gamma(x)|`` elementwise (float64 in, float64 out)."""
    with np.errstate(all="ignore"):  # libm raises the divide flag at the poles
        return B.asarray_any(_LGAMMA(x), dtype=np.float64)


_PSI_10 = 2.25175258906672110764
_PSI_A = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
          -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
          8.33333333333333333333e-2)


def _digamma_nonneg(x: np.ndarray) -> np.ndarray:
    """digamma for ``x > 0`` (recurrence to ``x >= 10``, then the asymptotic series)."""
    x = x.copy()
    result = np.zeros_like(x)
    low = x < 10
    while low.any():
        result[low] -= 1 / x[low]
        x[low] += 1
        low = x < 10
    z = 1.0 / (x * x)
    poly = np.zeros_like(x)
    for a in _PSI_A:  # polevl(z, A, 6)
        poly = poly * z + a
    y = np.where(x < 1e17, z * poly, 0.0)
    out = result + np.log(x) - 0.5 / x - y
    return np.where(x == 10, result + _PSI_10, out)


@_lazy_on_dask
def digamma(x: np.ndarray) -> np.ndarray:
    """``psi(x) = d/dx log Gamma(x)`` elementwise (float64)."""
    x = B.asarray_any(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        neg = x < 0
        r = np.modf(x)[0]
        refl = np.where(neg, 1 - x, x)
        pos = np.isfinite(refl) & (refl > 0)
        out = np.full_like(x, np.nan)
        out[pos] = _digamma_nonneg(refl[pos])
        out = np.where(neg, out - np.pi / np.tan(np.pi * r), out)
        out = np.where(neg & (x == np.trunc(x)), np.nan, out)
        out = np.where(x == np.inf, np.inf, out)
        out = np.where(x == 0, np.copysign(np.inf, -x), out)
    return out


# Cephes zeta: A[i] = (2i+2)! / B_{2i+2}
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


@_lazy_on_dask
def zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hurwitz zeta ``sum_k (k + q)**-s`` elementwise (float64, broadcast), ``s >= 1``."""
    s, q = np.broadcast_arrays(B.asarray_any(s, dtype=np.float64), B.asarray_any(q, dtype=np.float64))
    s, q = s.astype(np.float64), q.astype(np.float64)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))
        bad = (s < 1) | np.isnan(s) | np.isnan(q) | ((q <= 0) & ~pole & (s != np.floor(s)))
        big = q > 1e8
        ok = ~(pole | bad | big | (s == 1))
        out = np.zeros_like(s)
        x, a = s[ok], q[ok].copy()
        acc = np.power(a, -x)
        b = np.zeros_like(a)
        i = 0
        while i < 9 or (a <= 9).any():  # direct sum until a > 9 and at least 9 terms
            i += 1
            a = a + 1.0
            b = np.power(a, -x)
            acc = acc + b
        w = a
        acc = acc + b * w / (x - 1.0) - 0.5 * b
        fac, k = np.ones_like(x), 0.0
        for A in _ZETA_A:  # Euler-Maclaurin tail
            fac = fac * (x + k)
            b = b / w
            acc = acc + fac * b / A
            k += 1.0
            fac = fac * (x + k)
            b = b / w
            k += 1.0
        out[ok] = acc
        qb, sb = q[big], s[big]
        out[big] = (1 / (sb - 1) + 1 / (2 * qb)) * np.power(qb, 1 - sb)
        out[pole | (s == 1)] = np.inf
        out[bad] = np.nan
    return out


@_lazy_on_dask
def polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """``psi^(n)(x)``, the n-th derivative of digamma, elementwise (float64)."""
    if n == 0:
        return digamma(x)
    sign = 1.0 if n % 2 else -1.0
    with np.errstate(all="ignore"):
        return sign * math.exp(math.lgamma(n + 1.0)) * zeta(np.float64(n + 1), x)


def _giles(y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        central = w < 5.0
        wc = w - 2.5
        pc = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):
            pc = c + pc * wc
        wt = np.sqrt(w) - 3.0
        pt = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682):
            pt = c + pt * wt
        return np.where(central, pc, pt) * y


_NEWTON_SCALE = 2.0 / math.sqrt(math.pi)


@_lazy_on_dask
def erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse error function elementwise (float64)."""
    y = B.asarray_any(y, dtype=np.float64)
    ay = np.abs(y)
    with np.errstate(all="ignore"):
        x = _giles(ay)
        inner = (ay <= 0.5)
        inside = ay < 1
        log_tail = np.log(1.0 - ay)  # 1 - ay is exact for ay in [0.5, 1]
        for _ in range(5):
            xs = np.where(inside, x, 0.0)
            deriv = _NEWTON_SCALE * np.exp(-xs * xs)
            # |y| <= 0.5: Newton on erf(x) - y; the tail: on log(erfc(x)) - log(1 - y)
            r_in = (B.asarray_any(_ERF(xs), dtype=np.float64) - ay) / deriv
            ec = B.asarray_any(_ERFC(xs), dtype=np.float64)
            r_tail = (np.log(ec) - log_tail) * ec / -deriv
            x = np.where(inside, xs - np.where(inner, r_in, r_tail), x)
        x = np.where(ay == 1, np.inf, x)
        x = np.where(ay > 1, np.nan, x)
        x = np.where(ay == 0, 0.0, x)
    return np.copysign(x, y)


# -- lgamma, digamma, zeta with the Array API standard's functions only (for array-api-strict
# arrays: no masked writes, no per-element libm). The loops run a fixed number of times on
# the whole array; ``where`` freezes the elements that are done.
# lgamma: Cephes' lgam (the algorithm, in our own code): the recurrence into [2, 3) and a
# rational function of x - 2 there below 13; Stirling's series from 13 up; the reflection
# formula below -34. Measured against the C library on [-40, 200]: see
# tests/backends/test_std_specfun.py for the bound the tests hold it to.
_LG_A = (8.11614167470508450300e-4, -5.95061904284301438324e-4, 7.93650340457716943945e-4,
         -2.77777777730099687205e-3, 8.33333333333331927722e-2)
_LG_B = (-1.37825152569120859100e3, -3.88016315134637840924e4, -3.31612992738871184744e5,
         -1.16237097492762307383e6, -1.72173700820839662146e6, -8.53555664245765465627e5)
_LG_C = (-3.51815701436523470549e2, -1.70642106651881159223e4, -2.20528590553854454839e5,
         -1.13933444367982507207e6, -2.53252307177582951285e6, -2.01889141433532773231e6)
_LS2PI = 0.91893853320467274178


def _polevl(x: Any, coef: tuple, monic: bool = False) -> Any:
    """``coef[0] x**k + ... + coef[k]`` by Horner's rule (with a leading 1 when ``monic``)."""
    acc = x + coef[0] if monic else coef[0]
    for c in coef[1:]:
        acc = acc * x + c
    return acc


def _lgamma_pos_std(xp: Any, x: Any) -> Any:
    """lgamma for ``x >= -34`` that is not a pole (the caller masks poles)."""
    big = x >= 13.0
    # Stirling (x >= 13), at an argument clipped into its range
    xb = xp.maximum(x, 13.0)
    q = (xb - 0.5) * xp.log(xb) - xb + _LS2PI
    zz = 1.0 / (xb * xb)
    stirling = q + _polevl(zz, _LG_A) / xb
    stirling = xp.where(xb > 1.0e8, q, stirling)
    # the recurrence into [2, 3) (x < 13): at most 11 steps down, 36 up from -34
    xs = xp.where(big, 2.5, x)
    z = xp.ones_like(xs)
    for _ in range(11):
        down = xs >= 3.0
        xs = xp.where(down, xs - 1.0, xs)
        z = xp.where(down, z * xs, z)
    for _ in range(37):
        up = xs < 2.0
        z = xp.where(up, z / xp.where(up, xs, 1.0), z)
        xs = xp.where(up, xs + 1.0, xs)
    p = xs - 2.0
    small = xp.log(xp.abs(z)) + p * _polevl(p, _LG_B) / _polevl(p, _LG_C, monic=True)
    return xp.where(big, stirling, small)


def lgamma_std(x: Any) -> Any:
    """``log|Gamma(x)|`` of a float64 array of any Array API library (standard functions only).

    Args:
        x: a float64 array.
    Returns:
        array: ``x``'s shape, float64; ``+inf`` at the poles (0, -1, -2, ...) and ``+-inf``.
    Raises:
        TypeError: for an array that is not float64 (from the library).

    Example:
        >>> import numpy as np
        >>> from dyngrad.ops._specfun import lgamma_std
        >>> round(float(lgamma_std(np.asarray([0.5]))[0]), 12)
        0.572364942925
    """
    xp = B.array_module(x)
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (x == xp.floor(x))
        xf = xp.where(pole | xp.isinf(x), 2.5, x)
        neg = xf < -34.0
        # reflection for x < -34: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(-x)
        qq = xp.where(neg, -xf, 40.0)
        pq = xp.floor(qq)
        zr = qq - pq
        zr = xp.where(zr > 0.5, pq + 1.0 - qq, zr)
        zr = qq * xp.sin(math.pi * zr)
        refl = math.log(math.pi) - xp.log(xp.abs(zr)) - _lgamma_pos_std(xp, qq)
        out = xp.where(neg, refl, _lgamma_pos_std(xp, xp.where(neg, 2.5, xf)))
        out = xp.where(pole | xp.isinf(x), math.inf, out)
        return xp.where(xp.isnan(x), x, out)


def digamma_std(x: Any) -> Any:
    """``psi(x)`` of a float64 array of any Array API library (standard functions only): the
    reflection, recurrence and asymptotic series of :func:`digamma`.

    Args:
        x: a float64 array.
    Returns:
        array: ``x``'s shape, float64; NaN at the negative integers, ``-+inf`` at ``+-0``.
    Raises:
        TypeError: for an array that is not float64 (from the library).

    Example:
        >>> import numpy as np
        >>> from dyngrad.ops._specfun import digamma_std
        >>> round(float(digamma_std(np.asarray([1.0]))[0]), 12)
        -0.577215664902
    """
    xp = B.array_module(x)
    with np.errstate(all="ignore"):
        neg = x < 0
        r = x - xp.trunc(x)  # modf's fractional part
        refl = xp.where(neg, 1 - x, x)
        pos = xp.isfinite(refl) & (refl > 0)
        v = xp.where(pos, refl, 20.0)
        # _digamma_nonneg: the recurrence up to v >= 10, then the series
        result = xp.zeros_like(v)
        for _ in range(11):
            low = v < 10
            result = xp.where(low, result - 1 / v, result)
            v = xp.where(low, v + 1, v)
        z = 1.0 / (v * v)
        poly = xp.zeros_like(v)
        for a in _PSI_A:
            poly = poly * z + a
        y = xp.where(v < 1e17, z * poly, 0.0)
        nonneg = result + xp.log(v) - 0.5 / v - y
        nonneg = xp.where(v == 10, result + _PSI_10, nonneg)
        out = xp.where(pos, nonneg, math.nan)
        out = xp.where(neg, out - math.pi / xp.tan(math.pi * r), out)
        out = xp.where(neg & (x == xp.trunc(x)), math.nan, out)
        out = xp.where(x == math.inf, math.inf, out)
        return xp.where(x == 0, xp.copysign(xp.full_like(x, math.inf), -x), out)


def zeta_std(s: float, q: Any) -> Any:
    """Hurwitz ``zeta(s, q)`` for a number ``s >= 1`` and a float64 array ``q`` of any Array
    API library (standard functions only): :func:`zeta`'s Euler-Maclaurin summation.

    Args:
        s (float): the exponent.
        q: a float64 array.
    Returns:
        array: ``q``'s shape, float64; ``inf`` at ``s = 1`` and the non-positive integers ``q``.
    Raises:
        TypeError: for an array that is not float64 (from the library).

    Example:
        >>> import numpy as np
        >>> from dyngrad.ops._specfun import zeta_std
        >>> round(float(zeta_std(2.0, np.asarray([1.0]))[0]), 12)  # pi**2 / 6
        1.644934066848
    """
    xp = B.array_module(q)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == xp.floor(q))
        bad = xp.isnan(q) | ((q <= 0) & ~pole & (s != math.floor(s)))
        if s < 1 or math.isnan(s):
            return xp.full_like(q, math.nan)
        big = q > 1e8
        ok = ~(pole | bad | big) & (s != 1)
        a = xp.where(ok, q, 10.0)
        acc = xp.pow(a, -s)
        b = xp.zeros_like(a)
        # the direct sum, as zeta's: at least 9 terms and until every a > 9. The loop count
        # is a host computation: one number read back (the smallest q), as NumPy's loop
        # reads ``(a <= 9).any()``
        lo = float(xp.min(a)) if math.prod(a.shape) else 10.0
        steps = max(9, math.floor(9 - lo) + 1) if lo <= 9 else 9
        for _ in range(steps):
            a = a + 1.0
            b = xp.pow(a, -s)
            acc = acc + b
        w = a
        acc = acc + b * w / (s - 1.0) - 0.5 * b
        fac, k = xp.ones_like(a), 0.0
        for A in _ZETA_A:
            fac = fac * (s + k)
            b = b / w
            acc = acc + fac * b / A
            k += 1.0
            fac = fac * (s + k)
            b = b / w
            k += 1.0
        qb = xp.where(big, q, 1e9)
        asym = (1 / (s - 1) + 1 / (2 * qb)) * xp.pow(qb, 1 - s)
        out = xp.where(ok, acc, xp.where(big, asym, 0.0))
        out = xp.where(pole | (s == 1), math.inf, out)
        return xp.where(bad, math.nan, out)


def polygamma_std(n: int, x: Any) -> Any:
    """``psi^(n)(x)`` of a float64 array of any Array API library (standard functions only).

    Args:
        n (int): the order, ``>= 0``.
        x: a float64 array.
    Returns:
        array: ``x``'s shape, float64.
    Raises:
        TypeError: for an array that is not float64 (from the library).

    Example:
        >>> import numpy as np
        >>> from dyngrad.ops._specfun import polygamma_std
        >>> round(float(polygamma_std(1, np.asarray([1.0]))[0]), 12)  # pi**2 / 6
        1.644934066848
    """
    if n == 0:
        return digamma_std(x)
    sign = 1.0 if n % 2 else -1.0
    with np.errstate(all="ignore"):
        return sign * math.exp(math.lgamma(n + 1.0)) * zeta_std(float(n + 1), x)


_MACHEP = 1.11022302462515654042e-16
_BIG, _BIGINV = 4.503599627370496e15, 2.22044604925031308085e-16


def _igam_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) by its power series (Cephes igam), for ``x <= max(1, a)``."""
    with np.errstate(all="ignore"):
        ax = a * np.log(x) - x - lgamma(a)
        r, c, ans = a.copy(), np.ones_like(a), np.ones_like(a)
        active = np.ones(a.shape, bool)
        for _ in range(10_000):
            if not active.any():
                break
            r[active] += 1
            c[active] *= x[active] / r[active]
            ans[active] += c[active]
            active[active] = c[active] / ans[active] > _MACHEP
        return ans * np.exp(ax) / a


def _igamc_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Q(a, x) by its continued fraction (Cephes igamc), for ``x > max(1, a)``."""
    with np.errstate(all="ignore"):
        ax = a * np.log(x) - x - lgamma(a)
        y = 1 - a
        z = x + y + 1
        c = np.zeros_like(a)
        pkm2, qkm2, pkm1, qkm1 = np.ones_like(a), x.copy(), x + 1, z * x
        ans = pkm1 / qkm1
        active = np.ones(a.shape, bool)
        for _ in range(10_000):
            if not active.any():
                break
            c, y, z = c + 1, y + 1, z + 2
            yc = y * c
            pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
            ok = qk != 0
            r = np.where(ok, pk / np.where(ok, qk, 1), ans)
            t = np.where(ok, np.abs((ans - r) / r), 1.0)
            ans = np.where(active, r, ans)
            pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
            big = np.abs(pk) > _BIG
            pkm2, pkm1 = np.where(big, pkm2 * _BIGINV, pkm2), np.where(big, pkm1 * _BIGINV, pkm1)
            qkm2, qkm1 = np.where(big, qkm2 * _BIGINV, qkm2), np.where(big, qkm1 * _BIGINV, qkm1)
            active &= t > _MACHEP
        return ans * np.exp(ax)


@_lazy_on_dask
def gammainc(a: np.ndarray, x: np.ndarray, upper: bool = False) -> np.ndarray:
    """The regularised lower (``upper=False``: ``P(a, x)``) or upper (``Q = 1 - P``)
    incomplete gamma function, elementwise with broadcasting (float64). Series for
    ``x <= max(1, a)``, continued fraction otherwise (Cephes igam/igamc, A&S 6.5.29 and
    6.5.31). Edges as PyTorch: ``P(a, 0) = 0``, ``P(0, x > 0) = 1``, ``P(a, inf) = 1``,
    ``nan`` for negative arguments."""
    a, x = np.broadcast_arrays(B.asarray_any(a, np.float64), B.asarray_any(x, np.float64))
    shape = a.shape
    a, x = a.astype(np.float64).ravel(), x.astype(np.float64).ravel()
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    fin = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    ser = fin & ((x <= 1) | (x <= a))
    frac = fin & ~ser
    if ser.any():
        p[ser] = _igam_series(a[ser], x[ser])
        q[ser] = 1 - p[ser]
    if frac.any():
        q[frac] = _igamc_fraction(a[frac], x[frac])
        p[frac] = 1 - q[frac]
    zero_x = (x == 0) & (a > 0)
    p[zero_x], q[zero_x] = 0.0, 1.0
    zero_a = (a == 0) & (x > 0)
    p[zero_a], q[zero_a] = 1.0, 0.0
    inf_x = (x == np.inf) & (a > 0) & np.isfinite(a)
    p[inf_x], q[inf_x] = 1.0, 0.0
    inf_a = (a == np.inf) & (x >= 0) & np.isfinite(x)
    p[inf_a], q[inf_a] = 0.0, 1.0
    return (q if upper else p).reshape(shape)


# -- the incomplete gamma functions with the standard's functions only: the same series and
# continued fraction, each element frozen by ``where`` once it has converged; the loops stop
# when no element is active (a host read of one bool per step, as NumPy's ``active.any()``).
def _igam_series_std(xp: Any, a: Any, x: Any) -> Any:
    ax = a * xp.log(x) - x - lgamma_std(a)
    r, c, ans = a, xp.ones_like(a), xp.ones_like(a)
    active = xp.ones(a.shape, dtype=xp.bool)
    for _ in range(10_000):
        if not bool(xp.any(active)):
            break
        r = xp.where(active, r + 1, r)
        c = xp.where(active, c * x / r, c)
        ans = xp.where(active, ans + c, ans)
        active = active & (c / ans > _MACHEP)
    return ans * xp.exp(ax) / a


def _igamc_fraction_std(xp: Any, a: Any, x: Any) -> Any:
    ax = a * xp.log(x) - x - lgamma_std(a)
    y = 1 - a
    z = x + y + 1
    c = xp.zeros_like(a)
    pkm2, qkm2, pkm1, qkm1 = xp.ones_like(a), x, x + 1, z * x
    ans = pkm1 / qkm1
    active = xp.ones(a.shape, dtype=xp.bool)
    for _ in range(10_000):
        if not bool(xp.any(active)):
            break
        c, y, z = c + 1, y + 1, z + 2
        yc = y * c
        pk, qk = pkm1 * z - pkm2 * yc, qkm1 * z - qkm2 * yc
        ok = qk != 0
        r = xp.where(ok, pk / xp.where(ok, qk, 1.0), ans)
        t = xp.where(ok, xp.abs((ans - r) / r), 1.0)
        ans = xp.where(active, r, ans)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        big = xp.abs(pk) > _BIG
        pkm2, pkm1 = xp.where(big, pkm2 * _BIGINV, pkm2), xp.where(big, pkm1 * _BIGINV, pkm1)
        qkm2, qkm1 = xp.where(big, qkm2 * _BIGINV, qkm2), xp.where(big, qkm1 * _BIGINV, qkm1)
        active = active & (t > _MACHEP)
    return ans * xp.exp(ax)


def gammainc_std(a: Any, x: Any, upper: bool = False) -> Any:
    """:func:`gammainc` for float64 arrays of any Array API library (standard functions only).

    Args:
        a: float64 array, the shape parameter (broadcast with ``x``).
        x: float64 array, the upper limit of the integral.
        upper (bool): the upper function ``Q = 1 - P``. Default: ``False`` (``P``).
    Returns:
        array: the broadcast shape, float64; PyTorch's edge values (``P(a, 0) = 0``,
        ``P(0, x > 0) = 1``, ``P(a, inf) = 1``, NaN for negative arguments).
    Raises:
        TypeError: for arrays that are not float64 (from the library).

    Example:
        >>> import numpy as np
        >>> from dyngrad.ops._specfun import gammainc_std
        >>> round(float(gammainc_std(np.asarray([1.0]), np.asarray([1.0]))[0]), 12)  # 1 - 1/e
        0.632120558829
    """
    xp = B.array_module(a, x)
    a, x = xp.broadcast_arrays(a, x)
    with np.errstate(all="ignore"):
        fin = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
        ser = fin & ((x <= 1) | (x <= a))
        frac = fin & ~ser
        p = xp.full_like(a, math.nan)
        q = xp.full_like(a, math.nan)
        if bool(xp.any(ser)):
            ps = _igam_series_std(xp, xp.where(ser, a, 1.0), xp.where(ser, x, 0.5))
            p, q = xp.where(ser, ps, p), xp.where(ser, 1 - ps, q)
        if bool(xp.any(frac)):
            qf = _igamc_fraction_std(xp, xp.where(frac, a, 1.0), xp.where(frac, x, 2.0))
            p, q = xp.where(frac, 1 - qf, p), xp.where(frac, qf, q)
        for cond, pv, qv in (((x == 0) & (a > 0), 0.0, 1.0), ((a == 0) & (x > 0), 1.0, 0.0),
                             ((x == math.inf) & (a > 0) & xp.isfinite(a), 1.0, 0.0),
                             ((a == math.inf) & (x >= 0) & xp.isfinite(x), 0.0, 1.0)):
            p, q = xp.where(cond, pv, p), xp.where(cond, qv, q)
    return q if upper else p
