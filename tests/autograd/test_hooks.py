"""Hooks and graph inspection: tensor hooks, post-accumulate hooks, node pre/post hooks,
multi-grad hooks, saved-tensor hooks, gradient edges, ``_saved_*`` access and the
saved-tensor ledger."""

import numpy as np
import pytest

import dyngrad as torch
from dyngrad.autograd import graph
from dyngrad.autograd.graph import (
    GradientEdge,
    disable_saved_tensors_hooks,
    get_gradient_edge,
    register_multi_grad_hook,
    saved_tensor_report,
    saved_tensors_hooks,
)
from tests.autograd import fn_examples as E


def _leaf(*vals):
    return torch.tensor(list(vals), dtype=torch.float64, requires_grad=True)


# ---------------------------------------------------------------------- tensor hooks


def test_tensor_hook_sees_and_replaces_the_gradient_of_a_leaf_and_a_non_leaf():
    x = _leaf(1.0, 2.0)
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    x.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    assert seen == [[6.0, 12.0]]
    assert x.grad.tolist() == [180.0, 360.0]


def test_tensor_hooks_run_in_registration_order_and_handles_remove_them():
    x = _leaf(1.0)
    order = []
    h1 = x.register_hook(lambda g: order.append(1))
    x.register_hook(lambda g: order.append(2))
    (x * 2).sum().backward()
    h1.remove()
    h1.remove()  # idempotent
    (x * 2).sum().backward()
    assert order == [1, 2, 2]


def test_hook_handle_is_a_context_manager():
    x = _leaf(1.0)
    calls = []
    with x.register_hook(lambda g: calls.append(g)):
        (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert len(calls) == 1


def test_register_hook_on_a_tensor_without_grad_raises():
    with pytest.raises(RuntimeError):
        torch.tensor([1.0]).register_hook(lambda g: g)


def test_post_accumulate_grad_hook_runs_after_grad_is_stored():
    x = _leaf(1.0, 2.0)
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, t.grad.tolist())))
    (x * x).sum().backward()
    (x * x).sum().backward()
    assert seen == [(True, [2.0, 4.0]), (True, [4.0, 8.0])]


def test_post_accumulate_grad_hook_not_called_by_autograd_grad():
    x = _leaf(1.0)
    calls = []
    x.register_post_accumulate_grad_hook(lambda t: calls.append(1))
    torch.autograd.grad((x * 2).sum(), x)
    assert calls == [] and x.grad is None


# ---------------------------------------------------------------------- node hooks


def test_node_post_hook_gets_grad_inputs_and_outputs_and_can_replace_them():
    x = _leaf(1.0, 2.0)
    y = x * 3
    seen = []

    def hook(grad_inputs, grad_outputs):
        seen.append(([g.tolist() for g in grad_inputs if g is not None], [g.tolist() for g in grad_outputs]))
        return tuple(None if g is None else g * 0 + 7 for g in grad_inputs)

    h = y.grad_fn.register_hook(hook)
    y.sum().backward(retain_graph=True)
    assert seen == [([[3.0, 3.0]], [[1.0, 1.0]])]
    assert x.grad.tolist() == [7.0, 7.0]
    h.remove()
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_node_prehook_can_replace_grad_outputs():
    x = _leaf(1.0, 2.0)
    y = x * 3
    y.grad_fn.register_prehook(lambda gos: (gos[0] * 2,))
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_prehook_on_accumulate_grad_node_changes_the_leaf_gradient():
    x = _leaf(1.0)
    acc = get_gradient_edge(x).node
    acc.register_prehook(lambda gos: (gos[0] + 1,))
    (x * 2).sum().backward()
    assert x.grad.tolist() == [3.0]


def test_non_callable_hook_is_rejected():
    x = _leaf(1.0)
    with pytest.raises(TypeError, match="callable"):
        (x * 2).grad_fn.register_hook(42)


# ---------------------------------------------------------------------- multi-grad hooks


def test_multi_grad_hook_all_gets_every_gradient_once_per_pass():
    a, b = _leaf(1.0), _leaf(2.0)
    calls = []
    register_multi_grad_hook((a, b), lambda grads: calls.append([g.tolist() for g in grads]))
    (a * b).sum().backward()
    (a * 3 + b).sum().backward()
    assert calls == [[[2.0], [1.0]], [[3.0], [1.0]]]


def test_multi_grad_hook_all_with_a_tensor_outside_the_pass_gets_none():
    a, b = _leaf(1.0), _leaf(2.0)
    calls = []
    register_multi_grad_hook((a, b), lambda grads: calls.append(grads))
    torch.autograd.grad((a * 2).sum(), a)
    assert len(calls) == 1 and calls[0][0].tolist() == [2.0] and calls[0][1] is None


def test_multi_grad_hook_any_fires_once_and_remove_unregisters():
    a, b = _leaf(1.0), _leaf(2.0)
    calls = []
    h = register_multi_grad_hook((a, b), lambda g: calls.append(g.tolist()), mode="any")
    (a * b).sum().backward()
    assert len(calls) == 1
    h.remove()
    (a * b).sum().backward()
    assert len(calls) == 1
    with pytest.raises(ValueError, match="mode"):
        register_multi_grad_hook((a,), print, mode="some")


# ---------------------------------------------------------------------- saved tensor hooks


def test_saved_tensors_hooks_pack_at_save_and_unpack_at_backward():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return ("box", t._data.copy())

    def unpack(p):
        unpacked.append(p[0])
        return torch.from_numpy(p[1])

    x = _leaf(1.0, 2.0)
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()
    assert packed == [(2,), (2,)]
    assert unpacked == []
    y.backward()
    assert unpacked == ["box", "box"]
    assert x.grad.tolist() == [2.0, 4.0]


def test_saved_tensors_hooks_nest_innermost_wins_and_restore():
    log = []
    x = _leaf(1.0)
    with saved_tensors_hooks(lambda t: log.append("outer") or t, lambda p: p):
        with saved_tensors_hooks(lambda t: log.append("inner") or t, lambda p: p):
            x.exp()
        x.exp()
    x.exp()
    assert log == ["inner", "outer"]


def test_saved_tensors_hooks_see_a_custom_functions_saved_tensors():
    seen = []
    x = _leaf(0.5, -1.0)
    with saved_tensors_hooks(lambda t: seen.append(t.shape) or t, lambda p: p):
        y = E.SwishFunction.apply(x, 2.0)
    y.sum().backward()
    assert seen == [(2,)]
    assert x.grad is not None


def test_disable_saved_tensors_hooks_raises_with_the_message_and_restores():
    with disable_saved_tensors_hooks("no hooks in here"):
        with pytest.raises(RuntimeError, match="no hooks in here"):
            with saved_tensors_hooks(lambda t: t, lambda p: p):
                pass
    with saved_tensors_hooks(lambda t: t, lambda p: p):
        pass


def test_disable_inside_active_hooks_makes_saving_raise():
    x = _leaf(1.0)
    with saved_tensors_hooks(lambda t: t, lambda p: p):
        with disable_saved_tensors_hooks("disabled here"):
            with pytest.raises(RuntimeError, match="disabled here"):
                x.exp()


# ---------------------------------------------------------------------- graph inspection


def test_next_functions_name_and_metadata():
    x = _leaf(1.0)
    w = torch.tensor([2.0], dtype=torch.float64)
    y = x * w
    z = y.exp()
    assert z.grad_fn.name() == "ExpBackward0"
    (fn, nr), = z.grad_fn.next_functions
    assert fn is y.grad_fn and nr == 0
    acc, none_edge = y.grad_fn.next_functions
    assert acc[0].name() == "AccumulateGrad" and acc[0].variable is x
    assert none_edge == (None, 0)
    z.grad_fn.metadata["tag"] = "mine"
    assert z.grad_fn.metadata == {"tag": "mine"}


def test_gradient_edges():
    x = _leaf(1.0, 2.0)
    a, b = torch.randn(2, dtype=torch.float64, requires_grad=True) * 1, None
    y = x * 2
    e = get_gradient_edge(y)
    assert isinstance(e, GradientEdge) and e == (y.grad_fn, 0)
    assert e.node is y.grad_fn and e.output_nr == 0
    leaf_edge = get_gradient_edge(x)
    assert leaf_edge.node.name() == "AccumulateGrad" and leaf_edge.node is get_gradient_edge(x).node
    assert y.grad_fn.next_functions[0][0] is leaf_edge.node
    with pytest.raises(RuntimeError, match="does not require grad"):
        get_gradient_edge(torch.tensor([1.0]))
    assert a is not None and b is None


def test_saved_attribute_access_by_parameter_name_result_and_tensors():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)
    h = x @ w
    assert h.grad_fn._saved_self is not None and h.grad_fn._saved_self.shape == (3, 4)
    assert len(h.grad_fn._saved_tensors) == 2
    t = h.tanh()
    assert np.array_equal(t.grad_fn._saved_result._data, t._data)
    s = E.SwishFunction.apply(x, 2.0)
    assert s.grad_fn._saved_x.shape == (3, 4) and s.grad_fn._saved_beta == 2.0
    with pytest.raises(AttributeError, match="_saved_nope"):
        _ = s.grad_fn._saved_nope
    with pytest.raises(AttributeError):
        _ = s.grad_fn.not_an_attribute


def test_saved_attributes_are_gone_after_backward():
    x = _leaf(1.0, 2.0)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        _ = y.grad_fn._saved_tensors


# ---------------------------------------------------------------------- saved tensor ledger


def test_ledger_counts_views_and_shared_arrays_once():
    x = torch.randn(50, 20, requires_grad=True)
    w = torch.randn(20, 10, requires_grad=True)
    y = (x @ w).tanh()
    z = (y * y[:, :1]).sum()  # y[:, :1] is a view of y, which tanh also saved
    rep = saved_tensor_report(z)
    assert rep.total_bytes == x._data.nbytes + w._data.nbytes + y._data.nbytes
    assert rep.by_op["MmBackward0"] == {"nodes": 1, "bytes": x._data.nbytes + w._data.nbytes}
    assert rep.by_op["MulBackward0"]["bytes"] + rep.by_op["TanhBackward0"]["bytes"] == y._data.nbytes
    shared = [e for n in rep.nodes for e in n["entries"] if e["shared"]]
    assert shared
    text = str(rep)
    assert "MmBackward0" in text and f"Total: {rep.total_bytes:,} bytes" in text


def test_ledger_sees_tensors_kept_on_ctx_and_freed_graphs():
    x = torch.randn(8, requires_grad=True)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = E.TensorOnCtx.apply(x)
    rep = saved_tensor_report(y)
    assert any(e["what"] == "ctx.x" for n in rep.nodes for e in n["entries"])
    z = x.exp()
    z.sum().backward()
    rep2 = saved_tensor_report(z)
    assert rep2.total_bytes == 0 and rep2.freed_nodes == 1


def test_ledger_counts_what_pack_hooks_keep():
    x = torch.randn(100, requires_grad=True)
    with saved_tensors_hooks(lambda t: t._data.astype(np.float16), lambda p: torch.from_numpy(p.astype(np.float32))):
        y = x.exp()
    assert saved_tensor_report(y).total_bytes == 200  # half of float32
    assert graph.saved_tensor_report is saved_tensor_report


@pytest.mark.parametrize("leaf", [True, False])
def test_saved_tensor_pack_hook_modifying_its_input_in_place_raises(leaf):
    x = torch.ones(3, requires_grad=True)
    a = x if leaf else x.clone()
    with pytest.raises(RuntimeError, match="pack hook .* is modifying its input"):
        with graph.saved_tensors_hooks(lambda t: t.add_(1), lambda t: t):
            a * a


def test_saved_tensor_pack_hook_modifying_an_alias_of_a_plain_input_raises():
    a = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="pack hook .* is modifying its input"):
        with graph.saved_tensors_hooks(lambda t: t.detach().mul_(2), lambda t: t):
            a * w


def test_saved_tensor_pack_hook_runs_with_grad_mode_off_and_may_modify_a_clone():
    x = torch.ones(3, requires_grad=True)
    modes = []

    def pack(t):
        modes.append(torch.is_grad_enabled())
        return t.clone().mul_(2)

    with graph.saved_tensors_hooks(pack, lambda t: t):
        y = x.exp()
    y.sum().backward()
    assert modes == [False]  # torch: [False]
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.e, rtol=1e-6)  # torch: 5.4366 (the packed 2*exp)


def test_unpacking_a_saved_non_leaf_detached_in_place_raises():
    x = torch.ones(4, requires_grad=True)
    c = x.clone()
    y = x * c
    c.detach_()
    with pytest.raises(RuntimeError, match="saved tensor .* that has been detached in-place"):
        y.sum().backward()  # torch 2.13: the same error
