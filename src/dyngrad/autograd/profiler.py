"""dyngrad.autograd.profiler (being built)."""
