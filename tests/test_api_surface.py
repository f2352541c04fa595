"""Small PyTorch names scripts reach for (issue 12): legacy constructors, ``torch.Size``,
``torch.functional``, the profiler faces, ``cuda.empty_cache``, saved-tensor introspection,
``save_on_cpu``/``increment_version``, GradientEdge inputs, ``register_backward_hook`` and the
edge order of reflected operators. Live comparisons: tests/oracle/test_api_surface_oracle.py."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import dyngrad as torch
from dyngrad.autograd.graph import get_gradient_edge, increment_version, save_on_cpu


def test_the_legacy_constructor_casts_data_to_the_default_dtype_and_reads_ints_as_a_shape():
    assert torch.Tensor([1, 2]).dtype == torch.float32
    assert torch.Tensor(np.array([1, 2], dtype=np.int64)).dtype == torch.float32
    z = torch.Tensor(2, 3)
    assert z.shape == (2, 3) and z.dtype == torch.float32 and not z.any()
    assert torch.Tensor().shape == (0,)
    assert torch.Tensor(torch.Size([4])).shape == (4,)
    assert torch.Tensor((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data, as PyTorch
    with pytest.raises(TypeError, match="must be a sequence"):
        torch.Tensor(2.0)


def test_tensor_of_a_tensor_aliases_its_storage_and_version_counter():
    t = torch.ones(2, dtype=torch.float64)
    u = torch.Tensor(t)
    assert u.dtype == torch.float64
    t.add_(1)
    assert u.tolist() == [2.0, 2.0] and u._version == t._version


def test_typed_constructors_cast_and_isinstance_checks_the_dtype():
    assert torch.LongTensor([1.7, -2.2]).tolist() == [1, -2]
    assert torch.BoolTensor([0, 2]).tolist() == [False, True]
    assert torch.DoubleTensor(3).dtype == torch.float64 and torch.DoubleTensor(3).shape == (3,)
    assert torch.IntTensor([1]).dtype == torch.int32
    assert isinstance(torch.ones(2), torch.FloatTensor)
    assert not isinstance(torch.ones(2, dtype=torch.float64), torch.FloatTensor)
    assert isinstance(torch.zeros(2, dtype=torch.int64), torch.LongTensor)
    assert torch.ones(2).type(torch.DoubleTensor).dtype == torch.float64


def test_tensor_new_keeps_the_dtype_and_refuses_another_dtype():
    x = torch.zeros(2, dtype=torch.float64)
    assert x.new([1, 2]).dtype == torch.float64
    assert x.new(2, 3).shape == (2, 3) and x.new().shape == (0,)
    assert not x.new([1.0]).requires_grad
    with pytest.raises(TypeError, match="expected"):
        x.new(torch.ones(2))


def test_shape_and_size_are_torch_size_which_is_a_tuple():
    x = torch.zeros(2, 3)
    assert type(x.shape) is torch.Size and type(x.size()) is torch.Size
    assert x.shape == (2, 3) and isinstance(x.shape, tuple)
    assert x.shape.numel() == 6 and x.shape + (4,) == (2, 3, 4) and type(x.shape + (4,)) is torch.Size
    assert repr(x.shape) == "dyngrad.Size([2, 3])"
    assert pickle.loads(pickle.dumps(x.shape)) == x.shape
    assert np.zeros(x.shape).shape == (2, 3)


def test_cuda_empty_cache_and_memory_queries_are_no_ops():
    assert torch.cuda.empty_cache() is None
    assert torch.cuda.memory_allocated() == 0


def test_torch_functional_holds_the_composites_and_reexports():
    from dyngrad import functional as F

    assert F.einsum is torch.einsum and F.meshgrid is torch.meshgrid
    bd = torch.block_diag(torch.ones(1, 2), torch.tensor([3.0]), torch.tensor(4.0))
    assert bd.tolist() == [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 4.0]]
    cp = torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([5, 6]))
    assert cp.tolist() == [[1, 5], [1, 6], [2, 5], [2, 6]]
    assert torch.atleast_3d(torch.ones(4)).shape == (1, 4, 1)
    assert torch.atleast_2d(torch.tensor(1.0), torch.ones(2))[1].shape == (1, 2)
    assert torch.broadcast_shapes((2, 1), (3,)) == (2, 3)
    a, b = torch.broadcast_tensors(torch.ones(2, 1), torch.zeros(3))
    assert a.shape == b.shape == (2, 3)
    assert [t.tolist() for t in torch.unravel_index(torch.tensor([5, -1]), (2, 3))] == [[1, 1], [2, 2]]
    x1, x2 = np.random.default_rng(0).standard_normal((2, 4, 3))
    d = torch.cdist(torch.tensor(x1), torch.tensor(x2))
    np.testing.assert_allclose(d.numpy(), np.linalg.norm(x1[:, None] - x2[None], axis=-1))
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        assert torch.chain_matmul(torch.eye(2), torch.ones(2, 2)).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_block_diag_promotes_and_cartesian_prod_checks_its_inputs_as_torch():
    # torch 2.13: result_type of the inputs (int64 and float32 give float32; dyngrad gave float64)
    bd = torch.block_diag(torch.tensor([[1, 2], [3, 4]]), torch.tensor([5.0]), torch.tensor(6))
    assert bd.dtype == torch.float32 and bd.shape == (4, 4)
    assert torch.block_diag(torch.ones(1, 1), torch.tensor(1.5, dtype=torch.float64)).dtype == torch.float32
    with pytest.raises(RuntimeError, match="Input 0 has 3 dimensions"):
        torch.block_diag(torch.ones(2, 2, 2))
    for bad in ((torch.ones(2, 2),), (torch.tensor(1), torch.ones(2))):  # torch: 1-d inputs only
        with pytest.raises(RuntimeError, match="Expect a 1D vector"):
            torch.cartesian_prod(*bad)
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3.0]))


def test_profiler_key_averages_table_and_record_function_rows():
    from dyngrad.profiler import ProfilerActivity, profile, record_function

    m = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            m(x).sum().backward()
    rows = {r.key: r for r in prof.key_averages()}
    # (nn.Linear records PyTorch's addmm of the bias, the input and weight.t())
    assert rows["model_inference"].count == 1 and rows["Addmm"].count == 1
    assert rows["model_inference"].cpu_time_total >= rows["Addmm"].cpu_time_total
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=10)
    assert "model_inference" in table and "Addmm" in table
    assert "Addmm" in prof.key_averages().table(sort_by="cuda_time_total")  # accepted: no device time
    with torch.autograd.profiler.profile() as p2:
        m(x)
    assert "Addmm" in p2.key_averages().table()


def test_profiler_schedule_calls_on_trace_ready_at_the_end_of_each_active_cycle():
    from dyngrad.profiler import ProfilerAction, profile, schedule

    s = schedule(wait=1, warmup=1, active=2, repeat=1)
    assert [s(i) for i in range(5)] == [ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD,
                                        ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE]
    seen = []
    with profile(schedule=s, on_trace_ready=seen.append) as prof:
        for _ in range(5):
            torch.ones(2).exp()
            prof.step()
    assert seen == [prof]


def test_record_function_is_a_no_op_without_a_profile_and_works_as_a_decorator():
    from dyngrad.profiler import profile, record_function

    @record_function("step")
    def step():
        return torch.ones(2).exp()

    assert step().shape == (2,)
    with profile() as prof:
        step()
    assert any(r.key == "step" for r in prof.key_averages())


def test_saved_tensor_introspection_uses_pytorchs_names():
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    fn = (a * b).grad_fn
    assert fn._saved_self is a and fn._saved_other is b
    raw = fn._raw_saved_self
    assert type(raw).__name__ == "SavedTensor"
    y = a.exp()
    assert torch.equal(y.grad_fn._saved_result, y)
    # a * 2: the other operand is a number; self is not needed for the gradient asked
    fn2 = (a * 2).grad_fn
    assert fn2._saved_other == 2 and fn2._saved_self is None
    with pytest.raises(AttributeError, match="_saved_nope"):
        _ = fn._saved_nope


def test_reflected_add_and_mul_record_the_tensor_as_the_first_edge():
    b = torch.randn(3, requires_grad=True)
    for y in (2 * b, 2 + b):
        first, second = y.grad_fn.next_functions
        assert first[0] is get_gradient_edge(b).node and second == (None, 0)
    np.testing.assert_array_equal((2 * b).detach().numpy(), (b * 2).detach().numpy())


def test_save_on_cpu_keeps_gradients_exact():
    x = torch.randn(4, requires_grad=True, dtype=torch.float64)
    with save_on_cpu(pin_memory=True):
        y = (x.exp() * x).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), (np.exp(x.detach().numpy()) * (1 + x.detach().numpy())))


def test_increment_version_makes_a_saved_tensor_fail_its_version_check():
    b = torch.randn(3, requires_grad=True)
    c = b * b
    v = b._version
    increment_version(b)
    assert b._version == v + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.sum().backward()
    increment_version([b, b])
    assert b._version == v + 3


def test_gradient_edges_are_accepted_as_inputs_of_grad_and_backward():
    x = torch.randn(3, requires_grad=True, dtype=torch.float64)
    y = x * 2
    z = (y**2).sum()
    (gy,) = torch.autograd.grad(z, get_gradient_edge(y), retain_graph=True)
    np.testing.assert_allclose(gy.numpy(), 2 * y.detach().numpy())
    gx, gx2 = torch.autograd.grad(z, [get_gradient_edge(x), x], retain_graph=True)
    np.testing.assert_allclose(gx.numpy(), 8 * x.detach().numpy())
    np.testing.assert_array_equal(gx.numpy(), gx2.numpy())
    z.backward(inputs=[get_gradient_edge(x)], retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), 8 * x.detach().numpy())
    # a non-leaf edge stops the pass there and its gradient goes nowhere visible, as PyTorch
    before = x.grad.clone()
    z.backward(inputs=[get_gradient_edge(y)])
    assert torch.equal(x.grad, before)
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None


def test_register_backward_hook_sees_the_output_nodes_gradients_and_warns_as_pytorch():
    m = torch.nn.Linear(3, 2)
    seen = []
    m.register_backward_hook(lambda mod, gi, go: seen.append((mod, gi, go)))
    x = torch.randn(4, 3, requires_grad=True)
    with pytest.warns(FutureWarning, match="non-full backward hook"):
        out = m(x)
    out.sum().backward()
    (mod, gi, go), = seen
    assert mod is m and len(go) == 1 and go[0].shape == (4, 2)
    assert any(g is not None and g.shape == (4, 3) for g in gi)


def test_register_backward_hook_can_replace_the_gradient_and_its_handle_removes_it():
    m = torch.nn.ReLU()
    x = torch.randn(5, requires_grad=True)
    h = m.register_backward_hook(lambda mod, gi, go: tuple(g * 0 if g is not None else None for g in gi))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        m(x * 1).sum().backward()
    assert not x.grad.any()
    h.remove()
    x.grad = None
    m(x * 1).sum().backward()
    assert x.grad.any() or not (x > 0).any()


def test_out_keyword_writes_into_out_and_returns_it():
    a, b = torch.ones(2, 3), torch.full((2, 3), 2.0)
    o = torch.empty(2, 3)
    v = o._version
    assert torch.add(a, b, out=o) is o and o.tolist() == [[3.0] * 3] * 2 and o._version == v + 1
    e = torch.empty(0)
    assert torch.cat([a, b], out=e).shape == (4, 3)  # an empty out is resized silently
    with pytest.warns(UserWarning, match="was resized"):
        torch.mul(a, 2, out=torch.zeros(5))
    s = torch.empty(2)
    torch.sum(a, 1, out=s)
    assert s.tolist() == [3.0, 3.0]
    i = torch.zeros(2, 3, dtype=torch.int64)
    torch.floor(b, out=torch.empty(2, 3))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.add(a, b, out=i)


def test_out_keyword_refuses_arguments_that_require_grad_as_pytorch():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        torch.exp(x, out=torch.empty(2))
    with torch.no_grad():
        assert torch.exp(x, out=torch.empty(2)).tolist() == pytest.approx([np.e, np.e])


def test_flip_takes_dims_as_a_keyword():
    x = torch.arange(6).reshape(2, 3)
    assert torch.flip(x, dims=(0,)).tolist() == [[3, 4, 5], [0, 1, 2]]
    assert x.flip(dims=[0, 1]).tolist() == x.flip(0, 1).tolist()
    with pytest.raises(TypeError):
        x.flip(0, dims=(1,))


def test_meta_tensors_keep_shape_and_dtype_refuse_values_and_views_stay_meta():
    t = torch.randn(2, 3, dtype=torch.float64).to("meta")
    assert t.device == "meta" and t.is_meta and t.shape == (2, 3) and t.dtype == torch.float64
    assert t.reshape(3, 2).device == "meta" and t.T.shape == (3, 2) and t[0].device == "meta"
    assert repr(t) == "tensor(..., device='meta', size=(2, 3), dtype=dyngrad.float64)"
    with pytest.raises(NotImplementedError, match="'meta' device"):
        t + 1
    with pytest.raises(NotImplementedError, match="'meta' device"):
        t.sum()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        t.to("cpu")
    assert not torch.randn(2).is_meta and torch.randn(2).device == "cpu"
    made = torch.zeros(2, device="meta")  # creation on meta: shape-only too (tests/ops/test_api12.py)
    assert made.is_meta and made.shape == (2,)


def test_model_ensembling_with_a_meta_copy_of_the_model_as_in_pytorchs_tutorial():
    import copy

    from dyngrad.func import functional_call, stack_module_state, vmap

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = torch.nn.Linear(4, 8), torch.nn.Linear(8, 2)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    models = [MLP() for _ in range(3)]
    x = torch.randn(5, 4)
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert all(p.device == "meta" for p in base.parameters())
    assert all(p.device == "cpu" for p in models[0].parameters())  # the deep copy was moved, not the model

    def fmodel(p, b, x):
        return functional_call(base, (p, b), (x,))

    pred = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    np.testing.assert_allclose(pred.detach().numpy(), torch.stack([m(x) for m in models]).detach().numpy(),
                               rtol=1e-6)
    with pytest.raises(NotImplementedError, match="'meta' device"):
        base(x)
