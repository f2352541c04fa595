"""The activation family of the op database (moved from tests/ops/test_activation.py); golden values
in tests/golden/activation.npz. The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import dyngrad.ops.activation as A
from dyngrad.ops import activation as _activation
from dyngrad.ops import thresholding as _thresholding
from tests.op_db.info import OpInfo as OpSpec

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "..", "golden", "activation.npz")


def _act(name, fn=None, **kw):
    kw.setdefault("int_result", None)
    base = name.split(":")[0]
    return OpSpec(name.replace(":", "_"), fn or getattr(A, base), "nn.functional." + base, **kw)


SPECS = [
    _act("softplus", domain=(-5.0, 5.0), function=_activation.Softplus, formerly=('jvp_rules:softplus', 'jvp_ops:softplus')),
    _act("softplus:beta_threshold", kwargs={"beta": 2.0, "threshold": 1.0}),
    _act("relu6", domain=(-2.0, 8.0), function=_activation.Hardtanh, formerly=('jvp_rules:relu6',)),
    _act("hardtanh", domain=(-3.0, 3.0), function=_activation.Hardtanh, formerly=('jvp_rules:hardtanh',)),
    _act("hardtanh:range", kwargs={"min_val": -0.5, "max_val": 1.5}),
    _act("leaky_relu", function=_activation.LeakyRelu, formerly=('jvp_rules:leaky_relu',)),
    _act("leaky_relu:slope", kwargs={"negative_slope": 0.2}),
    _act("elu", function=_activation.Elu, formerly=('jvp_rules:elu', 'jvp_ops:elu')),
    _act("elu:alpha", kwargs={"alpha": 0.5}),
    _act("selu", function=_activation.Elu, formerly=('jvp_rules:selu',)),
    _act("celu", function=_activation.Celu, formerly=('jvp_rules:celu',)),
    _act("celu:alpha", kwargs={"alpha": 2.0}),
    _act("gelu", domain=(-4.0, 4.0), function=_activation.Gelu, formerly=('jvp_rules:gelu', 'jvp_ops:gelu')),
    _act("gelu:tanh", domain=(-4.0, 4.0), kwargs={"approximate": "tanh"}, function=_activation.Gelu, formerly=('jvp_rules:gelu_tanh',)),
    _act("silu", domain=(-6.0, 6.0), function=_activation.Silu, formerly=('jvp_rules:silu', 'jvp_ops:silu')),
    _act("mish", domain=(-6.0, 6.0), function=_activation.Mish, formerly=('jvp_rules:mish',)),
    _act("hardswish", domain=(-5.0, 5.0), function=_activation.Hardswish, formerly=('jvp_rules:hardswish',)),
    # PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32 (rel. error 3e-8)
    _act("hardsigmoid", domain=(-5.0, 5.0), rtol=1e-8, function=_activation.Hardsigmoid, formerly=('jvp_rules:hardsigmoid',)),
    _act("softsign", function=_thresholding.Softsign, formerly=('jvp_rules:softsign',)),
    _act("logsigmoid", domain=(-30.0, 30.0), function=_thresholding.LogSigmoid, formerly=('jvp_rules:logsigmoid',)),
    _act("tanhshrink", function=_thresholding.Tanhshrink, formerly=('jvp_rules:tanhshrink',)),
    _act("threshold", kwargs={"threshold": 0.1, "value": 2.0}, function=_thresholding.Threshold, formerly=('jvp_rules:threshold',)),
    _act("hardshrink", domain=(-1.5, 1.5), function=_thresholding.Shrink, formerly=('jvp_rules:hardshrink',)),
    _act("softshrink", domain=(-1.5, 1.5), function=_thresholding.Softshrink, formerly=('jvp_rules:softshrink',)),
    _act("softshrink:lambd", domain=(-1.5, 1.5), kwargs={"lambd": 0.2}),
    _act("rrelu"),  # eval mode: fixed slope (lower + upper) / 2
    _act("prelu", shapes=((2, 3, 4), (3,)), broadcast=[((2, 3), (1,)), ((5,), (1,))], domain=[(-2, 2), (0.0, 0.5)], function=_thresholding.Prelu, formerly=('jvp_rules:prelu',)),
    _act("glu", shapes=((3, 4),), zero_dim=False, function=_thresholding.Glu, formerly=('jvp_rules:glu',)),
    _act("glu:dim0", shapes=((4, 3),), kwargs={"dim": 0}, zero_dim=False, function=_thresholding.Glu, formerly=('vmap_pointwise:glu_dim0',)),
]
