"""The op database (tests/op_db/) on another array library: each entry's base case runs
forward and backward with its arrays in that library, and passes when every tensor it returns
(outputs and gradients) still holds that library's array (nothing was pulled to NumPy on
the way) and equals the NumPy run. tests/backends/test_op_db_dask.py and
test_op_db_array_api_strict.py drive it; their ``known not yet`` lists (one entry id a
line, in tests/backends/) only shrink: a listed entry that starts passing fails the run, as
does a passing one that breaks. ``python -m tests.backends.opdb_backend dask`` rewrites a
list from a fresh run (then check the diff: it must only lose lines)."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import dyngrad
from tests.op_db import OP_DB, OpInfo
from tests.ops import harness as H

HERE = os.path.dirname(__file__)


def entry_id(info: OpInfo) -> str:
    return f"{info.family}-{info.name}"


def known_failing(backend: str) -> set[str]:
    """The ids listed in ``known_not_yet_<backend>.txt`` (comments after ``#``)."""
    path = os.path.join(HERE, f"known_not_yet_{backend}.txt")
    with open(path) as f:
        return {line.split("#", 1)[0].strip() for line in f} - {""}


def _outputs(out: Any) -> list:
    if isinstance(out, dyngrad.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _outputs(x)]
    return []


def _host(t: dyngrad.Tensor) -> np.ndarray:
    from dyngrad import _backend as B

    return np.asarray(B.to_host(t.detach()._data))


def _run(info: OpInfo, ins: tuple, convert: Callable[[np.ndarray], Any] | None, gouts: list | None) -> tuple:
    """(outputs, grads) of the entry on ``ins`` (NumPy arrays converted by ``convert``)."""
    from dyngrad import _backend as B

    diff = info.diff_inputs(ins)
    ts = []
    for x, d in zip(ins, diff):
        if isinstance(x, np.ndarray):
            t = dyngrad.tensor(convert(x.copy()) if convert else x.copy())
            if d:
                t.requires_grad_()
            ts.append(t)
        else:
            ts.append(x)
    out = info.fn(*ts, **info.kwargs)
    outs = _outputs(out)
    leaves = [t for t, d in zip(ts, diff) if d]
    diffable = [o for o in outs if o.requires_grad]
    grads: list = []
    if leaves and diffable:
        if gouts is None:
            rng = np.random.default_rng(info.seed("backend-gout"))
            gouts = [rng.standard_normal(o.shape) for o in diffable]
        gs = [dyngrad.tensor(convert(g.astype(B.np_dtype_of(o._data))) if convert else g.astype(o.detach().numpy().dtype))
              for g, o in zip(gouts, diffable)]
        grads = list(dyngrad.autograd.grad(diffable, leaves, gs, allow_unused=True))
    return out, outs, grads, gouts


def check_entry(info: OpInfo, convert: Callable[[np.ndarray], Any], is_backend: Callable[[Any], bool]) -> None:
    """Raise AssertionError (or the op's own error) unless the entry runs on the backend."""
    ins = H.make_case_inputs(info, "base")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, want_outs, want_grads, gouts = _run(info, ins, None, None)
        out, outs, grads, _ = _run(info, ins, convert, gouts)
    if not isinstance(out, (dyngrad.Tensor, tuple, list)):
        assert out == _run(info, ins, None, None)[0], f"{info.name}: {out!r}"
    assert len(outs) == len(want_outs), f"{info.name}: {len(outs)} outputs, want {len(want_outs)}"
    for i, (o, w) in enumerate(zip(outs, want_outs)):
        assert is_backend(o._data), f"{info.name}: output {i} is a {type(o._data).__name__}, not the backend's array"
        assert o.dtype == w.dtype and tuple(o.shape) == tuple(w.shape), (info.name, o.dtype, w.dtype, o.shape, w.shape)
        np.testing.assert_allclose(_host(o), _host(w), rtol=max(info.rtol, 1e-7), atol=max(info.atol, 1e-10),
                                   equal_nan=True, err_msg=f"{info.name}: output {i}")
    assert len(grads) == len(want_grads)
    for i, (g, w) in enumerate(zip(grads, want_grads)):
        assert (g is None) == (w is None), f"{info.name}: grad {i} None-ness differs"
        if g is None:
            continue
        assert is_backend(g._data), f"{info.name}: grad {i} is a {type(g._data).__name__}, not the backend's array"
        np.testing.assert_allclose(_host(g), _host(w), rtol=max(info.rtol, 1e-7) * 10,
                                   atol=max(info.atol, 1e-10) * 10, equal_nan=True, err_msg=f"{info.name}: grad {i}")


# ------------------------------------------------------------------ the backends
def dask_convert(x: np.ndarray) -> Any:
    """A Dask array of ``x`` in two chunks along its first dimension (one chunk when it has
    fewer than two elements there)."""
    import dask.array as da

    if x.ndim == 0:
        return da.from_array(x)
    first = max(1, -(-x.shape[0] // 2))
    return da.from_array(x, chunks=(first,) + tuple(max(1, s) for s in x.shape[1:]))


def is_dask(a: Any) -> bool:
    from dyngrad import _backend as B

    return B.is_dask(a)


def strict_convert(x: np.ndarray) -> Any:
    import array_api_strict as xp

    return xp.asarray(x)


def is_strict(a: Any) -> bool:
    return type(a).__module__.split(".")[0] == "array_api_strict"


BACKENDS = {"dask": (dask_convert, is_dask), "array_api_strict": (strict_convert, is_strict)}


def run_all(backend: str) -> tuple[list[str], list[str]]:
    """(passing ids, failing ids) of every entry on ``backend``."""
    convert, is_b = BACKENDS[backend]
    ok, bad = [], []
    for info in OP_DB:
        try:
            check_entry(info, convert, is_b)
            ok.append(entry_id(info))
        except Exception:  # noqa: BLE001 - any failure counts as "not yet"
            bad.append(entry_id(info))
    return ok, bad


if __name__ == "__main__":
    import dask

    name = sys.argv[1]
    with dask.config.set(scheduler="synchronous"):
        ok, bad = run_all(name)
    path = os.path.join(HERE, f"known_not_yet_{name}.txt")
    with open(path, "w") as f:
        f.write(f"# op-database entries not yet passing on {name} (tests/backends/opdb_backend.py);\n"
                f"# this list only shrinks. {len(ok)} of {len(ok) + len(bad)} entries pass.\n")
        f.writelines(i + "\n" for i in sorted(bad))
    print(f"{name}: {len(ok)} of {len(ok) + len(bad)} pass; wrote {path}")
