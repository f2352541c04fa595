"""Tensor: attributes and methods of issue 2 item 2, repr vs PyTorch, type promotion."""

import copy
import os
import pickle

import numpy as np
import pytest

import dyngrad
from dyngrad import Tensor

GOLD = np.load(os.path.join(os.path.dirname(__file__), "golden", "core.npz"))


def leaf(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return dyngrad.tensor(rng.standard_normal(shape), dtype=dyngrad.float64, requires_grad=True)


# ------------------------------------------------------------------ metadata
def test_data_is_always_an_ndarray_and_zero_d_for_scalars():
    t = dyngrad.tensor(3.0)
    assert isinstance(t._data, np.ndarray) and t._data.shape == ()
    assert isinstance((t * 2)._data, np.ndarray)
    assert isinstance(dyngrad.tensor([1.0, 2.0]).sum()._data, np.ndarray)
    assert isinstance(Tensor(np.array(2.0))._data, np.ndarray)


def test_shape_ndim_dim_size_numel():
    t = dyngrad.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and t.ndim == 3 and t.dim() == 3
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.numel() == 24 and len(t) == 2
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.size(3)


def test_dtype_device_and_conversions():
    t = dyngrad.tensor([1.5, -2.5])
    assert t.dtype == dyngrad.float32 and t.dtype == dyngrad.float
    assert t.device.type == "cpu" and str(t.device) == "cpu" and t.device == "cpu"
    assert t.double().dtype == dyngrad.float64 == dyngrad.double
    assert t.long().dtype == dyngrad.int64 == dyngrad.long
    assert t.int().dtype == dyngrad.int32
    assert t.bool().dtype == dyngrad.bool
    assert t.float() is t and t.cpu() is t
    assert t.to(dyngrad.float32) is t
    assert t.to("cpu") is t
    assert t.to(dyngrad.float64).dtype == dyngrad.float64
    assert t.to("cpu", dyngrad.float16).dtype == dyngrad.float16
    assert t.type_as(dyngrad.zeros(1, dtype=dyngrad.int64)).dtype == dyngrad.int64
    assert t.long().tolist() == [1, -2]
    with pytest.raises(RuntimeError, match="cuda"):
        t.to("cuda")


def test_to_is_differentiable_between_floating_dtypes():
    x = leaf(3)
    y = x.float()
    assert y.dtype == dyngrad.float32 and y.grad_fn.name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype == dyngrad.float64
    np.testing.assert_allclose(x.grad.numpy(), np.ones(3))


def test_item_tolist_float_bool_len_iter():
    t = dyngrad.tensor([[1.0, 2.0]])
    assert t.tolist() == [[1.0, 2.0]]
    assert dyngrad.tensor([4.5]).item() == 4.5 and isinstance(dyngrad.tensor(4).item(), int)
    assert float(dyngrad.tensor(2.5)) == 2.5 and int(dyngrad.tensor(3.9)) == 3
    assert bool(dyngrad.tensor([1.0])) and not bool(dyngrad.tensor(0.0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(dyngrad.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="2 elements cannot be converted"):
        dyngrad.tensor([1.0, 2.0]).item()
    with pytest.raises(TypeError, match="0-d"):
        len(dyngrad.tensor(1.0))
    rows = list(dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert len(rows) == 2 and rows[1].tolist() == [3.0, 4.0]


def test_iterating_keeps_the_graph():
    x = leaf(2, 2)
    a, b = x
    (a * 2 + b).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[2.0, 2.0], [1.0, 1.0]])


def test_hash_is_identity_and_tensors_work_as_dict_keys():
    a, b = dyngrad.tensor([1.0]), dyngrad.tensor([1.0])
    assert hash(a) == id(a) and hash(a) != hash(b)
    assert len({a: 1, b: 2}) == 2


def test_numpy_shares_memory_and_refuses_when_requires_grad():
    t = dyngrad.zeros(3)
    t.numpy()[0] = 5.0
    assert t[0].item() == 5.0
    x = leaf(2)
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        x.numpy()
    assert np.shares_memory(x.detach().numpy(), x._data)


def test_array_protocol():
    t = dyngrad.tensor([1.0, 2.0])
    arr = np.asarray(t)
    assert arr.dtype == np.float32 and arr.tolist() == [1.0, 2.0]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


# ------------------------------------------------------------------ autograd state
def test_requires_grad_on_an_int_tensor_raises():
    with pytest.raises(RuntimeError, match="floating point dtype can require gradients"):
        dyngrad.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        dyngrad.tensor([1, 2], requires_grad=True)
    t = dyngrad.tensor([True])
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        t.requires_grad = True


def test_requires_grad_is_settable_on_leaves_only():
    x = leaf(2)
    x.requires_grad = False
    assert not x.requires_grad
    x.requires_grad_()
    y = x * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad = False
    y.requires_grad = True  # a no-op on a non-leaf that requires grad


def test_is_leaf_and_grad_fn():
    x = leaf(2)
    y = x * 2
    assert x.is_leaf and x.grad_fn is None
    assert not y.is_leaf and y.grad_fn.name() == "MulBackward0"
    assert dyngrad.ones(2).is_leaf
    with dyngrad.no_grad():
        assert (x * 2).is_leaf


def test_grad_setter_checks_shape_dtype_and_type():
    x = leaf(2)
    x.grad = dyngrad.ones(2, dtype=dyngrad.float64)
    assert x.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=r"different size: expected \[2\], got \[3\]"):
        x.grad = dyngrad.ones(3, dtype=dyngrad.float64)
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = dyngrad.ones(2, dtype=dyngrad.float32)
    with pytest.raises(TypeError, match="Tensor or None"):
        x.grad = np.ones(2)
    x.grad = None
    assert x.grad is None
    x.grad = dyngrad.ones(2, dtype=dyngrad.float64)
    del x.grad
    assert x.grad is None


def test_detach_shares_memory_and_version_counter():
    x = leaf(3)
    d = x.detach()
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf
    assert np.shares_memory(d._data, x._data)
    v = x._version
    d.add_(1)
    assert x._version == v + 1


def test_detach_in_place():
    x = leaf(2)
    y = x * 2
    assert y.detach_() is y
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf


def test_clone_copies_memory_and_is_differentiable():
    x = leaf(2)
    c = x.clone()
    assert not np.shares_memory(c._data, x._data) and c.grad_fn.name() == "CloneBackward0"
    (c * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_register_hook_returns_a_removable_handle():
    x = leaf(2)
    calls = []
    h = (x * 1).register_hook(calls.append)
    assert hasattr(h, "remove")
    x2 = x * 1
    with x2.register_hook(lambda g: g * 2):
        pass  # removed on exit
    (x2 * 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_version_is_bumped_by_every_in_place_op():
    t = dyngrad.zeros(3)
    v = t._version
    t.add_(1)
    t.mul_(2)
    t.sub_(1)
    t.div_(2)
    t += 1
    t *= 2
    t -= 1
    t /= 2
    t.zero_()
    t.fill_(3.0)
    t[0] = 5.0
    t.pow_(2)
    assert t._version == v + 12
    view = t[1:]
    view.add_(1)
    assert t._version == v + 13


def test_in_place_change_of_a_leaf_that_requires_grad_raises():
    x = leaf(3)
    for op in (lambda t: t.add_(1), lambda t: t.mul_(2), lambda t: t.zero_(),
               lambda t: t.fill_(1.0), lambda t: t.__setitem__(0, 1.0), lambda t: t.exp_()):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad .*in-place"):
            op(x)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x += 1


def test_in_place_change_of_a_saved_tensor_names_both_versions():
    x = leaf(3)
    h = x * 1
    y = h.exp()  # saves its output
    z = h * h  # saves h
    h.add_(1)
    with pytest.raises(RuntimeError, match=r"MulBackward0, is at version 1; expected version 0"):
        z.sum().backward()
    del y


def test_in_place_op_on_a_non_leaf_rebases_its_history():
    x = leaf(3)
    h = x * 2
    h.mul_(3)
    assert h.grad_fn.name() == "MulBackward0"
    h.add_(x)
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 7.0))


def test_setitem_gradient_flows_to_untouched_part_and_assigned_value():
    x = leaf(4)
    v = dyngrad.tensor([10.0, 20.0], dtype=dyngrad.float64, requires_grad=True)
    h = x * 2
    h[1:3] = v * 3
    (h * dyngrad.tensor([1.0, 2.0, 3.0, 4.0], dtype=dyngrad.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0, 0.0, 8.0])
    np.testing.assert_allclose(v.grad.numpy(), [6.0, 9.0])


def test_numpy_is_refused_until_detach():
    x = leaf(1)
    assert np.asarray(x.detach()).shape == (1,)
    assert x.numpy(force=True) is not x._data


def test_pickle_is_refused_but_deepcopy_of_leaves_works():
    x = leaf(2)
    with pytest.raises(TypeError, match="dyngrad.save"):
        pickle.dumps(x)
    c = copy.deepcopy(x)
    assert c is not x and c.requires_grad and np.array_equal(c._data, x._data)
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'frobnicate'"):
        dyngrad.ones(1).frobnicate()


def test_methods_forward_to_ops():
    x = dyngrad.tensor([1.0, 4.0])
    assert x.sqrt().tolist() == [1.0, 2.0]
    assert x.reshape(2, 1).shape == (2, 1) and dyngrad.reshape(x, (1, 2)).shape == (1, 2)
    assert x.sum().item() == 5.0 and x.mean().item() == 2.5


def test_tensor_resolves_attributes_without_getattr_forwarding():
    # Methods are class attributes a reader and a type checker see; a __getattr__ would also
    # defeat CPython's attribute specialisation on every Tensor attribute read.
    assert not any("__getattr__" in vars(k) for k in Tensor.__mro__)


@pytest.mark.parametrize("name", sorted(dyngrad.ops.TENSOR_METHODS))
def test_every_tensor_method_is_defined_on_the_class_and_forwards_to_the_op_of_its_name(name, monkeypatch):
    # defined (a def in a class body) on Tensor or on one of its method families (dyngrad/_tensor/)
    owner = next((k for k in Tensor.__mro__ if name in vars(k)), None)
    assert owner is not None and callable(vars(owner)[name]), f"Tensor.{name} is not defined in the class"
    assert owner is Tensor or owner.__module__.startswith("dyngrad._tensor."), owner
    if name in {"copy_", "fill_", "zero_"}:  # inplace.py's own bodies (zero_ is fill_(0))
        return
    calls = []
    monkeypatch.setattr(dyngrad.ops, name, lambda *a, **k: calls.append((a, k)) or "sentinel")
    x = dyngrad.ones(2)
    assert getattr(x, name)(1, key=2) == "sentinel"
    assert len(calls) == 1 and calls[0][0][0] is x and calls[0][0][1:] == (1,) and calls[0][1] == {"key": 2}



# ------------------------------------------------------------------ the method families (dyngrad/_tensor/)
_FAMILIES = [k for k in Tensor.__mro__[1:] if k is not object]
# what every class body has; not a method a family defines
_CLASS_ATTRS = {"__module__", "__qualname__", "__doc__", "__slots__", "__annotations__", "__firstlineno__",
                "__static_attributes__", "__dict__", "__weakref__"}


def test_tensor_inherits_one_mixin_per_method_family_each_from_dyngrad_tensor_package():
    assert len(_FAMILIES) >= 10
    assert all(k.__module__.startswith("dyngrad._tensor.") and k.__name__.endswith("Methods") for k in _FAMILIES)
    from dyngrad.tensor import Tensor as T  # other modules import it from there

    assert T is Tensor and isinstance(dyngrad.ones(1), T) and issubclass(dyngrad.nn.Parameter, T)


def test_every_method_family_declares_empty_slots_so_a_tensor_has_no_instance_dict():
    assert all(vars(k).get("__slots__") == () for k in _FAMILIES)
    x = dyngrad.ones(2, requires_grad=True)
    assert not hasattr(x, "__dict__")
    with pytest.raises(AttributeError):
        x.not_a_slot = 1


def test_no_tensor_method_is_defined_in_two_classes_of_its_mro():
    # a later block that redefined a name in another family would silently shadow it
    seen: dict = {}
    for k in Tensor.__mro__[:-1]:
        for name in set(vars(k)) - _CLASS_ATTRS:
            seen.setdefault(name, []).append(k.__name__)
    twice = {n: ks for n, ks in seen.items() if len(ks) > 1}
    assert twice == {}


def test_tensors_hash_by_identity_although_they_compare_value_by_value():
    # a class defining __eq__ alone gets __hash__ = None: comparison.py defines both
    a, b = dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([1.0, 2.0])
    assert (a == b).tolist() == [True, True]
    assert hash(a) == id(a) and hash(a) != hash(b)
    assert {a: "a", b: "b"}[b] == "b" and len({a, b}) == 2
    assert Tensor.__hash__ is not None


def test_invert_is_logical_not_on_bool_and_bitwise_not_on_integer_tensors():
    assert (~dyngrad.tensor([True, False])).tolist() == [False, True]
    assert (~dyngrad.tensor([0, 5, -1])).tolist() == [-1, -6, 0]
    assert (~dyngrad.tensor([True, False])).dtype == dyngrad.bool


def test_method_families_read_the_ops_that_tensor_py_imported_at_its_end():
    import sys

    core = sys.modules["dyngrad.tensor"]
    assert core._ops is dyngrad.ops
    for k in _FAMILIES:
        module = sys.modules[k.__module__]
        if hasattr(module, "_core"):
            assert module._core is core, k.__module__

# ------------------------------------------------------------------ repr vs PyTorch
REPR_CASES = {
    "float_vec": lambda: dyngrad.tensor([1.0, 2.0]),
    "float_vec_rg": lambda: dyngrad.tensor([1.0, 2.0], requires_grad=True),
    "grad_fn_mul": lambda: dyngrad.tensor([1.0, 2.0], requires_grad=True) * 2,
    "frac": lambda: dyngrad.tensor([0.1234, 1.5, -2.25]),
    "scalar": lambda: dyngrad.tensor(7.0),
    "scalar_rg": lambda: dyngrad.tensor(2.0, requires_grad=True),
    "int_vec": lambda: dyngrad.tensor([1, 2, 3]),
    "bool_vec": lambda: dyngrad.tensor([True, False]),
    "float64_vec": lambda: dyngrad.tensor([1.0, 2.5], dtype=dyngrad.float64),
    "int32_vec": lambda: dyngrad.tensor([1, 2], dtype=dyngrad.int32),
    "matrix": lambda: dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "empty": lambda: dyngrad.tensor([]),
    "empty_2d": lambda: dyngrad.zeros(0, 3),
    "grad_fn_add_f64": lambda: dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float64, requires_grad=True) + 1,
    "neg_int_like": lambda: dyngrad.tensor([-1.0, 0.0, 3.0]),
    "nonfinite": lambda: dyngrad.tensor([float("inf"), -float("inf"), float("nan")]),
    "nan_and_value": lambda: dyngrad.tensor([float("nan"), 2.0]),
    "zeros": lambda: dyngrad.zeros(3),
    "zero_and_value": lambda: dyngrad.tensor([0.0, 1.5]),
    "sci_small": lambda: dyngrad.tensor([1e-5, 0.0, -3.0]),
    "sci_large_int": lambda: dyngrad.tensor([123456.0, -7.0, 0.0]),
    "sci_huge": lambda: dyngrad.tensor([-1e9, 1.0]),
    "matrix_mixed": lambda: dyngrad.tensor([[1.5, -20.25], [0.0, 3.0]]),
    "neg_scalar": lambda: dyngrad.tensor(-3.25),
    "summarized_float": lambda: dyngrad.arange(2000).float(),
    "summarized_int_3d": lambda: dyngrad.arange(3 * 40 * 40).reshape(3, 40, 40),
    "summarized_matrix": lambda: dyngrad.arange(40 * 40).reshape(40, 40).float() / 7,
    "bool_all_true": lambda: dyngrad.tensor([True, True]),
    "bool_matrix": lambda: dyngrad.tensor([[True, False], [True, True]]),
    "empty_int64": lambda: dyngrad.tensor([], dtype=dyngrad.int64),
    "empty_bool_2d": lambda: dyngrad.zeros(0, 2, dtype=dyngrad.bool),
}


@pytest.mark.parametrize("case", sorted(REPR_CASES))
def test_repr_matches_pytorch_modulo_module_name(case):
    expected = str(GOLD[f"repr/{case}"]).replace("torch.", "dyngrad.")
    assert repr(REPR_CASES[case]()) == expected


# ------------------------------------------------------------------ type promotion vs PyTorch
PROMO_OPERANDS = {
    "i64": lambda: dyngrad.tensor([1, 2]),
    "i32": lambda: dyngrad.tensor([1, 2], dtype=dyngrad.int32),
    "u8": lambda: dyngrad.tensor([1, 2], dtype=dyngrad.uint8),
    "i8": lambda: dyngrad.tensor([1, 2], dtype=dyngrad.int8),
    "b": lambda: dyngrad.tensor([True, False]),
    "f32": lambda: dyngrad.tensor([1.0, 2.0]),
    "f64": lambda: dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float64),
    "f16": lambda: dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float16),
    "f64_0d": lambda: dyngrad.tensor(2.0, dtype=dyngrad.float64),
    "i64_0d": lambda: dyngrad.tensor(2),
    "f32_0d": lambda: dyngrad.tensor(2.0),
    "py_int": lambda: 2,
    "py_float": lambda: 2.5,
    "py_bool": lambda: True,
}
OPS = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b}
PROMO_KEYS = sorted(k for k in GOLD.files if k.startswith("promo/"))


def test_promotion_table_is_complete():
    assert len(PROMO_KEYS) == (14 * 14 - 9) * 3


@pytest.mark.parametrize("opname", sorted(OPS))
def test_type_promotion_matches_pytorch(opname):
    mismatches = []
    for key in PROMO_KEYS:
        _, a, op, b = key.split("/")
        if op != opname:
            continue
        expected = str(GOLD[key])
        try:
            got = OPS[op](PROMO_OPERANDS[a](), PROMO_OPERANDS[b]()).dtype.name
        except Exception as e:  # noqa: BLE001
            got = "error:" + type(e).__name__
        if got != expected:
            mismatches.append(f"{a} {op} {b}: expected {expected}, got {got}")
    assert not mismatches, "\n".join(mismatches)


def test_named_promotion_cases():
    assert (dyngrad.tensor([1, 2]) / 2).dtype == dyngrad.float32
    assert (dyngrad.tensor([1.0]) * 2.5).dtype == dyngrad.float32
    assert (dyngrad.tensor([1, 2]) + dyngrad.tensor(1.0, dtype=dyngrad.float64)).dtype == dyngrad.float64
    assert (dyngrad.tensor([True]) + 1).dtype == dyngrad.int64
    assert (dyngrad.tensor([1.0]) + dyngrad.tensor(1.0, dtype=dyngrad.float64)).dtype == dyngrad.float32
    assert dyngrad.result_type(dyngrad.tensor([1], dtype=dyngrad.int32), 1.0) == dyngrad.float32
    assert dyngrad.promote_types(dyngrad.int32, dyngrad.float16) == dyngrad.float16


def test_default_dtype_changes_float_creation_and_promotion():
    assert dyngrad.get_default_dtype() == dyngrad.float32
    dyngrad.set_default_dtype(dyngrad.float64)
    try:
        assert dyngrad.tensor([1.0]).dtype == dyngrad.float64
        assert (dyngrad.tensor([1, 2]) / 2).dtype == dyngrad.float64
        assert (dyngrad.tensor([1]) * 1.5).dtype == dyngrad.float64
        assert repr(dyngrad.tensor([1.0])) == "tensor([1.])"
        assert "dtype=dyngrad.float32" in repr(dyngrad.tensor([1.0], dtype=dyngrad.float32))
    finally:
        dyngrad.set_default_dtype(dyngrad.float32)
    assert (dyngrad.tensor([1]) * 1.5).dtype == dyngrad.float32
    with pytest.raises(TypeError, match="floating"):
        dyngrad.set_default_dtype(dyngrad.int64)


def test_format_of_a_zero_d_tensor_formats_its_value_like_pytorch():
    t = dyngrad.tensor(12.0)
    assert f"{t}" == "12.0" and f"{t:.2f}" == "12.00"
    assert f"{dyngrad.tensor([1.0, 2.0])}" == "tensor([1., 2.])"


def _inplace_into_constant():
    w = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = dyngrad.ones(3)
    a.mul_(2).add_(w)
    a.mul_(w)  # a = (2 + w) * w  ->  d/dw = 2 + 2w
    a.sum().backward()
    assert a.requires_grad and a.grad_fn.name() == "MulBackward0"
    return w.grad


def _masked_imul():
    x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone()
    y[y > 1.5] *= 2
    y.sum().backward()
    return x.grad


def _augmented_chain():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y += x
    y *= x
    y -= 1
    y /= x  # y = (2x^2 - 1) / x = 2x - 1/x  ->  2 + 1/x^2
    y.sum().backward()
    return x.grad


def _setitem_from_itself():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y[0] = y[1] * 3  # y = [3 x1, x1]
    y.sum().backward()
    return x.grad


@pytest.mark.parametrize(
    "fn,expected",
    [
        (_inplace_into_constant, [4.0, 6.0, 8.0]),
        (_masked_imul, [1.0, 2.0, 2.0]),
        (_augmented_chain, [3.0, 2.25]),
        (_setitem_from_itself, [0.0, 4.0]),
    ],
)
def test_in_place_semantics_give_pytorchs_gradients(fn, expected):
    np.testing.assert_allclose(fn().numpy(), expected)


def test_in_place_on_a_saved_output_or_input_raises_like_pytorch():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.exp_()  # exp saved its output y
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = x * 1
    z.sqrt_()
    z.pow_(3)  # pow saved its input z... which sqrt_ produced and pow_ overwrote
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_numpy_functions_refuse_a_tensor_that_requires_grad_instead_of_cutting_the_graph():
    x = dyngrad.ones(3, requires_grad=True)
    with pytest.raises(TypeError, match="numpy.heaviside"):  # a ufunc dyngrad has no op for
        np.heaviside(x, 0.5)
    with pytest.raises(RuntimeError, match="detach"):
        np.asarray(x)
    np.exp(x).sum().backward()  # one it has: differentiable (tests/test_numpy_ufunc.py)
    np.testing.assert_allclose(x.grad._data, np.exp(np.ones(3)), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(x.detach()), [1, 1, 1])


@pytest.mark.parametrize("make", [lambda c: c[1:], lambda c: c.t(), lambda c: c.reshape(-1)])
def test_detach_in_place_on_a_view_raises(make):
    c = dyngrad.ones(2, 2, requires_grad=True).clone()
    v = make(c)
    with pytest.raises(RuntimeError, match="Can't detach views in-place. Use detach\\(\\) instead"):
        v.detach_()
    assert v.requires_grad and c.requires_grad  # nothing changed (torch: the same error)


def test_detach_in_place_on_a_base_with_views_keeps_the_views_history():
    c = dyngrad.ones(3, requires_grad=True).clone()
    v = c[1:]
    c.detach_()
    assert not c.requires_grad and v.requires_grad and v.grad_fn is not None  # torch: the same


def test_retain_grad_on_a_view_made_stale_by_an_in_place_op_retains_its_current_gradient():
    x = dyngrad.ones(4, requires_grad=True)
    c = x.clone()
    v = c[:2]
    c.mul_(2)
    v.retain_grad()
    (v * dyngrad.tensor([3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(v.grad.numpy(), [3, 4])  # torch 2.13: [3., 4.]
    np.testing.assert_array_equal(x.grad.numpy(), [6, 8, 0, 0])


def test_hook_on_a_view_made_stale_by_an_in_place_op_sees_its_current_gradient():
    x = dyngrad.ones(4, requires_grad=True)
    c = x.clone()
    v = c[:2]
    c.mul_(2)
    seen = []
    v.register_hook(lambda g: seen.append(g.numpy().copy()))
    (v * dyngrad.tensor([3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(seen[0], [3, 4])  # (torch 2.13 crashes with SIGSEGV here)


def test_type_gives_pytorchs_legacy_names_and_casts_by_name():
    x = dyngrad.ones(2)
    assert x.type() == "torch.FloatTensor" and x.long().type() == "torch.LongTensor"
    assert x.double().type() == "torch.DoubleTensor" and x.bool().type() == "torch.BoolTensor"
    assert x.type("torch.DoubleTensor").dtype == dyngrad.float64
    assert x.type(dyngrad.int32).dtype == dyngrad.int32 and x.type(dyngrad.float32) is x
    with pytest.raises(ValueError, match="invalid type: 'torch.Foo'"):
        x.type("torch.Foo")


@pytest.mark.parametrize(
    "aliased, plain",
    [
        (lambda t: t.sum(axis=0), lambda t: t.sum(dim=0)),
        (lambda t: t.mean(axis=1, keepdims=True), lambda t: t.mean(dim=1, keepdim=True)),
        (lambda t: t.std(axis=0), lambda t: t.std(dim=0)),
        (lambda t: t.max(axis=0).values, lambda t: t.max(dim=0).values),
        (lambda t: t.cumsum(axis=1), lambda t: t.cumsum(dim=1)),
        (lambda t: t.prod(axis=0, keepdims=True), lambda t: t.prod(dim=0, keepdim=True)),
        (lambda t: t.argmax(axis=1), lambda t: t.argmax(dim=1)),
        (lambda t: t.softmax(axis=0), lambda t: t.softmax(dim=0)),
        (lambda t: dyngrad.sum(t, axis=1), lambda t: dyngrad.sum(t, dim=1)),
        (lambda t: dyngrad.cat([t, t], axis=0), lambda t: dyngrad.cat([t, t], dim=0)),
        (lambda t: t.unsqueeze(axis=0), lambda t: t.unsqueeze(dim=0)),
        (lambda t: t.logsumexp(axis=1), lambda t: t.logsumexp(dim=1)),
    ],
)
def test_numpy_keyword_names_axis_and_keepdims_work_as_pytorchs_aliases(aliased, plain):
    t = dyngrad.tensor(np.random.default_rng(0).standard_normal((3, 4)))
    a, b = aliased(t), plain(t)
    assert a.shape == b.shape
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(TypeError, match="both 'dim' and its alias 'axis'"):
        t.sum(dim=0, axis=0)


def test_type_accepts_the_tensor_classes():
    assert dyngrad.tensor([1]).type(dyngrad.Tensor).dtype == dyngrad.float32
    assert dyngrad.ones(1).type(dyngrad.LongTensor).dtype == dyngrad.int64
