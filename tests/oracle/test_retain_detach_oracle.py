"""Live oracle for the programs hypothesis found (tests/oracle/test_view_hook_oracle.py):
``retain_grad``, ``detach_``, then an in-place op, with and without a view in between;
dyngrad and PyTorch must agree on values, grads and which step raises which exception."""

import warnings

import pytest

torch = pytest.importorskip("torch")

import dyngrad  # noqa: E402
from tests.autograd.view_programs import compare, run  # noqa: E402

pytestmark = pytest.mark.oracle

PROGRAMS = [
    # the shrunk example: retain_grad, detach_, in-place add_ of a tensor that requires grad
    [["leaf", [4]], ["clone", 0, False], ["retain", 1], ["detach_", 1], ["inplace", 1, "add_t", 0, False],
     ["loss", [0, 1]]],
    [["leaf", [4, 4]], ["leaf", [4, 4]], ["clone", 0, False], ["retain", 2], ["detach_", 2], ["view", 2, "t", False],
     ["inplace", 3, "add_t", 1, False], ["loss", [0, 2, 3]]],
    [["leaf", [4, 4]], ["leaf", [4, 4]], ["clone", 0, False], ["retain", 2], ["detach_", 2],
     ["inplace", 2, "add_t", 1, False], ["loss", [0, 2]]],
    [["leaf", [4]], ["clone", 0, False], ["retain", 1], ["detach_", 1], ["inplace", 1, "sin", 0.5, True],
     ["inplace", 1, "add_t", 0, False], ["loss", [1]]],
    [["leaf", [3, 4]], ["clone", 0, False], ["retain", 1], ["detach_", 1], ["view", 1, "slice1", False],
     ["inplace", 2, "mul", 2.0, False], ["inplace", 1, "setitem", 2.0, False], ["loss", [0, 1]]],
]


@pytest.mark.parametrize("program", PROGRAMS)
def test_retain_detach_in_place_programs_match_live_pytorch(program):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(run(dyngrad, program), run(torch, program), program)


@pytest.mark.parametrize("write", ["add_", "copy_", "view", "setitem"])
def test_retain_detach_writes_match_live_pytorch(write):
    out = {}
    for lib in (dyngrad, torch):
        a = lib.ones(4, dtype=lib.float64, requires_grad=True)
        c = (a * 2).clone()
        c.retain_grad()
        c.detach_()
        err = None
        try:
            if write == "add_":
                c.add_(a)
            elif write == "copy_":
                c.copy_(a * 3)
            elif write == "view":
                c[1:].mul_(a[1:])
            else:
                c[0] = a[0] * 3
            (c * lib.arange(4.0, dtype=lib.float64)).sum().backward()
        except RuntimeError:
            err = "RuntimeError"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[lib.__name__] = (err, c.detach().tolist(), c.grad is None,
                                 None if a.grad is None else a.grad.tolist())
    assert out["dyngrad"] == out["torch"]
