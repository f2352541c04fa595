"""The optional compiled build (docs/compiled-build.md): ``dyngrad.__compiled__`` reports
what was loaded compiled, and a compiled module keeps the behaviour of its source.

.ci/run runs the whole default suite a second time in ``.venv-compiled`` (built with
``DYNGRAD_COMPILE=1 pip install .``) with ``DYNGRAD_EXPECT_COMPILED=1``, so that a build
that silently fell back to pure Python fails here instead of testing pure Python twice.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import os
import pathlib
import pickle

import numpy as np

import dyngrad
from dyngrad._compiled_modules import MODULES


def test_compiled_reports_a_subset_of_the_list_as_dotted_names() -> None:
    assert isinstance(dyngrad.__compiled__, tuple)
    assert set(dyngrad.__compiled__) <= set(MODULES)
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for name in MODULES:
        is_ext = importlib.import_module(name).__file__.endswith(suffixes)
        assert is_ext == (name in dyngrad.__compiled__), name


def test_every_listed_module_has_its_python_source_beside_it() -> None:
    # the .py stays the reference and ships with the extension module (setup.py)
    for name in MODULES:
        mod = importlib.import_module(name)
        src = pathlib.Path(mod.__file__).parent / (name.rsplit(".", 1)[1] + ".py")
        assert src.is_file(), src
        assert "def " in src.read_text() or "class " in src.read_text()


def test_expected_compiled_build() -> None:
    expect = os.environ.get("DYNGRAD_EXPECT_COMPILED", "")
    if expect == "1":
        assert set(dyngrad.__compiled__) == set(MODULES), (
            f"not compiled: {sorted(set(MODULES) - set(dyngrad.__compiled__))}")
    elif expect == "0":
        assert dyngrad.__compiled__ == ()


def test_compiled_or_not_functions_keep_signatures_names_and_pickling() -> None:
    f = dyngrad.autograd.Function.apply
    assert "args" in inspect.signature(f).parameters
    assert dyngrad.autograd.backward.__qualname__ == "backward"
    assert dyngrad.Tensor.backward.__qualname__ == "Tensor.backward"
    x = dyngrad.tensor([1.0, -2.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, -4.0]
    # functions and classes of a compiled module pickle by reference, as in the source
    assert pickle.loads(pickle.dumps(dyngrad.autograd.backward)) is dyngrad.autograd.backward
    assert pickle.loads(pickle.dumps(dyngrad.autograd.Function)) is dyngrad.autograd.Function


def test_a_leaf_never_adopts_a_gradient_array_another_tensor_holds() -> None:
    # found by tests/autograd/test_engine_property.py on the compiled build: the leaves of
    # an add adopted the array of the add's retained .grad (a reference count taken for the
    # interpreter's), so the second backward added into it twice
    rng = np.random.default_rng(0)
    a = dyngrad.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = dyngrad.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    c = a + b
    c.retain_grad()
    d = -c
    s = rng.standard_normal((2, 3))
    dyngrad.autograd.backward([d], [dyngrad.tensor(s)], retain_graph=True)
    assert not np.shares_memory(a.grad.numpy(), c.grad.numpy())
    assert not np.shares_memory(b.grad.numpy(), c.grad.numpy())
    dyngrad.autograd.backward([d], [dyngrad.tensor(s)])
    for t in (a, b, c):
        np.testing.assert_array_equal(t.grad.numpy(), -2 * s)


def test_the_adoption_thresholds_are_what_the_commit_path_counts() -> None:
    # engine._unshared's reference counts: hand-counted for the interpreter (4, 3), counted
    # at import through _commit in the compiled build; recounting must agree, and never be
    # the "never adopt" fallback (0, 0)
    from dyngrad.autograd import engine

    before = (engine._UNSHARED_TENSOR_REFS, engine._UNSHARED_ARRAY_REFS)
    engine._calibrate_unshared()
    assert (engine._UNSHARED_TENSOR_REFS, engine._UNSHARED_ARRAY_REFS) == before != (0, 0)
    if not dyngrad.__compiled__:
        assert before == (4, 3)
