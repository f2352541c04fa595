"""The parametrization scenarios shared by tests/nn/test_parametrize.py (against golden
values), tests/oracle/test_parametrize_oracle.py (against live PyTorch) and
tests/golden/gen_parametrize.py.

A scenario is written once against the PyTorch API and run with ``lib`` = ``torch`` or
``dyngrad``: build a layer, register a parametrization, load the given state dict (so both
libraries start from PyTorch's initial originals and buffers: the random ``u``, ``v`` of
spectral norm and ``base`` of orthogonal), then take ``STEPS`` SGD steps (momentum) on
``sum(layer(x) ** 2)``, recording the output, the parametrized weight and the gradient of
every original at each step, and finally the state dict and an eval-mode output.
"""

from __future__ import annotations

from typing import Any

import numpy as np

STEPS = 3


class _Sym:
    """Factories of a symmetric parametrization (a user-defined Module with right_inverse)."""

    @staticmethod
    def make(lib: Any) -> Any:
        class Symmetric(lib.nn.Module):
            def forward(self, X):  # noqa: ANN001, ANN202
                return X.triu() + X.triu(1).mT

            def right_inverse(self, A):  # noqa: ANN001, ANN202
                return A.triu()

        return Symmetric()


class _Scale:
    @staticmethod
    def make(lib: Any) -> Any:
        class Scale(lib.nn.Module):
            def forward(self, X):  # noqa: ANN001, ANN202
                return 2.0 * X

        return Scale()


def _layer(lib: Any, kind: str) -> Any:
    nn = lib.nn
    return {
        "linear34": lambda: nn.Linear(3, 4),
        "linear44": lambda: nn.Linear(4, 4),
        "linear35": lambda: nn.Linear(3, 5),
        "linear53": lambda: nn.Linear(5, 3),
        "conv": lambda: nn.Conv2d(2, 3, 3),
        "convt": lambda: nn.ConvTranspose2d(2, 3, 3),
    }[kind]()


def _input(kind: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    shape = {"linear34": (2, 3), "linear44": (2, 4), "linear35": (2, 3), "linear53": (2, 5),
             "conv": (2, 2, 5, 5), "convt": (2, 2, 3, 3)}[kind]
    return rng.standard_normal(shape).astype(np.float32)


def _register(lib: Any, m: Any, how: str, kw: dict) -> None:
    P = lib.nn.utils.parametrizations
    if how == "weight_norm":
        P.weight_norm(m, **kw)
    elif how == "spectral_norm":
        P.spectral_norm(m, **kw)
    elif how == "orthogonal":
        P.orthogonal(m, **kw)
    elif how == "symmetric_then_scale":
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _Sym.make(lib))
        lib.nn.utils.parametrize.register_parametrization(m, "weight", _Scale.make(lib))
    else:
        raise ValueError(how)


#: (name, layer kind, parametrization, its kwargs)
CASES = [
    ("weight_norm_linear", "linear34", "weight_norm", {}),
    ("weight_norm_linear_dim_none", "linear34", "weight_norm", {"dim": None}),
    ("weight_norm_conv_dim1", "conv", "weight_norm", {"dim": 1}),
    ("spectral_norm_linear", "linear34", "spectral_norm", {"n_power_iterations": 2}),
    ("spectral_norm_conv", "conv", "spectral_norm", {}),
    ("spectral_norm_conv_transpose", "convt", "spectral_norm", {"eps": 1e-6}),
    ("orthogonal_matrix_exp", "linear44", "orthogonal", {}),
    ("orthogonal_cayley_tall", "linear35", "orthogonal", {"orthogonal_map": "cayley"}),
    ("orthogonal_householder_wide", "linear53", "orthogonal", {}),
    ("orthogonal_householder_no_trivialization", "linear35", "orthogonal",
     {"orthogonal_map": "householder", "use_trivialization": False}),
    ("orthogonal_matrix_exp_no_trivialization", "linear44", "orthogonal", {"use_trivialization": False}),
    ("symmetric_then_scale", "linear44", "symmetric_then_scale", {}),
]


def _np(t: Any) -> np.ndarray:
    return np.array(t.detach().numpy())


def build(lib: Any, case: tuple, state: dict[str, np.ndarray] | None = None) -> Any:
    """The case's layer with its parametrization, its state loaded from ``state`` if given."""
    lib.manual_seed(0)
    _, kind, how, kw = case
    m = _layer(lib, kind)
    _register(lib, m, how, kw)
    if state is not None:
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    return m


def run(lib: Any, case: tuple, state: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Run the scenario (module docstring); returns ``{key: array}``, with ``init/<name>``
    the initial state dict."""
    m = build(lib, case, state)
    rec: dict[str, np.ndarray] = {f"init/{k}": _np(v) for k, v in m.state_dict().items()}
    x = lib.tensor(_input(case[1]))
    opt = lib.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    for step in range(STEPS):
        opt.zero_grad()
        out = m(x)
        (out ** 2).sum().backward()
        rec[f"{step}/out"] = _np(out)
        rec[f"{step}/weight"] = _np(m.weight)
        for name, p in m.named_parameters():
            rec[f"{step}/grad/{name}"] = _np(p.grad)
        opt.step()
    for k, v in m.state_dict().items():
        rec[f"final/{k}"] = _np(v)
    m.eval()
    rec["eval/out"] = _np(m(x))
    return rec


def random_keys(case: tuple, weight_shape: tuple) -> tuple[str, ...]:
    """State-dict keys that registration fills from the random generator (they differ
    between the libraries): spectral norm's ``u``, ``v``; orthogonal's ``base`` when the
    weight is not square (PyTorch completes it with random columns)."""
    if case[2] == "spectral_norm":
        return ("parametrizations.weight.0._u", "parametrizations.weight.0._v")
    if case[2] == "orthogonal" and weight_shape[-1] != weight_shape[-2]:
        return ("parametrizations.weight.0.base",)
    return ()


def registration_state(lib: Any, case: tuple, weight: np.ndarray) -> dict[str, np.ndarray]:
    """The state dict right after registering the case's parametrization on a layer whose
    weight is ``weight`` (what each ``right_inverse`` makes of it)."""
    _, kind, how, kw = case
    m = _layer(lib, kind)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(weight))
    _register(lib, m, how, kw)
    return {k: _np(v) for k, v in m.state_dict().items()}


def weight_shape(kind: str) -> tuple:
    """The weight shape of a layer kind."""
    return {"linear34": (4, 3), "linear44": (4, 4), "linear35": (5, 3), "linear53": (3, 5),
            "conv": (3, 2, 3, 3), "convt": (2, 3, 3, 3)}[kind]


#: (name, hook function of nn.utils, layer kind): the older hook-based weight/spectral norm
HOOK_CASES = [
    ("hook_weight_norm_linear", "weight_norm", "linear34"),
    ("hook_weight_norm_conv_transpose", "weight_norm", "convt"),
    ("hook_spectral_norm_linear", "spectral_norm", "linear34"),
    ("hook_spectral_norm_conv_transpose", "spectral_norm", "convt"),
]


def run_hooks(lib: Any, case: tuple, state: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The SGD scenario of :func:`run` with ``nn.utils.weight_norm`` / ``spectral_norm`` (the
    hook versions), then ``remove_*`` and one more forward; ``keys`` the state-dict keys
    after removal."""
    import warnings

    lib.manual_seed(0)
    _, which, kind = case
    m = _layer(lib, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        getattr(lib.nn.utils, which)(m)
    if state is not None:
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    rec: dict[str, np.ndarray] = {f"init/{k}": _np(v) for k, v in m.state_dict().items()}
    x = lib.tensor(_input(kind))
    opt = lib.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    for step in range(STEPS):
        opt.zero_grad()
        out = m(x)
        (out ** 2).sum().backward()
        rec[f"{step}/out"] = _np(out)
        for name, p in m.named_parameters():
            rec[f"{step}/grad/{name}"] = _np(p.grad)
        opt.step()
    for k, v in m.state_dict().items():
        rec[f"final/{k}"] = _np(v)
    m.eval()
    rec["eval/out"] = _np(m(x))
    getattr(lib.nn.utils, "remove_" + which)(m)
    rec["removed/out"] = _np(m(x))
    rec["keys"] = np.array(list(m.state_dict()))
    return rec
