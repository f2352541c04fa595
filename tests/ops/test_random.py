"""Random ops (ops/random.py): distributions within statistical bounds for a fixed seed,
seeding, dtypes and shapes, PyTorch's gradient semantics, in-place fills as in-place ops,
and PyTorch's errors for misuse."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad

N = 200_000  # samples per distribution check: the standard error of a mean is ~0.2% of sd


def _z(sample_mean: float, mean: float, sd: float, n: int = N) -> float:
    """How many standard errors ``sample_mean`` is from ``mean``."""
    return abs(sample_mean - mean) / (sd / np.sqrt(n))


@pytest.fixture(autouse=True)
def _seed() -> None:
    dyngrad.manual_seed(1234)


# ------------------------------------------------------------------ distributions
@pytest.mark.parametrize(
    "name, draw, mean, var",
    [
        ("rand", lambda: dyngrad.rand(N, dtype=dyngrad.float64), 0.5, 1 / 12),
        ("randn", lambda: dyngrad.randn(N, dtype=dyngrad.float64), 0.0, 1.0),
        ("normal(2, 3, size)", lambda: dyngrad.normal(2.0, 3.0, (N,), dtype=dyngrad.float64), 2.0, 9.0),
        ("normal(mean tensor, std)", lambda: dyngrad.normal(dyngrad.full((N,), -1.0, dtype=dyngrad.float64), 0.5), -1.0, 0.25),
        ("normal(mean, std tensor)", lambda: dyngrad.normal(1.0, dyngrad.full((N,), 2.0)), 1.0, 4.0),
        ("randint(3, 7)", lambda: dyngrad.randint(3, 7, (N,)).double(), 4.5, (4**2 - 1) / 12),
        ("uniform_(-2, 4)", lambda: dyngrad.empty(N, dtype=dyngrad.float64).uniform_(-2, 4), 1.0, 36 / 12),
        ("normal_(1, 2)", lambda: dyngrad.empty(N, dtype=dyngrad.float64).normal_(1, 2), 1.0, 4.0),
        ("bernoulli_(0.3)", lambda: dyngrad.empty(N, dtype=dyngrad.float64).bernoulli_(0.3), 0.3, 0.21),
        ("bernoulli(p)", lambda: dyngrad.bernoulli(dyngrad.full((N,), 0.8, dtype=dyngrad.float64)), 0.8, 0.16),
        ("bernoulli(x, p)", lambda: dyngrad.bernoulli(dyngrad.zeros(N, dtype=dyngrad.float64), 0.25), 0.25, 0.1875),
        ("exponential_(2)", lambda: dyngrad.empty(N, dtype=dyngrad.float64).exponential_(2.0), 0.5, 0.25),
        ("geometric_(0.25)", lambda: dyngrad.empty(N, dtype=dyngrad.float64).geometric_(0.25), 4.0, 0.75 / 0.0625),
        ("log_normal_(0, 0.5)", lambda: dyngrad.empty(N, dtype=dyngrad.float64).log_normal_(0.0, 0.5),
         float(np.exp(0.125)), float((np.exp(0.25) - 1) * np.exp(0.25))),
        ("random_(0, 10)", lambda: dyngrad.empty(N, dtype=dyngrad.float64).random_(0, 10), 4.5, 99 / 12),
        ("poisson(3)", lambda: dyngrad.poisson(dyngrad.full((N,), 3.0, dtype=dyngrad.float64)), 3.0, 3.0),
    ],
)
def test_samples_have_the_distributions_mean_and_variance(name, draw, mean, var) -> None:  # noqa: ANN001
    x = draw().numpy()
    assert x.shape == (N,)
    assert _z(x.mean(), mean, np.sqrt(var)) < 5, name
    # the sample variance's standard error is below 4 var / sqrt(N) for these distributions
    assert abs(x.var() - var) < 6 * var * 4 / np.sqrt(N), name


def test_supports_are_respected() -> None:
    assert dyngrad.rand(1000).min().item() >= 0 and dyngrad.rand(1000).max().item() < 1
    u = dyngrad.empty(1000).uniform_(2, 3).numpy()
    assert u.min() >= 2 and u.max() < 3
    r = dyngrad.empty(1000, dtype=dyngrad.int64).random_(5, 8).numpy()
    assert set(np.unique(r)) == {5, 6, 7}
    r = dyngrad.empty(1000, dtype=dyngrad.uint8).random_().numpy()
    assert r.min() >= 0 and r.max() <= 255 and len(np.unique(r)) > 200
    f = dyngrad.empty(1000).random_().numpy()
    assert f.min() >= 0 and f.max() <= 2**24 and np.all(f == np.round(f))
    g = dyngrad.empty(1000, dtype=dyngrad.int64).geometric_(0.5).numpy()
    assert g.min() >= 1
    b = dyngrad.empty(1000, dtype=dyngrad.bool).bernoulli_(0.5)
    assert b.dtype == dyngrad.bool and 300 < int(b.sum().item()) < 700
    c = dyngrad.empty(N, dtype=dyngrad.float64).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.05  # the median; a Cauchy sample has no mean
    assert abs(np.quantile(c, 0.75) - 3.0) < 0.1  # median + sigma


def test_randperm_is_a_permutation() -> None:
    p = dyngrad.randperm(50)
    assert p.dtype == dyngrad.int64
    assert sorted(p.tolist()) == list(range(50)) and p.tolist() != list(range(50))
    assert dyngrad.randperm(0).shape == (0,)
    assert dyngrad.randperm(4, dtype=dyngrad.float32).dtype == dyngrad.float32


def test_multinomial_frequencies_follow_the_weights() -> None:
    w = dyngrad.tensor([1.0, 0.0, 3.0])
    s = dyngrad.multinomial(w, 40_000, replacement=True)
    assert s.dtype == dyngrad.int64 and s.shape == (40_000,)
    counts = np.bincount(s.numpy(), minlength=3) / 40_000
    assert counts[1] == 0 and abs(counts[0] - 0.25) < 0.02 and abs(counts[2] - 0.75) < 0.02


def test_multinomial_without_replacement_draws_distinct_categories_per_row() -> None:
    w = dyngrad.rand(5, 6) + 0.1
    s = dyngrad.multinomial(w, 6)
    assert s.shape == (5, 6)
    for row in s.tolist():
        assert sorted(row) == list(range(6))
    # without replacement the first draw follows the weights: category 0 first ~ 0.9 of the time
    first = dyngrad.multinomial(dyngrad.tensor([9.0, 0.5, 0.5]).expand(20_000, 3).contiguous(), 2)[:, 0]
    assert abs((first.numpy() == 0).mean() - 0.9) < 0.02


# ------------------------------------------------------------------ seeding and generators
@pytest.mark.parametrize("draw", [
    lambda g: dyngrad.rand(5, generator=g),
    lambda g: dyngrad.randint(0, 100, (5,), generator=g),
    lambda g: dyngrad.randperm(9, generator=g),
    lambda g: dyngrad.normal(dyngrad.zeros(5), 1.0, generator=g),
    lambda g: dyngrad.bernoulli(dyngrad.full((9,), 0.5), generator=g),
    lambda g: dyngrad.multinomial(dyngrad.ones(9), 4, generator=g),
    lambda g: dyngrad.zeros(5).uniform_(generator=g),
    lambda g: dyngrad.zeros(5).exponential_(generator=g),
    lambda g: dyngrad.rand_like(dyngrad.zeros(5), generator=g),
])
def test_a_seeded_generator_reproduces_its_draws_and_the_default_one_is_untouched(draw) -> None:  # noqa: ANN001
    g = dyngrad.Generator().manual_seed(7)
    a = draw(g).numpy().copy()
    state = dyngrad.get_rng_state()
    g.manual_seed(7)
    assert np.array_equal(a, draw(g).numpy())
    assert np.array_equal(state.numpy(), dyngrad.get_rng_state().numpy())
    dyngrad.manual_seed(3)
    b = draw(None).numpy().copy()
    dyngrad.manual_seed(3)
    assert np.array_equal(b, draw(None).numpy())


# ------------------------------------------------------------------ dtypes and shapes
def test_dtypes_follow_pytorch() -> None:
    x64 = dyngrad.zeros(3, dtype=dyngrad.float64)
    assert dyngrad.normal(x64, 1.0).dtype == dyngrad.float64
    assert dyngrad.normal(x64, dyngrad.ones(3)).dtype == dyngrad.float64  # promoted
    assert dyngrad.normal(0.0, dyngrad.ones(3)).dtype == dyngrad.float32
    assert dyngrad.normal(0.0, 1.0, (2,), dtype=dyngrad.float64).dtype == dyngrad.float64
    assert dyngrad.normal(0.0, 1.0, (2, 3)).shape == (2, 3)
    assert dyngrad.normal(dyngrad.zeros(3, 1), dyngrad.ones(4)).shape == (3, 4)
    assert dyngrad.bernoulli(x64).dtype == dyngrad.float64
    assert dyngrad.randint_like(dyngrad.zeros(3), 5).dtype == dyngrad.float32
    assert dyngrad.randint_like(dyngrad.zeros(3, dtype=dyngrad.int32), 2, 5).dtype == dyngrad.int32
    assert dyngrad.zeros(3, dtype=dyngrad.int64).bernoulli_(0.5).dtype == dyngrad.int64
    assert dyngrad.multinomial(dyngrad.ones(2, 3), 2).shape == (2, 2)


# ------------------------------------------------------------------ gradients (PyTorch 2.13's)
def test_normal_bernoulli_poisson_require_grad_with_a_zero_gradient_as_pytorch() -> None:
    m = dyngrad.zeros(3, requires_grad=True)
    s = dyngrad.ones(3, requires_grad=True)
    y = dyngrad.normal(m, s)
    assert y.requires_grad and y.grad_fn.name() == "NormalBackward3"
    (y * dyngrad.arange(3.0)).sum().backward()
    assert np.array_equal(m.grad.numpy(), np.zeros(3)) and np.array_equal(s.grad.numpy(), np.zeros(3))
    p = dyngrad.full((3,), 0.5, requires_grad=True)
    b = dyngrad.bernoulli(p)
    assert b.grad_fn.name() == "BernoulliBackward0"
    b.sum().backward()
    assert np.array_equal(p.grad.numpy(), np.zeros(3))
    assert dyngrad.poisson(p).grad_fn.name() == "PoissonBackward0"


def test_like_draws_and_multinomial_do_not_require_grad() -> None:
    p = dyngrad.ones(3, requires_grad=True)
    for out in (dyngrad.rand_like(p), dyngrad.randn_like(p), dyngrad.randint_like(p, 3),
                dyngrad.multinomial(p, 2)):
        assert not out.requires_grad and out.grad_fn is None
    assert dyngrad.rand(2, requires_grad=True, dtype=dyngrad.float64).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        dyngrad.randint(3, (2,), requires_grad=True)


def test_an_in_place_fill_keeps_the_graph_with_a_zero_gradient_and_bumps_the_version() -> None:
    x = dyngrad.ones(4, requires_grad=True)
    c = x.clone()
    v = c._version
    out = c.uniform_()
    assert out is c and c._version > v
    assert c.grad_fn.name() == "UniformBackward0" and c.requires_grad
    (c * 2 + x).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.ones(4))  # only the direct use of x counts


def test_an_in_place_fill_on_a_leaf_that_requires_grad_raises_but_works_under_no_grad() -> None:
    x = dyngrad.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.normal_()
    with dyngrad.no_grad():
        x.normal_()
    assert x.requires_grad and np.all(x.detach().numpy() != 0)


def test_an_in_place_fill_of_a_view_writes_the_base() -> None:
    base = dyngrad.zeros(4, 3)
    v = base[1:3]
    v.uniform_(5, 6)
    b = base.numpy()
    assert np.all(b[[0, 3]] == 0) and np.all((b[1:3] >= 5) & (b[1:3] < 6))
    assert base._version == v._version > 0


def test_an_in_place_fill_of_a_view_in_a_graph_rebases_the_base() -> None:
    x = dyngrad.ones(4, requires_grad=True)
    base = x * 3
    base[:2].bernoulli_(1.0)  # p=1: ones
    assert np.array_equal(base.detach().numpy(), [1, 1, 3, 3])
    base.sum().backward()
    assert np.array_equal(x.grad.numpy(), [0, 0, 3, 3])


def test_a_saved_tensor_filled_in_place_is_caught_at_backward() -> None:
    a = dyngrad.ones(3, requires_grad=True).clone()
    y = a * a
    a.normal_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ------------------------------------------------------------------ misuse
@pytest.mark.parametrize("call, exc, match", [
    (lambda: dyngrad.rand(2, dtype=dyngrad.int64), RuntimeError, "rand: only floating"),
    (lambda: dyngrad.empty(2, dtype=dyngrad.int64).uniform_(), NotImplementedError, "uniform_"),
    (lambda: dyngrad.empty(2).uniform_(2, 1), RuntimeError, r"\[from, to\) range, but found from=2 > to=1"),
    (lambda: dyngrad.empty(2).normal_(0, -1), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda: dyngrad.empty(2, dtype=dyngrad.int64).normal_(), NotImplementedError, "normal_"),
    (lambda: dyngrad.empty(2).bernoulli_(1.5), RuntimeError, r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"),
    (lambda: dyngrad.empty(2).random_(10, 5), RuntimeError, "expects 'from' to be less than 'to'"),
    (lambda: dyngrad.empty(2).exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0"),
    (lambda: dyngrad.empty(2, dtype=dyngrad.int64).exponential_(), RuntimeError, "continuous probability"),
    (lambda: dyngrad.empty(2).geometric_(1.5), RuntimeError, r"geometric_ expects p to be in \(0, 1\)"),
    (lambda: dyngrad.empty(2).cauchy_(0, -1), RuntimeError, "cauchy_ expects sigma > 0.0"),
    (lambda: dyngrad.empty(2).log_normal_(0, -1), RuntimeError, "log_normal_ expects std > 0.0"),
    (lambda: dyngrad.bernoulli(dyngrad.full((3,), 2.0)), RuntimeError, "p_in >= 0 && p_in <= 1"),
    (lambda: dyngrad.bernoulli(dyngrad.ones(3), 2.0), RuntimeError, "bernoulli_ expects p"),
    (lambda: dyngrad.bernoulli(dyngrad.ones(3, dtype=dyngrad.int64)), NotImplementedError, "bernoulli"),
    (lambda: dyngrad.poisson(dyngrad.full((2,), -1.0)), RuntimeError, "invalid Poisson rate"),
    (lambda: dyngrad.normal(0.0, -1.0, (3,)), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda: dyngrad.normal(dyngrad.zeros(3), dyngrad.full((3,), -1.0)), RuntimeError, "all elements of std >= 0.0"),
    (lambda: dyngrad.normal(dyngrad.zeros(3), dyngrad.ones(4)), RuntimeError, "size"),
    (lambda: dyngrad.normal(0.0, 1.0), TypeError, "invalid combination of arguments"),
    (lambda: dyngrad.multinomial(dyngrad.ones(2, 2, 2), 1), RuntimeError, "prob_dist must be 1 or 2 dim"),
    (lambda: dyngrad.multinomial(dyngrad.ones(3), 4), RuntimeError, "cannot sample n_sample > prob_dist.size"),
    (lambda: dyngrad.multinomial(dyngrad.ones(3), 0), RuntimeError, "cannot sample n_sample <= 0"),
    (lambda: dyngrad.multinomial(dyngrad.tensor([1.0, -1.0]), 1), RuntimeError, "element < 0"),
    (lambda: dyngrad.multinomial(dyngrad.zeros(3), 1), RuntimeError, "sum of probabilities <= 0"),
    (lambda: dyngrad.multinomial(dyngrad.ones(3, dtype=dyngrad.int64), 1), RuntimeError, "floating-point dtypes"),
    (lambda: dyngrad.randint(5, 2, (3,)), RuntimeError, "expects 'from' to be less than 'to'"),
    (lambda: dyngrad.randperm(-1), RuntimeError, "negative dimension"),
])
def test_misuse_raises_pytorchs_error(call, exc, match) -> None:  # noqa: ANN001
    with pytest.raises(exc, match=match):
        call()
