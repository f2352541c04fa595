"""dyngrad.autograd.checker (being built)."""
