"""``Tensor.data`` against live PyTorch: the common ``.data`` idioms of PyTorch's docs,
tutorials and forums run on both libraries from the same values, and every value, shape,
dtype, ``requires_grad`` and version counter they leave must agree (skipped without torch).
Then weight surgery (``p.data = p.data[:, :k]``) followed by SGD and Adam steps."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dyngrad  # noqa: E402

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(12)
W = RNG.standard_normal((3, 4)).astype(np.float32)
X = RNG.standard_normal((5, 4)).astype(np.float32)
G = RNG.standard_normal((3, 4)).astype(np.float32)
Y = RNG.standard_normal((5, 3)).astype(np.float32)
TARGET = np.array([0, 2, 1, 1, 0])


def _np(v):
    """A comparable value: arrays for tensors, plain Python for the rest."""
    if isinstance(v, (torch.Tensor, dyngrad.Tensor)):
        return v.detach().numpy()
    if isinstance(v, (tuple, list)):
        return [_np(u) for u in v]
    return v


def _param(T, a):
    return T.nn.Parameter(T.tensor(a.copy()))


def _trained(T):
    """A parameter with a .grad from one backward (loss = sum((X @ p.T) ** 2) / 10)."""
    p = _param(T, W)
    ((T.tensor(X) @ p.t()) ** 2).sum().div(10).backward()
    return p


# Each idiom: T (torch or dyngrad) -> a dict of results; the Parameter it used is under "p".
def _zero(T):
    p = _param(T, W)
    r = p.data.zero_()
    return {"p": p, "r": r}


def _copy(T):
    p = _param(T, W)
    p.data.copy_(T.tensor(G))
    return {"p": p}


def _mul(T):
    p = _param(T, W)
    p.data.mul_(0.5)
    return {"p": p}


def _add_alpha(T):
    p = _trained(T)
    p.data.add_(p.grad.data, alpha=-0.1)
    return {"p": p, "grad": p.grad}


def _sub_assign(T):
    p = _trained(T)
    p.data -= 0.1 * p.grad.data
    return {"p": p}


def _clamp(T):
    p = _param(T, W)
    p.data.clamp_(-0.5, 0.5)
    return {"p": p}


def _grad_clamp(T):
    p = _trained(T)
    p.grad.data.clamp_(-1, 1)
    return {"p": p, "grad": p.grad}


def _fill(T):
    p = _param(T, W)
    p.data.fill_(0.25)
    return {"p": p}


def _norm(T):
    p = _trained(T)
    return {"p": p, "norm": p.data.norm().item(), "gnorm": p.grad.data.norm(2).item()}


def _size(T):
    p = _param(T, W)
    return {
        "p": p,
        "size": tuple(p.data.size()),
        "size1": p.data.size(1),
        "dim": p.data.dim(),
        "shape": tuple(p.data.shape),
        "numel": p.data.numel(),
    }


def _clone(T):
    p = _param(T, W)
    c = p.data.clone()
    c.mul_(3)
    return {"p": p, "c": c, "c_rg": c.requires_grad}


def _numpy(T):
    p = _param(T, W)
    a = p.data.numpy()
    b = p.data.cpu().numpy()
    a[0, 0] = 42.0  # the same memory as p's
    return {"p": p, "a": a.copy(), "b": b.copy()}


def _argmax(T):
    p = _param(T, W)
    out = T.tensor(X) @ p.t()
    pred = out.data.max(1)[1]
    correct = pred.eq(T.tensor(TARGET).data.view_as(pred)).sum().item()
    vals, idx = out.data.max(1)
    return {"p": p, "pred": pred, "correct": correct, "vals": vals, "idx": idx, "argmax": out.data.argmax(1)}


def _std_var(T):
    p = _param(T, W)
    return {
        "p": p,
        "std": p.data.std().item(),
        "var1": p.data.var(1),
        "std0": p.data.std(0),
        "mean": p.data.mean().item(),
    }


def _index(T):
    p = _param(T, W)
    first = p.data[0].clone()
    p.data[1] = 0.0
    p.data[2, 1:3] = T.tensor([7.0, 8.0])
    return {"p": p, "first": first, "item": p.data[0, 0].item()}


def _item(T):
    p = _trained(T)
    loss = ((T.tensor(X) @ p.t()) ** 2).mean()
    return {"p": p, "loss": loss.data.item(), "loss_rg": loss.data.requires_grad}


def _assign(T):
    p = _param(T, W)
    p.data = T.tensor(G[:2])
    return {"p": p, "shape": tuple(p.shape), "rg": p.requires_grad}


def _soft_update(T):
    p = _param(T, W)
    q = _param(T, G)
    tau = 0.01
    p.data.copy_(tau * q.data + (1.0 - tau) * p.data)
    return {"p": p}


def _fgsm(T):
    x = T.tensor(X.copy(), requires_grad=True)
    ((x**2).sum() - x[:, 0].sum()).backward()
    grad_sign = x.grad.data.sign()
    adv = T.clamp(x.data + 0.1 * grad_sign, -1, 1)
    return {"p": x, "adv": adv}


def _transpose_view(T):
    p = _param(T, W)
    flat = p.data.view(-1)
    flat[:3] = 0.0
    return {"p": p, "t": p.data.t(), "flat": flat}


def _weights_init_bias(T):
    lin = T.nn.Linear(4, 3)
    lin.weight.data.copy_(T.tensor(W))
    lin.bias.data.fill_(0)
    return {"p": lin.weight, "out": lin(T.tensor(X)), "bias": lin.bias}


def _embedding(T):
    emb = T.nn.Embedding(3, 4)
    emb.weight.data.copy_(T.tensor(W))
    return {"p": emb.weight, "out": emb(T.tensor([2, 0, 2]))}


def _saved_then_data(T):
    a = T.tensor(W.copy(), requires_grad=True)
    x = a * 1
    s = (x * x).sum()
    x.data.mul_(3)  # not detected: the gradient uses the new values
    s.backward()
    return {"p": a, "grad": a.grad, "x_version": x._version}


def _grad_data_requires_grad(T):
    p = _param(T, W)
    (g,) = T.autograd.grad((p**3).sum(), p, create_graph=True)
    return {"p": p, "g_rg": g.requires_grad, "gd_rg": g.data.requires_grad, "gd_leaf": g.data.is_leaf}


IDIOMS = {
    f.__name__[1:]: f
    for f in (
        _zero,
        _copy,
        _mul,
        _add_alpha,
        _sub_assign,
        _clamp,
        _grad_clamp,
        _fill,
        _norm,
        _size,
        _clone,
        _numpy,
        _argmax,
        _std_var,
        _index,
        _item,
        _assign,
        _soft_update,
        _fgsm,
        _transpose_view,
        _weights_init_bias,
        _embedding,
        _saved_then_data,
        _grad_data_requires_grad,
    )
}


@pytest.mark.parametrize("name", sorted(IDIOMS))
def test_data_idiom_matches_pytorch(name):
    got = IDIOMS[name](dyngrad)
    want = IDIOMS[name](torch)
    assert sorted(got) == sorted(want)
    gp, wp = got.pop("p"), want.pop("p")
    np.testing.assert_allclose(_np(gp), _np(wp), rtol=1e-5, atol=1e-6, err_msg="the parameter")
    assert gp._version == wp._version, "the version counter of the tensor whose .data was used"
    assert gp.requires_grad == wp.requires_grad and gp.is_leaf == wp.is_leaf
    assert type(gp).__name__ == type(wp).__name__
    for k in want:
        g, w = _np(got[k]), _np(want[k])
        if isinstance(w, np.ndarray):
            assert isinstance(g, np.ndarray), k
            assert g.shape == w.shape and g.dtype == w.dtype, k
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=k)
        elif isinstance(w, float):
            assert g == pytest.approx(w, rel=1e-5), k
        else:
            assert g == w, k


@pytest.mark.parametrize("fill", ["normal_", "uniform_"])
def test_random_fills_through_data_change_the_parameter_without_bumping_its_version(fill):
    args = (0.0, 0.02) if fill == "normal_" else (-0.1, 0.1)
    seen = {}
    for T in (dyngrad, torch):
        T.manual_seed(0)
        p = _param(T, np.zeros((200, 300), np.float32))
        d = p.data
        r = getattr(d, fill)(*args)
        a = p.detach().numpy()
        seen[T.__name__] = (
            p._version,
            d._version,
            r is d,
            a.std() > 0.01,
            abs(a.mean()) < 0.005,
            bool(np.abs(a).max() <= 0.1) if fill == "uniform_" else None,
        )
    assert seen["dyngrad"] == seen["torch"]


def _data_attributes(T):
    a = T.ones(2, 3, requires_grad=True)
    y = a * 2
    v = y[1:]
    p = T.nn.Parameter(T.ones(2))
    with T.no_grad():
        a.add_(1)
    return [
        y.data.requires_grad,
        y.data.grad_fn is None,
        y.data.is_leaf,
        y.data._version,
        v.data._base is None,
        type(p.data).__name__,
        a.data._version,
        a._version,
        y.data is y.data,
        y.data.data_ptr() == y.data_ptr(),
        a.data.requires_grad_().is_leaf,
    ]


def test_what_data_is_matches_pytorch():
    assert _data_attributes(dyngrad) == _data_attributes(torch)


def _setter(T):
    out = []
    x = T.ones(3, 4, requires_grad=True)
    with T.no_grad():
        x.mul_(2)
    x.data = T.zeros(2, dtype=T.float64)
    out += [tuple(x.shape), str(x.dtype).split(".")[1], x.requires_grad, x.is_leaf, x._version]
    y = T.zeros(3)
    x = T.ones(3)
    x.data = y
    y.add_(1)
    out += [x.tolist(), x._version, y._version]
    b = T.ones(4)
    v = b[:2]
    b.data = T.zeros(4)
    out += [v.tolist(), b.tolist()]
    for value in (3, [1, 2], np.ones(3)):
        try:
            T.ones(3).data = value
        except TypeError as e:
            out.append(str(e))
    try:
        T.ones(3, requires_grad=True).data = T.ones(3, dtype=T.int64)
    except RuntimeError as e:
        out.append(str(e))
    try:
        del T.ones(3).data
    except RuntimeError as e:
        out.append(str(e))
    a = T.ones(3, requires_grad=True)
    s = a * a
    a.data = T.full((3,), 5.0)
    s.sum().backward()
    out.append(a.grad.tolist())  # the saved input sees the new values
    a = T.ones(3, requires_grad=True)
    e = a.exp()
    e.data = T.full((3,), 5.0)
    e.sum().backward()
    out.append([round(g, 5) for g in a.grad.tolist()])  # a saved output keeps the old ones
    return out


def test_setter_matches_pytorch():
    assert _setter(dyngrad) == _setter(torch)


def _surgery(T, opt_name, keep):
    lin = T.nn.Linear(4, 3)
    lin.weight.data.copy_(T.tensor(W))
    lin.bias.data.copy_(T.tensor(G[0, :3]))
    lin.weight.data = lin.weight.data[:, :keep]  # prune input columns (a strided view)
    x = T.tensor(X[:, :keep])
    y = T.tensor(Y)
    opt = (
        T.optim.SGD(lin.parameters(), lr=0.05, momentum=0.9)
        if opt_name == "SGD"
        else T.optim.Adam(lin.parameters(), lr=0.05)
    )
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((lin(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return (
        losses,
        lin.weight.detach().numpy().copy(),
        lin.bias.detach().numpy().copy(),
        tuple(lin.weight.grad.shape),
    )


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("keep", [2, 3])
def test_pruning_through_data_then_training_matches_pytorch(opt_name, keep):
    gl, gw, gb, gs = _surgery(dyngrad, opt_name, keep)
    wl, ww, wb, ws = _surgery(torch, opt_name, keep)
    np.testing.assert_allclose(gl, wl, rtol=1e-5)
    np.testing.assert_allclose(gw, ww, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb, wb, rtol=1e-5, atol=1e-6)
    assert gs == ws == (3, keep)


def _surgery_with_state(T):
    lin = T.nn.Linear(4, 3)
    opt = T.optim.Adam(lin.parameters(), lr=0.1)
    lin(T.tensor(X)).sum().backward()
    opt.step()
    opt.zero_grad()
    lin.weight.data = lin.weight.data[:, :2]
    lin.weight.sum().backward()
    with pytest.raises(RuntimeError) as info:
        opt.step()
    return str(info.value).split(":")[0]


def test_pruning_with_stale_optimizer_state_raises_as_pytorch():
    assert _surgery_with_state(dyngrad) == _surgery_with_state(torch)


def _two_layer_net_with_data_updates(T):
    """'Learning PyTorch with examples' (the 0.4-era autograd version): a two-layer net
    trained by hand through ``.data`` and ``.grad.data``."""
    rng = np.random.default_rng(0)
    x = T.tensor(rng.standard_normal((16, 10)).astype(np.float32))
    y = T.tensor(rng.standard_normal((16, 3)).astype(np.float32))
    w1 = T.tensor(rng.standard_normal((10, 8)).astype(np.float32), requires_grad=True)
    w2 = T.tensor(rng.standard_normal((8, 3)).astype(np.float32), requires_grad=True)
    lr = 1e-3
    losses = []
    for _ in range(30):
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.data.item())
        loss.backward()
        w1.data -= lr * w1.grad.data
        w2.data -= lr * w2.grad.data
        w1.grad.data.zero_()
        w2.grad.data.zero_()
    return losses, w1.detach().numpy().copy(), w1._version, w1.grad._version


def test_tutorial_two_layer_net_trained_through_data_matches_pytorch():
    gl, gw, gv, ggv = _two_layer_net_with_data_updates(dyngrad)
    wl, ww, wv, wgv = _two_layer_net_with_data_updates(torch)
    np.testing.assert_allclose(gl, wl, rtol=1e-4)
    np.testing.assert_allclose(gw, ww, rtol=1e-4, atol=1e-5)
    assert gl[-1] < gl[0] / 2  # it trains
    assert (gv, ggv) == (wv, wgv)  # .data updates leave both version counters alone


def _retyped_then_trained(T):
    lin = T.nn.Linear(4, 2)
    lin.weight.data.copy_(T.tensor(W[:2]))
    lin.bias.data.fill_(0.1)
    opt = T.optim.Adam(lin.parameters(), lr=0.1)
    for p in lin.parameters():
        p.data = p.data.double()  # a forum idiom: change the parameters' dtype in place
    x = T.tensor(X.astype(np.float64))
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = lin(x).pow(2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, lin.weight.detach().numpy().copy(), str(lin.weight.grad.dtype).split(".")[1]


def test_parameters_retyped_through_data_then_trained_with_adam_match_pytorch():
    gl, gw, gdt = _retyped_then_trained(dyngrad)
    wl, ww, wdt = _retyped_then_trained(torch)
    np.testing.assert_allclose(gl, wl, rtol=1e-12)
    np.testing.assert_allclose(gw, ww, rtol=1e-12, atol=1e-14)
    assert gdt == wdt == "float64" and gw.dtype == np.float64
