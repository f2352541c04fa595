"""The distribution cases shared by the golden tests, their generator
(tests/golden/gen_distributions.py) and the live oracle test: each builds the same
distribution with either library (``D`` is ``dyngrad.distributions`` or
``torch.distributions``) from NumPy parameters, and names the quantities to compare.

A quantity is a method (``log_prob``, ``cdf``, ``icdf`` at the case's ``value`` / ``q``) or a
property (``mean``, ``variance``, ``stddev``, ``mode``, ``entropy``). Each is compared as a
value and as the gradient of ``sum(w * quantity)`` (fixed random ``w``, non-finite entries
masked) with respect to every floating parameter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

_R = np.random.default_rng(1202)


def _u(lo: float, hi: float, *shape: int) -> np.ndarray:
    return _R.uniform(lo, hi, size=shape)


def _spd(n: int, batch: tuple = ()) -> np.ndarray:
    a = _R.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _simplex(*shape: int) -> np.ndarray:
    p = _R.uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


@dataclass
class Case:
    name: str
    build: Callable[[Any, dict], Any]
    params: dict[str, np.ndarray]
    value: np.ndarray | None = None
    q: np.ndarray | None = None  # probabilities for icdf
    quantities: tuple[str, ...] = ("log_prob", "entropy", "mean", "variance")
    no_grad: tuple[str, ...] = ()  # params that are not differentiated (counts, indices)
    rtol: float = 1e-12
    grad_rtol: float = 1e-12


#: PyTorch's trigamma is accurate to ~1e-9 relative (tests/op_db/special_fns.py); gradients of
#: digamma terms (gamma-family entropies and KLs) are compared at this tolerance
TRIGAMMA = 1e-8

_LOC_SCALE = ("log_prob", "cdf", "icdf", "entropy", "mean", "variance", "stddev", "mode")
_SPD3 = _spd(3, (2,))
_L3 = np.linalg.cholesky(_SPD3)

CASES = [
    Case("normal", lambda D, p: D.Normal(p["loc"], p["scale"]), {"loc": _u(-1, 1, 2, 1), "scale": _u(0.5, 2, 3)},
         value=_u(-3, 3, 2, 3), q=_u(0.02, 0.98, 2, 3), quantities=_LOC_SCALE),
    Case("laplace", lambda D, p: D.Laplace(p["loc"], p["scale"]), {"loc": _u(-1, 1, 3), "scale": _u(0.5, 2, 3)},
         value=_u(-3, 3, 2, 3), q=_u(0.02, 0.98, 2, 3), quantities=_LOC_SCALE),
    Case("uniform", lambda D, p: D.Uniform(p["low"], p["high"]), {"low": _u(-2, -1, 3), "high": _u(1, 2, 3)},
         value=_u(-0.9, 0.9, 2, 3), q=_u(0.02, 0.98, 2, 3), quantities=_LOC_SCALE[:-1]),
    Case("exponential", lambda D, p: D.Exponential(p["rate"]), {"rate": _u(0.5, 3, 3)}, value=_u(0.01, 4, 2, 3),
         q=_u(0.02, 0.98, 2, 3), quantities=_LOC_SCALE),
    Case("gamma", lambda D, p: D.Gamma(p["concentration"], p["rate"]),
         {"concentration": np.array([0.4, 1.0, 2.5, 9.0]), "rate": _u(0.5, 3, 4)}, value=_u(0.05, 5, 2, 4),
         quantities=("log_prob", "entropy", "mean", "variance", "mode"), grad_rtol=TRIGAMMA),
    Case("gamma_cdf", lambda D, p: D.Gamma(p["concentration"], p["rate"]),
         {"concentration": np.array([0.4, 1.0, 2.5, 9.0]), "rate": _u(0.5, 3, 4)}, value=_u(0.05, 5, 2, 4),
         quantities=("cdf",), no_grad=("concentration",), rtol=1e-11),
    Case("beta", lambda D, p: D.Beta(p["c1"], p["c0"]), {"c1": np.array([0.5, 1.5, 3.0]), "c0": np.array([2.0, 0.7, 3.0])},
         value=_u(0.05, 0.95, 2, 3), quantities=("log_prob", "entropy", "mean", "variance", "mode"), grad_rtol=TRIGAMMA),
    Case("dirichlet", lambda D, p: D.Dirichlet(p["concentration"]), {"concentration": _u(0.5, 3, 2, 4)},
         value=_simplex(2, 4), quantities=("log_prob", "entropy", "mean", "variance", "mode"), grad_rtol=TRIGAMMA),
    Case("bernoulli_probs", lambda D, p: D.Bernoulli(probs=p["probs"]), {"probs": _u(0.05, 0.95, 4)},
         value=np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0]]),
         quantities=("log_prob", "entropy", "mean", "variance", "mode")),
    Case("bernoulli_logits", lambda D, p: D.Bernoulli(logits=p["logits"]), {"logits": np.array([-3.0, 0.0, 0.7, 25.0])},
         value=np.array([0.0, 1.0, 1.0, 0.0]), quantities=("log_prob", "entropy", "mean", "variance")),
    Case("categorical_probs", lambda D, p: D.Categorical(probs=p["probs"]), {"probs": _u(0.1, 1, 2, 5)},
         value=np.array([[0, 4], [2, 1], [3, 3]]).astype(np.int64), quantities=("log_prob", "entropy")),
    Case("categorical_logits", lambda D, p: D.Categorical(logits=p["logits"]), {"logits": _u(-2, 2, 3, 4)},
         value=np.array([0, 3, 1]).astype(np.int64), quantities=("log_prob", "entropy", "mode")),
    Case("onehot_categorical", lambda D, p: D.OneHotCategorical(probs=p["probs"]), {"probs": _u(0.1, 1, 2, 3)},
         value=np.eye(3)[[[0, 2], [1, 1]]], quantities=("log_prob", "entropy", "mean", "variance", "mode")),
    Case("poisson", lambda D, p: D.Poisson(p["rate"]), {"rate": _u(0.5, 6, 3)},
         value=np.array([[0.0, 3.0, 7.0], [1.0, 0.0, 12.0]]), quantities=("log_prob", "mean", "variance", "mode")),
    Case("binomial", lambda D, p: D.Binomial(p["n"], probs=p["probs"]), {"n": np.array(8.0), "probs": _u(0.1, 0.9, 3)},
         value=np.array([[0.0, 3.0, 8.0], [5.0, 1.0, 2.0]]), quantities=("log_prob", "entropy", "mean", "variance", "mode"),
         no_grad=("n",)),
    Case("binomial_logits", lambda D, p: D.Binomial(p["n"], logits=p["logits"]),
         {"n": np.array([5.0, 10.0, 20.0]), "logits": np.array([-1.0, 0.0, 2.0])},
         value=np.array([2.0, 10.0, 13.0]), quantities=("log_prob", "mean", "variance"), no_grad=("n",)),
    Case("mvn_cov", lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
         {"loc": _u(-1, 1, 2, 3), "cov": _SPD3}, value=_u(-2, 2, 4, 2, 3), quantities=("log_prob", "entropy", "variance"),
         rtol=1e-10),
    Case("mvn_tril", lambda D, p: D.MultivariateNormal(p["loc"], scale_tril=p["L"]),
         {"loc": _u(-1, 1, 3), "L": _L3}, value=_u(-2, 2, 2, 3), quantities=("log_prob", "entropy", "variance", "mean", "mode"),
         rtol=1e-10),
    Case("mvn_precision", lambda D, p: D.MultivariateNormal(p["loc"], precision_matrix=p["P"]),
         {"loc": _u(-1, 1, 3), "P": _SPD3[0]}, value=_u(-2, 2, 2, 3), quantities=("log_prob", "entropy", "variance"),
         rtol=1e-10),
    Case("lowrank_mvn", lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["D"]),
         {"loc": _u(-1, 1, 2, 4), "W": _u(-1, 1, 4, 2), "D": _u(0.5, 2, 4)}, value=_u(-2, 2, 3, 2, 4),
         quantities=("log_prob", "entropy", "variance", "mean", "scale_tril", "covariance_matrix", "precision_matrix"),
         rtol=1e-10),
    Case("mvn_matrices", lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
         {"loc": _u(-1, 1, 3), "cov": _SPD3[1]}, value=_u(-2, 2, 3),
         quantities=("scale_tril", "precision_matrix", "covariance_matrix"), rtol=1e-10),
    Case("relaxed_onehot", lambda D, p: D.RelaxedOneHotCategorical(p["T"], logits=p["logits"]),
         {"T": np.array(0.7), "logits": _u(-1, 1, 2, 3)}, value=_simplex(2, 3), quantities=("log_prob",)),
    Case("relaxed_bernoulli", lambda D, p: D.RelaxedBernoulli(p["T"], probs=p["probs"]),
         {"T": np.array(0.8), "probs": _u(0.1, 0.9, 3)}, value=_u(0.05, 0.95, 2, 3), quantities=("log_prob",)),
    Case("independent_normal", lambda D, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
         {"loc": _u(-1, 1, 2, 3), "scale": _u(0.5, 2, 2, 3)}, value=_u(-2, 2, 2, 3),
         quantities=("log_prob", "entropy", "mean", "variance")),
    Case("lognormal_exp", lambda D, p: D.TransformedDistribution(D.Normal(p["loc"], p["scale"]), [D.transforms.ExpTransform()]),
         {"loc": _u(-1, 1, 3), "scale": _u(0.5, 1.5, 3)}, value=_u(0.1, 4, 2, 3), q=_u(0.02, 0.98, 2, 3),
         quantities=("log_prob", "cdf", "icdf")),
    Case("affine_negative", lambda D, p: D.TransformedDistribution(
        D.Exponential(p["rate"]), [D.transforms.AffineTransform(p["shift"], -2.0)]),
         {"rate": _u(0.5, 2, 3), "shift": _u(-1, 1, 3)}, value=_u(-5, -1.1, 2, 3), q=_u(0.02, 0.98, 2, 3),
         quantities=("log_prob", "cdf", "icdf")),
    Case("logistic_sigmoid", lambda D, p: D.TransformedDistribution(
        D.Uniform(p["low"], p["high"]), [D.transforms.SigmoidTransform().inv, D.transforms.AffineTransform(p["loc"], p["s"])]),
         {"low": np.zeros(3), "high": np.ones(3), "loc": _u(-1, 1, 3), "s": _u(0.5, 2, 3)}, value=_u(-3, 3, 2, 3),
         quantities=("log_prob",), no_grad=("low", "high")),
    Case("cauchy", lambda D, p: D.Cauchy(p["loc"], p["scale"]), {"loc": _u(-1, 1, 3), "scale": _u(0.5, 2, 3)},
         value=_u(-3, 3, 2, 3), q=_u(0.02, 0.98, 2, 3), quantities=_LOC_SCALE[:-2] + ("mode",)),
    Case("chi2", lambda D, p: D.Chi2(p["df"]), {"df": np.array([0.5, 1.0, 3.0, 10.0])}, value=_u(0.05, 5, 2, 4),
         quantities=("log_prob", "entropy", "mean", "variance", "mode"), grad_rtol=TRIGAMMA),
    Case("student_t", lambda D, p: D.StudentT(p["df"], p["loc"], p["scale"]),
         {"df": np.array([0.8, 1.5, 3.0, 30.0]), "loc": _u(-1, 1, 4), "scale": _u(0.5, 2, 4)}, value=_u(-3, 3, 2, 4),
         quantities=("log_prob", "entropy", "mean", "variance", "mode"), grad_rtol=TRIGAMMA),
    Case("lognormal", lambda D, p: D.LogNormal(p["loc"], p["scale"]), {"loc": _u(-1, 1, 3), "scale": _u(0.5, 1.5, 3)},
         value=_u(0.1, 4, 2, 3), q=_u(0.02, 0.98, 2, 3), quantities=_LOC_SCALE),
    Case("gumbel", lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _u(-1, 1, 3), "scale": _u(0.5, 1.5, 3)},
         value=_u(-2, 4, 2, 3), q=_u(0.02, 0.98, 2, 3), quantities=_LOC_SCALE, rtol=1e-11),
    Case("tanh_normal", lambda D, p: D.TransformedDistribution(D.Normal(p["loc"], p["scale"]), [D.transforms.TanhTransform()]),
         {"loc": _u(-1, 1, 3), "scale": _u(0.5, 1.5, 3)}, value=_u(-0.95, 0.95, 2, 3), quantities=("log_prob",), rtol=1e-10),
]

# KL pairs: (name, build_p, build_q, params) -- params shared by both builders
KL_CASES = [
    ("normal_normal", lambda D, p: D.Normal(p["a"], p["b"]), lambda D, p: D.Normal(p["c"], p["d"]),
     {"a": _u(-1, 1, 3), "b": _u(0.5, 2, 3), "c": _u(-1, 1, 2, 1), "d": _u(0.5, 2, 3)}),
    ("bernoulli_bernoulli", lambda D, p: D.Bernoulli(probs=p["a"]), lambda D, p: D.Bernoulli(logits=p["b"]),
     {"a": _u(0.05, 0.95, 4), "b": _u(-2, 2, 4)}),
    ("categorical_categorical", lambda D, p: D.Categorical(probs=p["a"]), lambda D, p: D.Categorical(logits=p["b"]),
     {"a": _u(0.1, 1, 2, 4), "b": _u(-2, 2, 2, 4)}),
    ("onehot_onehot", lambda D, p: D.OneHotCategorical(probs=p["a"]), lambda D, p: D.OneHotCategorical(probs=p["b"]),
     {"a": _u(0.1, 1, 3), "b": _u(0.1, 1, 3)}),
    ("mvn_mvn", lambda D, p: D.MultivariateNormal(p["a"], covariance_matrix=p["b"]),
     lambda D, p: D.MultivariateNormal(p["c"], scale_tril=p["d"]),
     {"a": _u(-1, 1, 2, 3), "b": _SPD3, "c": _u(-1, 1, 3), "d": np.linalg.cholesky(_spd(3))}),
    ("gamma_gamma", lambda D, p: D.Gamma(p["a"], p["b"]), lambda D, p: D.Gamma(p["c"], p["d"]),
     {"a": _u(0.5, 3, 3), "b": _u(0.5, 3, 3), "c": _u(0.5, 3, 3), "d": _u(0.5, 3, 3)}),
    ("beta_beta", lambda D, p: D.Beta(p["a"], p["b"]), lambda D, p: D.Beta(p["c"], p["d"]),
     {"a": _u(0.5, 3, 3), "b": _u(0.5, 3, 3), "c": _u(0.5, 3, 3), "d": _u(0.5, 3, 3)}),
    ("dirichlet_dirichlet", lambda D, p: D.Dirichlet(p["a"]), lambda D, p: D.Dirichlet(p["b"]),
     {"a": _u(0.5, 3, 2, 4), "b": _u(0.5, 3, 2, 4)}),
    ("exponential_exponential", lambda D, p: D.Exponential(p["a"]), lambda D, p: D.Exponential(p["b"]),
     {"a": _u(0.5, 3, 3), "b": _u(0.5, 3, 3)}),
    ("uniform_uniform", lambda D, p: D.Uniform(p["a"], p["b"]), lambda D, p: D.Uniform(p["c"], p["d"]),
     {"a": np.array([-1.0, -1.0, -0.5]), "b": np.array([1.0, 2.0, 0.5]), "c": np.array([-2.0, -0.5, -1.0]),
      "d": np.array([3.0, 2.5, 1.0])}),
    ("laplace_laplace", lambda D, p: D.Laplace(p["a"], p["b"]), lambda D, p: D.Laplace(p["c"], p["d"]),
     {"a": _u(-1, 1, 3), "b": _u(0.5, 2, 3), "c": _u(-1, 1, 3), "d": _u(0.5, 2, 3)}),
    ("cauchy_cauchy", lambda D, p: D.Cauchy(p["a"], p["b"]), lambda D, p: D.Cauchy(p["c"], p["d"]),
     {"a": _u(-1, 1, 3), "b": _u(0.5, 2, 3), "c": _u(-1, 1, 2, 1), "d": _u(0.5, 2, 3)}),
    ("chi2_chi2", lambda D, p: D.Chi2(p["a"]), lambda D, p: D.Chi2(p["b"]), {"a": _u(0.5, 5, 3), "b": _u(0.5, 5, 3)}),
    ("poisson_poisson", lambda D, p: D.Poisson(p["a"]), lambda D, p: D.Poisson(p["b"]),
     {"a": _u(0.5, 5, 3), "b": _u(0.5, 5, 3)}),
    ("binomial_binomial", lambda D, p: D.Binomial(p["n"], probs=p["a"]), lambda D, p: D.Binomial(p["n"], probs=p["b"]),
     {"n": np.array(6.0), "a": _u(0.1, 0.9, 3), "b": _u(0.1, 0.9, 3)}),
    ("independent_independent", lambda D, p: D.Independent(D.Normal(p["a"], p["b"]), 1),
     lambda D, p: D.Independent(D.Normal(p["c"], p["d"]), 1),
     {"a": _u(-1, 1, 2, 3), "b": _u(0.5, 2, 2, 3), "c": _u(-1, 1, 2, 3), "d": _u(0.5, 2, 2, 3)}),
]

def _pair(name: str, bp: Callable, bq: Callable, **params: np.ndarray) -> tuple:
    return (name, bp, bq, params)


_N = lambda D, p: D.Normal(p["nl"], p["ns"])  # noqa: E731
_E = lambda D, p: D.Exponential(p["er"])  # noqa: E731
_G = lambda D, p: D.Gamma(p["gc"], p["gr"])  # noqa: E731
_B = lambda D, p: D.Beta(p["b1"], p["b0"])  # noqa: E731
_U = lambda D, p: D.Uniform(p["ul"], p["uh"])  # noqa: E731
_L = lambda D, p: D.Laplace(p["ll"], p["ls"])  # noqa: E731
_CROSS = {"nl": _u(-1, 1, 3), "ns": _u(0.5, 2, 3), "er": _u(0.5, 2, 3), "gc": _u(0.5, 3, 3), "gr": _u(0.5, 2, 3),
          "b1": _u(0.5, 3, 3), "b0": _u(0.5, 3, 3), "ul": np.array([0.1, 0.2, -0.5]), "uh": np.array([0.5, 0.9, 0.7]),
          "ll": _u(-1, 1, 3), "ls": _u(0.5, 2, 3)}
KL_CASES += [
    (f"{a}_{b}", bp, bq, _CROSS) for a, b, bp, bq in [
        ("exponential", "gamma", _E, _G), ("gamma", "exponential", _G, _E), ("exponential", "normal", _E, _N),
        ("gamma", "normal", _G, _N), ("normal", "laplace", _N, _L), ("laplace", "normal", _L, _N),
        ("uniform", "normal", _U, _N), ("uniform", "exponential", _U, _E), ("uniform", "gamma", _U, _G),
        ("uniform", "beta", _U, _B), ("beta", "uniform", _B, _U), ("beta", "exponential", _B, _E),
        ("beta", "gamma", _B, _G), ("beta", "normal", _B, _N), ("normal", "gamma", _N, _G),
        ("laplace", "beta", _L, _B), ("gamma", "uniform", _G, _U),
    ]
]
_LR = lambda D, p: D.LowRankMultivariateNormal(p["l1"], p["w1"], p["d1"])  # noqa: E731
_LR2 = lambda D, p: D.LowRankMultivariateNormal(p["l2"], p["w2"], p["d2"])  # noqa: E731
_MV = lambda D, p: D.MultivariateNormal(p["l2"], covariance_matrix=p["c"])  # noqa: E731
_LRP = {"l1": _u(-1, 1, 2, 3), "w1": _u(-1, 1, 3, 2), "d1": _u(0.5, 2, 3), "l2": _u(-1, 1, 3), "w2": _u(-1, 1, 2, 3, 1),
        "d2": _u(0.5, 2, 2, 3), "c": _SPD3}
KL_CASES += [("lowrank_lowrank", _LR, _LR2, _LRP), ("lowrank_mvn", _LR, _MV, _LRP), ("mvn_lowrank", _MV, _LR2, _LRP)]
KL_CASES.append(("bernoulli_poisson", lambda D, p: D.Bernoulli(probs=p["a"]), lambda D, p: D.Poisson(p["b"]),
                 {"a": _u(0.1, 0.9, 3), "b": _u(0.5, 3, 3)}))
KL_NO_GRAD = {"n"}
KL_GRAD_RTOL = {"gamma_gamma": TRIGAMMA, "chi2_chi2": TRIGAMMA, "beta_beta": TRIGAMMA, "dirichlet_dirichlet": TRIGAMMA,
                "gamma_exponential": TRIGAMMA, "gamma_normal": TRIGAMMA, "beta_uniform": TRIGAMMA,
                "beta_exponential": TRIGAMMA, "beta_gamma": TRIGAMMA, "beta_normal": TRIGAMMA}


def _tensors(lib: Any, params: dict, no_grad: tuple | set = ()) -> dict:
    out = {}
    for k, v in params.items():
        t = lib.tensor(v, dtype=lib.float64) if v.dtype.kind == "f" else lib.tensor(v)
        if v.dtype.kind == "f" and k not in no_grad:
            t.requires_grad_()
        out[k] = t
    return out


def _value(lib: Any, arr: np.ndarray) -> Any:
    return lib.tensor(arr, dtype=lib.float64) if arr.dtype.kind == "f" else lib.tensor(arr)


def _quantity(lib: Any, dist: Any, name: str, case: Case) -> Any:
    if name in ("log_prob", "cdf"):
        return getattr(dist, name)(_value(lib, case.value))
    if name == "icdf":
        return dist.icdf(_value(lib, case.q))
    if name == "entropy":
        return dist.entropy()
    return getattr(dist, name)


def _grads(lib: Any, out: Any, ts: dict, key: int) -> dict:
    diff = {k: t for k, t in ts.items() if t.requires_grad}
    if not diff or not out.requires_grad:
        return {}
    w = np.random.default_rng(key).standard_normal(tuple(out.shape))
    finite = lib.isfinite(out)
    masked = lib.where(finite, out, lib.zeros_like(out))
    loss = (masked * lib.tensor(w, dtype=lib.float64)).sum()
    gs = lib.autograd.grad(loss, list(diff.values()), allow_unused=True)
    return {k: (np.zeros(tuple(t.shape)) if g is None else g.detach().numpy()) for (k, t), g in zip(diff.items(), gs)}


def evaluate(lib: Any, case: Case) -> dict[str, np.ndarray]:
    """``{"<quantity>": value, "<quantity>|grad|<param>": gradient}`` for ``case`` with ``lib``."""
    res: dict[str, np.ndarray] = {}
    for i, q in enumerate(case.quantities):
        ts = _tensors(lib, case.params, case.no_grad)
        dist = case.build(lib.distributions, ts)
        out = _quantity(lib, dist, q, case)
        res[q] = out.detach().numpy()
        for k, g in _grads(lib, out, ts, 1000 + i).items():
            res[f"{q}|grad|{k}"] = g
    return res


def evaluate_kl(lib: Any, case: tuple) -> dict[str, np.ndarray]:
    name, bp, bq, params = case
    ts = _tensors(lib, params, KL_NO_GRAD)
    out = lib.distributions.kl_divergence(bp(lib.distributions, ts), bq(lib.distributions, ts))
    res = {"kl": out.detach().numpy()}
    for k, g in _grads(lib, out, ts, 7).items():
        res[f"kl|grad|{k}"] = g
    return res
