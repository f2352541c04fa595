"""The method families of :class:`dyngrad.Tensor`, one mixin class per module.

``dyngrad.tensor.Tensor`` is defined in dyngrad/tensor.py: its class body is the core
(storage, construction, the version counter, autograd state), and it inherits one mixin per
family from here, each a plain class with ``__slots__ = ()`` (so a Tensor still has no
instance ``__dict__``) whose methods are ordinary ``def``\\ s that readers, IDEs and type
checkers see:

    metadata.py    shape, dtype, device, size(), stride(): what describes the array
    conversion.py  NumPy and Python values, printing, copying, to() and the dtype casts, new_*()
    arithmetic.py  the arithmetic operators and their named forms
    pointwise.py   math value by value (exp, sin, clamp, round, ...), and of two or three inputs
    comparison.py  comparisons, logical and bitwise operations, the per-value tests
    reduction.py   reductions, statistics, softmax, sorting
    linalg.py      matrix products, decompositions, matrix structure
    shape.py       views, reshapes, transposes, splits, rearranging copies, clone
    indexing.py    x[i] and x[i] = v, gather/scatter, masks, nonzero
    inplace.py     every other method that changes the tensor in place (x += y, add_, fill_)
    random.py      random draws: the in-place fills (uniform_, normal_, ...), bernoulli, multinomial

How the methods reach the ops (the one documented mechanism). The ops are built on Tensor:
``dyngrad.ops`` imports ``dyngrad.tensor.Tensor``, so it can only be imported once the class
exists, at the end of dyngrad/tensor.py (its one deferred import, ``from . import ops as
_ops``: the one exception to the import layers, DESIGN.md section 2 and the import-linter
contract in pyproject.toml). A family module cannot import the ops itself (it is imported
before Tensor exists, to be one of its bases), so it imports dyngrad/tensor.py as a module,
``from .. import tensor as _core``, and its methods read ``_core._ops`` when they run, as
dyngrad/tensor.py's own methods read ``_ops``. The family modules thus import nothing above
the tensor layer and the contract keeps its one ``dyngrad.tensor -> dyngrad.ops`` entry. (The
import of ``_core`` gets the module while it is still being executed, which Python allows
for a module already in ``sys.modules``; nothing is read from it until a method runs.)
"""
