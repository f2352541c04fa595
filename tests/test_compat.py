"""The boilerplate names PyTorch scripts reach for (issue 12): set/get_num_threads (really
limit the BLAS threads), backends, accelerator, jit/compile pass-throughs, the default device,
deterministic algorithms, autograd.Variable, utils.benchmark."""

import doctest
import importlib

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Variable


def test_set_num_threads_limits_the_blas_threads_numpy_uses():
    pytest.importorskip("threadpoolctl")
    from threadpoolctl import threadpool_info

    before = dyngrad.get_num_threads()
    try:
        dyngrad.set_num_threads(1)
        assert dyngrad.get_num_threads() == 1
        assert all(i["num_threads"] == 1 for i in threadpool_info() if i["user_api"] == "blas")
    finally:
        dyngrad.set_num_threads(before)
    assert dyngrad.get_num_threads() == before


def test_set_num_threads_rejects_non_positive_counts():
    with pytest.raises(RuntimeError, match="positive integer"):
        dyngrad.set_num_threads(0)
    with pytest.raises(TypeError):
        dyngrad.set_num_threads(1.5)


def test_backends_flags_are_accepted_and_nothing_is_available():
    dyngrad.backends.cudnn.benchmark = True
    dyngrad.backends.cudnn.deterministic = True
    dyngrad.backends.cuda.matmul.allow_tf32 = True
    assert not dyngrad.backends.mps.is_available() and not dyngrad.backends.cudnn.is_available()
    assert not dyngrad.accelerator.is_available() and dyngrad.accelerator.current_accelerator() is None


def test_compile_and_jit_are_pass_throughs_that_compute_the_same_values():
    m = dyngrad.nn.Linear(3, 2)
    assert dyngrad.compile(m) is m
    assert dyngrad.compile()(m) is m
    f = lambda x: x.sin()  # noqa: E731
    assert dyngrad.jit.script(f) is f and dyngrad.jit.trace(f, dyngrad.ones(2)) is f
    assert not dyngrad.jit.is_scripting()


def test_default_device_is_the_cpu_and_others_are_refused():
    dyngrad.set_default_device("cpu")
    dyngrad.set_default_device(None)
    assert str(dyngrad.get_default_device()) == "cpu"
    with pytest.raises(RuntimeError):
        dyngrad.set_default_device("cuda")


def test_deterministic_algorithms_setting_is_reported_back():
    assert not dyngrad.are_deterministic_algorithms_enabled()
    dyngrad.use_deterministic_algorithms(True)
    try:
        assert dyngrad.are_deterministic_algorithms_enabled()
    finally:
        dyngrad.use_deterministic_algorithms(False)


def test_variable_is_a_detached_leaf_sharing_memory_and_every_tensor_is_one():
    x = dyngrad.ones(2) * 3
    v = Variable(x, requires_grad=True)
    assert v is not x and v.requires_grad and v.is_leaf and not x.requires_grad
    v._data[0] = 7.0  # shares memory, as PyTorch's
    assert float(x[0]) == 7.0
    assert isinstance(x, Variable) and not isinstance(np.ones(2), Variable)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1, 2])


def test_benchmark_timer_measures_and_compare_prints_a_table(capsys):
    from dyngrad.utils.benchmark import Compare, Timer

    x = dyngrad.ones(4)
    a = Timer("x * 2", globals={"x": x}, label="mul", sub_label="4", description="dyngrad").timeit(5)
    b = Timer(lambda: x + 1, label="mul", sub_label="4", description="add").blocked_autorange(min_run_time=0.01)
    assert a.number_per_run == 5 and a.median > 0 and b.median > 0 and len(b.times) >= 1
    assert "measurement" in repr(a)
    Compare([a, b]).print()
    out = capsys.readouterr().out
    assert "[-- mul --]" in out and "dyngrad" in out and "add" in out


@pytest.mark.parametrize("modname", ["dyngrad.threads", "dyngrad.backends", "dyngrad.accelerator", "dyngrad.jit",
                                     "dyngrad._runtime", "dyngrad.utils.benchmark"])
def test_docstring_examples_run(modname):
    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
