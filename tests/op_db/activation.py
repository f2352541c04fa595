"""The activation family of the op database (moved from tests/ops/test_activation.py); golden values
in tests/golden/activation.npz. The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import dyngrad.ops.activation as A
from tests.op_db.info import OpInfo as OpSpec

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "..", "golden", "activation.npz")


def _act(name, fn=None, **kw):
    kw.setdefault("int_result", None)
    base = name.split(":")[0]
    return OpSpec(name.replace(":", "_"), fn or getattr(A, base), "nn.functional." + base, **kw)


SPECS = [
    _act("softplus", domain=(-5.0, 5.0)),
    _act("softplus:beta_threshold", kwargs={"beta": 2.0, "threshold": 1.0}),
    _act("relu6", domain=(-2.0, 8.0)),
    _act("hardtanh", domain=(-3.0, 3.0)),
    _act("hardtanh:range", kwargs={"min_val": -0.5, "max_val": 1.5}),
    _act("leaky_relu"),
    _act("leaky_relu:slope", kwargs={"negative_slope": 0.2}),
    _act("elu"),
    _act("elu:alpha", kwargs={"alpha": 0.5}),
    _act("selu"),
    _act("celu"),
    _act("celu:alpha", kwargs={"alpha": 2.0}),
    _act("gelu", domain=(-4.0, 4.0)),
    _act("gelu:tanh", domain=(-4.0, 4.0), kwargs={"approximate": "tanh"}),
    _act("silu", domain=(-6.0, 6.0)),
    _act("mish", domain=(-6.0, 6.0)),
    _act("hardswish", domain=(-5.0, 5.0)),
    # PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32 (rel. error 3e-8)
    _act("hardsigmoid", domain=(-5.0, 5.0), rtol=1e-8),
    _act("softsign"),
    _act("logsigmoid", domain=(-30.0, 30.0)),
    _act("tanhshrink"),
    _act("threshold", kwargs={"threshold": 0.1, "value": 2.0}),
    _act("hardshrink", domain=(-1.5, 1.5)),
    _act("softshrink", domain=(-1.5, 1.5)),
    _act("softshrink:lambd", domain=(-1.5, 1.5), kwargs={"lambd": 0.2}),
    _act("rrelu"),  # eval mode: fixed slope (lower + upper) / 2
    _act("prelu", shapes=((2, 3, 4), (3,)), broadcast=[((2, 3), (1,)), ((5,), (1,))], domain=[(-2, 2), (0.0, 0.5)]),
    _act("glu", shapes=((3, 4),), zero_dim=False),
    _act("glu:dim0", shapes=((4, 3),), kwargs={"dim": 0}, zero_dim=False),
]
