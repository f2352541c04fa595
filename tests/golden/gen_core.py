"""Generate tests/golden/core.npz: PyTorch 2.13 reference values for the core.

Run with torch installed (``pip install -e .[oracle]``)::

    python tests/golden/gen_core.py

Contents:
* ``repr/<case>``: ``repr()`` strings of small tensors (tests compare modulo the module
  name: dyngrad prints ``dtype=dyngrad.float64`` where PyTorch prints ``torch.float64``).
* ``promo/<case>``: the dtype name of ``a <op> b`` for a table of operand kinds.
* ``arith/<op>/...``: inputs (generated with NumPy, saved here so both libraries see the
  same values), forward output and gradients of each arithmetic op on broadcast shapes.
"""

from __future__ import annotations

import os

import numpy as np
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "core.npz")
rng = np.random.default_rng(20260101)
data: dict[str, np.ndarray] = {}

# ----------------------------------------------------------------------------- repr
REPR_CASES = {
    "float_vec": lambda: torch.tensor([1.0, 2.0]),
    "float_vec_rg": lambda: torch.tensor([1.0, 2.0], requires_grad=True),
    "grad_fn_mul": lambda: torch.tensor([1.0, 2.0], requires_grad=True) * 2,
    "frac": lambda: torch.tensor([0.1234, 1.5, -2.25]),
    "scalar": lambda: torch.tensor(7.0),
    "scalar_rg": lambda: torch.tensor(2.0, requires_grad=True),
    "int_vec": lambda: torch.tensor([1, 2, 3]),
    "bool_vec": lambda: torch.tensor([True, False]),
    "float64_vec": lambda: torch.tensor([1.0, 2.5], dtype=torch.float64),
    "int32_vec": lambda: torch.tensor([1, 2], dtype=torch.int32),
    "matrix": lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "empty": lambda: torch.tensor([]),
    "empty_2d": lambda: torch.zeros(0, 3),
    "grad_fn_add_f64": lambda: torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True) + 1,
    "neg_int_like": lambda: torch.tensor([-1.0, 0.0, 3.0]),
    "nonfinite": lambda: torch.tensor([float("inf"), -float("inf"), float("nan")]),
    "nan_and_value": lambda: torch.tensor([float("nan"), 2.0]),
    "zeros": lambda: torch.zeros(3),
    "zero_and_value": lambda: torch.tensor([0.0, 1.5]),
    "sci_small": lambda: torch.tensor([1e-5, 0.0, -3.0]),
    "sci_large_int": lambda: torch.tensor([123456.0, -7.0, 0.0]),
    "sci_huge": lambda: torch.tensor([-1e9, 1.0]),
    "matrix_mixed": lambda: torch.tensor([[1.5, -20.25], [0.0, 3.0]]),
    "neg_scalar": lambda: torch.tensor(-3.25),
    "summarized_float": lambda: torch.arange(2000).float(),
    "summarized_int_3d": lambda: torch.arange(3 * 40 * 40).reshape(3, 40, 40),
    "summarized_matrix": lambda: torch.arange(40 * 40).reshape(40, 40).float() / 7,
    "bool_all_true": lambda: torch.tensor([True, True]),
    "bool_matrix": lambda: torch.tensor([[True, False], [True, True]]),
    "empty_int64": lambda: torch.tensor([], dtype=torch.int64),
    "empty_bool_2d": lambda: torch.zeros(0, 2, dtype=torch.bool),
}
for name, make in REPR_CASES.items():
    data[f"repr/{name}"] = np.array(repr(make()))

# ----------------------------------------------------------------------------- promotion
PROMO_OPERANDS = {
    "i64": lambda: torch.tensor([1, 2]),
    "i32": lambda: torch.tensor([1, 2], dtype=torch.int32),
    "u8": lambda: torch.tensor([1, 2], dtype=torch.uint8),
    "i8": lambda: torch.tensor([1, 2], dtype=torch.int8),
    "b": lambda: torch.tensor([True, False]),
    "f32": lambda: torch.tensor([1.0, 2.0]),
    "f64": lambda: torch.tensor([1.0, 2.0], dtype=torch.float64),
    "f16": lambda: torch.tensor([1.0, 2.0], dtype=torch.float16),
    "f64_0d": lambda: torch.tensor(2.0, dtype=torch.float64),
    "i64_0d": lambda: torch.tensor(2),
    "f32_0d": lambda: torch.tensor(2.0),
    "py_int": lambda: 2,
    "py_float": lambda: 2.5,
    "py_bool": lambda: True,
}
PROMO_OPS = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "div": lambda a, b: a / b}
for an, amake in PROMO_OPERANDS.items():
    for bn, bmake in PROMO_OPERANDS.items():
        if an.startswith("py") and bn.startswith("py"):
            continue
        for opn, op in PROMO_OPS.items():
            try:
                r = op(amake(), bmake())
                data[f"promo/{an}/{opn}/{bn}"] = np.array(str(r.dtype).replace("torch.", ""))
            except Exception as e:  # noqa: BLE001 - record that PyTorch refuses
                data[f"promo/{an}/{opn}/{bn}"] = np.array("error:" + type(e).__name__)

# ----------------------------------------------------------------------------- arithmetic
A_SHAPE, B_SHAPE = (3, 1), (4,)


def both_tensor(name, fn, a, b, domain_b=None):
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    out = fn(ta, tb)
    g = rng.standard_normal(out.shape)
    out.backward(torch.tensor(g))
    data[f"arith/{name}/a"] = a
    data[f"arith/{name}/b"] = b
    data[f"arith/{name}/g"] = g
    data[f"arith/{name}/out"] = out.detach().numpy()
    data[f"arith/{name}/ga"] = ta.grad.numpy()
    data[f"arith/{name}/gb"] = tb.grad.numpy()


a = rng.uniform(0.5, 2.0, A_SHAPE)
b = rng.uniform(0.5, 2.0, B_SHAPE) * rng.choice([-1.0, 1.0], B_SHAPE)
pos_b = rng.uniform(0.5, 2.0, B_SHAPE)
both_tensor("add", lambda x, y: x + y, a, b)
both_tensor("add_alpha", lambda x, y: torch.add(x, y, alpha=2.5), a, b)
both_tensor("sub", lambda x, y: x - y, a, b)
both_tensor("sub_alpha", lambda x, y: torch.sub(x, y, alpha=-1.5), a, b)
both_tensor("rsub", lambda x, y: torch.rsub(x, y), a, b)
both_tensor("mul", lambda x, y: x * y, a, b)
both_tensor("div", lambda x, y: x / y, a, b)
both_tensor("pow", lambda x, y: x**y, a, b)
both_tensor("remainder", lambda x, y: torch.remainder(x * 3, y), a, b)
both_tensor("fmod", lambda x, y: torch.fmod(x * 3, y), a, b)


def unary(name, fn, x):
    tx = torch.tensor(x, requires_grad=True)
    out = fn(tx)
    g = rng.standard_normal(out.shape)
    out.backward(torch.tensor(g))
    data[f"arith/{name}/a"] = x
    data[f"arith/{name}/g"] = g
    data[f"arith/{name}/out"] = out.detach().numpy()
    data[f"arith/{name}/ga"] = tx.grad.numpy()


x = rng.uniform(0.5, 2.0, (2, 3)) * rng.choice([-1.0, 1.0], (2, 3))
xp = rng.uniform(0.5, 2.0, (2, 3))
unary("neg", lambda t: -t, x)
unary("pow_scalar", lambda t: t**3, x)
unary("pow_half", lambda t: t**0.5, xp)
unary("pow_neg", lambda t: t ** (-2), x)
unary("rpow", lambda t: 2.0**t, x)
unary("radd", lambda t: 1.5 + t, x)
unary("rsub_scalar", lambda t: 1.5 - t, x)
unary("rmul", lambda t: 1.5 * t, x)
unary("rdiv", lambda t: 1.5 / t, x)
unary("div_scalar", lambda t: t / 4.0, x)
# floor_divide: PyTorch has no derivative for it (backward raises), so no grads here.
unary("float_power", lambda t: torch.float_power(t, 2), x)
unary("clone", lambda t: t.clone() * 2, x)
unary("to_f32", lambda t: t.to(torch.float32).to(torch.float64) * 2, x)
unary("inplace_chain", lambda t: (t * 1).mul_(2).add_(1).sub_(0.5).div_(3).pow_(2), x)
unary("add_alpha_inplace", lambda t: (t * 1).add_(t, alpha=3), x)

# int / float32 forward dtypes
data["arith/int_div/out"] = (torch.tensor([1, 2, 3]) / 2).numpy()
data["arith/int_floordiv/out"] = (torch.tensor([-7, 7, 5]) // 2).numpy()
data["arith/int_remainder/out"] = (torch.tensor([-7, 7, 5]) % 3).numpy()
data["arith/int_fmod/out"] = torch.fmod(torch.tensor([-7, 7, 5]), 3).numpy()
data["arith/float_floordiv/out"] = (torch.tensor([-7.5, 7.5, 5.0]) // 2).numpy()
data["arith/div_trunc/out"] = torch.div(torch.tensor([-7.5, 7.5, 5.0]), 2, rounding_mode="trunc").numpy()
data["arith/int_div_trunc/out"] = torch.div(torch.tensor([-7, 7, 5]), 2, rounding_mode="trunc").numpy()

np.savez_compressed(OUT, **data)
print(f"wrote {OUT}: {len(data)} arrays, {os.path.getsize(OUT)} bytes")
