"""Op-database entries of the random ops (ops/random.py) whose checks are deterministic once
the draw is fixed: each entry's function reseeds the default Generator before drawing, so
every evaluation (finite differences, vjps, batched vjps) sees the same mask or sample.

vmap does not apply as a loop comparison: a random op under vmap's default ``randomness=
'error'`` raises by design; the randomness modes are tested in
tests/func/test_vmap_randomness.py."""

from __future__ import annotations

from typing import Any

import dyngrad
from dyngrad.nn import functional as _nf
from tests.op_db.info import OpInfo

_VMAP = "a random op under vmap's default randomness='error' raises (modes: tests/func/test_vmap_randomness.py)"
_NO_GOLDEN = "random draws: dyngrad uses NumPy's PCG64 stream, not PyTorch's, so there are no golden values"
_SKIPS = {"vmap": _VMAP, "vmap_grad": _VMAP, **{c: _NO_GOLDEN for c in ("golden_forward", "golden_backward", "node_name", "dtype")}}


def _seeded(draw: Any) -> Any:
    def fn(*args: Any) -> Any:
        dyngrad.manual_seed(20261202)
        return draw(*args)

    return fn


RANDOM = [
    OpInfo("dropout_p0.3", _seeded(lambda x: _nf.dropout(x, 0.3)), torch_fn="nn.functional.dropout",
           shapes=((4, 5),), skips=_SKIPS),
    OpInfo("dropout_p0.8", _seeded(lambda x: _nf.dropout(x, 0.8)), torch_fn="nn.functional.dropout",
           shapes=((3, 4),), skips=_SKIPS),
    OpInfo("dropout_then_tanh", _seeded(lambda x: _nf.dropout(x, 0.5).tanh()), torch_fn="nn.functional.dropout",
           shapes=((6,),), skips=_SKIPS),
    # an in-place fill replaces the values: a zero derivative, which finite differences agree with
    OpInfo("uniform_of_clone_plus_input", _seeded(lambda x: x.clone().uniform_(-1, 1) + x * 2),
           torch_fn="Tensor.uniform_", shapes=((2, 3),), skips=_SKIPS),
    OpInfo("normal_of_clone_times_input", _seeded(lambda x: x.clone().normal_() * x),
           torch_fn="Tensor.normal_", shapes=((5,),), skips=_SKIPS),
]

#: the family this module adds to the op database (tests/op_db/__init__.py collects it)
FAMILIES = {"random": RANDOM}
