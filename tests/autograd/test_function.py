"""autograd.Function: the ctx API and every misuse of issue 2's "Bad input" list."""

import gc
import warnings
import weakref

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function, once_differentiable


def leaf(*shape, dtype=dyngrad.float64, seed=0):
    rng = np.random.default_rng(seed)
    return dyngrad.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)


class Twice(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


# ------------------------------------------------------------------ wrong gradients
class TooFewGrads(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        return x * alpha

    @staticmethod
    def backward(ctx, g):
        return g, g, g


def test_wrong_number_of_grads_names_function_count_and_arg_names():
    x = leaf(3)
    with pytest.raises(RuntimeError) as e:
        TooFewGrads.apply(x, x).sum().backward()
    msg = str(e.value)
    assert "TooFewGradsBackward" in msg and "returned 3 gradients" in msg
    assert "took 2 inputs" in msg and "(x, alpha)" in msg


class OneGradForTwo(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, g):
        return g


def test_too_few_grads_is_an_error_too():
    with pytest.raises(RuntimeError, match=r"returned 1 gradient but OneGradForTwo.forward took 2 inputs \(x, y\)"):
        OneGradForTwo.apply(leaf(2), leaf(2)).sum().backward()


class ExtraNones(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return g * 3, None, None


def test_trailing_nones_beyond_the_inputs_are_dropped():
    x = leaf(2)
    ExtraNones.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


class GradForScalar(Function):
    @staticmethod
    def forward(ctx, x, scale):
        return x * scale

    @staticmethod
    def backward(ctx, g):
        return g * 2, g


def test_grad_for_a_non_tensor_argument_names_the_argument():
    with pytest.raises(RuntimeError) as e:
        GradForScalar.apply(leaf(2), 2.0).sum().backward()
    msg = str(e.value)
    assert "GradForScalarBackward" in msg and "position 1" in msg and "'scale'" in msg
    assert "not a Tensor" in msg


class BadShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return dyngrad.ones(5, dtype=dyngrad.float64)


def test_non_broadcastable_grad_shape_names_both_shapes_and_the_argument():
    with pytest.raises(RuntimeError) as e:
        BadShape.apply(leaf(2, 3)).sum().backward()
    msg = str(e.value)
    assert "BadShapeBackward" in msg and "[5]" in msg and "[2, 3]" in msg and "'x'" in msg


class BroadcastGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return dyngrad.ones(4, 2, 3, dtype=dyngrad.float32)


def test_broadcast_shaped_grad_is_summed_down_and_cast_to_the_input_dtype():
    x = leaf(2, 3)
    BroadcastGrad.apply(x).sum().backward()
    assert x.grad.shape == (2, 3) and x.grad.dtype == dyngrad.float64
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 4.0))


def test_strict_shapes_refuses_the_silent_reduction():
    class Strict(BroadcastGrad):
        strict_shapes = True

    with pytest.raises(RuntimeError, match="strict"):
        Strict.apply(leaf(2, 3)).sum().backward()
    dyngrad.autograd.set_strict_shapes(True)
    try:
        with pytest.raises(RuntimeError, match="strict"):
            BroadcastGrad.apply(leaf(2, 3)).sum().backward()
        x = leaf(3, 1)  # built-in ops keep broadcasting
        (x * leaf(4)).sum().backward()
        assert x.grad.shape == (3, 1)
    finally:
        dyngrad.autograd.set_strict_shapes(False)


def test_grad_of_wrong_type_is_a_type_error():
    class ReturnsArray(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return np.ones(3)

    with pytest.raises(TypeError, match="ndarray"):
        ReturnsArray.apply(leaf(3)).sum().backward()


# ------------------------------------------------------------------ calling it wrong
def test_calling_forward_directly_raises_and_points_to_apply():
    with pytest.raises(RuntimeError, match=r"Twice\.forward was called directly.*Twice\.apply"):
        Twice.forward(leaf(2), 2)


def test_calling_an_instance_raises_and_points_to_apply():
    with pytest.raises(RuntimeError, match=r"Twice\.apply"):
        Twice()(leaf(2), 2)


def test_apply_binds_keyword_arguments_to_forward_signature():
    class Scaled(Function):
        @staticmethod
        def forward(ctx, x, alpha=1.0, *, beta=0.0):
            ctx.alpha = alpha
            return x * alpha + beta

        @staticmethod
        def backward(ctx, g):
            return g * ctx.alpha, None

    x = leaf(3)
    y = Scaled.apply(x, alpha=3.0, beta=1.0)
    np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy() * 3 + 1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0))
    y2 = Scaled.apply(x=x)
    np.testing.assert_allclose(y2.detach().numpy(), x.detach().numpy())
    with pytest.raises(TypeError, match="Scaled.apply"):
        Scaled.apply(x, gamma=2)


def test_tensor_nested_in_a_list_raises_instead_of_silently_losing_its_gradient():
    class SumList(Function):
        @staticmethod
        def forward(ctx, xs):
            return xs[0] + xs[1]

        @staticmethod
        def backward(ctx, g):
            return None

    with pytest.raises(TypeError, match="inside a list"):
        SumList.apply([leaf(2), leaf(2)])
    with pytest.raises(TypeError, match="inside a tuple"):
        SumList.apply(([leaf(2)], leaf(2)))
    # tensors that do not require grad are fine
    out = SumList.apply([dyngrad.ones(2), dyngrad.ones(2)])
    np.testing.assert_allclose(out.numpy(), [2.0, 2.0])


def test_missing_backward_raises_not_implemented():
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

    with pytest.raises(NotImplementedError, match="backward"):
        NoBackward.apply(leaf(2)).sum().backward()


# ------------------------------------------------------------------ a backward that raises
class Boom(Exception):
    pass


class Raises(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        raise Boom("user bug")


def _half_failing_loss():
    a, b = leaf(3), leaf(3, seed=1)
    a.grad = dyngrad.ones(3, dtype=dyngrad.float64)
    # a's whole gradient (2 + 3) is ready before Raises runs (higher sequence number first)
    return a, b, (Raises.apply(b) + a * 2).sum() + (a * 3).sum()


def test_exception_in_backward_propagates_and_leaves_grads_that_were_none_untouched():
    a, b, loss = _half_failing_loss()
    with pytest.raises(Boom, match="user bug") as e:
        loss.backward()
    assert any("RaisesBackward" in n for n in getattr(e.value, "__notes__", []))
    assert b.grad is None
    # as in PyTorch 2.13: an existing .grad is accumulated in place as soon as its gradient
    # is complete (no second copy of the gradients), so it may be updated before the error
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, 6.0, 6.0])


def test_atomic_accumulation_leaves_every_grad_as_it_was_when_backward_raises():
    a, b, loss = _half_failing_loss()
    with dyngrad.autograd.atomic_accumulation():
        with pytest.raises(Boom, match="user bug"):
            loss.backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 1.0, 1.0])
    assert b.grad is None


def test_atomic_accumulation_commits_the_same_gradients_when_backward_succeeds():
    a = leaf(3)
    a.grad = dyngrad.ones(3, dtype=dyngrad.float64)
    with dyngrad.autograd.atomic_accumulation():
        (a * a).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1.0 + 2.0 * a.detach().numpy())


def test_atomic_accumulation_can_be_switched_off_inside_and_restores_the_mode():
    a, b, loss = _half_failing_loss()
    with dyngrad.autograd.atomic_accumulation():
        with dyngrad.autograd.atomic_accumulation(False):
            with pytest.raises(Boom):
                loss.backward()
        a2, b2, loss2 = _half_failing_loss()
        with pytest.raises(Boom):
            loss2.backward()
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, 6.0, 6.0])
    np.testing.assert_array_equal(a2.grad.numpy(), [1.0, 1.0, 1.0])


def test_exception_in_backward_leaves_retain_grad_untouched_too():
    a = leaf(3)
    h = a * 2
    h.retain_grad()
    with pytest.raises(Boom):
        (Raises.apply(a) + h).sum().backward()
    assert h.grad is None and a.grad is None


# ------------------------------------------------------------------ ctx attributes
def test_tensor_stored_as_ctx_attribute_warns_and_points_to_save_for_backward():
    class Stores(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.warns(UserWarning, match=r"ctx\.x.*save_for_backward"):
        Stores.apply(leaf(2))


def test_non_tensor_ctx_attributes_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Twice.apply(leaf(2), 3.0).sum().backward()


def test_save_for_backward_accepts_none_and_rejects_other_objects():
    class SavesNone(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, None, y)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, nothing, y = ctx.saved_tensors
            assert nothing is None and y is None
            return g * 2, None

    x = leaf(2)
    SavesNone.apply(x, None).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])

    class SavesFloat(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3.0)
            return x * 2

    with pytest.raises(TypeError, match="argument 1 is of type float"):
        SavesFloat.apply(leaf(2))


def test_saved_tensors_modified_in_place_raises_naming_both_versions():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    a = leaf(3)
    h = a * 1
    y = Square.apply(h)
    with dyngrad.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    msg = str(e.value)
    assert "modified by an inplace operation" in msg and "SquareBackward" in msg
    assert "version 1" in msg and "expected version 0" in msg


def test_saved_output_modified_in_place_raises():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out

    y = Exp.apply(leaf(3))
    y.mul_(2)
    with pytest.raises(RuntimeError, match="output 0 of ExpBackward.*version 1.*expected version 0"):
        y.sum().backward()


def test_saved_output_is_reattached_to_its_node_in_backward():
    seen = {}

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            seen["grad_fn"] = out.grad_fn
            return g * out

    x = leaf(3)
    y = Exp.apply(x)
    y.sum().backward()
    assert seen["grad_fn"] is y.grad_fn
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()))


def test_saved_tensors_after_free_raise_and_name_retain_graph():
    class Sq(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    y = Sq.apply(leaf(2)).sum()
    y.backward()
    node = y.grad_fn.next_functions[0][0]
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        _ = node.saved_tensors


def test_needs_input_grad_reports_each_input():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x, y, k):
            seen.append(ctx.needs_input_grad)
            return x * y * k

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    Probe.apply(leaf(2), dyngrad.ones(2, dtype=dyngrad.float64), 3)
    Probe.apply(dyngrad.ones(2), leaf(2, dtype=dyngrad.float32), 3)
    assert seen == [(True, False, False), (False, True, False)]


def test_needs_input_grad_guards_unneeded_work_in_backward():
    calls = []

    class Mul(Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            calls.append(ctx.needs_input_grad)
            gx = g * y if ctx.needs_input_grad[0] else None
            gy = g * x if ctx.needs_input_grad[1] else None
            return gx, gy

    x = leaf(2)
    y = dyngrad.tensor([2.0, 3.0], dtype=dyngrad.float64)
    Mul.apply(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 3.0])
    assert calls == [(True, False)]


class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 1


def test_mark_dirty_returns_the_input_object_with_history_rebased():
    a = leaf(3)
    h = a * 2
    old_fn = h.grad_fn
    v0 = h._version
    out = AddOneInPlace.apply(h)
    assert out is h
    assert h.grad_fn.name() == "AddOneInPlaceBackward"
    assert h.grad_fn.next_functions[0][0] is old_fn
    assert h._version == v0 + 1
    np.testing.assert_allclose(h.detach().numpy(), a.detach().numpy() * 2 + 1)
    (h * 3).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full(3, 6.0))


def test_mark_dirty_on_a_leaf_that_requires_grad_raises():
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad.*in-place"):
        AddOneInPlace.apply(leaf(3))


def test_mark_dirty_without_grad_just_modifies_in_place():
    t = dyngrad.zeros(2)
    out = AddOneInPlace.apply(t)
    assert out is t and out.grad_fn is None
    np.testing.assert_allclose(t.numpy(), [1.0, 1.0])


def test_input_returned_unchanged_gets_a_new_alias_with_history():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = leaf(2)
    y = Identity.apply(x)
    assert y is not x and x.grad_fn is None and y.grad_fn is not None
    assert np.shares_memory(y._data, x._data)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_mark_non_differentiable_outputs_do_not_require_grad():
    class SortLike(Function):
        @staticmethod
        def forward(ctx, x):
            idx = dyngrad.tensor(np.argsort(x._data))
            vals = dyngrad.tensor(np.sort(x._data))
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return vals, idx

        @staticmethod
        def backward(ctx, gv, gi):
            (idx,) = ctx.saved_tensors
            assert gi is None or not np.any(gi._data)
            out = np.zeros_like(gv._data)
            out[idx._data] = gv._data
            return dyngrad.tensor(out)

    x = dyngrad.tensor([3.0, 1.0, 2.0], dtype=dyngrad.float64, requires_grad=True)
    vals, idx = SortLike.apply(x)
    assert vals.requires_grad and not idx.requires_grad and idx.grad_fn is None
    (vals * dyngrad.tensor([1.0, 10.0, 100.0], dtype=dyngrad.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [100.0, 1.0, 10.0])


def test_integer_output_must_be_marked_non_differentiable():
    class IntOut(Function):
        @staticmethod
        def forward(ctx, x):
            return dyngrad.tensor(np.argsort(x._data))

    with pytest.raises(RuntimeError, match="mark_non_differentiable"):
        IntOut.apply(leaf(3))


class TwoOutputs(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        return (g1 if g1 is not None else 0) * 2 + (g2 if g2 is not None else 0) * 3


def test_set_materialize_grads_false_gives_none_for_unused_outputs():
    got = []

    class NoMat(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append((g1, g2))
            return g1 * 2

    x = leaf(2)
    a, _ = NoMat.apply(x)
    a.sum().backward()
    assert got[0][1] is None and got[0][0] is not None
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_materialized_grads_are_zeros_by_default():
    got = []

    class Mat(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            got.append(g2)
            return g1 * 2 + g2 * 3

    x = leaf(2)
    a, _ = Mat.apply(x)
    a.sum().backward()
    assert got[0] is not None and got[0].shape == (2,) and not np.any(got[0].numpy())


def test_several_outputs_each_carry_their_output_nr():
    x = leaf(2)
    a, b = TwoOutputs.apply(x)
    assert a.grad_fn is b.grad_fn and a.output_nr == 0 and b.output_nr == 1
    (a.sum() + b.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0])


def test_setup_context_style():
    class Cube(Function):
        @staticmethod
        def forward(x, k):
            return x**3 * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g * ctx.k, None

    x = leaf(3)
    y = Cube.apply(x, 2.0)
    np.testing.assert_allclose(y.detach().numpy(), 2 * x.detach().numpy() ** 3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * x.detach().numpy() ** 2)
    assert dyngrad.autograd.gradgradcheck(lambda t: Cube.apply(t, 2.0), (leaf(3),))
    z = Cube.apply(x, k=1.0)  # keywords bind with setup_context too
    np.testing.assert_allclose(z.detach().numpy(), x.detach().numpy() ** 3)


def test_once_differentiable_backward_works_once_and_refuses_double_backward():
    class NumpySquare(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return dyngrad.tensor(2 * x._data * g._data)

    x = leaf(3)
    (gx,) = dyngrad.autograd.grad(NumpySquare.apply(x).sum(), x)
    np.testing.assert_allclose(gx.numpy(), 2 * x.detach().numpy())
    # as in PyTorch: only a grad_output that requires grad makes the result differentiable
    (gx,) = dyngrad.autograd.grad(NumpySquare.apply(x).sum(), x, create_graph=True)
    assert not gx.requires_grad
    g = dyngrad.ones(3, dtype=dyngrad.float64, requires_grad=True)
    (gx,) = dyngrad.autograd.grad(NumpySquare.apply(x), x, g, create_graph=True)
    assert gx.requires_grad
    with pytest.raises(RuntimeError, match="once_differentiable"):
        gx.sum().backward()


def test_vjp_is_an_alias_of_backward():
    class ViaVjp(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 4

        @staticmethod
        def vjp(ctx, g):
            return g * 4

    x = leaf(2)
    ViaVjp.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0])
    assert Twice.vjp(None, dyngrad.ones(1))[0].item() == 2.0


def test_apply_without_grad_records_nothing():
    x = leaf(2)
    with dyngrad.no_grad():
        y = Twice.apply(x, 1)
    assert y.grad_fn is None and not y.requires_grad
    z = Twice.apply(dyngrad.ones(2), 1)
    assert z.grad_fn is None


def test_forward_runs_with_grad_mode_off_and_backward_too():
    modes = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            modes.append(dyngrad.is_grad_enabled())
            return x * 1

        @staticmethod
        def backward(ctx, g):
            modes.append(dyngrad.is_grad_enabled())
            return g

    Probe.apply(leaf(2)).sum().backward()
    assert modes == [False, False]


def test_node_class_is_named_after_the_function_and_lists_next_functions():
    x = leaf(2)
    y = Twice.apply(x * 1, 2)
    assert type(y.grad_fn).__name__ == "TwiceBackward"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    assert y.grad_fn.next_functions[1] == (None, 0)
    z = Twice.apply(x, 2)
    assert z.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    assert z.grad_fn.next_functions[0][0].variable is x


def test_ctx_is_freed_with_the_graph():
    x = leaf(2)
    y = Twice.apply(x, 2)
    ref = weakref.ref(y.grad_fn)
    del y
    assert ref() is None
    gc.collect()


def test_keyword_only_tensor_that_requires_grad_is_refused_instead_of_cut_off():
    class KwOnly(Function):
        @staticmethod
        def forward(ctx, x, *, w):
            return x * w

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="keyword-only argument 'w'.*positional"):
        KwOnly.apply(leaf(2), w=leaf(2))
    out = KwOnly.apply(leaf(2), w=dyngrad.ones(2, dtype=dyngrad.float64))  # constants are fine
    assert out.requires_grad


# ---------------------------------------------------------------- one recording path: `trusted`
def test_a_users_function_is_not_trusted_by_default_and_its_ctx_tensors_warn():
    class Keep(dyngrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.kept = x
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    assert dyngrad.autograd.Function.trusted is False and Keep.trusted is False
    with pytest.warns(UserWarning, match="stored a Tensor as ctx.kept"):
        Keep.apply(dyngrad.ones(2, requires_grad=True))


def test_a_users_trusted_function_takes_the_built_in_ops_path():
    class Double(dyngrad.autograd.Function):
        trusted = True

        @staticmethod
        def forward(ctx, x):
            ctx.kept = x  # a trusted Function is taken at its word: no warning
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = dyngrad.ones(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = Double.apply(x)
    y.sum().backward()
    assert y.grad_fn.name() == "DoubleBackward" and x.grad.tolist() == [2.0, 2.0, 2.0]
    assert dyngrad.exp(x).grad_fn._forward_cls.trusted  # built-in ops: the same attribute
