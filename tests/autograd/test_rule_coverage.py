"""Every built-in Function declares a forward-mode rule (``jvp``) and a batching rule
(``vmap``) next to its backward (issue 6); the last few added are checked here."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import dyngrad
from dyngrad.autograd import Function, gradcheck
from dyngrad.ops.reduction import SumToSize

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
rng = np.random.default_rng(2)
INTERNAL: set[str] = set()  # (forward AD had its own node here; it has none now)


def _builtin_functions() -> list:
    mods = ["dyngrad.ops." + m.name for m in pkgutil.iter_modules(dyngrad.ops.__path__)]
    mods += ["dyngrad.nn.functional", "dyngrad.nn._functional_norm", "dyngrad.nn._functional_conv",
             "dyngrad.nn.hooks", "dyngrad.autograd.engine", "dyngrad.autograd.forward_ad", "dyngrad.utils.checkpoint"]
    out = []
    for m in mods:
        mod = importlib.import_module(m)
        for name, c in vars(mod).items():
            if (inspect.isclass(c) and issubclass(c, Function) and c.__module__ == m
                    and getattr(c, "trusted", False) and name not in INTERNAL):
                out.append(c)
    return out


def test_every_built_in_function_has_a_jvp_and_a_vmap_rule() -> None:
    fns = _builtin_functions()
    assert len(fns) > 150
    no_jvp = [c.__name__ for c in fns if not any("jvp" in k.__dict__ for k in c.__mro__ if k is not Function)]
    no_vmap = [c.__name__ for c in fns if getattr(c, "vmap", None) is None]
    assert not no_jvp, f"built-in Functions without a jvp rule: {no_jvp}"
    assert not no_vmap, f"built-in Functions without a batching rule: {no_vmap}"


@pytest.mark.parametrize("name", ["embedding", "max_pool2d_with_indices", "sum_to_size", "full_backward_hook"])
def test_forward_mode_of_the_last_rules_matches_finite_differences(name) -> None:  # noqa: ANN001
    if name == "embedding":
        idx = dyngrad.tensor([[0, 4], [2, 2]])
        fn, x = (lambda w: dyngrad.nn.functional.embedding(idx, w)), rng.standard_normal((5, 3))
    elif name == "max_pool2d_with_indices":
        fn, x = (lambda a: dyngrad.nn.functional.max_pool2d(a, 2, return_indices=True)[0]), rng.standard_normal((1, 2, 4, 4))
    elif name == "sum_to_size":
        fn, x = (lambda g: SumToSize.apply(g, (1, 4))), rng.standard_normal((3, 4))
    else:
        m = dyngrad.nn.Linear(3, 2).double()
        m.register_full_backward_hook(lambda mod, gi, go: None)
        fn, x = m, rng.standard_normal((4, 3))
    assert gradcheck(fn, (T(x).requires_grad_(),), check_forward_ad=True)
