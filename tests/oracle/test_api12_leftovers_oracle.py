"""Live comparison with PyTorch 2.13 for issue 12's last leftovers: nn.init's deprecated
names and sparse_, get_total_norm / clip_grads_with_norm_, cdist gradients for every p
(with zero distances), index_put(accumulate) cases, the mse_loss node, tensor reprs
(empty tensors of every dtype, line layout, suffix wrapping), storage sharing through
save/load, and the saved-tensor hooks' order. Skipped when torch is not installed."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(2026)


def _np(t):
    return np.asarray(t.detach().numpy())


# ------------------------------------------------------------------------------ nn.init
@pytest.mark.parametrize("old", ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                                 "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_init_names_warn_as_pytorch(old):
    args = (0.5,) if old in ("constant", "sparse") else ()
    shape = (3, 4, 3) if old == "dirac" else (4, 6)
    msgs = []
    for m in (torch, dg):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            getattr(m.nn.init, old)(m.empty(*shape), *args)
        fut = [x for x in w if issubclass(x.category, FutureWarning)]
        msgs.append([str(x.message) for x in fut])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1


def test_sparse_init_zero_count_per_column_matches_pytorch():
    for rows, cols, sp in [(10, 7, 0.1), (5, 3, 0.5), (8, 2, 0.0), (4, 4, 1.0)]:
        a = torch.nn.init.sparse_(torch.empty(rows, cols), sp)
        b = dg.nn.init.sparse_(dg.empty(rows, cols), sp)
        assert (a == 0).sum(0).tolist() == (b == 0).sum(0).tolist()
    for m in (torch, dg):
        with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
            m.nn.init.sparse_(m.empty(2, 3, 4), 0.1)


# ------------------------------------------------------------------------------ clipping
@pytest.mark.parametrize("norm_type", [1.0, 2.0, 0.5, 3.0, 0.0, math.inf, -math.inf])
def test_get_total_norm_and_clip_grads_with_norm_match_pytorch(norm_type):
    arrs = [RNG.standard_normal((3, 4)), RNG.standard_normal(5), RNG.standard_normal((2, 2))]
    arrs[1][1] = 0.0
    res = []
    for m in (torch, dg):
        ps = [m.nn.Parameter(m.tensor(a)) for a in arrs]
        for p, a in zip(ps, arrs):
            p.grad = m.tensor(a * 3)
        total = m.nn.utils.get_total_norm([p.grad for p in ps], norm_type, foreach=False)
        m.nn.utils.clip_grads_with_norm_(ps, 1.0, total)
        res.append((_np(total), [_np(p.grad) for p in ps], str(total.dtype).split(".")[-1]))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    assert res[0][2] == res[1][2]
    for a, b in zip(res[0][1], res[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_clip_grad_norm_float32_matches_pytorch():
    arrs = [RNG.standard_normal((30, 20)).astype(np.float32), RNG.standard_normal(7).astype(np.float32)]
    out = []
    for m in (torch, dg):
        ps = [m.nn.Parameter(m.tensor(a)) for a in arrs]
        for p, a in zip(ps, arrs):
            p.grad = m.tensor(a)
        total = m.nn.utils.clip_grad_norm_(ps, 0.5)
        out.append((_np(total), [_np(p.grad) for p in ps]))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-6)
    for a, b in zip(out[0][1], out[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------------------ cdist
@pytest.mark.parametrize("p", [1.0, 2.0, math.inf, 0.5, 0.0, 1.5, 3.0])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist"])
def test_cdist_values_and_gradients_match_pytorch_with_zero_distances(p, mode):
    A = RNG.standard_normal((2, 5, 3))
    B = RNG.standard_normal((2, 4, 3))
    B[0, 1] = A[0, 2]  # a zero distance: the subgradient 0, as PyTorch's cdist_backward
    B[1, 3, 0] = A[1, 0, 0]  # one equal coordinate (matters for p < 1 and inf)
    W = RNG.standard_normal((2, 5, 4))
    got = []
    for m in (torch, dg):
        a, b = m.tensor(A, requires_grad=True), m.tensor(B, requires_grad=True)
        d = m.cdist(a, b, p=p, compute_mode=mode)
        (d * m.tensor(W)).sum().backward()
        got.append((_np(d), _np(a.grad), _np(b.grad)))
    for x, y in zip(*got):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)
        assert np.isfinite(y).all()


def test_cdist_refuses_integer_inputs_as_pytorch():
    for m in (torch, dg):
        with pytest.raises(RuntimeError, match="cdist only supports floating-point dtypes, X1 got: Long"):
            m.cdist(m.zeros(3, 2, dtype=m.int64), m.zeros(3, 2, dtype=m.int64))


# ------------------------------------------------------------------------------ index_put
_MASK = np.array([[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 1, 0]], bool)
_IP_CASES = {
    "duplicates_1d": ((5,), (4,), lambda m: (m.tensor([0, 2, 2, 4]),)),
    "duplicates_2d": ((3, 4), (3,), lambda m: (m.tensor([0, 0, 1]), m.tensor([1, 1, 3]))),
    "rows": ((3, 4), (2, 4), lambda m: (m.tensor([0, 2]),)),
    "rows_broadcast_value": ((3, 4), (4,), lambda m: (m.tensor([0, 2, 0]),)),
    "scalar_value": ((3, 4), (), lambda m: (m.tensor([0, 2]), m.tensor([1, 1]))),
    "bool_mask_scalar": ((3, 4), (), lambda m: (m.tensor(_MASK),)),
    "bool_mask_values": ((3, 4), (7,), lambda m: (m.tensor(_MASK),)),
    "bool_rows": ((3, 4), (4,), lambda m: (m.tensor([True, False, True]),)),
    "broadcast_indices": ((3, 4), (2, 2), lambda m: (m.tensor([[0], [2]]), m.tensor([1, 3]))),
    "negative": ((3, 4), (2,), lambda m: (m.tensor([-1, 0]), m.tensor([-1, -1]))),
    "partial_3d": ((2, 3, 4), (2, 4), lambda m: (m.tensor([0, 1]), m.tensor([2, 2]))),
    "empty_index": ((3, 4), (0, 4), lambda m: (m.tensor([], dtype=m.int64),)),
    "int32_index": ((3,), (2,), lambda m: (m.tensor([0, 1], dtype=m.int32),)),
}


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("case", sorted(_IP_CASES))
def test_index_put_values_and_gradients_match_pytorch(case, accumulate, inplace):
    xs, vs, idx = _IP_CASES[case]
    X, V = RNG.standard_normal(xs), RNG.standard_normal(vs)
    got = []
    for m in (torch, dg):
        x, v = m.tensor(X, requires_grad=True), m.tensor(V, requires_grad=True)
        base = x * 1
        out = base.index_put_(idx(m), v, accumulate=accumulate) if inplace else m.index_put(base, idx(m), v, accumulate)
        w = m.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
        (out * w).sum().backward()
        got.append((_np(out), _np(x.grad), _np(v.grad)))
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# ------------------------------------------------------------------------------ mse node
@pytest.mark.parametrize("loss", ["mse_loss", "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_loss_nodes_values_gradients_and_graph_match_pytorch(loss, reduction):
    X, Y = RNG.standard_normal((3, 4)) * 3, RNG.random((3, 4))
    got = []
    for m in (torch, dg):
        x, y = m.tensor(X, requires_grad=True), m.tensor(Y, requires_grad=True)
        out = getattr(m.nn.functional, loss)(x, y, reduction=reduction)
        names = [type(out.grad_fn).__name__] + [type(f).__name__ for f, _ in out.grad_fn.next_functions[:2]]
        g = m.autograd.grad(out.sum(), (x, y), create_graph=True)
        gg = m.autograd.grad((g[0] ** 2).sum() + (g[1] * g[0]).sum(), (x, y))
        got.append((_np(out), *[_np(t) for t in g + gg], names))
    assert got[0][-1] == got[1][-1]
    for a, b in zip(got[0][:-1], got[1][:-1]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


# ------------------------------------------------------------------------------ reprs
_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", _DTYPES)
def test_empty_tensor_reprs_match_pytorch_for_every_dtype(dtype):
    for shape in [(0,), (0, 3), (2, 0), (2, 0, 3)]:
        a = repr(torch.zeros(shape, dtype=getattr(torch, dtype)))
        b = repr(dg.zeros(shape, dtype=getattr(dg, dtype))).replace("dyngrad.", "torch.")
        assert a == b
    assert repr(torch.tensor([], dtype=getattr(torch, dtype))) == repr(
        dg.tensor([], dtype=getattr(dg, dtype))).replace("dyngrad.", "torch.")
    if dtype.startswith("float"):
        for m in (torch, dg):
            assert repr(m.zeros(0, dtype=getattr(m, dtype), requires_grad=True)).endswith("requires_grad=True)")


def _reprs_agree(arr, requires_grad=False):
    t, d = torch.tensor(arr), dg.tensor(arr)
    if requires_grad:
        t, d = t.requires_grad_() * 1, d.requires_grad_() * 1
    a, b = repr(t), repr(d).replace("dyngrad.", "torch.")
    if "dtype=" in a:  # dyngrad's name is 2 characters longer: compare the body only
        a, b = a.split(", dtype=")[0].split(",\n       dtype=")[0], b.split(", dtype=")[0].split(",\n       dtype=")[0]
    assert a == b, f"\n{a}\n{b}"


@pytest.mark.parametrize("shape", [(10,), (12,), (1, 10), (2, 10), (3, 7), (5, 12), (2, 3, 9), (100,), (2000,),
                                   (40, 40), (1, 1, 32), (2, 3, 400)])
def test_tensor_layout_matches_pytorch(shape):
    for scale in (1.0, 100.0, 1e-5, 1e5):
        a = RNG.standard_normal(shape) * scale
        _reprs_agree(a.astype(np.float32))
        _reprs_agree(a.astype(np.float32), requires_grad=True)
        _reprs_agree(a)
    _reprs_agree(RNG.integers(-1000, 1000, shape))
    _reprs_agree(RNG.integers(0, 2, shape).astype(bool))
    for special in (np.array([np.nan, 1.5, -np.inf]), np.array(3.5), np.array(-2), np.array([1e20, -3.0])):
        _reprs_agree(special)


# ------------------------------------------------------------------------------ save / load sharing
def test_save_load_keeps_identity_and_sharing_as_pytorch():
    def run(m):
        base = m.arange(12, dtype=m.float64).reshape(3, 4)
        buf = io.BytesIO()
        m.save({"a": base, "b": base, "row": base[1], "t": base.t(), "cols": base[:, ::2]}, buf)
        buf.seek(0)
        d = m.load(buf)
        d["a"][1, 0] = -5.0
        return (d["a"] is d["b"], _np(d["row"]).tolist(), _np(d["t"]).tolist(), _np(d["cols"]).tolist(),
                d["t"].stride(), d["cols"].stride())
    assert run(torch) == run(dg)


def test_a_torch_checkpoint_with_tied_weights_loads_sharing_memory():
    lin, emb = torch.nn.Linear(3, 3, bias=False), torch.nn.Embedding(3, 3)
    emb.weight = lin.weight
    buf = io.BytesIO()
    torch.save({"lin.weight": lin.weight, "emb.weight": emb.weight, "view": lin.weight.detach()[1:]}, buf)
    buf.seek(0)
    d = dg.load(buf)
    assert d["lin.weight"] is d["emb.weight"]
    with dg.no_grad():
        d["lin.weight"][1, 0] = 42.0
    assert d["view"][0, 0].item() == 42.0


# ------------------------------------------------------------------------------ saved-tensor hooks
def test_pack_and_unpack_hooks_see_mul_operands_in_pytorchs_order():
    seen = {}
    for m in (torch, dg):
        log = []
        a = m.ones(3, requires_grad=True)
        b = m.ones(3, requires_grad=True) * 2
        with m.autograd.graph.saved_tensors_hooks(lambda t: (log.append(("pack", _np(t).tolist())), t)[1],
                                                  lambda t: (log.append(("unpack", _np(t).tolist())), t)[1]):
            y = a * b
        y.sum().backward()
        seen[m.__name__] = log
    assert seen["torch"] == seen["dyngrad"]


def test_histc_of_integers_raises_pytorchs_error():
    for m in (torch, dg):
        with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
            m.histc(m.tensor([1, 2, 3]), bins=4)
