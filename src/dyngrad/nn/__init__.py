"""dyngrad.nn: modules, layers, losses, init and the functional namespace."""

from . import functional

__all__ = ["functional"]
