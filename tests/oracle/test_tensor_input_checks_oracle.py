"""Live comparison with PyTorch 2.13: a Python number where PyTorch requires a Tensor is a
TypeError in both, with PyTorch's message where PyTorch names the argument; what PyTorch
accepts gives PyTorch's values. Skipped when torch is not installed."""

from __future__ import annotations

import numpy as np
import pytest

import dyngrad as dg
from tests.ops.test_tensor_input_checks import CASES, INVALID_COMBINATION

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def _args(lib, args):
    return tuple(lib.tensor(a.tolist()) if isinstance(a, dg.Tensor) else a for a in args)


@pytest.mark.parametrize("name,args,message", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_message_is_pytorchs(name, args, message) -> None:
    with pytest.raises(TypeError) as e:
        getattr(torch, name)(*_args(torch, args))
    assert str(e.value).splitlines()[0] == message


@pytest.mark.parametrize("name,named,args", INVALID_COMBINATION, ids=[c[0] for c in INVALID_COMBINATION])
def test_pytorch_refuses_too(name, named, args) -> None:
    with pytest.raises(TypeError, match=name):
        getattr(torch, name)(*_args(torch, args))


@pytest.mark.parametrize("name,args", [("fmod", ([1.0, 2.0], 2.0)), ("copysign", ([1.0, 2.0], -1.0)),
                                       ("eq", ([1.0, 2.0], 2.0)), ("remainder", (5.0, [1.0, 2.0])),
                                       ("pow", (2.0, [1.0, 2.0])), ("xlogy", (2.0, [1.0, 2.0])),
                                       ("sub", (3.0, [1.0, 2.0])), ("lerp", ([1.0, 2.0], [3.0, 6.0], 0.5))])
def test_what_pytorch_accepts_gives_its_values(name, args) -> None:
    res = [getattr(lib, name)(*(lib.tensor(a) if isinstance(a, list) else a for a in args)).numpy() for lib in (torch, dg)]
    np.testing.assert_allclose(res[1], res[0], rtol=1e-6)
