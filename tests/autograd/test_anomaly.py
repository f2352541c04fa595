"""Anomaly mode: NaN/inf and errors in backward name the node, the output index and the
user's forward line (with its stack)."""

import inspect
import math
import threading

import pytest

import dyngrad as torch
from dyngrad.autograd import Function, detect_anomaly, is_anomaly_enabled, set_detect_anomaly


class NanBackward(Function):
    """Forward fine everywhere; backward is 0/0 at x == 0."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        return x * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x / x), None


class RaisingBackward(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        raise ValueError("boom in backward")


def _line_of(marker):
    src, start = inspect.getsourcelines(_forward_with_nan)
    for k, line in enumerate(src):
        if marker in line:
            return start + k
    raise AssertionError(marker)


def _forward_with_nan():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = NanBackward.apply(x, 2.0)  # <- the user line
    return y.sum()


def test_nan_in_backward_names_node_output_index_and_user_forward_line():
    with detect_anomaly():
        loss = _forward_with_nan()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
    msg = str(info.value)
    line = _line_of("# <- the user line")
    assert "Function 'NanBackwardBackward' returned nan values in its 0th output" in msg
    assert "(the gradient for input 0, 'x')" in msg
    assert f"{__file__}:{line}" in msg
    assert "Traceback of the forward call that created NanBackwardBackward" in msg
    assert "y = NanBackward.apply(x, 2.0)  # <- the user line" in msg
    assert "_forward_with_nan" in msg


def test_inf_from_a_builtin_op_is_reported_as_inf():
    x = torch.tensor([0.0, 4.0], requires_grad=True)
    with detect_anomaly():
        y = torch.sqrt(x)
        with pytest.raises(RuntimeError, match=r"'SqrtBackward0' returned inf values in its 0th output"):
            y.sum().backward()


def test_without_anomaly_mode_nan_gradients_pass_silently():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    NanBackward.apply(x, 2.0).sum().backward()
    g = x.grad.tolist()
    assert math.isnan(g[0]) and g[1] == 1.0


def test_check_nan_false_records_sites_but_does_not_check():
    with detect_anomaly(check_nan=False):
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        y = NanBackward.apply(x, 2.0)
        y.sum().backward()
    assert math.isnan(x.grad.tolist()[0])
    assert y.grad_fn._site.startswith(__file__)


def test_backward_error_gets_the_forward_stack_as_a_note():
    with detect_anomaly():
        x = torch.randn(3, requires_grad=True)
        y = RaisingBackward.apply(x)  # raising op
        with pytest.raises(ValueError, match="boom in backward") as info:
            y.sum().backward()
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "raised in the backward of RaisingBackwardBackward, created at" in notes
    assert __file__ in notes
    assert "y = RaisingBackward.apply(x)  # raising op" in notes


def test_sites_are_recorded_only_in_anomaly_mode():
    x = torch.randn(3, requires_grad=True)
    assert (x * 2).grad_fn._site is None
    with detect_anomaly():
        y = x * 2
    assert y.grad_fn._site.startswith(__file__ + ":")


def test_set_detect_anomaly_switches_and_restores_as_context_manager():
    assert not is_anomaly_enabled()
    set_detect_anomaly(True)
    try:
        assert is_anomaly_enabled()
    finally:
        set_detect_anomaly(False)
    assert not is_anomaly_enabled()
    with set_detect_anomaly(True):
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()


def test_detect_anomaly_as_decorator_and_per_thread():
    seen = []

    @detect_anomaly()
    def f():
        seen.append(is_anomaly_enabled())
        t = threading.Thread(target=lambda: seen.append(is_anomaly_enabled()))
        t.start()
        t.join()

    f()
    assert seen == [True, False]
    assert not is_anomaly_enabled()
