"""``backward()`` / ``autograd.backward()`` / ``autograd.grad()``: argument checking."""

import numpy as np
import pytest

import dyngrad


def leaf(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return dyngrad.tensor(rng.standard_normal(shape), dtype=dyngrad.float64, requires_grad=True)


def test_backward_on_a_tensor_that_does_not_require_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        dyngrad.ones(1).backward()


def test_backward_on_a_result_computed_under_no_grad_raises():
    x = leaf(1)
    with dyngrad.no_grad():
        y = x * 2
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


def test_implicit_grad_for_a_non_scalar_output_raises_naming_the_shape():
    x = leaf(2, 3)
    with pytest.raises(RuntimeError, match=r"implicitly created only for scalar outputs.*\[2, 3\]"):
        (x * 2).backward()


def test_implicit_grad_works_for_one_element_outputs_of_any_rank():
    x = leaf(1, 1)
    (x * 2).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[2.0]])


def test_backward_gradient_of_the_wrong_shape_raises():
    x = leaf(3)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape.*\[2\].*\[3\]"):
        (x * 2).backward(dyngrad.ones(2, dtype=dyngrad.float64))


def test_backward_gradient_of_the_wrong_kind_of_dtype_raises():
    x = leaf(3)
    with pytest.raises(RuntimeError, match="dtype"):
        (x * 2).backward(dyngrad.ones(3, dtype=dyngrad.int64))


def test_backward_gradient_as_a_python_number_is_a_type_error_as_in_pytorch():
    x = leaf(1)
    with pytest.raises(TypeError, match="float"):
        (x * 2).sum().backward(3.0)


def test_grad_tensors_may_hold_python_numbers():
    x = leaf(1)
    dyngrad.autograd.backward([(x * 2).sum()], [3.0])
    np.testing.assert_allclose(x.grad.numpy(), [6.0])


def test_backward_gradient_given_as_a_list_is_refused():
    x = leaf(2)
    with pytest.raises(RuntimeError, match="2 elements but there are 1 outputs"):
        (x * 2).backward([1.0, 1.0])


def test_grad_tensors_of_a_non_tensor_type_raise_type_error():
    x = leaf(2)
    with pytest.raises(TypeError, match="str"):
        dyngrad.autograd.backward([x * 2], ["ones"])


def test_wrong_number_of_grad_tensors_raises():
    x = leaf(2)
    with pytest.raises(RuntimeError, match="2 elements but there are 1 outputs"):
        dyngrad.autograd.backward([(x * 2).sum()], [None, None])


def test_backward_of_a_leaf_accumulates_the_seed_into_it():
    x = leaf(2)
    x.backward(dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0])


def test_grad_with_an_input_that_does_not_require_grad_raises():
    x = leaf(2)
    c = dyngrad.ones(2)
    with pytest.raises(RuntimeError, match=r"inputs\[1\]\) does not require grad"):
        dyngrad.autograd.grad((x * 2).sum(), [x, c])


def test_grad_with_non_tensor_inputs_raises_type_error():
    x = leaf(2)
    with pytest.raises(TypeError, match="inputs"):
        dyngrad.autograd.grad((x * 2).sum(), [x, 3.0])


def test_grad_requires_non_empty_inputs():
    x = leaf(2)
    with pytest.raises(RuntimeError, match="non-empty inputs"):
        dyngrad.autograd.grad((x * 2).sum(), [])


def test_grad_of_non_tensor_outputs_raises_type_error():
    x = leaf(2)
    with pytest.raises(TypeError, match="float"):
        dyngrad.autograd.grad(3.0, x)


def test_grad_batched_needs_grad_outputs_with_a_batch_dim():
    x = leaf(2)
    with pytest.raises(RuntimeError, match="is_grads_batched=True.*batch dim 0"):
        dyngrad.autograd.grad((x * 2).sum(), x, is_grads_batched=True)
    (g,) = dyngrad.autograd.grad(x * 3, x, dyngrad.eye(2, dtype=dyngrad.float64), is_grads_batched=True)
    assert g.tolist() == [[3.0, 0.0], [0.0, 3.0]]


def test_grad_variables_is_an_alias_of_grad_tensors():
    x = leaf(2)
    dyngrad.autograd.backward(x * 2, grad_variables=dyngrad.ones(2, dtype=dyngrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_retain_graph_defaults_to_create_graph():
    x = leaf(2)
    y = (x.exp() * 2).sum()
    dyngrad.autograd.grad(y, x, create_graph=True)
    (g,) = dyngrad.autograd.grad(y, x)  # graph retained by the create_graph pass
    np.testing.assert_allclose(g.numpy(), 2 * np.exp(x.detach().numpy()))
    with pytest.raises(RuntimeError, match="second time"):
        dyngrad.autograd.grad(y, x)


def test_materialized_zeros_require_grad_under_create_graph_so_a_third_derivative_is_zero():
    x = leaf(3)
    u = leaf(2, seed=1)
    y = (3 * x).sum()
    gx, gu = dyngrad.autograd.grad(y, (x, u), create_graph=True, materialize_grads=True)
    assert gu.requires_grad and gu.is_leaf  # torch: zeros_like(u, requires_grad=True)
    (g2,) = dyngrad.autograd.grad(gu.sum(), u, create_graph=True, materialize_grads=True)
    (g3,) = dyngrad.autograd.grad(g2.sum(), u, materialize_grads=True)
    np.testing.assert_array_equal(g3.numpy(), [0, 0])  # torch: [0., 0.]
    (gu2,) = dyngrad.autograd.grad(y, u, allow_unused=True, materialize_grads=True)
    assert not gu2.requires_grad  # without create_graph: plain zeros (torch: the same)
