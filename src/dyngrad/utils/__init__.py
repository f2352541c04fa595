"""dyngrad.utils: checkpointing and data loading."""
