"""Live comparison with PyTorch 2.13 of misuse checks and warnings (issue 12): the same
exception type, or the same warning category, from both. Skipped without torch."""

from __future__ import annotations

import warnings

import pytest

import dyngrad as dg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _outcome(f, m):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            f(m)
            err = None
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            err = type(e)
    return err, sorted({x.category.__name__ for x in w})


def _twice(m, f):
    x = m.randn(3, requires_grad=True)
    y = f(x).sum()
    y.backward()
    y.backward()


def _view_fn(m):
    class ViewFn(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g

    ViewFn.apply(m.randn(3, requires_grad=True) * 1).mul_(2)


def _saved_variables(m):
    class SV(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            _ = ctx.saved_variables
            return g * 2

    SV.apply(m.randn(3, requires_grad=True)).sum().backward()


def _nograd_class(m):
    @m.no_grad()
    class A:
        pass


CASES = {
    "twice_mul": lambda m: _twice(m, lambda x: x * x),
    "twice_exp": lambda m: _twice(m, lambda x: x.exp()),
    "twice_add": lambda m: _twice(m, lambda x: x + 1),
    "twice_view": lambda m: _twice(m, lambda x: x.view(3, 1)),
    "custom_view_inplace": _view_fn,
    "create_graph_backward": lambda m: (m.randn(3, requires_grad=True) ** 2).sum().backward(create_graph=True),
    "no_grad_class": _nograd_class,
    "saved_variables": _saved_variables,
    "anomaly": lambda m: m.autograd.detect_anomaly().__enter__(),
    "checkpoint_no_use_reentrant": lambda m: __import__(m.__name__ + ".utils.checkpoint", fromlist=["x"]).checkpoint(
        lambda a: a.sin(), m.randn(2, requires_grad=True)),
    "jacobian_strict_vectorize": lambda m: m.autograd.functional.jacobian(lambda a: a * 2, m.randn(2), vectorize=True,
                                                                        strict=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_misuse_gives_pytorchs_exception_type_and_warning_categories(name):
    try:
        theirs = _outcome(CASES[name], torch)
        ours = _outcome(CASES[name], dg)
    finally:
        torch.autograd.set_detect_anomaly(False)
        dg.autograd.set_detect_anomaly(False)
    assert (ours[0] is None) == (theirs[0] is None), (ours, theirs)
    if theirs[0] is not None:
        assert ours[0].__name__ == theirs[0].__name__
    assert ours[1] == theirs[1]


@pytest.mark.parametrize("create_graph", [False, True])
def test_post_accumulate_grad_hooks_see_pytorchs_grad_mode(create_graph):
    seen = []
    for m in (torch, dg):
        x = m.randn(2, requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t, m=m: seen.append(m.is_grad_enabled()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x * x).sum().backward(create_graph=create_graph)
    assert seen[0] == seen[1] == create_graph
