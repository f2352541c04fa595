"""Small random programs mixing views (slices, transpose, diagonal, select, unsqueeze),
no_grad, in-place ops, retain_grad, tensor hooks and detach_, and an interpreter that runs
one on any library with PyTorch's API (``dyngrad`` or ``torch``).

A program is JSON data (a list of steps), so the same program runs on both libraries and
can be stored with PyTorch's results as golden data (tests/golden/view_programs.json,
written by ``python -m tests.autograd.view_programs`` with torch installed).

``run(lib, program)`` returns what is compared: the values of every tensor the program
made, the ``.grad`` of the leaves and of the tensors that retain their grad, and, when a
step raised, the step's index and the exception's type.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import numpy as np

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "view_programs.json")

VIEWS_2D = ("slice0", "slice1", "t", "diag", "select", "step1")
VIEWS_1D = ("slice0", "unsq", "step0")
INPLACE = ("mul", "add", "add_t", "zero", "sin", "setitem")
OUTPLACE = ("mul2", "sin", "mul_t")


def _view_shape(shape: tuple, kind: str) -> tuple:
    if kind == "slice0":
        return (shape[0] - 1, *shape[1:])
    if kind == "slice1":
        return (shape[0], shape[1] - 1)
    if kind == "t":
        return (shape[1], shape[0])
    if kind == "diag":
        return (min(shape),)
    if kind == "select":
        return shape[1:]
    if kind == "step1":
        return (shape[0], (shape[1] + 1) // 2)
    if kind == "step0":
        return ((shape[0] + 1) // 2,)
    if kind == "unsq":
        return (1, *shape)
    raise ValueError(kind)


def _views_for(shape: tuple) -> list:
    if len(shape) == 2:
        ok = ["t", "diag", "select", "step1"]
        if shape[0] >= 2:
            ok.append("slice0")
        if shape[1] >= 2:
            ok.append("slice1")
        return ok
    if len(shape) == 1:
        return ["unsq", "step0"] + (["slice0"] if shape[0] >= 2 else [])
    return []


def generate(rng: Any, max_steps: int = 8) -> list:
    """A random program; ``rng`` has ``randint(a, b)``, ``random()`` and ``choice(seq)``
    (``random.Random`` or the adapter over a hypothesis ``data.draw``)."""
    shapes: list = []
    prog: list = []
    detached = False
    is_view: list = []
    root: list = []  # the slot each view was (transitively) taken from
    plain: list = []  # may not require grad (conservative)
    for _ in range(rng.randint(1, 2)):
        shape = rng.choice([(3, 4), (4, 4), (4,)])
        prog.append(["leaf", list(shape)])
        shapes.append(shape)
        is_view.append(False)
        root.append(len(root))
        plain.append(False)
    if rng.random() < 0.7:
        prog.append(["clone", 0, False])
        shapes.append(shapes[0])
        is_view.append(False)
        root.append(len(root))
        plain.append(False)
    for _ in range(rng.randint(1, max_steps)):
        i = rng.randint(0, len(shapes) - 1)
        shape = shapes[i]
        kind = rng.choice(["view", "view", "view", "inplace", "inplace", "inplace", "op", "retain", "hook",
                           "detach_"])
        nograd = rng.random() < 0.3
        if kind == "view" and _views_for(shape) and not (nograd and plain[i]):
            # (no_grad views of tensors that do not require grad: see _view_inplace.py's
            # mark_nograd_view for the one difference from torch they can show)
            v = rng.choice(_views_for(shape))
            prog.append(["view", i, v, nograd])
            shapes.append(_view_shape(shape, v))
            is_view.append(True)
            root.append(root[i])
            plain.append(plain[i])
        elif kind == "inplace":
            op = rng.choice(INPLACE)
            # (an operand that partly overlaps the written tensor, x.add_(x.t()), is refused
            # by torch and not by dyngrad: other operands come from other bases)
            same = [j for j, s in enumerate(shapes) if s == shape and root[j] != root[i]]
            if op == "add_t" and not same:
                op = "add"
            prog.append(["inplace", i, op, rng.choice(same) if op == "add_t" else rng.choice([2.0, -1.0, 0.5]),
                         nograd])
        elif kind == "op":
            op = rng.choice(OUTPLACE)
            same = [j for j, s in enumerate(shapes) if s == shape]
            j = rng.choice(same)
            prog.append(["op", i, op, j, nograd])
            shapes.append(shape)
            is_view.append(False)
            root.append(len(root))
            plain.append(nograd or (plain[i] and (op != "mul_t" or plain[j])))
        elif kind == "retain":
            prog.append(["retain", i])
        elif kind == "hook" and not detached and not is_view[i]:
            # (torch 2.13 can crash (SIGSEGV) registering a hook on a view after a no_grad
            # in-place op on it or a detach_ of its base: hooks go on non-views only)
            prog.append(["hook", i, rng.choice([2.0, -1.0, 0.5])])
        elif kind == "detach_" and (is_view[i] or i not in {root[j] for j in range(len(shapes)) if is_view[j]}):
            # (detach_ of a tensor that has views leaves torch 2.13 in states that contradict
            # each other, e.g. an in-place op on such a view raises "a view of a leaf
            # Variable that requires grad" although the base no longer requires grad)
            prog.append(["detach_", i])
            detached = True
            plain[i] = True
    n = len(shapes)
    prog.append(["loss", sorted({rng.randint(0, n - 1) for _ in range(rng.randint(1, 3))})])
    return prog


def _weights(shape: tuple) -> np.ndarray:
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float64) % 5 - 1.5).reshape(shape)


def _view(t: Any, kind: str) -> Any:
    if kind == "slice0":
        return t[1:]
    if kind == "slice1":
        return t[:, 1:]
    if kind == "t":
        return t.t()
    if kind == "diag":
        return t.diagonal()
    if kind == "select":
        return t[0]
    if kind == "step1":
        return t[:, ::2]
    if kind == "step0":
        return t[::2]
    if kind == "unsq":
        return t.unsqueeze(0)
    raise ValueError(kind)


def _inplace(lib: Any, t: Any, op: str, arg: Any, slots: list) -> None:
    if op == "mul":
        t.mul_(arg)
    elif op == "add":
        t.add_(arg)
    elif op == "add_t":
        t.add_(slots[arg])
    elif op == "zero":
        t.zero_()
    elif op == "sin":
        t.sin_()
    elif op == "setitem":
        t[0] = arg
    else:
        raise ValueError(op)


def _outplace(t: Any, op: str, other: Any) -> Any:
    if op == "mul2":
        return t * 2
    if op == "sin":
        return t.sin()
    if op == "mul_t":
        return t * other
    raise ValueError(op)


def run(lib: Any, program: list) -> dict:
    """Run ``program`` with ``lib`` (dyngrad or torch) in float64; see the module docstring."""
    slots: list = []
    leaves: list = []
    retained: list = []
    error = None
    for k, step in enumerate(program):
        op = step[0]
        try:
            if op == "leaf":
                shape = tuple(step[1])
                n = int(np.prod(shape))
                data = (np.arange(n, dtype=np.float64) * 0.37 - 1.1).reshape(shape)
                t = lib.tensor(data, dtype=lib.float64, requires_grad=True)
                slots.append(t)
                leaves.append(len(slots) - 1)
            elif op == "clone":
                slots.append(slots[step[1]].clone())
            elif op == "view":
                if step[3]:
                    with lib.no_grad():
                        slots.append(_view(slots[step[1]], step[2]))
                else:
                    slots.append(_view(slots[step[1]], step[2]))
            elif op == "inplace":
                if step[4]:
                    with lib.no_grad():
                        _inplace(lib, slots[step[1]], step[2], step[3], slots)
                else:
                    _inplace(lib, slots[step[1]], step[2], step[3], slots)
            elif op == "op":
                if step[4]:
                    with lib.no_grad():
                        slots.append(_outplace(slots[step[1]], step[2], slots[step[3]]))
                else:
                    slots.append(_outplace(slots[step[1]], step[2], slots[step[3]]))
            elif op == "retain":
                t = slots[step[1]]
                if t.requires_grad:
                    t.retain_grad()
                    if not t.is_leaf:
                        retained.append(step[1])
            elif op == "hook":
                t = slots[step[1]]
                if t.requires_grad:
                    c = step[2]
                    t.register_hook(lambda g, c=c: g * c)
            elif op == "detach_":
                slots[step[1]].detach_()
            elif op == "loss":
                terms = [(slots[i] * lib.tensor(_weights(tuple(slots[i].shape)), dtype=lib.float64)).sum()
                         for i in step[1]]
                loss = terms[0]
                for t in terms[1:]:
                    loss = loss + t
                if loss.requires_grad:
                    loss.backward()
        except Exception as e:  # noqa: BLE001 - the exception's type is what is compared
            error = [k, type(e).__name__]
            break
    out: dict = {"error": error}
    out["values"] = [s.detach().numpy().tolist() for s in slots]
    out["leaf_grads"] = [None if slots[i].grad is None else slots[i].grad.numpy().tolist() for i in leaves]
    out["retained"] = [None if slots[i].grad is None else slots[i].grad.numpy().tolist() for i in retained]
    return out


def compare(got: dict, want: dict, program: list) -> None:
    """Assert that two ``run`` results agree (values to 1e-10).

    When the backward itself raised, the ``.grad`` fields are not compared: dyngrad commits
    gradients only after the whole pass succeeded (engine.py, invariant 4), PyTorch keeps
    those it accumulated before the error."""
    ctx = f"program {json.dumps(program)}"
    assert got["error"] == want["error"], f"{ctx}: error {got['error']} != {want['error']}"
    failed_backward = want["error"] is not None and program[want["error"][0]][0] == "loss"
    for key in ("values",) if failed_backward else ("values", "leaf_grads", "retained"):
        assert len(got[key]) == len(want[key]), f"{ctx}: {key} count"
        for i, (a, b) in enumerate(zip(got[key], want[key])):
            assert (a is None) == (b is None), f"{ctx}: {key}[{i}] {a} vs {b}"
            if a is not None:
                np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12,
                                           err_msg=f"{ctx}: {key}[{i}]")


def golden_programs(n: int = 400, seed: int = 10) -> list:
    rng = random.Random(seed)
    return [generate(rng) for _ in range(n)]


if __name__ == "__main__":  # regenerate the golden data (needs torch)
    import torch

    data = [{"program": p, "torch": run(torch, p)} for p in golden_programs()]
    with open(GOLDEN, "w") as f:
        json.dump({"torch_version": torch.__version__, "cases": data}, f, separators=(",", ":"))
    print(f"wrote {len(data)} programs to {GOLDEN}")
