"""Matrix products, einsum/tensordot and matrix structure ops. Table-driven (see
tests/ops/harness.py) against golden PyTorch 2.13 values, plus 1-D promotion and batch
broadcasting of matmul, node names and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad as dg
from dyngrad.autograd import gradcheck


# ----------------------------------------------------------------------------- semantics
@pytest.mark.parametrize(
    "fn,name",
    [
        (lambda a, b: a @ b, "MmBackward0"),
        (lambda a, b: a[0] @ b[:, 0], "DotBackward0"),
        (lambda a, b: a @ b[:, 0], "MvBackward0"),
        (lambda a, b: dg.bmm(a[None], b[None]), "BmmBackward0"),
        (lambda a, b: a.trace(), "TraceBackward0"),
        (lambda a, b: a.diagonal(), "DiagonalBackward0"),
        (lambda a, b: dg.diag(a[0]), "DiagEmbedBackward0"),
        (lambda a, b: a.tril(), "TrilBackward0"),
        (lambda a, b: a.triu(), "TriuBackward0"),
        (lambda a, b: dg.outer(a[0], b[0]), "MulBackward0"),
    ],
)
def test_grad_fn_names_match_pytorch(fn, name):
    a = dg.randn(3, 3, requires_grad=True)
    b = dg.randn(3, 3, requires_grad=True)
    assert type(fn(a, b).grad_fn).__name__ == name


def test_diagonal_is_a_view_sharing_the_version_counter():
    a = dg.randn(3, 3)
    d = a.diagonal()
    assert np.shares_memory(d._data, a._data)
    a.add_(1)
    assert d._version == a._version


@settings(max_examples=25, deadline=None)
@given(
    batch_a=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    batch_b=st.lists(st.integers(1, 3), min_size=0, max_size=2),
    n=st.integers(1, 3), k=st.integers(1, 3), p=st.integers(1, 3),
    vec_a=st.booleans(), vec_b=st.booleans(), data=st.data(),
)
def test_matmul_broadcasting_matches_numpy_and_passes_gradcheck(batch_a, batch_b, n, k, p, vec_a, vec_b, data):
    # make the batch dims broadcastable: where both have a dim, one of them may be 1
    la, lb = len(batch_a), len(batch_b)
    for i in range(1, min(la, lb) + 1):
        if batch_a[-i] != batch_b[-i] and data.draw(st.booleans()):
            batch_a[-i] = 1
        elif batch_a[-i] != batch_b[-i]:
            batch_b[-i] = 1
    sa = (k,) if vec_a else tuple(batch_a) + (n, k)
    sb = (k,) if vec_b else tuple(batch_b) + (k, p)
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal(sa), rng.standard_normal(sb)
    a = dg.tensor(A, requires_grad=True)
    b = dg.tensor(B, requires_grad=True)
    out = a @ b
    np.testing.assert_allclose(out.detach().numpy(), np.matmul(A, B), rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda x, y: x @ y, (a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_matmul_with_inner_size_one_equals_numpy_bitwise_on_strided_operands(dtype):
    # vmap's per-example outer products: (B, n, 1) column views @ (B, 1, p) rows
    rng = np.random.default_rng(3)
    A = (rng.standard_normal((5, 1, 7)) * 10).astype(dtype).transpose(0, 2, 1)  # strided (5, 7, 1)
    B = (rng.standard_normal((5, 1, 4)) * 10).astype(dtype)
    for a, b in ((A, B), (A[:1], B), (A[0], B[1])):
        out = (dg.tensor(a) @ dg.tensor(b)).numpy()
        assert out.dtype == np.matmul(a, b).dtype
        np.testing.assert_array_equal(out, np.matmul(a, b))


@pytest.mark.parametrize("shapes", [((4, 2, 3), (4, 3, 5)), ((2, 4, 1, 3), (4, 3, 2)), ((4, 1, 3), (4, 3, 1)),
                                    ((3, 2, 0), (3, 0, 4)), ((0, 2, 3), (0, 3, 4)), ((2, 3), (4, 3, 2))])
def test_matmul_with_a_broadcast_weight_matches_numpy_and_passes_gradcheck(shapes):
    # under vmap of grad an unbatched weight arrives expanded along the batch (stride 0)
    sa, sb = shapes
    rng = np.random.default_rng(1)
    A = rng.standard_normal(sa)
    W = rng.standard_normal(sb[-2:])
    a = dg.tensor(A, requires_grad=True)
    w = dg.tensor(W, requires_grad=True)
    out = a @ w.expand(*sb)
    np.testing.assert_allclose(out.detach().numpy(), np.matmul(A, np.broadcast_to(W, sb)), rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda x, y: x @ y.expand(*sb), (a, w))


# ----------------------------------------------------------------------------- errors
def _f(*shape, dtype=dg.float32):
    return dg.ones(*shape, dtype=dtype)


ERRORS = [
    (lambda: _f(2, 3) @ _f(4, 5), RuntimeError, r"\(2x3 and 4x5\)"),
    (lambda: _f(3) @ _f(4, 5), RuntimeError, r"\(1x3 and 4x5\)"),
    (lambda: _f(2, 2, 3) @ _f(2, 4, 5), RuntimeError, "2x2x3.*2x4x5"),
    (lambda: _f(2, 2, 3) @ _f(3, 3, 5), RuntimeError, "not broadcastable"),
    (lambda: _f(3) @ _f(4), RuntimeError, "3.*4"),
    (lambda: dg.matmul(dg.ones(()), _f(3)), RuntimeError, "at least 1D"),
    (lambda: _f(2, 2) @ _f(2, 2, dtype=dg.float64), RuntimeError, "same dtype"),
    (lambda: dg.mm(_f(2, 3, 1), _f(3, 2)), RuntimeError, "2D"),
    (lambda: dg.bmm(_f(2, 3, 4), _f(3, 4, 5)), RuntimeError, r"\[2, 4\] but got: \[3, 4\]"),
    (lambda: dg.mv(_f(2, 3), _f(2)), RuntimeError, "cannot be multiplied"),
    (lambda: dg.dot(_f(2), _f(3)), RuntimeError, "inconsistent tensor size"),
    (lambda: dg.dot(_f(2, 1), _f(2)), RuntimeError, "1D tensors expected"),
    (lambda: dg.outer(_f(2, 1), _f(2)), RuntimeError, "1D"),
    (lambda: dg.einsum("ij,jk->ik", _f(2, 3)), RuntimeError, "2 operand"),
    (lambda: dg.einsum("ij,jk->ik", _f(2, 3), _f(4, 5)), RuntimeError, r"\[2, 3\], \[4, 5\]"),
    (lambda: dg.einsum("ijk->i", _f(2, 3)), RuntimeError, "number of subscripts"),
    (lambda: dg.einsum("ij->z", _f(2, 3)), RuntimeError, "output subscript z"),
    (lambda: dg.einsum("i1->i", _f(2, 3)), RuntimeError, "invalid subscript"),
    (lambda: dg.tensordot(_f(2, 3), _f(4, 5), 1), RuntimeError, "contracted dimensions need to match"),
    (lambda: dg.tensordot(_f(2, 3), _f(3, 5), ([1], [2])), IndexError, "Dimension out of range"),
    (lambda: dg.trace(_f(2, 2, 2)), RuntimeError, "expected a matrix"),
    (lambda: dg.diagonal(_f(2, 3), 0, 1, 1), RuntimeError, "cannot be identical"),
    (lambda: dg.diagonal(_f(2, 3), 0, 0, 2), IndexError, r"range of \[-2, 1\], but got 2"),
    (lambda: dg.diag(_f(2, 2, 2)), RuntimeError, "1D or 2D"),
    (lambda: dg.tril(_f(3)), RuntimeError, "at least 2 dimensions"),
]


@pytest.mark.parametrize("fn,exc,words", ERRORS, ids=[f"{i}-{e[1].__name__}" for i, e in enumerate(ERRORS)])
def test_misuse_raises_pytorch_type_with_clear_message(fn, exc, words):
    with pytest.raises(exc, match=words):
        fn()


def test_diag_of_a_matrix_is_a_copy_as_torch_while_diagonal_is_a_view():
    # torch 2.13: diag(2-d) returns a new tensor (writes to it leave the input alone);
    # dyngrad returned a view, so diag(a).add_(10) silently changed a
    a = dg.tensor([[1, 2], [3, 4]])
    dg.diag(a).add_(10)
    assert a.tolist() == [[1, 2], [3, 4]]
    dg.diagonal(a).add_(10)
    assert a.tolist() == [[11, 2], [3, 14]]
    x = dg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (g,) = dg.autograd.grad(dg.diag(x, 1).sum(), x)
    assert g.tolist() == [[0.0, 1.0], [0.0, 0.0]]
    assert dg.diag(x).grad_fn.name() == "DiagonalBackward0_copy"
