"""The issue-13 norms, padding layers, sliding blocks, pooling and losses against PyTorch
2.13's values and gradients (tests/golden/nn_extra.npz, from tests/golden/gen_nn_extra.py),
gradcheck/gradgradcheck in float64, module state and reprs as PyTorch's, misuse errors and
the docstring examples."""

from __future__ import annotations

import os

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F
from dyngrad import nn
from dyngrad.autograd import gradcheck, gradgradcheck

from .nn_extra_cases import CASES, DIFF, STATEFUL

GOLDEN = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "nn_extra.npz"))


@pytest.mark.parametrize("name,fn,inputs,kw", CASES, ids=[c[0] for c in CASES])
def test_function_matches_pytorch_values_gradients_and_buffer_updates(name, fn, inputs, kw):
    ts = [dyngrad.tensor(GOLDEN[f"{name}/in{i}"], requires_grad=spec[0] in DIFF) for i, spec in enumerate(inputs)]
    tkw = {k: (dyngrad.tensor(GOLDEN[f"{name}/kw_{k}"], requires_grad=v[0] in DIFF)
               if isinstance(v, tuple) and v and isinstance(v[0], str) else v) for k, v in kw.items()}
    out = getattr(F, fn)(*ts, **tkw)
    np.testing.assert_allclose(out.detach().numpy(), GOLDEN[f"{name}/out"], rtol=1e-10, atol=1e-12)
    out.backward(dyngrad.tensor(GOLDEN[f"{name}/cot"]))
    for i, (spec, t) in enumerate(zip(inputs, ts)):
        if spec[0] in DIFF:
            np.testing.assert_allclose(t.grad.numpy(), GOLDEN[f"{name}/grad{i}"], rtol=1e-10, atol=1e-12)
        elif f"{name}/after{i}" in GOLDEN:
            np.testing.assert_allclose(t.numpy(), GOLDEN[f"{name}/after{i}"], rtol=1e-12, atol=1e-14)
    for k, t in tkw.items():
        if f"{name}/grad_{k}" in GOLDEN:
            np.testing.assert_allclose(t.grad.numpy(), GOLDEN[f"{name}/grad_{k}"], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,ctor,kw,shape", STATEFUL, ids=[c[0] for c in STATEFUL])
def test_stateful_layer_matches_pytorch_in_training_and_eval(name, ctor, kw, shape):
    m = getattr(nn, ctor)(**kw).double()
    for step in range(2):
        y = m(dyngrad.tensor(GOLDEN[f"{name}/x{step}"]))
        np.testing.assert_allclose(y.detach().numpy(), GOLDEN[f"{name}/y{step}"], rtol=1e-10, atol=1e-12)
    m.eval()
    y = m(dyngrad.tensor(GOLDEN[f"{name}/x_eval"]))
    np.testing.assert_allclose(y.detach().numpy(), GOLDEN[f"{name}/y_eval"], rtol=1e-10, atol=1e-12)
    want = {k[len(name) + 7:]: v for k, v in GOLDEN.items() if k.startswith(f"{name}/state_")}
    got = m.state_dict()
    assert sorted(got) == sorted(want)
    for k, v in want.items():
        np.testing.assert_allclose(got[k].numpy(), v, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("nd", ["1", "2"])
def test_adaptive_max_pool_indices_match_pytorch_with_ties(nd):
    x = dyngrad.tensor(GOLDEN[f"indices{nd}/x"])
    fn = F.adaptive_max_pool2d if nd == "2" else F.adaptive_max_pool1d
    out, idx = fn(x, (3, 2) if nd == "2" else 3, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), GOLDEN[f"indices{nd}/out"])
    np.testing.assert_array_equal(idx.numpy(), GOLDEN[f"indices{nd}/idx"])
    assert idx.dtype == dyngrad.int64


def _x(*shape, seed=0, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    return dyngrad.tensor(np.abs(a) + 0.5 if positive else a, requires_grad=True)


GRADCHECKS = [
    ("instance_norm", lambda x, w: F.instance_norm(x, weight=w, bias=w * 0.5), [(2, 2, 3), (2,)], True),
    ("rms_norm", lambda x, w: F.rms_norm(x, [4], w), [(3, 4), (4,)], True),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3, alpha=0.5), [(1, 4, 2)], False),
    ("unfold", lambda x: F.unfold(x, 2, padding=1, stride=2), [(1, 1, 3, 4)], False),
    ("fold", lambda x: F.fold(x, (3, 4), 2, padding=1, stride=2), [(1, 8, 6)], True),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), [(1, 1, 5, 4)], False),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), [(2, 2, 5)], False),
    ("lp_pool2d", lambda x: F.lp_pool2d(x, 2, 2), [(1, 2, 4, 4)], False),
    ("cosine_embedding_loss", lambda a, b: F.cosine_embedding_loss(a, b, dyngrad.tensor([1.0, -1.0, -1.0]), -0.5),
     [(3, 2), (3, 2)], False),
    ("triplet_margin_loss", lambda a, p, n: F.triplet_margin_loss(a, p, n, swap=True), [(3, 4)] * 3, False),
    ("gaussian_nll_loss", lambda x, v: F.gaussian_nll_loss(x, dyngrad.tensor([[0.1, -0.2]] * 3), v), [(3, 2), (3, 2)], True),
    ("multi_margin_loss", lambda x: F.multi_margin_loss(x, dyngrad.tensor([0, 2, 1]), p=2, margin=3.0), [(3, 4)],
     True),
    ("multilabel_margin_loss", lambda x: F.multilabel_margin_loss(x, dyngrad.tensor([[1, 0, -1, 2], [3, -1, 0, 0],
                                                                                     [0, 1, 2, 3]])),
     [(3, 4)], False),
    ("multilabel_soft_margin_loss", lambda x: F.multilabel_soft_margin_loss(x, dyngrad.tensor([[0.0, 1.0], [1.0, 0.2]])),
     [(2, 2)], True),
    ("poisson_nll_loss", lambda x: F.poisson_nll_loss(x, dyngrad.tensor([[0.0, 3.0], [2.0, 5.0]]), full=True),
     [(2, 2)], True),
]


@pytest.mark.parametrize("name,f,shapes,twice", GRADCHECKS, ids=[g[0] for g in GRADCHECKS])
def test_passes_gradcheck_in_float64_and_gradgradcheck_where_smooth(name, f, shapes, twice):
    positive = name in ("lp_pool2d", "gaussian_nll_loss")
    args = tuple(_x(*s, seed=i, positive=positive and i == len(shapes) - 1 or name == "lp_pool2d")
                 for i, s in enumerate(shapes))
    assert gradcheck(f, args)
    if twice:
        assert gradgradcheck(f, args)


def test_unfold_and_fold_are_adjoint_and_fold_of_unfold_counts_block_overlaps():
    rng = np.random.default_rng(3)
    x = dyngrad.tensor(rng.standard_normal((2, 3, 5, 6)))
    kw = {"kernel_size": (2, 3), "dilation": (2, 1), "padding": 1, "stride": (1, 2)}
    cols = F.unfold(x, **kw)
    y = dyngrad.tensor(rng.standard_normal(tuple(cols.shape)))
    lhs = float((cols * y).sum())
    rhs = float((x * F.fold(y, (5, 6), **kw)).sum())
    assert abs(lhs - rhs) < 1e-10 * max(1.0, abs(lhs))
    ones = dyngrad.ones(1, 1, 3, 3)
    counts = F.fold(F.unfold(ones, 2), (3, 3), 2)
    assert counts[0, 0].tolist() == [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]


def test_unfold_keeps_an_infinity_in_place_without_making_nans():
    x = dyngrad.zeros(1, 1, 3, 3)
    x[0, 0, 1, 1] = float("inf")
    cols = F.unfold(x, 2).numpy()
    assert not np.isnan(cols).any() and np.isinf(cols).sum() == 4


def test_rms_norm_default_eps_is_the_dtype_epsilon():
    x = dyngrad.tensor([[1e-4, -1e-4]], dtype=dyngrad.float32)
    expect = 1e-4 / np.sqrt(1e-8 + np.finfo(np.float32).eps)
    np.testing.assert_allclose(F.rms_norm(x, [2]).numpy()[0, 0], expect, rtol=1e-5)
    np.testing.assert_allclose(nn.RMSNorm(2)(x).detach().numpy()[0, 0], expect, rtol=1e-5)


# (constructor, PyTorch 2.13's repr of the same construction)
REPRS = [
    (lambda: nn.ZeroPad1d(2), "ZeroPad1d((2, 2))"),
    (lambda: nn.ZeroPad2d((1, 2, 3, 4)), "ZeroPad2d((1, 2, 3, 4))"),
    (lambda: nn.ZeroPad3d(1), "ZeroPad3d((1, 1, 1, 1, 1, 1))"),
    (lambda: nn.ConstantPad1d(2, 3.5), "ConstantPad1d(padding=(2, 2), value=3.5)"),
    (lambda: nn.ConstantPad2d(1, 0.0), "ConstantPad2d(padding=(1, 1, 1, 1), value=0.0)"),
    (lambda: nn.ConstantPad3d((1, 2, 3, 4, 5, 6), 1), "ConstantPad3d(padding=(1, 2, 3, 4, 5, 6), value=1)"),
    (lambda: nn.ReflectionPad1d(2), "ReflectionPad1d((2, 2))"),
    (lambda: nn.ReflectionPad2d(1), "ReflectionPad2d((1, 1, 1, 1))"),
    (lambda: nn.ReflectionPad3d(1), "ReflectionPad3d((1, 1, 1, 1, 1, 1))"),
    (lambda: nn.ReplicationPad1d((1, 2)), "ReplicationPad1d((1, 2))"),
    (lambda: nn.ReplicationPad2d(1), "ReplicationPad2d((1, 1, 1, 1))"),
    (lambda: nn.ReplicationPad3d(1), "ReplicationPad3d((1, 1, 1, 1, 1, 1))"),
    (lambda: nn.CircularPad1d(1), "CircularPad1d((1, 1))"),
    (lambda: nn.CircularPad2d(1), "CircularPad2d((1, 1, 1, 1))"),
    (lambda: nn.CircularPad3d(1), "CircularPad3d((1, 1, 1, 1, 1, 1))"),
    (lambda: nn.InstanceNorm1d(3), "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                                   "track_running_stats=False)"),
    (lambda: nn.InstanceNorm2d(3, affine=True), "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                                "track_running_stats=False)"),
    (lambda: nn.InstanceNorm3d(3, momentum=None, track_running_stats=True),
     "InstanceNorm3d(3, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=True)"),
    (lambda: nn.RMSNorm(4), "RMSNorm((4,), eps=None, elementwise_affine=True)"),
    (lambda: nn.RMSNorm([3, 4], eps=1e-5, elementwise_affine=False),
     "RMSNorm((3, 4), eps=1e-05, elementwise_affine=False)"),
    (lambda: nn.LocalResponseNorm(3), "LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)"),
    (lambda: nn.BatchNorm3d(4), "BatchNorm3d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                "track_running_stats=True)"),
    (lambda: nn.Unfold(2), "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"),
    (lambda: nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2)),
     "Unfold(kernel_size=(2, 3), dilation=2, padding=1, stride=(1, 2))"),
    (lambda: nn.Fold((4, 5), 2), "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)"),
    (lambda: nn.AdaptiveMaxPool1d(3), "AdaptiveMaxPool1d(output_size=3)"),
    (lambda: nn.AdaptiveMaxPool2d((3, None), return_indices=True), "AdaptiveMaxPool2d(output_size=(3, None))"),
    (lambda: nn.AdaptiveAvgPool1d(3), "AdaptiveAvgPool1d(output_size=3)"),
    (lambda: nn.LPPool1d(2, 3), "LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"),
    (lambda: nn.LPPool2d(2.0, (2, 3), stride=1, ceil_mode=True),
     "LPPool2d(norm_type=2.0, kernel_size=(2, 3), stride=1, ceil_mode=True)"),
    (lambda: nn.MarginRankingLoss(), "MarginRankingLoss()"),
    (lambda: nn.TripletMarginLoss(), "TripletMarginLoss()"),
    (lambda: nn.GaussianNLLLoss(), "GaussianNLLLoss()"),
    (lambda: nn.MultiMarginLoss(), "MultiMarginLoss()"),
    (lambda: nn.CosineSimilarity(), "CosineSimilarity()"),
    (lambda: nn.PairwiseDistance(), "PairwiseDistance()"),
    (lambda: nn.Softmax2d(), "Softmax2d()"),
    (lambda: nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
    (lambda: nn.Threshold(0.1, 20, inplace=True), "Threshold(threshold=0.1, value=20, inplace=True)"),
    (lambda: nn.GLU(), "GLU(dim=-1)"),
    (lambda: nn.ChannelShuffle(2), "ChannelShuffle(groups=2)"),
]


@pytest.mark.parametrize("make,expected", REPRS, ids=[r[1].split("(")[0] + str(i) for i, r in enumerate(REPRS)])
def test_repr_equals_pytorchs(make, expected):
    assert repr(make()) == expected


def test_norm_layers_have_pytorchs_parameters_buffers_and_shapes():
    m = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert m.weight.tolist() == [1.0, 1.0, 1.0] and m.bias.tolist() == [0.0, 0.0, 0.0]
    assert list(nn.InstanceNorm1d(3).state_dict()) == []
    assert list(nn.InstanceNorm1d(3, affine=True, bias=False).state_dict()) == ["weight"]
    assert list(nn.RMSNorm([2, 3]).state_dict()) == ["weight"] and list(nn.RMSNorm(3).weight.shape) == [3]
    assert nn.RMSNorm(3, elementwise_affine=False).weight is None
    bn = nn.BatchNorm3d(2, dtype=dyngrad.float64)
    assert bn.running_mean.dtype == dyngrad.float64 and bn.num_batches_tracked.dtype == dyngrad.int64
    assert nn.MultiMarginLoss(weight=dyngrad.ones(3)).weight.tolist() == [1.0, 1.0, 1.0]


def test_padding_layers_equal_functional_pad_in_each_mode():
    x = dyngrad.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 4, 5)))
    for mode, layers in (("reflect", (nn.ReflectionPad1d, nn.ReflectionPad2d, nn.ReflectionPad3d)),
                         ("replicate", (nn.ReplicationPad1d, nn.ReplicationPad2d, nn.ReplicationPad3d)),
                         ("circular", (nn.CircularPad1d, nn.CircularPad2d, nn.CircularPad3d)),
                         ("constant", (nn.ZeroPad1d, nn.ZeroPad2d, nn.ZeroPad3d))):
        for k, layer in enumerate(layers, start=1):
            xi = x[(0,) * (3 - k)]  # (k + 2)-D
            want = F.pad(xi, (1, 2) * k, mode)
            np.testing.assert_array_equal(layer((1, 2) * k)(xi).numpy(), want.numpy())
    np.testing.assert_array_equal(nn.ConstantPad2d((1, 0, -1, 2), 7.0)(x[0, 0]).numpy(),
                                  F.pad(x[0, 0], (1, 0, -1, 2), value=7.0).numpy())


def test_instance_norm_accepts_unbatched_input_and_checks_channels():
    m = nn.InstanceNorm1d(2, affine=True)
    x = dyngrad.randn(2, 5)
    np.testing.assert_allclose(m(x).detach().numpy(), m(x.unsqueeze(0))[0].detach().numpy())
    with pytest.raises(ValueError, match=r"expected input's size at dim=0 to match num_features \(2\), but got: 3"):
        m(dyngrad.randn(3, 5))
    with pytest.warns(UserWarning, match="does not match num_features"):
        nn.InstanceNorm1d(2)(dyngrad.randn(1, 3, 5))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        m(dyngrad.randn(1, 2, 3, 4))
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        F.instance_norm(dyngrad.randn(3, 2, 1))


MISUSE = [
    (lambda: F.unfold(dyngrad.randn(1, 2, 3, 3), 4), RuntimeError, "calculated shape of the array of sliding blocks"),
    (lambda: F.unfold(dyngrad.randn(1, 2, 3, 3), 2, stride=0), RuntimeError, "stride should be greater than zero"),
    (lambda: F.unfold(dyngrad.randn(2, 3), 2), RuntimeError, "Expected 3D or 4D"),
    (lambda: F.fold(dyngrad.randn(1, 5, 4), (3, 3), 2), RuntimeError, "divisible by the product of kernel_size"),
    (lambda: F.fold(dyngrad.randn(1, 8, 5), (3, 3), 2), RuntimeError, "calculated number of sliding blocks 2 \\* 2 = 4"),
    (lambda: F.adaptive_max_pool2d(dyngrad.randn(3), 2), RuntimeError, "Expected 3D or 4D tensor"),
    (lambda: F.adaptive_max_pool1d(dyngrad.randn(1, 2, 3, 4), 2), RuntimeError, "Expected 2 to 3 dimensions"),
    (lambda: F.adaptive_avg_pool1d(dyngrad.randn(1, 2, 3, 4), 2), RuntimeError, "Expected 2 to 3 dimensions"),
    (lambda: F.channel_shuffle(dyngrad.randn(1, 3, 2), 2), RuntimeError, "must be divisible by groups"),
    (lambda: F.rms_norm(dyngrad.randn(3, 2), [3]), RuntimeError, "Given normalized_shape=\\[3\\]"),
    (lambda: F.local_response_norm(dyngrad.randn(3, 2), 2), ValueError, "Expected 3D or higher"),
    (lambda: nn.Softmax2d()(dyngrad.randn(3, 2)), ValueError, "expected input to be 3D or 4D, got 2D"),
    (lambda: nn.CircularPad2d(1)(dyngrad.randn(3, 3)), ValueError, "expected 3D or 4D input \\(got 2D input\\)"),
    (lambda: F.margin_ranking_loss(dyngrad.randn(3), dyngrad.randn(3), dyngrad.randn(3, 1)), RuntimeError,
     "All input tensors should have same dimension"),
    (lambda: F.cosine_embedding_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2), dyngrad.randn(3, 1)), RuntimeError,
     "0D or 1D target tensor expected"),
    (lambda: F.cosine_embedding_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2), dyngrad.tensor(1.0)), RuntimeError,
     "0D target tensor expects 1D input tensors"),
    (lambda: F.triplet_margin_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2), dyngrad.randn(2)), RuntimeError,
     "expected to have the same number of dimensions"),
    (lambda: F.triplet_margin_loss(*[dyngrad.randn(3, 2)] * 3, margin=0), ValueError, "margin must be greater than 0"),
    (lambda: nn.TripletMarginLoss(margin=-1), ValueError, "expected margin to be greater than 0"),
    (lambda: F.multi_margin_loss(dyngrad.randn(3, 2), dyngrad.tensor([0, 1, 2])), RuntimeError, "target out of range"),
    (lambda: F.multi_margin_loss(dyngrad.randn(3, 2), dyngrad.tensor([0, 1])), RuntimeError,
     "Expected target size \\[3\\], but got \\[2\\]"),
    (lambda: F.multi_margin_loss(dyngrad.randn(3, 2), dyngrad.tensor([0, 1, 1]), p=3), ValueError,
     "only p == 1 and p == 2 supported"),
    (lambda: nn.MultiMarginLoss(weight=dyngrad.ones(2, 2)), ValueError, "expected weight to be None or 1D"),
    (lambda: F.multilabel_margin_loss(dyngrad.randn(3, 2), dyngrad.tensor([[0, 1], [2, 0], [1, -1]])), RuntimeError,
     "'target' is out of range"),
    (lambda: F.multilabel_margin_loss(dyngrad.randn(3, 2), dyngrad.tensor([0, 1])), RuntimeError,
     "inconsistent target size"),
    (lambda: F.multilabel_margin_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2)), RuntimeError,
     "expected scalar type Long but found Float"),
    (lambda: F.gaussian_nll_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2), dyngrad.ones(3, 3)), ValueError,
     "var is of incorrect size"),
    (lambda: F.gaussian_nll_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2), -dyngrad.ones(3, 2)), ValueError,
     "var has negative entry"),
    (lambda: F.gaussian_nll_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2), 1.0, reduction="bad"), ValueError,
     "bad is not valid"),
    (lambda: F.soft_margin_loss(dyngrad.randn(3), dyngrad.randn(3), reduction="bad"), ValueError,
     "bad is not a valid value for reduction"),
    (lambda: F.poisson_nll_loss(dyngrad.randn(3), dyngrad.randn(3), reduction="bad"), ValueError,
     "bad is not a valid value for reduction"),
    (lambda: F.multilabel_soft_margin_loss(dyngrad.randn(3, 2), dyngrad.randn(3, 2), reduction="bad"), ValueError,
     "bad is not valid"),
    (lambda: nn.HingeEmbeddingLoss(reduction="bad"), ValueError, "bad is not a valid value for reduction"),
]


@pytest.mark.parametrize("call,exc,match", MISUSE, ids=[str(i) for i in range(len(MISUSE))])
def test_misuse_raises_pytorchs_error_type_and_message(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_loss_modules_and_small_layers_call_their_functions():
    rng = np.random.default_rng(5)
    a, b, c = (dyngrad.tensor(rng.standard_normal((4, 3))) for _ in range(3))
    s = dyngrad.tensor([1.0, -1.0, 1.0, -1.0])
    pairs = [
        (nn.MarginRankingLoss(0.5)(a[:, 0], b[:, 0], s), F.margin_ranking_loss(a[:, 0], b[:, 0], s, 0.5)),
        (nn.HingeEmbeddingLoss(reduction="sum")(a, b.sign()), F.hinge_embedding_loss(a, b.sign(), reduction="sum")),
        (nn.CosineEmbeddingLoss(0.1)(a, b, s), F.cosine_embedding_loss(a, b, s, 0.1)),
        (nn.TripletMarginLoss(p=1)(a, b, c), F.triplet_margin_loss(a, b, c, p=1)),
        (nn.PoissonNLLLoss(full=True)(a, b.abs()), F.poisson_nll_loss(a, b.abs(), full=True)),
        (nn.GaussianNLLLoss(full=True)(a, b, c.abs()), F.gaussian_nll_loss(a, b, c.abs(), full=True)),
        (nn.MultiMarginLoss(p=2)(a, dyngrad.tensor([0, 1, 2, 0])), F.multi_margin_loss(a, dyngrad.tensor([0, 1, 2, 0]), 2)),
        (nn.MultiLabelMarginLoss()(a, dyngrad.tensor([[0, -1, 0]] * 4)), F.multilabel_margin_loss(a, dyngrad.tensor([[0, -1, 0]] * 4))),
        (nn.MultiLabelSoftMarginLoss()(a, b.sigmoid()), F.multilabel_soft_margin_loss(a, b.sigmoid())),
        (nn.SoftMarginLoss()(a, b.sign()), F.soft_margin_loss(a, b.sign())),
        (nn.CosineSimilarity(dim=0)(a, b), F.cosine_similarity(a, b, 0)),
        (nn.PairwiseDistance(p=1.0, keepdim=True)(a, b), F.pairwise_distance(a, b, 1.0, keepdim=True)),
        (nn.Softmax2d()(a.reshape(1, 2, 2, 3)), F.softmax(a.reshape(1, 2, 2, 3), -3)),
        (nn.Threshold(0.1, 20.0)(a), F.threshold(a, 0.1, 20.0)),
        (nn.GLU(0)(a), F.glu(a, 0)),
        (nn.ChannelShuffle(2)(a.reshape(1, 4, 3)), F.channel_shuffle(a.reshape(1, 4, 3), 2)),
    ]
    for got, want in pairs:
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.SoftMarginLoss(size_average=False).reduction == "sum"


@pytest.mark.parametrize("modname", ["dyngrad.nn._functional_norm_extra", "dyngrad.nn.norm_instance",
                                     "dyngrad.nn.padding", "dyngrad.nn._functional_fold", "dyngrad.nn.fold_pool",
                                     "dyngrad.nn._functional_loss_extra", "dyngrad.nn.loss_extra"])
def test_docstring_examples_run(modname):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
