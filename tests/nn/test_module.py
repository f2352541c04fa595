"""Module API: registration, traversal, modes, state_dict, hooks, repr, conversions."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import dyngrad
import dyngrad.nn as nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
        self.scale = nn.Parameter(dyngrad.ones(1))
        self.register_buffer("steps", dyngrad.zeros(1))
        self.register_buffer("cache", dyngrad.zeros(2), persistent=False)
        self.plain = 5

    def forward(self, x: dyngrad.Tensor) -> dyngrad.Tensor:
        return self.block(self.act(self.fc1(x))) * self.scale


def test_attribute_assignment_registers_parameters_modules_and_buffers() -> None:
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale",
        "fc1.weight",
        "fc1.bias",
        "block.0.weight",
        "block.0.bias",
        "block.1.weight",
        "block.1.bias",
    ]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "block"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "block", "block.0", "block.1"]
    assert [n for n, _ in net.named_buffers()] == [
        "steps",
        "cache",
        "block.1.running_mean",
        "block.1.running_var",
        "block.1.num_batches_tracked",
    ]
    assert len(list(net.parameters())) == 7 and len(list(net.buffers())) == 5
    assert len(list(net.parameters(recurse=False))) == 1
    assert net.plain == 5 and "plain" not in net._parameters
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in net.parameters())


def test_shared_parameters_and_modules_are_listed_once() -> None:
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.modules())) == 2
    assert len(list(seq.named_modules(remove_duplicate=False))) == 3


def test_assigning_a_tensor_to_a_parameter_name_raises_type_error() -> None:
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        lin.weight = dyngrad.ones(2, 2)
    lin.bias = None
    assert lin.bias is None and "bias" in lin._parameters


def test_registration_misuse_raises() -> None:
    m = nn.Module()
    with pytest.raises(KeyError, match='contain "."'):
        m.register_buffer("a.b", dyngrad.zeros(1))
    with pytest.raises(TypeError, match="buffer 'x'"):
        m.register_buffer("x", [1, 2])
    with pytest.raises(TypeError, match="parameter 'p'"):
        m.register_parameter("p", dyngrad.zeros(1))
    m.x = 1
    with pytest.raises(KeyError, match="attribute 'x' already exists"):
        m.register_buffer("x", dyngrad.zeros(1))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("y", 3)

    class Early(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(dyngrad.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope  # noqa: B018


def test_forward_missing_raises_not_implemented() -> None:
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


def test_delattr_unregisters() -> None:
    net = Net()
    del net.fc1
    del net.steps
    assert "fc1" not in dict(net.named_children()) and "steps" not in dict(net.named_buffers())


def test_train_and_eval_set_the_flag_recursively() -> None:
    net = Net()
    assert net.training and net.block[1].training
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="boolean"):
        net.train("yes")


def test_zero_grad_sets_to_none_by_default_or_zeroes() -> None:
    net = Net()
    net(dyngrad.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_state_dict_holds_parameters_and_persistent_buffers_detached() -> None:
    net = Net()
    sd = net.state_dict()
    assert list(sd) == [
        "scale",
        "steps",
        "fc1.weight",
        "fc1.bias",
        "block.0.weight",
        "block.0.bias",
        "block.1.weight",
        "block.1.bias",
        "block.1.running_mean",
        "block.1.running_var",
        "block.1.num_batches_tracked",
    ]
    assert not sd["fc1.weight"].requires_grad
    assert np.shares_memory(sd["fc1.weight"].numpy(), net.fc1.weight._data)
    assert net.state_dict(keep_vars=True)["fc1.weight"] is net.fc1.weight


def test_state_dict_round_trip_copies_values() -> None:
    a, b = Net(), Net()
    a.steps._data[...] = 7
    res = b.load_state_dict(a.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
        assert not np.shares_memory(va.numpy(), vb.numpy())


def test_strict_load_names_every_missing_unexpected_and_mismatched_key() -> None:
    net = Net()
    sd = net.state_dict()
    del sd["fc1.bias"], sd["scale"]
    sd["extra"] = dyngrad.zeros(1)
    sd["block.0.weight"] = dyngrad.zeros(2, 2)
    with pytest.raises(RuntimeError) as e:
        net.load_state_dict(sd)
    msg = str(e.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "scale", "fc1.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "extra".' in msg
    assert (
        "size mismatch for block.0.weight: copying a param with shape dyngrad.Size([2, 2]) from checkpoint"
        in msg
    )


def test_non_strict_load_reports_keys_and_copies_the_rest() -> None:
    net = Net()
    sd = {"fc1.weight": dyngrad.ones(4, 3), "bogus": dyngrad.ones(1)}
    res = net.load_state_dict(sd, strict=False)
    assert res.unexpected_keys == ["bogus"]
    assert "fc1.bias" in res.missing_keys and "fc1.weight" not in res.missing_keys
    assert res == (res.missing_keys, res.unexpected_keys)
    np.testing.assert_array_equal(net.fc1.weight._data, np.ones((4, 3)))
    with pytest.raises(RuntimeError, match="size mismatch for fc1.weight"):  # as PyTorch, even non-strict
        net.load_state_dict({"fc1.weight": dyngrad.ones(3, 3)}, strict=False)


def test_failed_load_changes_nothing() -> None:
    net = Net()
    before = net.fc1.weight._data.copy()
    with pytest.raises(RuntimeError):
        net.load_state_dict({"fc1.weight": dyngrad.zeros(4, 3), "fc1.bias": dyngrad.zeros(7)}, strict=False)
    np.testing.assert_array_equal(net.fc1.weight._data, before)


def test_forward_pre_and_post_hooks_fire_modify_and_are_removable() -> None:
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: calls.append("pre") or (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append("post") or out + 1)
    out = lin(dyngrad.ones(1, 2))
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), lin.bias._data[None] + 1, rtol=1e-6)
    h1.remove()
    h2.remove()
    lin(dyngrad.ones(1, 2))
    assert calls == ["pre", "post"]


def test_full_backward_hook_sees_grad_input_and_grad_output_and_can_replace() -> None:
    lin = nn.Linear(3, 2)
    seen = {}

    def hook(m, gin, gout):
        seen["gin"], seen["gout"] = gin, gout
        return (gin[0] * 2,)

    h = lin.register_full_backward_hook(hook)
    x = dyngrad.randn(4, 3, requires_grad=True)
    lin(x).sum().backward()
    assert len(seen["gout"]) == 1 and seen["gout"][0].shape == (4, 2)
    np.testing.assert_allclose(seen["gout"][0].numpy(), np.ones((4, 2)))
    np.testing.assert_allclose(seen["gin"][0].numpy(), np.ones((4, 2)) @ lin.weight._data, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 2 * seen["gin"][0].numpy(), rtol=1e-6)
    h.remove()
    x.grad = None
    lin(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), seen["gin"][0].numpy(), rtol=1e-6)


def test_full_backward_hook_with_inputs_not_requiring_grad_gets_none() -> None:
    lin = nn.Linear(3, 2)
    seen = []
    lin.register_full_backward_hook(lambda m, gin, gout: seen.append((gin, gout)))
    lin(dyngrad.randn(4, 3)).sum().backward()
    assert len(seen) == 1 and seen[0][0] == (None,) and seen[0][1][0].shape == (4, 2)
    assert lin.weight.grad is not None


def test_full_backward_pre_hook_can_replace_grad_output() -> None:
    lin = nn.Linear(2, 2)
    lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 0,))
    lin(dyngrad.randn(3, 2)).sum().backward()
    assert not lin.weight.grad.numpy().any()


def test_apply_visits_children_before_parent() -> None:
    net = Net()
    order = []
    assert net.apply(lambda m: order.append(type(m).__name__)) is net
    assert order == ["Linear", "ReLU", "Linear", "BatchNorm1d", "Sequential", "Net"]


def test_to_double_converts_float_params_and_buffers_but_not_int_buffers() -> None:
    net = Net().double()
    assert all(p.dtype == dyngrad.float64 for p in net.parameters())
    assert net.block[1].running_mean.dtype == dyngrad.float64
    assert net.block[1].num_batches_tracked.dtype == dyngrad.int64
    out = net(dyngrad.randn(4, 3, dtype=dyngrad.float64))
    assert out.dtype == dyngrad.float64
    assert net.to(dyngrad.float32) is net and net.fc1.weight.dtype == dyngrad.float32
    assert isinstance(net.fc1.weight, nn.Parameter)
    with pytest.raises(RuntimeError, match="cuda"):
        net.to("cuda")
    with pytest.raises(TypeError, match="floating point"):
        net.to(dyngrad.int64)


def test_requires_grad_freezes_parameters() -> None:
    net = Net().requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_repr_matches_pytorch_layout() -> None:
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Sequential(nn.Linear(2, 3, bias=False)))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Linear(in_features=2, out_features=3, bias=False)\n"
        "  )\n"
        ")"
    )


def test_parameter_is_a_tensor_subclass_with_pytorch_repr() -> None:
    p = nn.Parameter(dyngrad.tensor([1.0, 2.0]))
    assert isinstance(p, dyngrad.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert type(p * 2) is dyngrad.Tensor
    assert not nn.Parameter(dyngrad.zeros(1), requires_grad=False).requires_grad
    assert not hasattr(p, "__dict__")
    t = dyngrad.zeros(3)
    assert np.shares_memory(nn.Parameter(t)._data, t._data)
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(dyngrad.tensor([1, 2]))


def test_deepcopy_of_a_module_copies_parameters() -> None:
    net = Net()
    cp = copy.deepcopy(net)
    assert isinstance(cp.fc1.weight, nn.Parameter)
    assert not np.shares_memory(cp.fc1.weight._data, net.fc1.weight._data)
    np.testing.assert_array_equal(cp.fc1.weight._data, net.fc1.weight._data)


def test_containers_index_slice_len_append() -> None:
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and isinstance(seq[1:], nn.Sequential)
    assert len(seq[1:]) == 2
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and isinstance(seq[3], nn.Sigmoid)
    assert seq(dyngrad.randn(5, 2)).shape == (5, 1)
    with pytest.raises(IndexError):
        seq[10]
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml.append(nn.Identity())
    assert len(ml) == 4 and len(list(ml.parameters())) == 6 and isinstance(ml[-1], nn.Identity)
    md = nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.ReLU()})
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(list(md.parameters())) == 2
    named = nn.Sequential(__import__("collections").OrderedDict(first=nn.Identity()))
    assert [n for n, _ in named.named_children()] == ["first"]


def test_forward_hooks_with_kwargs_see_and_replace_keyword_arguments() -> None:
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    seen = []
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 3.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: seen.append(kwargs) or out + 1, with_kwargs=True)
    out = m(dyngrad.ones(2), factor=2.0)
    np.testing.assert_array_equal(out.numpy(), [4.0, 4.0])
    assert seen == [{"factor": 3.0}]
    m2 = Scale()
    m2.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="new_args, new_kwargs"):
        m2(dyngrad.ones(2))


def test_assigning_a_buffer_object_registers_a_buffer() -> None:
    m = nn.Module()
    m.stats = nn.Buffer(dyngrad.zeros(3), persistent=False)
    m.count = nn.Buffer(dyngrad.zeros(()))
    assert [n for n, _ in m.named_buffers()] == ["stats", "count"]
    assert list(m.state_dict()) == ["count"]
    assert type(m.stats) is dyngrad.Tensor
    m.stats = dyngrad.ones(3)
    assert m._buffers["stats"] is m.stats
    with pytest.raises(TypeError, match="as buffer 'stats'"):
        m.stats = 3


def test_full_backward_hook_on_a_two_input_module_gets_one_grad_per_input() -> None:
    bil = nn.Bilinear(2, 3, 1)
    seen = []
    bil.register_full_backward_hook(lambda m, gin, gout: seen.append(gin))
    a = dyngrad.randn(4, 2, requires_grad=True)
    b = dyngrad.randn(4, 3)
    bil(a, b).sum().backward()
    (gin,) = seen
    assert len(gin) == 2 and gin[1] is None and gin[0].shape == (4, 2)
    np.testing.assert_allclose(gin[0].numpy(), a.grad.numpy())


def test_data_parallel_wraps_the_module_and_runs_it_on_the_whole_batch():
    inner = dyngrad.nn.Linear(2, 3)
    net = dyngrad.nn.DataParallel(inner, device_ids=[0])
    assert net.module is inner and net.device_ids == []
    assert list(net.state_dict()) == ["module.weight", "module.bias"]
    x = dyngrad.randn(4, 2)
    np.testing.assert_array_equal(net(x).detach().numpy(), inner(x).detach().numpy())
    net(x).sum().backward()
    assert inner.weight.grad is not None
    assert repr(net).startswith("DataParallel(\n  (module): Linear(")
