"""vmap's ``randomness`` modes on the random ops (each a Function with a batching rule that
reads the mode), nested vmaps, chunks, and ``jacfwd(randomness=...)``: as torch.func 2.13."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad.autograd import Function
from dyngrad.func import jacfwd, vmap

B = 4
X = dyngrad.ones(B, 5, dtype=dyngrad.float64)

# (name, per-example function of x (shape (5,)), whether 'same' is allowed with x batched)
CASES = [
    ("rand", lambda x: x * dyngrad.rand(5, dtype=dyngrad.float64), True),
    ("randn", lambda x: x + dyngrad.randn(5, dtype=dyngrad.float64), True),
    ("randint", lambda x: x + dyngrad.randint(0, 1000, (5,)), True),
    ("randperm", lambda x: x + dyngrad.randperm(5), True),
    ("normal(float, float, size)", lambda x: x + dyngrad.normal(0.0, 1.0, (5,), dtype=dyngrad.float64), True),
    ("rand_like", lambda x: dyngrad.rand_like(x), True),
    ("randn_like", lambda x: dyngrad.randn_like(x), True),
    ("randint_like", lambda x: dyngrad.randint_like(x, 1000), True),
    ("dropout", lambda x: F.dropout(x, 0.5), True),
    ("uniform_", lambda x: x.clone().uniform_(), True),
    ("normal_", lambda x: x.clone().normal_(), True),
    ("bernoulli_", lambda x: x.clone().bernoulli_(0.5), True),
    ("random_", lambda x: x.clone().random_(0, 1000), True),
    ("exponential_", lambda x: x.clone().exponential_(), True),
    ("geometric_", lambda x: x.clone().geometric_(0.3), True),
    ("cauchy_", lambda x: x.clone().cauchy_(), True),
    ("log_normal_", lambda x: x.clone().log_normal_(), True),
    ("normal(mean tensor)", lambda x: dyngrad.normal(x, 1.0), False),
    ("normal(std tensor)", lambda x: dyngrad.normal(0.0, x), False),
    ("bernoulli", lambda x: dyngrad.bernoulli(x * 0.5), False),
    ("bernoulli(x, p)", lambda x: dyngrad.bernoulli(x, 0.5), False),
    ("poisson", lambda x: dyngrad.poisson(x * 3), False),
    ("multinomial", lambda x: dyngrad.multinomial(x, 3).double(), False),
]
IDS = [c[0] for c in CASES]


def _run(f, randomness, x=X):  # noqa: ANN001, ANN202
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no loop over examples, no fallback warning
        return vmap(f, randomness=randomness)(x)


@pytest.mark.parametrize("name, f, same_ok", CASES, ids=IDS)
def test_randomness_error_raises_pytorchs_error(name, f, same_ok) -> None:  # noqa: ANN001
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
        vmap(f)(X)


@pytest.mark.parametrize("name, f, same_ok", CASES, ids=IDS)
def test_randomness_different_draws_per_example_in_one_batched_call(name, f, same_ok) -> None:  # noqa: ANN001
    out = _run(f, "different")
    per_example = f(X[0])
    assert out.shape == (B, *per_example.shape)
    rows = out.numpy()
    assert not all(np.array_equal(rows[0], rows[i]) for i in range(1, B)), name


@pytest.mark.parametrize("name, f, same_ok", CASES, ids=IDS)
def test_randomness_same_shares_one_draw_or_raises_for_batched_parameters(name, f, same_ok) -> None:  # noqa: ANN001
    if not same_ok:
        with pytest.raises(RuntimeError, match="same randomness with a batched tensor input"):
            vmap(f, randomness="same")(X)
        return
    out = _run(f, "same").numpy()
    for i in range(1, B):
        assert np.array_equal(out[0], out[i]), name


def test_same_draws_what_one_unbatched_call_draws() -> None:
    dyngrad.manual_seed(5)
    out = _run(lambda x: x * dyngrad.rand(5, dtype=dyngrad.float64), "same")
    dyngrad.manual_seed(5)
    ref = dyngrad.rand(5, dtype=dyngrad.float64)
    assert np.array_equal(out.numpy(), np.broadcast_to(ref.numpy(), (B, 5)))


def test_different_is_reproducible_with_a_seed() -> None:
    f = lambda x: F.dropout(x, 0.5)  # noqa: E731
    dyngrad.manual_seed(9)
    a = _run(f, "different").numpy()
    dyngrad.manual_seed(9)
    assert np.array_equal(a, _run(f, "different").numpy())


def test_different_runs_the_function_once() -> None:
    calls = []

    def f(x):  # noqa: ANN001, ANN202
        calls.append(1)
        return x * dyngrad.rand(5, dtype=dyngrad.float64)

    _run(f, "different")
    assert len(calls) == 1


def test_different_dropout_statistics_are_per_element() -> None:
    x = dyngrad.ones(2000, 10, dtype=dyngrad.float64)
    out = _run(lambda r: F.dropout(r, 0.3), "different", x).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.01
    assert np.allclose(out[kept], 1 / 0.7)
    assert len({tuple(r) for r in kept}) > 500  # masks differ across examples


def test_in_place_fill_of_an_unbatched_tensor_under_different_raises() -> None:
    with pytest.raises(RuntimeError, match="Cannot ask for different inplace randomness on an unbatched tensor"):
        vmap(lambda x: dyngrad.zeros(5).uniform_() + x, randomness="different")(X)
    out = _run(lambda x: dyngrad.zeros(5, dtype=dyngrad.float64).uniform_() + x, "same").numpy()
    assert np.array_equal(out[0], out[1])


@pytest.mark.parametrize("outer", ["error", "same", "different"])
@pytest.mark.parametrize("inner", ["error", "same", "different"])
def test_nested_vmaps_apply_each_levels_mode(outer, inner) -> None:  # noqa: ANN001
    z = dyngrad.zeros(3, 4)
    f = vmap(vmap(lambda a: a + dyngrad.rand(2), randomness=inner), randomness=outer)
    if "error" in (outer, inner):
        with pytest.raises(RuntimeError, match="randomness error mode"):
            f(z)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = f(z).numpy()
    assert r.shape == (3, 4, 2)
    assert np.array_equal(r[0], r[1]) == (outer == "same")
    assert np.array_equal(r[:, 0], r[:, 1]) == (inner == "same")


def test_nested_dropout_on_batched_input_follows_both_levels() -> None:
    x = dyngrad.ones(3, 4, 50)
    r = vmap(vmap(lambda a: F.dropout(a, 0.5), randomness="different"), randomness="same")(x).numpy()
    assert np.array_equal(r[0], r[1]) and not np.array_equal(r[:, 0], r[:, 1])


def test_same_across_chunks_repeats_the_first_chunks_draw() -> None:
    out = vmap(lambda a: a + dyngrad.rand(3, dtype=dyngrad.float64), randomness="same", chunk_size=2)(
        dyngrad.zeros(5, 3, dtype=dyngrad.float64)).numpy()
    assert all(np.array_equal(out[0], out[i]) for i in range(5))


def test_gradients_flow_through_batched_dropout() -> None:
    x = dyngrad.ones(B, 6, dtype=dyngrad.float64, requires_grad=True)
    out = _run(lambda a: F.dropout(a * 2, 0.5), "different", x)
    out.sum().backward()
    # grad = 2 * mask / (1 - p), which is out itself here (x = 1)
    assert np.array_equal(x.grad.numpy(), out.detach().numpy()) and set(np.unique(out.detach().numpy())) == {0.0, 4.0}


def test_the_loop_fallback_keeps_error_and_same() -> None:
    def data_dependent(a):  # noqa: ANN001, ANN202  (item() forces the loop over examples)
        return a * float(a.sum().item() > -1) + dyngrad.rand(3, dtype=dyngrad.float64)

    z = dyngrad.zeros(4, 3, dtype=dyngrad.float64)
    with pytest.raises(RuntimeError, match="randomness error mode"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vmap(data_dependent)(z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = vmap(data_dependent, randomness="same")(z).numpy()
        diff = vmap(data_dependent, randomness="different")(z).numpy()
    assert np.array_equal(same[0], same[3]) and not np.array_equal(diff[0], diff[3])


def test_a_custom_random_function_gets_its_rule_called_with_the_mode() -> None:
    seen = []

    class Noise(Function):
        random = True

        @staticmethod
        def forward(ctx, n):  # noqa: ANN001, ANN205
            return dyngrad.tensor(np.arange(n, dtype=np.float64))

        @staticmethod
        def vmap(info, in_dims, n):  # noqa: ANN001, ANN205
            seen.append(info.randomness)
            return dyngrad.tensor(np.arange(info.batch_size * n, dtype=np.float64).reshape(info.batch_size, n)), 0

    out = vmap(lambda x: x + Noise.apply(5), randomness="different")(X)
    assert seen == ["different"] and out[1, 0].item() == 6
    same = vmap(lambda x: x + Noise.apply(5), randomness="same")(X)
    assert seen == ["different"] and same[1, 0].item() == 1  # 'same' ran forward once
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda x: x + Noise.apply(5))(X)


# ------------------------------------------------------------------ jacfwd(randomness=)
def test_jacfwd_randomness_error_raises() -> None:
    with pytest.raises(RuntimeError, match="randomness error mode"):
        jacfwd(lambda x: x * dyngrad.rand(3, dtype=dyngrad.float64))(dyngrad.ones(3, dtype=dyngrad.float64))


def test_jacfwd_randomness_same_is_the_jacobian_of_one_sampled_function() -> None:
    x = dyngrad.ones(4, dtype=dyngrad.float64)
    dyngrad.manual_seed(2)
    J = jacfwd(lambda a: F.dropout(a, 0.5) * 3, randomness="same")(x).numpy()
    dyngrad.manual_seed(2)
    mask = F.dropout(x, 0.5).numpy()
    assert np.array_equal(J, np.diag(3 * mask))


def test_jacfwd_randomness_same_shares_draws_between_argnums() -> None:
    f = lambda a, b: a * dyngrad.rand(3, dtype=dyngrad.float64) + b * dyngrad.rand(3, dtype=dyngrad.float64)  # noqa: E731
    x = dyngrad.ones(3, dtype=dyngrad.float64)
    dyngrad.manual_seed(4)
    ja, jb = jacfwd(f, argnums=(0, 1), randomness="same")(x, x)
    dyngrad.manual_seed(4)
    r1, r2 = dyngrad.rand(3, dtype=dyngrad.float64), dyngrad.rand(3, dtype=dyngrad.float64)
    assert np.array_equal(ja.numpy(), np.diag(r1.numpy())) and np.array_equal(jb.numpy(), np.diag(r2.numpy()))


def test_jacfwd_randomness_different_draws_per_column() -> None:
    J = jacfwd(lambda a: a * dyngrad.rand(6, dtype=dyngrad.float64), randomness="different")(
        dyngrad.ones(6, dtype=dyngrad.float64)).numpy()
    d = np.diag(J)
    assert np.array_equal(J, np.diag(d)) and len(set(d.tolist())) == 6


def test_jacfwd_refuses_an_unknown_randomness() -> None:
    with pytest.raises(ValueError, match="randomness must be"):
        jacfwd(lambda a: a, randomness="sometimes")


def test_per_example_gradients_through_dropout_follow_the_mode() -> None:
    from dyngrad.func import grad

    w = dyngrad.randn(6, dtype=dyngrad.float64)
    xs = dyngrad.ones(5, 6, dtype=dyngrad.float64)

    def loss(w, x):  # noqa: ANN001, ANN202
        return (F.dropout(x, 0.5) * w).sum()

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        diff = vmap(grad(loss), in_dims=(None, 0), randomness="different")(w, xs).numpy()
        same = vmap(grad(loss), in_dims=(None, 0), randomness="same")(w, xs).numpy()
    for g in (diff, same):  # d/dw of sum(mask * w) is the mask: 0 or 1 / (1 - p)
        assert set(np.unique(g)) <= {0.0, 2.0}
    assert all(np.array_equal(same[0], same[i]) for i in range(5))
    assert not all(np.array_equal(diff[0], diff[i]) for i in range(5))


def test_in_place_fill_of_part_of_a_batched_tensor_fills_only_that_part() -> None:
    def g(a):  # noqa: ANN001, ANN202
        b = a.clone()
        b[1:].normal_()
        return b

    d = _run(g, "different", dyngrad.zeros(3, 4, dtype=dyngrad.float64)).numpy()
    s = _run(g, "same", dyngrad.zeros(3, 4, dtype=dyngrad.float64)).numpy()
    assert np.all(d[:, 0] == 0) and np.all(d[:, 1:] != 0) and not np.array_equal(d[0], d[1])
    assert np.all(s[:, 0] == 0) and np.array_equal(s[0], s[1]) and np.array_equal(s[0], s[2])
