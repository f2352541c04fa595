"""``torch.random`` (PyTorch's module path): the default generator's seeding and state
functions (the ones at the top of :mod:`dyngrad`)."""

from __future__ import annotations

from .creation import default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["default_generator", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]
