"""Property test of the engine: random graphs (reuse, diamonds, broadcasting, several
outputs from one node, constants, retain_graph, ``inputs=``, ``autograd.grad`` on
non-leaves) compared with a tiny reference reverse-mode implementation in pure NumPy.

The reference replays the recorded program: values are numbered in creation order, so a
reverse sweep over the numbers is a valid topological order, and each op's adjoint rule
is written out below next to its forward.
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
from dyngrad.autograd import Function

SHAPES = [(2, 3), (3,), (1, 3), (2, 1), ()]


def sum_to(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, s in enumerate(shape):
        if s == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


class TwoOut(Function):
    """A user Function with two outputs: ``(2 a, a * a)``."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2, a * a

    @staticmethod
    def backward(ctx, g0, g1):
        (a,) = ctx.saved_tensors
        return g0 * 2 + g1 * 2 * a


def _sig(x):
    return 1 / (1 + np.exp(-x))


# name: (arity, dyngrad fn, numpy forward, numpy vjp(g, out, *args) -> grads per arg)
UNARY = {
    "tanh": (lambda a: a.tanh(), np.tanh, lambda g, o, a: (g * (1 - o * o),)),
    "sin": (lambda a: a.sin(), np.sin, lambda g, o, a: (g * np.cos(a),)),
    "sigmoid": (lambda a: a.sigmoid(), _sig, lambda g, o, a: (g * o * (1 - o),)),
    "neg": (lambda a: -a, np.negative, lambda g, o, a: (-g,)),
    "square": (lambda a: a * a, np.square, lambda g, o, a: (2 * a * g,)),
    "sum": (lambda a: a.sum(), np.sum, lambda g, o, a: (np.broadcast_to(g, a.shape),)),
    "scale": (lambda a: 0.5 * a + 1.0, lambda a: 0.5 * a + 1.0, lambda g, o, a: (0.5 * g,)),
}
BINARY = {
    "add": (lambda a, b: a + b, np.add, lambda g, o, a, b: (g, g)),
    "sub": (lambda a, b: a - b, np.subtract, lambda g, o, a, b: (g, -g)),
    "mul": (lambda a, b: a * b, np.multiply, lambda g, o, a, b: (g * b, g * a)),
    "div": (
        lambda a, b: a / (b * b + 1),
        lambda a, b: a / (b * b + 1),
        lambda g, o, a, b: (g / (b * b + 1), -g * a * 2 * b / (b * b + 1) ** 2),
    ),
}


@st.composite
def programs(draw):
    n_leaves = draw(st.integers(1, 3))
    leaves = [draw(st.sampled_from(SHAPES)) for _ in range(n_leaves)]
    has_const = draw(st.booleans())
    n_ops = draw(st.integers(1, 10))
    ops = []
    n_values = n_leaves + has_const
    for _ in range(n_ops):
        kind = draw(st.sampled_from(["u", "u", "b", "b", "b", "two"]))
        if kind == "u":
            ops.append(("u", draw(st.sampled_from(sorted(UNARY))), (draw(st.integers(0, n_values - 1)),)))
            n_values += 1
        elif kind == "b":
            args = (draw(st.integers(0, n_values - 1)), draw(st.integers(0, n_values - 1)))
            ops.append(("b", draw(st.sampled_from(sorted(BINARY))), args))
            n_values += 1
        else:
            ops.append(("two", "TwoOut", (draw(st.integers(0, n_values - 1)),)))
            n_values += 2
    seed = draw(st.integers(0, 2**31 - 1))
    return leaves, has_const, ops, seed, draw(st.data())


def build(leaves, has_const, ops, rng):
    """Run the program in dyngrad and in NumPy; return both value lists and the tape."""
    vals, refs, tape, req = [], [], [], []
    for shape in leaves:
        arr = rng.standard_normal(shape)
        vals.append(dyngrad.tensor(arr, dtype=dyngrad.float64, requires_grad=True))
        refs.append(arr)
        req.append(True)
    if has_const:
        arr = rng.standard_normal((2, 3))
        vals.append(dyngrad.tensor(arr, dtype=dyngrad.float64))
        refs.append(arr)
        req.append(False)
    for kind, name, args in ops:
        if kind == "two":
            (i,) = args
            t0, t1 = TwoOut.apply(vals[i])
            vals += [t0, t1]
            refs += [2 * refs[i], refs[i] * refs[i]]
            tape.append(("two", name, args, (len(vals) - 2, len(vals) - 1)))
            req += [req[i], req[i]]
            continue
        table = UNARY if kind == "u" else BINARY
        fn, npf, _ = table[name]
        vals.append(fn(*(vals[i] for i in args)))
        refs.append(np.asarray(npf(*(refs[i] for i in args)), dtype=np.float64))
        tape.append((kind, name, args, (len(vals) - 1,)))
        req.append(any(req[i] for i in args))
    return vals, refs, tape, req


def reference_grads(refs, tape, req, seeds):
    """Adjoints of every value for ``sum_k <seed_k, out_k>``; None where no path leads."""
    adj = [None] * len(refs)
    for k, g in seeds.items():
        adj[k] = g if adj[k] is None else adj[k] + g
    for kind, name, args, outs in reversed(tape):
        if kind == "two":
            (i,) = args
            g0, g1 = adj[outs[0]], adj[outs[1]]
            if g0 is None and g1 is None or not req[i]:
                continue
            g0 = np.zeros_like(refs[outs[0]]) if g0 is None else g0
            g1 = np.zeros_like(refs[outs[1]]) if g1 is None else g1
            contrib = [2 * g0 + 2 * refs[i] * g1]
        else:
            g = adj[outs[0]]
            if g is None:
                continue
            table = UNARY if kind == "u" else BINARY
            contrib = table[name][2](g, refs[outs[0]], *(refs[i] for i in args))
        for i, c in zip(args, contrib):
            if not req[i]:
                continue
            c = sum_to(np.broadcast_to(c, np.broadcast_shapes(np.shape(c), refs[i].shape)), refs[i].shape)
            adj[i] = c if adj[i] is None else adj[i] + c
    return adj


def check(actual, expected, what):
    if expected is None:
        assert actual is None, f"{what}: expected no gradient, got {actual}"
        return
    assert actual is not None, f"{what}: expected a gradient, got None"
    assert actual.shape == np.shape(expected), what
    np.testing.assert_allclose(actual.numpy(), expected, rtol=1e-9, atol=1e-12, err_msg=what)


@settings(max_examples=40, deadline=None)
@given(programs())
def test_random_graph_backward_matches_reference(prog):
    leaves, has_const, ops, seed, data = prog
    rng = np.random.default_rng(seed)
    vals, refs, tape, req = build(leaves, has_const, ops, rng)
    for v, r in zip(vals, refs):
        np.testing.assert_allclose(v.detach().numpy(), r, rtol=1e-12, atol=1e-14)
    candidates = [k for k in range(len(vals)) if req[k] and k >= len(leaves) + has_const] or [0]
    outs = sorted(set(data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3))))
    seeds = {k: rng.standard_normal(refs[k].shape) for k in outs}
    expected = reference_grads(refs, tape, req, seeds)

    n_leaf = len(leaves)
    use_inputs = data.draw(st.booleans())
    chosen = sorted(set(data.draw(st.lists(st.integers(0, n_leaf - 1), min_size=1, max_size=n_leaf)))) if use_inputs else None
    twice = data.draw(st.booleans())
    # retain_grad on a random intermediate that requires grad
    mids = [k for k in range(n_leaf + has_const, len(vals)) if req[k]]
    kept = data.draw(st.sampled_from(mids)) if mids and not use_inputs else None
    if kept is not None:
        vals[kept].retain_grad()

    def run(retain):
        dyngrad.autograd.backward(
            [vals[k] for k in outs],
            [dyngrad.tensor(seeds[k], dtype=dyngrad.float64) for k in outs],
            retain_graph=retain,
            inputs=[vals[i] for i in chosen] if chosen is not None else None,
        )

    run(retain=twice)
    if twice:
        run(retain=False)
    factor = 2.0 if twice else 1.0
    for i in range(n_leaf):
        exp = expected[i]
        if chosen is not None and i not in chosen:
            exp = None
        check(vals[i].grad, None if exp is None else factor * exp, f"leaf {i}")
    if has_const:
        assert vals[n_leaf].grad is None
    if kept is not None and expected[kept] is not None:
        check(vals[kept].grad, factor * expected[kept], f"retained value {kept}")


@settings(max_examples=30, deadline=None)
@given(programs())
def test_random_graph_autograd_grad_on_any_values_matches_reference(prog):
    leaves, has_const, ops, seed, data = prog
    rng = np.random.default_rng(seed)
    vals, refs, tape, req = build(leaves, has_const, ops, rng)
    n0 = len(leaves) + has_const
    candidates = [k for k in range(n0, len(vals)) if req[k]] or [0]
    outs = sorted(set(data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=2))))
    seeds = {k: rng.standard_normal(refs[k].shape) for k in outs}
    # inputs: any values that require grad and were created before the last output
    pool = [k for k in range(len(vals)) if req[k] and k <= max(outs)]
    wrt = sorted(set(data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))))
    # the reference treats each chosen non-output value as independent: adjoints are the
    # same whether or not a value is an input, so one sweep serves all
    expected = reference_grads(refs, tape, req, seeds)
    got = dyngrad.autograd.grad(
        [vals[k] for k in outs],
        [vals[k] for k in wrt],
        [dyngrad.tensor(seeds[k], dtype=dyngrad.float64) for k in outs],
        allow_unused=True,
    )
    for k, g in zip(wrt, got):
        check(g, expected[k], f"value {k}")
    for k in range(len(leaves)):
        assert vals[k].grad is None
