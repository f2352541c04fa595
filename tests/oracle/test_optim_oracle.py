"""Live comparison of dyngrad.optim with PyTorch's optimizers on random problems and
random hyper-parameters (skipped without torch)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import dyngrad  # noqa: E402
from dyngrad import optim  # noqa: E402

pytestmark = pytest.mark.oracle

CONFIGS = {
    "SGD": lambda d: {"lr": d.draw(st.floats(0.001, 0.2)), "momentum": d.draw(st.sampled_from([0.0, 0.5, 0.9])),
                      "weight_decay": d.draw(st.sampled_from([0.0, 0.01])), "maximize": d.draw(st.booleans())},
    "Adam": lambda d: {"lr": d.draw(st.floats(0.001, 0.1)), "amsgrad": d.draw(st.booleans()),
                       "weight_decay": d.draw(st.sampled_from([0.0, 0.1])),
                       "betas": (d.draw(st.floats(0.5, 0.95)), d.draw(st.floats(0.9, 0.9999)))},
    "AdamW": lambda d: {"lr": d.draw(st.floats(0.001, 0.1)), "amsgrad": d.draw(st.booleans()),
                        "weight_decay": d.draw(st.floats(0.0, 0.5))},
    "RMSprop": lambda d: {"lr": d.draw(st.floats(0.001, 0.05)), "centered": d.draw(st.booleans()),
                          "momentum": d.draw(st.sampled_from([0.0, 0.5])), "alpha": d.draw(st.floats(0.8, 0.999))},
    "Adagrad": lambda d: {"lr": d.draw(st.floats(0.01, 0.5)), "lr_decay": d.draw(st.sampled_from([0.0, 0.05])),
                          "initial_accumulator_value": d.draw(st.sampled_from([0.0, 0.1]))},
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
@settings(max_examples=10, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**31 - 1))
def test_ten_steps_match_pytorch(name, data, seed):
    kw = CONFIGS[name](data)
    rng = np.random.default_rng(seed)
    X, Y, W0 = rng.standard_normal((6, 3)), rng.standard_normal((6, 2)), rng.standard_normal((3, 2))
    tw = torch.tensor(W0, requires_grad=True)
    dw = dyngrad.tensor(W0, requires_grad=True)
    topt = getattr(torch.optim, name)([tw], **kw)
    dopt = getattr(optim, name)([dw], **kw)
    for _ in range(10):
        topt.zero_grad()
        ((torch.tensor(X) @ tw).sin() - torch.tensor(Y)).pow(2).mean().backward()
        topt.step()
        dopt.zero_grad()
        ((dyngrad.tensor(X) @ dw).sin() - dyngrad.tensor(Y)).pow(2).mean().backward()
        dopt.step()
    np.testing.assert_allclose(dw._data, tw.detach().numpy(), rtol=1e-9, atol=1e-12)
