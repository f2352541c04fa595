"""Live oracle: hypothesis draws programs mixing views, no_grad, in-place ops, retain_grad,
tensor hooks and detach_ (tests/autograd/view_programs.py); dyngrad and PyTorch must agree
on every value, every leaf's and retained tensor's ``.grad``, and on which step raises
which exception type."""

import pytest

torch = pytest.importorskip("torch")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import dyngrad  # noqa: E402
from tests.autograd.view_programs import compare, generate, run  # noqa: E402

pytestmark = pytest.mark.oracle


class _Draw:
    """``generate``'s random source over hypothesis' ``data.draw`` (so it shrinks)."""

    def __init__(self, data):
        self._data = data

    def randint(self, a, b):
        return self._data.draw(st.integers(a, b))

    def random(self):
        return self._data.draw(st.floats(0, 1, exclude_max=True))

    def choice(self, seq):
        return self._data.draw(st.sampled_from(list(seq)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_view_in_place_hook_programs_match_live_pytorch(data):
    program = generate(_Draw(data))
    compare(run(dyngrad, program), run(torch, program), program)
