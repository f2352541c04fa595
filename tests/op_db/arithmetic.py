"""The arithmetic family of the op database (moved from the BINARY / UNARY tables of
tests/ops/test_arithmetic.py): the binary operators and their alpha forms on broadcast
shapes, scalar operands on either side, powers, float_power, clone, a float32 round trip and
chains of in-place ops. Golden values in tests/golden/arithmetic.npz
(tests/golden/gen_arithmetic.py). The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import numpy as np

import dyngrad as dg
from tests.op_db.info import OpInfo, skip

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "arithmetic.npz")


def _signed(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)


def _binary_inputs(rng: np.random.Generator, shapes: tuple) -> tuple:
    """A positive left operand and a signed right one (away from 0), as the old table's."""
    return rng.uniform(0.5, 2.0, shapes[0]), _signed(rng, shapes[1])


def A(name: str, f, shapes: tuple = ((3, 1), (4,)), **kw) -> OpInfo:  # noqa: ANN001
    """An entry written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("make_inputs", _binary_inputs if len(shapes) == 2 else
                  lambda rng, shapes: tuple(_signed(rng, s) for s in shapes))
    kw.setdefault("int_result", None)
    kw.setdefault("rtol", 1e-12)
    kw.setdefault("atol", 1e-12)
    return OpInfo(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), shapes=shapes,
                  formerly=(f"arith_table:{name}",), **kw)


U = ((2, 3),)
_POS = {"make_inputs": lambda rng, shapes: (rng.uniform(0.5, 2.0, shapes[0]),)}

SPECS = [
    A("add", lambda m, x, y: x + y),
    A("add_alpha", lambda m, x, y: m.add(x, y, alpha=2.5)),
    A("sub", lambda m, x, y: x - y),
    A("sub_alpha", lambda m, x, y: m.sub(x, y, alpha=-1.5)),
    A("rsub", lambda m, x, y: m.rsub(x, y)),
    A("mul", lambda m, x, y: x * y),
    A("div", lambda m, x, y: x / y),
    A("pow", lambda m, x, y: x ** y),
    A("remainder", lambda m, x, y: m.remainder(x * 3, y)),
    A("fmod", lambda m, x, y: m.fmod(x * 3, y)),
    A("neg", lambda m, t: -t, U),
    A("pow_scalar", lambda m, t: t ** 3, U),
    A("pow_half", lambda m, t: t ** 0.5, U, **_POS),
    A("pow_neg", lambda m, t: t ** (-2), U),
    A("rpow", lambda m, t: 2.0 ** t, U),
    A("radd", lambda m, t: 1.5 + t, U),
    A("rsub_scalar", lambda m, t: 1.5 - t, U),
    A("rmul", lambda m, t: 1.5 * t, U),
    A("rdiv", lambda m, t: 1.5 / t, U),
    A("div_scalar", lambda m, t: t / 4.0, U),
    A("float_power", lambda m, t: m.float_power(t, 2), U, out_dtype="float64"),  # computes in double
    A("clone", lambda m, t: t.clone() * 2, U),
    A("to_f32", lambda m, t: t.to(m.float32).to(m.float64) * 2, U, out_dtype="float64", rtol=1e-6, eps=1e-2, grad_rtol=1e-3,
      grad_atol=1e-4, skips={c: "a float32 intermediate: gradcheck's float64 finite differences are meaningless "
                                "(forward mode and the golden values still check it)"
                             for c in ("gradcheck", "gradgradcheck")}),
    A("inplace_chain", lambda m, t: (t * 1).mul_(2).add_(1).sub_(0.5).div_(3).pow_(2), U),
    A("add_alpha_inplace", lambda m, t: (t * 1).add_(t, alpha=3), U),
]

# PyTorch 2.13's names for these overloads; dyngrad's Functions carry one name per op
skip(SPECS, ("rsub", "rsub_scalar"), "PyTorch records RsubBackward0 / RsubBackward1 for rsub and a scalar minus a "
     "tensor; dyngrad records the subtraction's SubBackward0", "node_name")
skip(SPECS, ("pow", "rpow"), "PyTorch numbers the pow overloads (PowBackward1 for tensor ** tensor, PowBackward2 "
     "for number ** tensor); dyngrad names every pow PowBackward0", "node_name")
skip(SPECS, ("remainder", "fmod"), "PyTorch 2.13 names the tensor-tensor overloads RemainderBackward1 and "
     "FmodBackward1; dyngrad's fmod and remainder share one Function named RemainderBackward0", "node_name")
skip(SPECS, ("rdiv",), "PyTorch computes number / tensor as a reciprocal times the number (MulBackward0); dyngrad "
     "records a division (DivBackward0)", "node_name")
