"""dyngrad.utils.data (being built)."""
