"""The API reference's docstrings: every public name (tests/docs/docstring_audit.py says
exactly which) has Args / Returns / Raises / shapes / an Example, except those in the committed baseline,
which may only shrink; and every Example in them runs and prints what it says."""

import doctest
import sys

import pytest

from . import docstring_audit as audit

FOUND = audit.audit()
BASELINE = audit.read_baseline()
PUBLIC = dict(audit.public_names())
_REGEN = "python -m tests.docs.docstring_audit --write-baseline"


def test_every_public_name_outside_the_baseline_has_its_docstring_sections():
    new = sorted(set(FOUND) - set(BASELINE))
    assert not new, (
        "public names without Args/Returns/Raises/Shape/Example in their docstrings (write "
        "them; see tests/docs/docstring_audit.py for the rules):\n"
        + "\n".join(f"  {q}: missing {', '.join(FOUND[q])}" for q in new)
    )


def test_no_name_in_the_baseline_lost_a_section():
    lost = {q: sorted(set(m) - BASELINE[q]) for q, m in FOUND.items() if q in BASELINE}
    lost = {q: m for q, m in lost.items() if m}
    assert not lost, (
        "these docstrings lack sections the baseline says they have (restore them):\n"
        + "\n".join(f"  {q}: missing {', '.join(m)}" for q, m in sorted(lost.items()))
    )


def test_the_baseline_lists_only_the_sections_names_still_lack():
    done = sorted(BASELINE.keys() - FOUND.keys())
    assert not done, (
        "these names now have their docstring sections or are no longer public: remove them "
        f"from {audit.BASELINE.name} (or run `{_REGEN}`):\n" + "\n".join(f"  {q}" for q in done)
    )
    stale = {q: sorted(BASELINE[q] - set(m)) for q, m in FOUND.items() if q in BASELINE}
    stale = {q: m for q, m in stale.items() if m}
    assert not stale, (
        f"these names gained sections: drop them from their lines in {audit.BASELINE.name} "
        f"(or run `{_REGEN}`):\n"
        + "\n".join(f"  {q}: now has {', '.join(m)}" for q, m in sorted(stale.items()))
    )


def _with_doc(doc, fn):
    fn.__doc__ = doc
    return fn


def test_the_audit_rules_on_small_examples():
    from dyngrad import Tensor, nn

    def f(input: Tensor, dim: int = 0) -> Tensor: ...

    full = """Sum.

    Args:
        input (Tensor): ``(*)``.
        dim (int): Default: ``0``.
    Returns:
        Tensor: ``(*)``.
    Raises:
        IndexError: when dim is out of range.

    Example:
        >>> 1
        1
    """
    assert audit.missing_sections(_with_doc(full, f)) == []
    assert audit.missing_sections(_with_doc(full.replace("``(*)``", "a tensor"), f)) == ["Shape"]
    assert audit.missing_sections(_with_doc(full.replace("Raises:", "Notes:"), f)) == ["Raises"]
    # a header only counts on its own line (or Returns:/Raises:/Shape: with text after it)
    assert audit.missing_sections(_with_doc(full.replace("    Args:\n", "    See Args: below\n"), f)) == ["Args"]
    inline = full.replace("Raises:\n        IndexError", "Raises: IndexError")
    assert audit.missing_sections(_with_doc(inline, f)) == []

    def g(n: int) -> int: ...  # no Tensor in the annotations: no shape needed

    assert audit.missing_sections(_with_doc(full.replace("``(*)``", "x"), g)) == []

    class Mod(nn.Module):
        """Doubles.

        Args:
            k (int): factor.
        Raises:
            ValueError: never.
        Shape:
            - Input: ``(*)``
            - Output: ``(*)``

        Example:
            >>> 1
            1
        """

        def __init__(self, k: int) -> None:
            super().__init__()

        def forward(self, input: Tensor) -> Tensor: ...

    assert audit.missing_sections(Mod) == []
    Mod.__doc__ = Mod.__doc__.replace("Shape:", "Sizes:")
    assert audit.missing_sections(Mod) == ["Shape"]
    assert audit.needs_shape(nn.Sequential) is None  # forward(input: Any): no Shape section


def test_the_audit_sees_the_documented_modules_names():
    assert {"dyngrad.tensor", "dyngrad.autograd.Function", "dyngrad.nn.Module"} <= set(PUBLIC)
    assert len(PUBLIC) > 400


def _documented_objects():
    """The public names, then the public methods and properties of the public classes
    (``Tensor.backward``, ``Module.parameters``, ...), each function once."""
    seen: set[int] = set()
    for qual, obj in PUBLIC.items():
        seen.add(id(obj))
        yield qual, obj
    for qual, obj in PUBLIC.items():
        if not isinstance(obj, type):
            continue
        for name in dir(obj):
            if name.startswith("_"):
                continue
            attr = next((vars(k)[name] for k in obj.__mro__ if name in vars(k)), None)
            fn = attr.fget if isinstance(attr, property) else getattr(attr, "__func__", attr)
            if fn is None or id(fn) in seen or not (getattr(fn, "__module__", "") or "").startswith("dyngrad"):
                continue
            seen.add(id(fn))
            yield f"{qual}.{name}", fn


def _examples():
    finder = doctest.DocTestFinder(recurse=False)
    for qual, obj in _documented_objects():
        module = sys.modules.get(getattr(obj, "__module__", ""), None)
        for test in finder.find(obj, qual, module=module or False, globs={}):
            if test.examples:
                yield pytest.param(test, module, id=qual)


#: Examples that need an optional extra (the default test run installs only ``[test]``).
NEEDS = {"dyngrad.viz.draw": "matplotlib"}


@pytest.mark.parametrize(("test", "module"), list(_examples()))
def test_docstring_example_runs(test, module):
    """Like doctest.testmod: the example sees its module's globals (and ``dyngrad``)."""
    import dyngrad

    if test.name in NEEDS:
        pytest.importorskip(NEEDS[test.name])

    test.globs = {**(vars(module) if module else {}), "dyngrad": dyngrad}
    out: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    state = dyngrad.default_generator.get_state()
    dyngrad.manual_seed(0)  # an example that draws random numbers sees the same ones every run
    try:
        runner.run(test, out=out.append)
    finally:
        dyngrad.default_generator.set_state(state)
    assert runner.summarize(verbose=False).failed == 0, "".join(out)


def test_the_generated_tensor_method_docstrings_are_up_to_date():
    """dyngrad/_tensor/_method_docstrings.py is what tools/tensor_method_docs.py writes from the
    functions' docstrings today (rerun it after changing one)."""
    import dyngrad
    from dyngrad._tensor import method_docs

    text = method_docs.render(method_docs.generate(dyngrad))
    assert method_docs.GENERATED.read_text() == text, (
        "dyngrad/_tensor/_method_docstrings.py is stale: run "
        "`PYTHONPATH=src python tools/tensor_method_docs.py`")


def test_a_method_form_docstring_is_derived_from_its_function():
    import dyngrad
    from dyngrad._tensor import method_docs

    doc = dyngrad.Tensor.add.__doc__
    assert doc.startswith("Method form of :func:`dyngrad.add`")  # rendered as code (docs/griffe_examples.py)
    assert "        self (Tensor or number)" in doc and "        out (" not in doc
    assert ">>> a.add(b, alpha=2)" in doc and "dyngrad.add(" not in doc.split("Example:")[1]
    # a first argument that is not a name is parenthesised; keyword and nested calls survive
    assert method_docs._to_method(">>> dyngrad.exp(x + 1) * dyngrad.exp(dyngrad.ones(2), k=f(1, 2))",
                                  ("exp",), "exp") == ">>> (x + 1).exp() * dyngrad.ones(2).exp(k=f(1, 2))"
    # in-place forms without a function of their own check themselves against the method form
    assert "x.addcmul_(t1, t2, value=0.5) is x" in dyngrad.Tensor.addcmul_.__doc__


def test_the_audit_checks_tensor_methods_against_their_functions():
    import dyngrad

    assert {"dyngrad.Tensor.backward", "dyngrad.Tensor.exp", "dyngrad.Tensor.shape", "dyngrad.Tensor.add_"} <= set(PUBLIC)
    assert not any(q.startswith("dyngrad.Tensor.__") for q in PUBLIC)  # operators: their named functions
    # a bare forward (self, *args, **kwargs) is checked against its function's signature
    sig = audit._signature(dyngrad.Tensor.add)
    assert list(sig.parameters) == ["self", "other", "alpha"]
    assert audit._takes_arguments(dyngrad.Tensor.add) and not audit._takes_arguments(dyngrad.Tensor.exp)
    # so a method form whose docstring lost its Raises is caught
    saved = dyngrad.Tensor.add.__doc__
    try:
        dyngrad.Tensor.add.__doc__ = saved.replace("Raises:", "Notes:")
        assert audit.missing_sections(dyngrad.Tensor.add) == ["Raises"]
    finally:
        dyngrad.Tensor.add.__doc__ = saved
