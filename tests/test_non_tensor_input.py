"""A non-Tensor ``input`` to a function of the ``dyngrad`` namespace raises PyTorch's
TypeError (``abs(): argument 'input' (position 1) must be Tensor, not int``), not the
AttributeError of the op's body (dyngrad/_out.py ``not_tensor_error``). The live comparison
with torch over the op database is tests/oracle/test_non_tensor_input_oracle.py."""

import inspect
import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad import _out
from tests.op_db import OP_DB

_FACES = {id(getattr(dyngrad, n)): n for n in dir(dyngrad)
          if not n.startswith("_") and callable(getattr(dyngrad, n))}
#: the op database's entries that call a namespace function directly: (entry, its name)
NAMESPACE_ENTRIES = [(i, _FACES[id(i.fn)]) for i in OP_DB if id(i.fn) in _FACES]


def _inputs(info):
    shapes = info.shapes or [(2, 3)] * info.arity
    if info.make_inputs:
        return info.make_inputs(np.random.default_rng(0), shapes)
    return tuple(np.random.default_rng(0).uniform(0.1, 0.9, size=s) for s in shapes)


def _face_takes_input(name):
    fn = inspect.unwrap(getattr(dyngrad, name))
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_argcount > 0 and code.co_varnames[0] == "input"


def test_the_op_database_calls_many_namespace_functions():
    assert len(NAMESPACE_ENTRIES) > 50


@pytest.mark.parametrize("info,name", [pytest.param(i, n, id=f"{i.family}-{i.name}") for i, n in NAMESPACE_ENTRIES])
@pytest.mark.parametrize("bad", [3, 2.5, [1.0, 2.0], np.ones(3)], ids=["int", "float", "list", "ndarray"])
def test_a_non_tensor_input_never_raises_attribute_error(info, name, bad):
    rest = [dyngrad.tensor(x) if isinstance(x, np.ndarray) else x for x in _inputs(info)[1:]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            info.fn(bad, *rest, **info.kwargs)
        except AttributeError as e:  # pragma: no cover - the defect this file is about
            pytest.fail(f"{name}({type(bad).__name__}, ...) raised AttributeError: {e}")
        except TypeError as e:
            if _face_takes_input(name) and "argument 'input'" in str(e):
                assert str(e).startswith(f"{name}(): argument 'input' (position 1) must be Tensor, not ")
        except (RuntimeError, ValueError, IndexError):
            pass  # another check refused it first (e.g. a number where a bool tensor is due)


@pytest.mark.parametrize("name", ["abs", "sqrt", "floor", "exp", "tanh", "relu", "kron", "nansum", "clone",
                                  "zeros_like", "ones_like", "sigmoid", "sum", "mean", "flatten", "sort"])
def test_named_ops_raise_pytorchs_type_error(name):
    args = (3, dyngrad.ones(2)) if name == "kron" else (3,)
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        getattr(dyngrad, name)(*args)


def test_keyword_input_names_no_position():
    with pytest.raises(TypeError, match=r"^abs\(\): argument 'input' must be Tensor, not int$"):
        dyngrad.abs(input=3)


def test_an_attribute_error_with_a_tensor_input_is_not_rewritten():
    with pytest.raises(AttributeError, match="boom"):
        def fn(input):
            raise AttributeError("boom")
        _out._with_input_check(fn, "fn")(dyngrad.ones(1))


def test_out_faces_and_plain_faces_are_both_checked():
    assert all(_face_takes_input(n) for n in ("abs", "relu"))
    assert dyngrad.abs is not dyngrad.ops.abs and dyngrad.relu is not dyngrad.ops.relu
    assert dyngrad.relu.__doc__ == dyngrad.ops.relu.__doc__  # the face keeps the op's docs
