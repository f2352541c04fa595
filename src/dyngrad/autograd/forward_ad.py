"""dyngrad.autograd.forward_ad (being built)."""
