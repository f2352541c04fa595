"""dyngrad.autograd.functional (being built)."""
