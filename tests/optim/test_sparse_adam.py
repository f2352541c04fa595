"""SparseAdam: dyngrad has no sparse gradients, so it keeps PyTorch's constructor checks and
refuses every (dense) gradient at step with PyTorch's message and type."""

from __future__ import annotations

import pytest

import dyngrad
from dyngrad import nn, optim


def test_sparse_adam_checks_its_hyperparameters_as_pytorch() -> None:
    w = nn.Parameter(dyngrad.ones(3))
    for kw, msg in (({"lr": 0.0}, "Invalid learning rate: 0.0"), ({"eps": 0.0}, "Invalid epsilon value: 0.0"),
                    ({"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
                    ({"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0")):
        with pytest.raises(ValueError, match=msg):
            optim.SparseAdam([w], **kw)
    assert optim.SparseAdam([w]).defaults == {"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "maximize": False}


def test_sparse_adam_refuses_a_dense_gradient_and_leaves_the_parameter() -> None:
    w = nn.Parameter(dyngrad.ones(3))
    opt = optim.SparseAdam([w])
    opt.step()  # no gradient yet: nothing to do
    (w * 2).sum().backward()
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam"):
        opt.step()
    assert w.tolist() == [1.0, 1.0, 1.0]


def test_sparse_embeddings_are_refused_at_forward() -> None:
    emb = nn.Embedding(5, 2, sparse=True)
    with pytest.raises(NotImplementedError, match="sparse"):
        emb(dyngrad.tensor([1, 2]))
