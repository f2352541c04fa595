"""The Examples in the docstrings of the transforms package run and print what they say."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("modname", ["dyngrad.transforms.interpreter", "dyngrad.transforms.batching",
                                     "dyngrad.transforms.dual", "dyngrad.transforms.batched_autograd"])
def test_docstring_examples_of_the_transforms_package_run(modname):
    res = doctest.testmod(importlib.import_module(modname), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
