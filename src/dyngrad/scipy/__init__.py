"""``dyngrad.scipy``: SciPy functions common in numerical NumPy code, on Tensors (SciPy has no
dispatch protocol for them, so a function to differentiate calls these instead of
``scipy.special``'s). SciPy itself is not needed (the optional ``scipy`` extra is for the
examples that drive ``scipy.optimize`` with dyngrad gradients)."""

from . import special

__all__ = ["special"]
