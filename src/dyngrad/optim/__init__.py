"""dyngrad.optim (being built)."""
