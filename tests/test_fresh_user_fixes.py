"""Defects a fresh user found (session 4 break-it check), each against PyTorch 2.13's values.

The expected numbers were computed with torch 2.13.0 (``F.normalize`` of a zero row: the
gradient is ``1 / eps``; ``F.cosine_similarity``: PyTorch's clamped-norm formula)."""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

import dyngrad
import dyngrad.nn.functional as F


def test_normalize_gradient_of_a_zero_row_is_finite_as_pytorch() -> None:
    x = dyngrad.tensor([[3.0, 4.0], [0.0, 0.0]], dtype=dyngrad.float64, requires_grad=True)
    F.normalize(x, dim=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.032, -0.024], [1e12, 1e12]], rtol=1e-12)


def test_cosine_similarity_gradient_of_a_zero_row_is_finite_as_pytorch() -> None:
    x = dyngrad.tensor([[3.0, 4.0], [0.0, 0.0]], dtype=dyngrad.float64, requires_grad=True)
    y = dyngrad.tensor([[1.0, 2.0], [1.0, 2.0]], dtype=dyngrad.float64, requires_grad=True)
    F.cosine_similarity(x, y).sum().backward()
    r5 = np.sqrt(5.0)
    np.testing.assert_allclose(x.grad.numpy()[1], [1e8 / r5, 2e8 / r5], rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy()[1], [0.0, 0.0], atol=0)
    np.testing.assert_allclose(x.grad.numpy()[0], [-2.8622e-02, 2.1466e-02], rtol=1e-3)
    assert np.isfinite(x.grad.numpy()).all() and np.isfinite(y.grad.numpy()).all()


def test_parameters_to_vector_and_back() -> None:
    ps = [dyngrad.nn.Parameter(dyngrad.ones(2)), dyngrad.nn.Parameter(dyngrad.zeros(2, 2))]
    v = dyngrad.nn.utils.parameters_to_vector(ps)
    assert v.shape == (6,)
    dyngrad.nn.utils.vector_to_parameters(dyngrad.arange(6.0), ps)
    np.testing.assert_array_equal(ps[1].detach().numpy(), [[2.0, 3.0], [4.0, 5.0]])


def test_vector_to_parameters_misuse_raises_and_updates_nothing() -> None:
    ps = [dyngrad.nn.Parameter(dyngrad.ones(2)), dyngrad.nn.Parameter(dyngrad.ones(2))]
    with pytest.raises(TypeError, match="expected a Tensor"):
        dyngrad.nn.utils.vector_to_parameters([1.0, 2.0, 3.0, 4.0], ps)
    with pytest.raises(RuntimeError, match="3 elements but the parameters hold 4"):
        dyngrad.nn.utils.vector_to_parameters(dyngrad.zeros(3), ps)
    assert all((p.detach().numpy() == 1.0).all() for p in ps)


@pytest.mark.parametrize("conv", [float, int])
def test_python_number_of_a_many_element_tensor_is_a_value_error(conv) -> None:
    with pytest.raises(ValueError, match="only one element tensors"):
        conv(dyngrad.tensor([1.0, 2.0]))
    assert conv(dyngrad.tensor([[3.0]])) == 3


def test_linear_refuses_mixed_dtypes_as_pytorch() -> None:
    w = dyngrad.ones(4, 3)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.linear(dyngrad.ones(2, 3, dtype=dyngrad.float64), w)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.linear(dyngrad.ones(2, 3), w, dyngrad.ones(4, dtype=dyngrad.float64))
    with pytest.raises(RuntimeError, match="same dtype"):
        dyngrad.nn.Linear(3, 4)(dyngrad.ones(2, 3, dtype=dyngrad.float64))


def test_save_writes_files_with_the_umask_mode(tmp_path) -> None:
    old = os.umask(0o022)
    try:
        path = tmp_path / "w.safetensors"
        dyngrad.save({"w": dyngrad.ones(3)}, path)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize("a, b, dtype, values", [
    (1.0, 0, dyngrad.float32, [1.0, 0.0]),
    (1, 0, dyngrad.int64, [1, 0]),
    (True, False, dyngrad.bool, [True, False]),
    (2.5, 1.0, dyngrad.float32, [2.5, 1.0]),
])
def test_where_with_two_python_scalars_promotes_as_pytorch(a, b, dtype, values) -> None:
    out = dyngrad.where(dyngrad.tensor([True, False]), a, b)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), values)


@pytest.mark.parametrize("call", [
    lambda: dyngrad.linalg.inv(dyngrad.zeros(2, 2)),
    lambda: dyngrad.linalg.solve(dyngrad.zeros(2, 2), dyngrad.ones(2)),
    lambda: dyngrad.linalg.cholesky(-dyngrad.eye(2)),
])
def test_linalg_failures_are_linalg_errors_as_pytorch(call) -> None:
    with pytest.raises(dyngrad.linalg.LinAlgError):
        call()
    assert issubclass(dyngrad.linalg.LinAlgError, RuntimeError)
