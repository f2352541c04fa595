"""Live comparison with PyTorch (skipped without torch) for reductions, statistics, norms,
scans and the linear-algebra ops: hypothesis draws shapes (0-d and zero-size included),
dims, keepdim and values; outputs and input gradients must match at rtol 1e-6 (float64)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import dyngrad as dg  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.filterwarnings("ignore:.*degrees of freedom:UserWarning")]
INF = float("inf")

# name -> f(module, x, dim, keepdim); dim is None (all), an int or a tuple
REDUCTIONS = {
    "sum": lambda m, x, d, k: x.sum() if d is None else x.sum(d, keepdim=k),
    "mean": lambda m, x, d, k: x.mean() if d is None else m.mean(x, d, keepdim=k),
    "prod": lambda m, x, d, k: x.prod() if d is None else x.prod(_one(d), keepdim=k),
    "amax": lambda m, x, d, k: x.amax(() if d is None else d, keepdim=k),
    "amin": lambda m, x, d, k: m.amin(x, () if d is None else d, keepdim=k),
    "max": lambda m, x, d, k: x.max() if d is None else x.max(_one(d), keepdim=k).values,
    "min": lambda m, x, d, k: x.min() if d is None else m.min(x, _one(d), k)[0],
    "argmax": lambda m, x, d, k: x.argmax() if d is None else x.argmax(_one(d), keepdim=k),
    "argmin": lambda m, x, d, k: m.argmin(x, None if d is None else _one(d), k),
    "var": lambda m, x, d, k: x.var(d, keepdim=k),
    "var_c0": lambda m, x, d, k: m.var(x, d, correction=0, keepdim=k),
    "std": lambda m, x, d, k: x.std(d, keepdim=k),
    "std_unbiased_false": lambda m, x, d, k: m.std(x, d, unbiased=False, keepdim=k),
    "var_mean": lambda m, x, d, k: m.stack(list(m.var_mean(x, d, keepdim=k))),
    "std_mean": lambda m, x, d, k: m.stack(list(m.std_mean(x, d, correction=0, keepdim=k))),
    "logsumexp": lambda m, x, d, k: m.logsumexp(x, () if d is None else d, keepdim=k),
    "norm2": lambda m, x, d, k: x.norm(dim=d, keepdim=k),
    "norm1": lambda m, x, d, k: x.norm(1, d, keepdim=k),
    "norm3": lambda m, x, d, k: x.norm(3, d, keepdim=k),
    "norm_inf": lambda m, x, d, k: m.linalg.vector_norm(x, INF, d, keepdim=k),
    "vector_norm_0": lambda m, x, d, k: m.linalg.vector_norm(x, 0, d, keepdim=k),
    "cumsum": lambda m, x, d, k: x.cumsum(0 if d is None else _one(d)),
    "cumprod": lambda m, x, d, k: m.cumprod(x, 0 if d is None else _one(d)),
    "all": lambda m, x, d, k: (x > 0).all() if d is None else (x > 0).all(_one(d), keepdim=k),
    "any": lambda m, x, d, k: (x > 1).any() if d is None else m.any(x > 1, _one(d), k),
    "count_nonzero": lambda m, x, d, k: m.count_nonzero(x > 0, d),
}
# need a non-empty reduced slice (PyTorch raises on empty max/argmax/inf-norm)
NEEDS_ELEMENTS = {"amax", "amin", "max", "min", "argmax", "argmin", "norm_inf"}


def _one(d):
    return d[0] if isinstance(d, tuple) else d


def _run(lib, fn, x_np, d, k, grad_out=None):
    t = lib.tensor(x_np.copy(), dtype=lib.float64, requires_grad=True)
    out = fn(lib, t, d, k)
    o = out.detach().numpy()
    if grad_out is None or not out.requires_grad:
        return o, None
    (g,) = lib.autograd.grad(out, [t], lib.from_numpy(grad_out.copy()), allow_unused=True)
    return o, np.zeros_like(x_np) if g is None else g.detach().numpy()


def _close(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} vs torch {want.shape}"
    assert got.dtype.kind == want.dtype.kind, f"{what}: dtype {got.dtype} vs torch {want.dtype}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@st.composite
def shape_and_dim(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    nd = len(shape)
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none" or nd == 0:
        d = None if kind == "none" else draw(st.sampled_from([0, -1]))
    elif kind == "int":
        d = draw(st.integers(-nd, nd - 1))
    else:
        dims = draw(st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True))
        d = tuple(x - nd if draw(st.booleans()) else x for x in dims)
    return shape, d


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sd=shape_and_dim(), keepdim=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_reductions_match_live_torch(name, sd, keepdim, seed):
    shape, d = sd
    fn = REDUCTIONS[name]
    x = np.random.default_rng(seed).uniform(-2, 2, size=shape)
    try:
        want, _ = _run(torch, fn, x, d, keepdim)
    except IndexError:  # a bad dim: dyngrad must refuse it the same way
        with pytest.raises(IndexError):
            _run(dg, fn, x, d, keepdim)
        return
    except RuntimeError:  # torch refuses (empty max) or trips on an edge case: nothing to compare
        assume(False)
    if name in NEEDS_ELEMENTS:
        assume(x.size > 0)
    got, _ = _run(dg, fn, x, d, keepdim)
    _close(got, want, f"{name} forward shape={shape} dim={d} keepdim={keepdim}")
    if want.dtype.kind != "f" or want.size == 0:
        return
    gout = np.random.default_rng(seed + 1).standard_normal(want.shape)
    _, gw = _run(torch, fn, x, d, keepdim, gout)
    _, gg = _run(dg, fn, x, d, keepdim, gout)
    if gw is not None:
        _close(gg, gw, f"{name} grad shape={shape} dim={d} keepdim={keepdim}")


# ----------------------------------------------------------------------------- linalg
@st.composite
def matmul_shapes(draw):
    n, k, p = (draw(st.integers(1, 3)) for _ in range(3))
    ba = draw(st.lists(st.integers(1, 3), max_size=2))
    bb = draw(st.lists(st.integers(1, 3), max_size=2))
    for i in range(1, min(len(ba), len(bb)) + 1):
        if ba[-i] != bb[-i]:
            if draw(st.booleans()):
                ba[-i] = 1
            else:
                bb[-i] = 1
    sa = (k,) if draw(st.booleans()) else tuple(ba) + (n, k)
    sb = (k,) if draw(st.booleans()) else tuple(bb) + (k, p)
    return sa, sb


def _both(f, arrays, seed):
    """Run ``f(module, *tensors)`` in torch and dyngrad; compare outputs and gradients."""
    res = []
    for mod in (torch, dg):
        ts = [mod.tensor(a.copy(), dtype=mod.float64, requires_grad=True) for a in arrays]
        out = f(mod, *ts)
        gout = np.random.default_rng(seed).standard_normal(tuple(out.shape))
        gs = mod.autograd.grad(out, ts, mod.from_numpy(gout))
        res.append((out.detach().numpy(), [g.detach().numpy() for g in gs]))
    (ow, gw), (og, gg) = res
    _close(og, ow, "forward")
    for i, (a, b) in enumerate(zip(gg, gw)):
        _close(a, b, f"grad of input {i}")


@settings(max_examples=25, deadline=None)
@given(shapes=matmul_shapes(), seed=st.integers(0, 2**31 - 1))
def test_matmul_with_broadcasting_and_1d_promotion_matches_live_torch(shapes, seed):
    rng = np.random.default_rng(seed)
    _both(lambda m, a, b: m.matmul(a, b), [rng.standard_normal(s) for s in shapes], seed)


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 2)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]), ("ij->ji", [(2, 3)]),
    ("i,j->ij", [(3,), (2,)]), ("ij,ij->", [(2, 3), (2, 3)]), ("ijk,ik->j", [(2, 3, 4), (2, 4)]),
    ("...ij,...jk", [(2, 3, 4), (4, 2)]), ("a,ab,bc->c", [(2,), (2, 3), (3, 4)]), ("ik,j->j", [(2, 3), (4,)]),
    ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]), ("bii,bj->bij", [(2, 3, 3), (2, 4)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_einsum_matches_live_torch(eq, shapes, seed):
    rng = np.random.default_rng(seed)
    _both(lambda m, *ts: m.einsum(eq, *ts), [rng.standard_normal(s) for s in shapes], seed)


def _wc(rng, shape):
    a = rng.standard_normal(shape)
    return a + 3 * np.eye(shape[-1]) if shape[-1] == shape[-2] else a


DECOMPS = {
    "inv": lambda m, a: m.linalg.inv(a),
    "det": lambda m, a: m.linalg.det(a),
    "slogdet": lambda m, a: m.linalg.slogdet(a).logabsdet,
    "solve": lambda m, a: m.linalg.solve(a, a[..., :1] * 2 + 1),
    "cholesky": lambda m, a: m.linalg.cholesky(a @ a.mT + m.eye(a.shape[-1], dtype=a.dtype)),
    "qr": lambda m, a: m.cat([t.reshape(-1) for t in m.linalg.qr(a)]),
    "eigh": lambda m, a: (lambda r: m.cat([r[0].reshape(-1), (r[1] ** 2).reshape(-1)]))(m.linalg.eigh(a + a.mT)),
    "svd": lambda m, a: (lambda r: m.cat([(r[0] ** 2).reshape(-1), r[1].reshape(-1), (r[2] ** 2).reshape(-1)]))(
        m.linalg.svd(a, full_matrices=False)
    ),
}


@pytest.mark.parametrize("name", sorted(DECOMPS))
@settings(max_examples=8, deadline=None)
@given(batch=st.lists(st.integers(1, 2), max_size=2), n=st.integers(1, 4), seed=st.integers(0, 2**31 - 1))
def test_decompositions_match_live_torch(name, batch, n, seed):
    a = _wc(np.random.default_rng(seed), tuple(batch) + (n, n))
    _both(DECOMPS[name], [a], seed)
