"""Layers, activation and loss modules: golden values vs PyTorch 2.13 with identical weights
(tests/golden/nn.npz), default initialisation, train/eval behaviour, misuse errors."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

import dyngrad
import dyngrad.nn as nn
import dyngrad.nn.functional as F

GOLD = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "nn.npz"))


def cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(3, 4, 3, groups=1), nn.BatchNorm2d(4), nn.GELU(),
        nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(16, 5),
        nn.LayerNorm(5), nn.Tanh(), nn.Linear(5, 3),
    ).double()  # fmt: skip


def test_conv_net_matches_pytorch_over_two_training_steps_and_in_eval() -> None:
    if not hasattr(F, "gelu"):
        pytest.skip("gelu not in the op library yet")
    model = cnn()
    sd = {k[len("m/cnn/param/") :]: GOLD[k] for k in GOLD.files if k.startswith("m/cnn/param/")}
    res = model.load_state_dict({k: dyngrad.tensor(v) for k, v in sd.items()}, strict=False)
    assert set(res.missing_keys) == {"4.running_mean", "4.running_var"}  # (num_batches_tracked: as PyTorch)
    for step in range(2):
        model.zero_grad()
        out = model(dyngrad.tensor(GOLD[f"m/cnn/x{step}"]))
        loss = F.cross_entropy(out, dyngrad.tensor(GOLD[f"m/cnn/y{step}"]))
        loss.backward()
        np.testing.assert_allclose(out.detach().numpy(), GOLD[f"m/cnn/out{step}"], rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(loss.item(), GOLD[f"m/cnn/loss{step}"], rtol=1e-7)
        for k, p in model.named_parameters():
            np.testing.assert_allclose(
                p.grad.numpy(), GOLD[f"m/cnn/grad{step}/{k}"], rtol=1e-6, atol=1e-9, err_msg=k
            )
    for k, b in model.named_buffers():
        np.testing.assert_allclose(b.numpy(), GOLD[f"m/cnn/buffer/{k}"], rtol=1e-7, err_msg=k)
    model.eval()
    out = model(dyngrad.tensor(GOLD["m/cnn/x_eval"]))
    np.testing.assert_allclose(out.detach().numpy(), GOLD["m/cnn/out_eval"], rtol=1e-6, atol=1e-9)


def test_embedding_bilinear_groupnorm_batchnorm1d_match_pytorch() -> None:
    emb = nn.Embedding(6, 4, padding_idx=0).double()
    bil = nn.Bilinear(4, 4, 2).double()
    gn = nn.GroupNorm(2, 4).double()
    bn1 = nn.BatchNorm1d(4, momentum=None).double()
    mods = {"emb": emb, "bil": bil, "gn": gn, "bn1": bn1}
    for mname, mod in mods.items():
        for k, p in mod.named_parameters():
            p._data[...] = GOLD[f"m/misc/{mname}/{k}"]
    idx = dyngrad.tensor(GOLD["m/misc/idx"])
    for step in range(2):
        e = emb(idx)
        h = bil(e, e * 0.5 + 1)
        h = gn(dyngrad.cat([h, h], 1).unsqueeze(-1)).squeeze(-1)
        h = bn1(h)
        (h**2).sum().backward()
        np.testing.assert_allclose(h.detach().numpy(), GOLD[f"m/misc/out{step}"], rtol=1e-6, atol=1e-9)
    for mname, mod in mods.items():
        for k, p in mod.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), GOLD[f"m/misc/grad/{mname}/{k}"], rtol=1e-6, atol=1e-9)
    for k, b in bn1.named_buffers():
        np.testing.assert_allclose(b.numpy(), GOLD[f"m/misc/bn1buf/{k}"], rtol=1e-7)


@pytest.mark.parametrize(
    "make", [lambda: nn.Linear(50, 30), lambda: nn.Conv2d(6, 8, 3), lambda: nn.Conv1d(4, 5, 5)]
)
def test_default_init_is_kaiming_uniform_a_sqrt5_and_bias_uniform(make) -> None:
    dyngrad.manual_seed(0)
    m = make()
    fan_in = int(np.prod(m.weight.shape[1:]))
    bound = 1 / math.sqrt(fan_in)
    w, b = m.weight._data, m.bias._data
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.15 * bound
    assert m.weight.dtype == dyngrad.float32


def test_seeded_construction_is_reproducible() -> None:
    dyngrad.manual_seed(3)
    a = nn.Linear(4, 4)
    dyngrad.manual_seed(3)
    b = nn.Linear(4, 4)
    np.testing.assert_array_equal(a.weight._data, b.weight._data)


def test_dropout_module_respects_train_and_eval() -> None:
    d = nn.Dropout(0.5)
    x = dyngrad.ones(2000)
    assert (d(x).numpy() == 0).any()
    d.eval()
    assert d(x) is x
    with pytest.raises(ValueError):
        nn.Dropout(2.0)
    assert repr(d) == "Dropout(p=0.5, inplace=False)"


def test_batchnorm2d_tracks_running_stats_and_uses_them_in_eval() -> None:
    bn = nn.BatchNorm2d(3)
    x = dyngrad.randn(4, 3, 2, 2) * 3 + 1
    y = bn(x)
    m = y.detach().numpy().mean(axis=(0, 2, 3))
    np.testing.assert_allclose(m, 0, atol=1e-5)
    assert int(bn.num_batches_tracked.item()) == 1
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.numpy().mean(axis=(0, 2, 3)), rtol=1e-5)
    bn.eval()
    rm, rv = bn.running_mean.numpy(), bn.running_var.numpy()
    ye = bn(x).detach().numpy()
    np.testing.assert_allclose(
        ye, (x.numpy() - rm[:, None, None]) / np.sqrt(rv[:, None, None] + 1e-5), rtol=1e-5
    )
    assert int(bn.num_batches_tracked.item()) == 1
    with pytest.raises(ValueError, match="expected 4D input"):
        bn(dyngrad.randn(3, 3))
    assert repr(bn) == "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"


def test_batchnorm_training_with_one_value_per_channel_raises() -> None:
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(3)(dyngrad.randn(1, 3))


def test_layer_reprs_match_pytorch() -> None:
    assert repr(nn.Conv2d(1, 2, 3, stride=2, padding=1, groups=1, bias=False)) == (
        "Conv2d(1, 2, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)"
    )
    assert (
        repr(nn.MaxPool2d(2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    )
    assert repr(nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.LayerNorm(4, elementwise_affine=False)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=False, bias=False)"
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True)"
    assert repr(nn.Embedding(5, 3, padding_idx=0)) == "Embedding(5, 3, padding_idx=0)"
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"
    assert repr(nn.GELU()) == "GELU(approximate='none')"
    assert repr(nn.AdaptiveAvgPool2d((1, 1))) == "AdaptiveAvgPool2d(output_size=(1, 1))"


def test_conv_layer_misuse_raises() -> None:
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="strided"):
        nn.Conv2d(2, 2, 3, stride=2, padding="same")
    conv = nn.Conv2d(2, 4, 3)
    with pytest.raises(RuntimeError, match="expected input\\[1, 3, 5, 5\\] to have 2 channels, but got 3"):
        conv(dyngrad.randn(1, 3, 5, 5))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        conv(dyngrad.randn(1, 2, 2, 2))


def test_unflatten_and_identity() -> None:
    x = dyngrad.randn(2, 6)
    assert nn.Unflatten(1, (2, 3))(x).shape == (2, 2, 3)
    assert nn.Identity(3, foo=1)(x) is x


ACTS = [
    ("ReLU", "relu", {}),
    ("LeakyReLU", "leaky_relu", {"negative_slope": 0.1}),
    ("GELU", "gelu", {}),
    ("SiLU", "silu", {}),
    ("Sigmoid", "sigmoid", {}),
    ("Tanh", "tanh", {}),
    ("ELU", "elu", {"alpha": 0.5}),
    ("Softplus", "softplus", {"beta": 2.0}),
    ("Hardtanh", "hardtanh", {}),
    ("ReLU6", "relu6", {}),
    ("Mish", "mish", {}),
    ("Hardswish", "hardswish", {}),
    ("Softmax", "softmax", {"dim": 1}),
    ("LogSoftmax", "log_softmax", {"dim": 1}),
    ("SELU", "selu", {}),
    ("CELU", "celu", {}),
    ("Hardsigmoid", "hardsigmoid", {}),
    ("Softsign", "softsign", {}),
    ("LogSigmoid", "logsigmoid", {}),
]


@pytest.mark.parametrize(("mod", "fn", "kw"), ACTS)
def test_activation_module_calls_its_functional(mod: str, fn: str, kw: dict) -> None:
    if not hasattr(F, fn):
        pytest.skip(f"nn.functional.{fn} not in the op library yet")
    x = dyngrad.randn(3, 4, dtype=dyngrad.float64, requires_grad=True)
    m = getattr(nn, mod)(**kw)
    np.testing.assert_allclose(m(x).detach().numpy(), getattr(F, fn)(x, **kw).detach().numpy())


LOSSES = [
    (nn.MSELoss(), F.mse_loss, "f"),
    (nn.L1Loss(reduction="sum"), lambda a, b: F.l1_loss(a, b, reduction="sum"), "f"),
    (nn.SmoothL1Loss(beta=0.5), lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), "f"),
    (nn.HuberLoss(delta=2.0), lambda a, b: F.huber_loss(a, b, delta=2.0), "f"),
    (nn.CrossEntropyLoss(label_smoothing=0.1), lambda a, b: F.cross_entropy(a, b, label_smoothing=0.1), "i"),
    (nn.NLLLoss(), F.nll_loss, "i"),
    (nn.BCELoss(), F.binary_cross_entropy, "p"),
    (nn.BCEWithLogitsLoss(), F.binary_cross_entropy_with_logits, "p"),
    (nn.KLDivLoss(reduction="batchmean"), lambda a, b: F.kl_div(a, b, reduction="batchmean"), "p"),
]


@pytest.mark.parametrize(("mod", "fn", "kind"), LOSSES)
def test_loss_module_equals_its_functional(mod, fn, kind: str) -> None:
    rng = np.random.default_rng(0)
    x = dyngrad.tensor(rng.uniform(0.1, 0.9, (4, 3)), requires_grad=True)
    if kind == "i":
        t = dyngrad.tensor([0, 2, 1, 1])
    else:
        t = dyngrad.tensor(rng.uniform(0.1, 0.9, (4, 3)))
    np.testing.assert_allclose(mod(x, t).item(), fn(x, t).item())


def test_loss_misuse_raises() -> None:
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.mse_loss(dyngrad.ones(2), dyngrad.ones(2), reduction="avg")
    with pytest.raises(IndexError, match="Target 5 is out of bounds"):
        F.cross_entropy(dyngrad.randn(2, 3), dyngrad.tensor([0, 5]))
    with pytest.raises(ValueError, match="batch_size"):
        F.cross_entropy(dyngrad.randn(2, 3), dyngrad.tensor([0, 1, 2]))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(dyngrad.tensor([1.5]), dyngrad.tensor([1.0]))
    with pytest.raises(ValueError, match="different to the input size"):
        F.binary_cross_entropy(dyngrad.tensor([0.5]), dyngrad.tensor([1.0, 0.0]))
    with pytest.raises(RuntimeError, match="label_smoothing"):  # PyTorch 2.13: RuntimeError
        F.cross_entropy(dyngrad.randn(2, 3), dyngrad.tensor([0, 1]), label_smoothing=1.5)
    with pytest.warns(UserWarning, match="target size"):
        F.mse_loss(dyngrad.ones(2, 1), dyngrad.ones(2))


def test_embedding_misuse_and_padding_row_gets_no_gradient() -> None:
    emb = nn.Embedding(4, 2, padding_idx=1)
    assert not emb.weight._data[1].any()
    emb(dyngrad.tensor([1, 1, 2])).sum().backward()
    assert not emb.weight.grad.numpy()[1].any() and emb.weight.grad.numpy()[2].all()
    with pytest.raises(IndexError, match="out of range"):
        emb(dyngrad.tensor([4]))
    with pytest.raises(RuntimeError, match="integer"):
        emb(dyngrad.tensor([1.0]))


def test_prelu_module_matches_pytorch_at_zero_and_checks_channels():
    # d/dx at x == 0 is the slope (PyTorch's prelu backward: input > 0 ? grad : weight * grad)
    x = dyngrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    dyngrad.nn.PReLU()(x).sum().backward()
    assert x.grad.tolist() == [0.25, 0.25, 1.0]
    with pytest.raises(RuntimeError, match="channel size"):
        dyngrad.nn.PReLU(3)(dyngrad.zeros(2, 4))
    with pytest.raises(TypeError, match="ReLU: input must be a Tensor"):
        dyngrad.nn.ReLU()([1.0])
