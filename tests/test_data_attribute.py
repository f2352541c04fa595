"""``Tensor.data`` as PyTorch defines it: a Tensor without history that shares memory with
its owner and has a version counter of its own; ``t.data = other`` swaps the memory.

The common ``.data`` idioms from PyTorch's docs, tutorials and forums, each with values that
are self-evident or committed here (tests/oracle/test_data_attribute_oracle.py runs the same
idioms against live PyTorch), then the version counter, the setter (weight surgery, then
training), misuse errors, and ``.data`` under the transforms.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
import dyngrad.autograd.forward_ad as fwAD
from dyngrad import nn
from dyngrad.func import grad, jvp, vmap


def _param(values):
    return nn.Parameter(dyngrad.tensor(np.asarray(values, dtype=np.float32)))


# ---------------------------------------------------------------- what .data is
def test_data_is_a_plain_tensor_without_history_sharing_memory():
    x = dyngrad.ones(3, requires_grad=True)
    y = x * 2
    d = y.data
    assert type(d) is dyngrad.Tensor
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    assert np.shares_memory(d.numpy(), y.detach().numpy())
    d[0] = 7.0
    assert y.detach().numpy().tolist() == [7.0, 2.0, 2.0]


def test_data_of_a_parameter_is_a_plain_tensor_not_a_parameter():
    p = _param([1.0, 2.0])
    assert type(p.data) is dyngrad.Tensor
    assert not isinstance(p.data, nn.Parameter)
    assert p.requires_grad  # untouched


def test_each_access_makes_a_new_tensor():
    x = dyngrad.ones(2)
    assert x.data is not x.data
    assert x.data.data_ptr() == x.data_ptr()


def test_data_of_a_view_is_not_a_view_but_shares_its_memory():
    base = dyngrad.arange(6.0)
    v = base[2:4]
    d = v.data
    assert d._base is None
    d.fill_(-1.0)
    assert base.tolist() == [0.0, 1.0, -1.0, -1.0, 4.0, 5.0]


def test_data_can_be_made_to_require_grad_without_touching_the_owner():
    x = dyngrad.ones(3)
    d = x.data.requires_grad_()
    assert d.requires_grad and d.is_leaf
    assert not x.requires_grad


def test_in_place_change_through_data_does_not_bump_the_owners_version():
    x = dyngrad.ones(3, requires_grad=True)
    with dyngrad.no_grad():
        x.add_(1)
    assert x._version == 1
    assert x.data._version == 0  # its own counter, starting at 0
    d = x.data
    d.mul_(2)
    assert d._version == 1
    assert x._version == 1
    assert x.tolist() == [4.0, 4.0, 4.0]


def test_data_mutation_after_saving_is_not_detected_as_in_pytorch():
    # (x * x) saves x; doubling x through .data is invisible to the version check, so the
    # gradient uses the new values: d(x*x)/dx = 2 * (3 * 1) = 6
    a = dyngrad.ones(3, requires_grad=True)
    x = a * 1
    s = (x * x).sum()
    x.data.mul_(3)
    s.backward()
    assert a.grad.tolist() == [6.0, 6.0, 6.0]


def test_the_same_mutation_through_no_grad_is_detected():
    a = dyngrad.ones(3, requires_grad=True)
    x = a * 1
    s = (x * x).sum()
    with dyngrad.no_grad():
        x.mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.backward()


def test_saved_output_keeps_its_values_when_data_is_replaced():
    # exp saves its output; replacing b's memory leaves the saved values alone: e**1
    a = dyngrad.ones(3, requires_grad=True)
    b = a.exp()
    b.data = dyngrad.full((3,), 5.0)
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full(3, np.e, dtype=np.float32), rtol=1e-6)


def test_saved_input_sees_the_new_data_as_in_pytorch():
    a = dyngrad.ones(3, requires_grad=True)
    b = a * a
    a.data = dyngrad.full((3,), 5.0)
    b.sum().backward()
    assert a.grad.tolist() == [10.0, 10.0, 10.0]


# ---------------------------------------------------------------- the common idioms
def test_idiom_zero_fill_copy_mul_on_parameter_data():
    p = _param([1.0, 2.0, 3.0])
    p.data.mul_(2)
    assert p.tolist() == [2.0, 4.0, 6.0]
    p.data.copy_(dyngrad.tensor([7.0, 8.0, 9.0]))
    assert p.tolist() == [7.0, 8.0, 9.0]
    p.data.fill_(0.5)
    assert p.tolist() == [0.5, 0.5, 0.5]
    p.data.zero_()
    assert p.tolist() == [0.0, 0.0, 0.0]
    assert p._version == 0 and p.requires_grad and p.is_leaf


def test_idiom_sgd_step_by_hand_through_data():
    p = _param([1.0, 2.0])
    (p * p).sum().backward()  # grad = 2p = [2, 4]
    p.data.add_(p.grad.data, alpha=-0.5)
    assert p.tolist() == [0.0, 0.0]
    q = _param([1.0, 2.0])
    (q * q).sum().backward()
    q.data -= 0.25 * q.grad.data
    assert q.tolist() == [0.5, 1.0]
    assert type(q) is nn.Parameter and q.requires_grad


def test_idiom_weight_clipping_and_grad_clamp():
    p = _param([-2.0, 0.005, 3.0])
    p.data.clamp_(-0.01, 0.01)
    assert p.tolist() == pytest.approx([-0.01, 0.005, 0.01])
    (p * dyngrad.tensor([5.0, -5.0, 0.5])).sum().backward()
    p.grad.data.clamp_(-1, 1)
    assert p.grad.tolist() == [1.0, -1.0, 0.5]


def test_idiom_dcgan_weights_init_normal_and_fill():
    dyngrad.manual_seed(0)
    m = nn.Linear(200, 300)
    m.weight.data.normal_(0.0, 0.02)
    m.bias.data.fill_(0)
    w = m.weight.detach().numpy()
    assert abs(w.mean()) < 0.002 and 0.019 < w.std() < 0.021
    assert m.bias.detach().numpy().tolist() == [0.0] * 300
    m.weight.data.uniform_(-0.1, 0.1)
    w = m.weight.detach().numpy()
    assert w.min() >= -0.1 and w.max() <= 0.1 and w.std() > 0.05


def test_idiom_argmax_of_scores_through_data_max():
    out = dyngrad.tensor([[0.1, 2.0, -1.0], [3.0, 0.0, 1.0]], requires_grad=True)
    values, idx = out.data.max(1)
    assert idx.tolist() == [1, 0]  # the indices, not the values
    assert values.tolist() == [2.0, 3.0]
    pred = out.data.max(1)[1]
    target = dyngrad.tensor([1, 2])
    assert (pred == target.data).sum().item() == 1
    assert pred.eq(target.data.view_as(pred)).sum().item() == 1


def test_idiom_std_and_var_through_data_are_unbiased():
    x = dyngrad.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 6.0]], requires_grad=True)
    # n - 1 in the denominator: var([1, 2, 3, 4]) = 5/3, var([2, 2, 2, 6]) = 4
    assert x.data.var(1).tolist() == pytest.approx([5 / 3, 4.0])
    assert x.data[0].std().item() == pytest.approx((5 / 3) ** 0.5)


def test_idiom_size_shape_and_dim_of_data():
    x = dyngrad.ones(2, 3, requires_grad=True)
    assert tuple(x.data.size()) == (2, 3)
    assert x.data.size(1) == 3
    assert tuple(x.data.shape) == (2, 3)
    assert x.data.dim() == 2
    assert callable(x.data.size)  # a method, not NumPy's element count


def test_idiom_norm_of_data_and_of_grad_data():
    p = _param([3.0, 4.0])
    assert p.data.norm().item() == pytest.approx(5.0)
    (p * p).sum().backward()
    assert p.grad.data.norm(2).item() == pytest.approx(10.0)


def test_idiom_clone_of_data_is_independent():
    p = _param([1.0, 2.0])
    c = p.data.clone()
    c.zero_()
    assert p.tolist() == [1.0, 2.0]
    assert not c.requires_grad


def test_idiom_numpy_and_cpu_numpy_of_data_of_a_tensor_that_requires_grad():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        x.numpy()
    a = x.data.numpy()
    assert isinstance(a, np.ndarray) and a.tolist() == [1.0, 2.0]
    assert x.data.cpu().numpy().tolist() == [1.0, 2.0]
    a[0] = 9.0  # the same memory
    assert x.tolist() == [9.0, 2.0]


def test_idiom_indexing_and_item_of_data():
    x = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert x.data[0].tolist() == [1.0, 2.0]
    assert x.data[1, 0].item() == 3.0
    x.data[0] = 0.0
    assert x.tolist() == [[0.0, 0.0], [3.0, 4.0]]
    loss = (x * x).sum()
    assert loss.data.item() == 25.0
    assert isinstance(loss.data.item(), float)


def test_idiom_soft_target_update_through_data():
    tau = 0.25
    target = _param([0.0, 4.0])
    source = _param([4.0, 0.0])
    target.data.copy_(tau * source.data + (1 - tau) * target.data)
    assert target.tolist() == [1.0, 3.0]


def test_idiom_fgsm_sign_of_grad_data():
    x = dyngrad.tensor([0.5, -0.5, 0.0], requires_grad=True)
    (x * dyngrad.tensor([2.0, 3.0, -1.0])).sum().backward()
    adv = x + 0.1 * x.grad.data.sign()
    assert adv.tolist() == pytest.approx([0.6, -0.4, -0.1])


def test_idiom_pretrained_embedding_copied_into_data():
    emb = nn.Embedding(3, 2)
    table = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    emb.weight.data.copy_(table)
    assert emb(dyngrad.tensor([2, 0])).tolist() == [[5.0, 6.0], [1.0, 2.0]]


def test_idiom_grad_data_zero_between_steps():
    p = _param([1.0])
    (3 * p).sum().backward()
    p.grad.data.zero_()
    (2 * p).sum().backward()
    assert p.grad.tolist() == [2.0]


def test_ctx_saved_tensors_data_in_a_custom_backward():
    class Scale(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a.data  # a Tensor: the usual ops apply

    a = dyngrad.full((3,), 3.0, requires_grad=True)
    Scale.apply(a).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0, 3.0]


# ---------------------------------------------------------------- the setter
def test_setting_data_swaps_memory_and_keeps_identity_and_autograd_state():
    x = dyngrad.ones(3, 4, requires_grad=True)
    with dyngrad.no_grad():
        x.add_(1)
    new = dyngrad.zeros(2)
    x.data = new
    assert tuple(x.shape) == (2,)
    assert x.requires_grad and x.is_leaf and x._version == 1
    new.add_(1)  # shared afterwards, as in PyTorch
    assert x.tolist() == [1.0, 1.0]


def test_setting_data_may_change_the_dtype():
    x = dyngrad.ones(3, requires_grad=True)
    x.data = dyngrad.ones(3, dtype=dyngrad.float64)
    assert x.dtype == dyngrad.float64 and x.requires_grad
    (x * 2).sum().backward()
    assert x.grad.dtype == dyngrad.float64
    y = dyngrad.arange(3)
    y.data = dyngrad.ones(3)
    assert y.dtype == dyngrad.float32


def test_setting_integer_data_on_a_tensor_that_requires_grad_raises():
    x = dyngrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="must be floating point or complex dtype"):
        x.data = dyngrad.ones(3, dtype=dyngrad.int64)
    assert x.dtype == dyngrad.float32


@pytest.mark.parametrize("value", [3, [1.0, 2.0], np.ones(3)], ids=["int", "list", "ndarray"])
def test_setting_data_to_a_non_tensor_raises_type_error(value):
    x = dyngrad.ones(3)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got"):
        x.data = value
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_deleting_data_raises():
    x = dyngrad.ones(3)
    with pytest.raises(RuntimeError, match="Deleting tensor data is not allowed"):
        del x.data


def test_views_made_before_setting_data_keep_the_old_memory():
    x = dyngrad.ones(4)
    v = x[:2]
    x.data = dyngrad.zeros(4)
    x.add_(1)
    assert v.tolist() == [1.0, 1.0] and x.tolist() == [1.0, 1.0, 1.0, 1.0]
    x.data = dyngrad.arange(6.0)
    w = x[1:3]
    w.mul_(10)
    assert x.tolist() == [0.0, 10.0, 20.0, 3.0, 4.0, 5.0]


def test_augmented_assignment_on_data_writes_through():
    x = dyngrad.ones(3, requires_grad=True)
    x.data *= 2  # x.data.__imul__ then x.data = (the same memory)
    x.data -= 1
    assert x.tolist() == [1.0, 1.0, 1.0] and x._version == 0


def test_pruning_a_linear_weight_then_training_with_sgd():
    # y = W x with W = [[1, 2, 3, 4]] pruned to its first two columns; loss = sum(y)
    lin = nn.Linear(4, 1, bias=False)
    lin.weight.data = dyngrad.tensor([[1.0, 2.0, 3.0, 4.0]])
    lin.weight.data = lin.weight.data[:, :2]
    opt = dyngrad.optim.SGD(lin.parameters(), lr=0.1)
    x = dyngrad.tensor([[1.0, 2.0]])
    for _ in range(3):
        opt.zero_grad()
        lin(x).sum().backward()
        assert tuple(lin.weight.grad.shape) == (1, 2)
        opt.step()
    # each step subtracts 0.1 * x
    assert lin.weight.tolist()[0] == pytest.approx([1.0 - 0.3, 2.0 - 0.6])


def test_pruning_after_steps_with_optimizer_state_raises_a_clear_error():
    lin = nn.Linear(4, 3)
    opt = dyngrad.optim.Adam(lin.parameters(), lr=0.1)
    lin(dyngrad.ones(2, 4)).sum().backward()
    opt.step()
    opt.zero_grad()
    lin.weight.data = lin.weight.data[:, :2]
    lin.weight.sum().backward()
    with pytest.raises(
        RuntimeError, match=r"The size of tensor a \(4\) must match .* Adam state of shape \[3, 4\]"
    ):
        opt.step()
    del opt.state[lin.weight]  # the way out the message names
    opt.step()
    assert tuple(lin.weight.shape) == (3, 2)


def test_a_grad_of_the_old_shape_cannot_take_a_gradient_of_the_new_one():
    x = dyngrad.ones(1, requires_grad=True)
    (x * 2).sum().backward()
    x.data = dyngrad.ones(3)
    with pytest.raises(RuntimeError, match=r"cannot be accumulated into the .grad of shape \[1\]"):
        (x * 2).sum().backward()
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_optimizer_step_with_a_grad_of_the_old_shape_raises():
    p = _param([1.0, 2.0, 3.0])
    opt = dyngrad.optim.SGD([p], lr=0.1)
    p.sum().backward()
    p.data = p.data[:1]
    with pytest.raises(RuntimeError, match=r"has its .grad of shape \[3\]"):
        opt.step()


def test_setting_data_on_a_non_leaf_keeps_its_history():
    a = dyngrad.ones(3, requires_grad=True)
    y = a * 2
    y.data = dyngrad.zeros(3)
    assert y.grad_fn is not None and y.tolist() == [0.0, 0.0, 0.0]
    y.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


# ---------------------------------------------------------------- under the transforms
def test_data_inside_vmap_runs_once_per_example_with_a_warning():
    xs = dyngrad.arange(6.0).reshape(3, 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = vmap(lambda x: x.data * 2 + x)(xs)
    assert out.tolist() == (xs * 3).tolist()
    assert any(".data on a batched tensor" in str(m.message) for m in w)


def test_setting_data_to_a_batched_tensor_raises():
    def f(x):
        y = dyngrad.zeros(2)
        y.data = x
        return y

    with pytest.raises(RuntimeError, match="mutating directly with `.data` under vmap"):
        vmap(f)(dyngrad.ones(3, 2))


def test_data_is_detached_inside_grad_and_jvp():
    x = dyngrad.full((3,), 3.0)
    assert grad(lambda x: (x.data * x).sum())(x).tolist() == [3.0, 3.0, 3.0]
    primal, tangent = jvp(lambda x: x.data * x, (x,), (dyngrad.ones(3),))
    assert primal.tolist() == [9.0, 9.0, 9.0] and tangent.tolist() == [3.0, 3.0, 3.0]


def test_data_of_a_dual_tensor_has_no_tangent_and_setting_it_keeps_the_tangent():
    with fwAD.dual_level():
        d = fwAD.make_dual(dyngrad.ones(3), dyngrad.full((3,), 2.0))
        assert fwAD.unpack_dual(d.data).tangent is None
        assert fwAD.unpack_dual(d * 1).tangent.tolist() == [2.0, 2.0, 2.0]
        src = dyngrad.full((3,), 4.0)
        d.data = src
        primal, tangent = fwAD.unpack_dual(d * 3)
        assert primal.tolist() == [12.0, 12.0, 12.0] and tangent.tolist() == [6.0, 6.0, 6.0]
        assert fwAD.unpack_dual(src).tangent is None
        with pytest.raises(RuntimeError, match="of another shape"):
            d.data = dyngrad.zeros(2)
        assert tuple(d.shape) == (3,) and fwAD.unpack_dual(d).tangent.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("old, new", [((3, 10), (3, 5)), ((1, 10), (3, 10)), ((3, 10), (1, 10))])
def test_a_shape_change_while_an_old_graph_is_alive_gives_the_gradient_of_the_new_shape(old, new):
    # PyTorch 2.13 keeps the leaf's stale accumulator here: it rejects the first and last
    # cases ("returned an invalid gradient") and gives a [1, 10] .grad to a [3, 10] weight
    # in the middle one. dyngrad checks a gradient against what the new graph recorded.
    x = dyngrad.tensor(np.arange(20.0, dtype=np.float32).reshape(2, 10) / 10)
    w = dyngrad.zeros(*old, requires_grad=True)
    loss = (x[:, : old[1]] @ w.t()).sum()
    loss.backward()  # (loss, and the graph's nodes, stay alive)
    w.grad = None
    w.data = dyngrad.zeros(*new)
    (x[:, : new[1]] @ w.t()).sum().backward()
    # d/dW sum(x @ W.T) = every row of W gets the column sums of x
    expected = np.broadcast_to(x[:, : new[1]].sum(0).numpy(), new)
    assert tuple(w.grad.shape) == new
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-6)
    assert loss.grad_fn is not None


def test_a_dtype_change_while_an_old_graph_is_alive_accumulates_in_the_new_dtype():
    w = dyngrad.ones(3, requires_grad=True)
    loss = (w * 2).sum()
    loss.backward()
    w.grad = None
    w.data = dyngrad.ones(3, dtype=dyngrad.float64)
    (w * 3).sum().backward()
    assert w.grad.dtype == dyngrad.float64 and w.grad.tolist() == [3.0, 3.0, 3.0]
    assert loss.grad_fn is not None


def test_pytorchs_own_version_counter_test_passes():
    # test_autograd.py::test_version_counter of PyTorch: `x.data = y` keeps x's counter,
    # which x still shares with its views
    x = dyngrad.randn(1, 2)
    saved = x._version
    x.add_(1).add_(1)
    assert x._version > saved
    xz = x[:]
    assert x._version == xz._version
    xz.add_(1)
    assert x._version == xz._version
    saved = x._version
    x.data = dyngrad.randn(2, 3)
    assert x._version == saved
    x.add_(1)
    assert x._version > saved
    assert x._version == xz._version
    xz.add_(1)
    assert x._version == xz._version


def test_setting_data_keeps_the_python_object():
    # test_autograd.py::test_set_data_preserve_pyobj of PyTorch
    a, b = dyngrad.randn(1, 2), dyngrad.randn(1, 2)
    before = id(b)
    b.data = a
    assert id(b) == before
    assert b.data_ptr() == a.data_ptr()
