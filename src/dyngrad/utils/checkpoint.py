"""dyngrad.utils.checkpoint (being built)."""
