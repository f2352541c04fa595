"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode; thread-local;
context managers and decorators."""

import threading

import numpy as np
import pytest

import dyngrad


def leaf():
    return dyngrad.tensor([1.0, 2.0], requires_grad=True)


def test_no_grad_context_records_nothing_and_restores():
    x = leaf()
    with dyngrad.no_grad():
        assert not dyngrad.is_grad_enabled()
        y = x * 2
    assert dyngrad.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None


def test_no_grad_as_decorator_with_and_without_call_parentheses_instance():
    @dyngrad.no_grad()
    def f(x):
        assert not dyngrad.is_grad_enabled()
        return x * 2

    assert f(leaf()).grad_fn is None
    assert dyngrad.is_grad_enabled()
    assert f.__name__ == "f"


def test_decorator_is_reentrant_across_nested_calls():
    @dyngrad.no_grad()
    def inner(x):
        return x * 2

    @dyngrad.no_grad()
    def outer(x):
        y = inner(x)
        assert not dyngrad.is_grad_enabled()
        return y * 3

    assert outer(leaf()).grad_fn is None
    assert dyngrad.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = leaf()
    with dyngrad.no_grad():
        with dyngrad.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_enable_grad_decorator_inside_no_grad():
    @dyngrad.enable_grad()
    def f(x):
        return x * 2

    with dyngrad.no_grad():
        y = f(leaf())
        assert not dyngrad.is_grad_enabled()
    assert y.requires_grad


def test_set_grad_enabled_as_function_context_and_decorator():
    x = leaf()
    dyngrad.set_grad_enabled(False)
    try:
        assert (x * 2).grad_fn is None
    finally:
        dyngrad.set_grad_enabled(True)
    with dyngrad.set_grad_enabled(False):
        assert (x * 2).grad_fn is None
    assert (x * 2).grad_fn is not None

    @dyngrad.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert dyngrad.is_grad_enabled()  # decorating does not leave the mode switched
    assert f(x).grad_fn is None
    assert dyngrad.is_grad_enabled()


def test_set_grad_enabled_requires_a_bool():
    with pytest.raises(TypeError, match="bool"):
        dyngrad.set_grad_enabled(1)


def test_inference_mode_disables_recording_and_is_reported():
    x = leaf()
    with dyngrad.inference_mode():
        assert dyngrad.autograd.is_inference_mode_enabled()
        y = x * 2
    assert not dyngrad.autograd.is_inference_mode_enabled()
    assert y.grad_fn is None
    with dyngrad.inference_mode(False):
        assert (x * 2).grad_fn is not None

    @dyngrad.inference_mode()
    def f(t):
        return t * 2

    assert f(x).grad_fn is None


def test_mode_is_restored_when_the_block_raises():
    with pytest.raises(ValueError):
        with dyngrad.no_grad():
            raise ValueError
    assert dyngrad.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}
    entered = threading.Event()
    release = threading.Event()

    def worker():
        entered.wait()
        seen["enabled"] = dyngrad.is_grad_enabled()
        x = leaf()
        seen["records"] = (x * 2).grad_fn is not None
        release.set()

    t = threading.Thread(target=worker)
    t.start()
    with dyngrad.no_grad():
        entered.set()
        release.wait(10)
        assert not dyngrad.is_grad_enabled()
    t.join()
    assert seen == {"enabled": True, "records": True}


def test_no_grad_in_a_thread_does_not_affect_main():
    done = threading.Event()
    state = {}

    def worker():
        with dyngrad.no_grad():
            state["inside"] = dyngrad.is_grad_enabled()
            done.set()
            state["main_checked"].wait(10)

    state["main_checked"] = threading.Event()
    t = threading.Thread(target=worker)
    t.start()
    done.wait(10)
    assert dyngrad.is_grad_enabled()
    state["main_checked"].set()
    t.join()
    assert state["inside"] is False


def test_in_place_op_on_leaf_is_allowed_under_no_grad():
    x = leaf()
    with dyngrad.no_grad():
        x.mul_(2)
        x -= 1
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 3.0])
    assert x.is_leaf and x.requires_grad


def test_decorated_generator_runs_in_the_mode_each_time_it_resumes():
    x = leaf()

    @dyngrad.no_grad()
    def gen(t):
        yield t * 2
        yield dyngrad.is_grad_enabled()

    g = gen(x)
    assert not next(g).requires_grad
    assert dyngrad.is_grad_enabled()  # restored between yields
    assert next(g) is False

    @dyngrad.enable_grad()
    def gen2(t):
        yield (t * 2).requires_grad

    with dyngrad.no_grad():
        assert next(gen2(x)) is True
        assert not dyngrad.is_grad_enabled()


def test_decorated_generator_close_and_throw_run_in_the_mode():
    seen = []

    @dyngrad.no_grad()
    def gen():
        try:
            yield 1
        except ValueError:
            seen.append(("throw", dyngrad.is_grad_enabled()))
            yield 2
        finally:
            seen.append(("close", dyngrad.is_grad_enabled()))

    g = gen()
    next(g)
    assert g.throw(ValueError) == 2
    g.close()
    assert seen == [("throw", False), ("close", False)]
    assert dyngrad.is_grad_enabled()


def test_parameterless_modes_work_as_bare_decorators():
    x = leaf()

    @dyngrad.no_grad
    def f(t):
        return t * 2

    @dyngrad.inference_mode
    def h(t):
        return t * 2

    assert f(x).grad_fn is None and h(x).grad_fn is None
    assert f.__name__ == "f"
    with dyngrad.no_grad():

        @dyngrad.enable_grad
        def k(t):
            return t * 2

        assert k(x).requires_grad
