"""The docstrings of the Tensor methods that are the method form of a function.

``x.exp()`` is ``dyngrad.exp(x)``: the method's docstring is derived from the function's, the
one source. tools/tensor_method_docs.py writes them (:func:`generate`, once ``import dyngrad``
has made every function) into dyngrad/_tensor/_method_docstrings.py, whose ``install`` the end
of dyngrad/__init__.py calls (so an import only reads constants; a test checks that the file
is up to date). The derived text

- opens with ``Method form of :func:`dyngrad.exp`: ``x.exp(...)`` is ``dyngrad.exp(x, ...)``.``,
  then the function's summary and Derivative paragraphs;
- documents the tensor the method is called on as ``self`` (the function's first argument's
  Args entry, renamed, so its shape stays) and drops ``out`` (methods take no ``out=``);
- keeps Returns, Raises and Shape as they are;
- rewrites the Example to method form: ``dyngrad.exp(x)`` becomes ``x.exp()``,
  ``dyngrad.add(a, b, alpha=2)`` becomes ``a.add(b, alpha=2)`` (a first argument that is not
  a name, a literal or a call is parenthesised).

The dtype casts (``x.float()``: :data:`CASTS`) and ``x.new_zeros(...)`` and its siblings
(:data:`NEW_FILLS`) have no function form: their docstrings come from one template each.

An in-place method with no function of its own (``x.add_(y)``, of ``dyngrad.add``) gets the
in-place text of :func:`inplace_doc`: the function's Args (after the first), Raises plus the
in-place errors, and an example checking ``x.add_(y)`` against ``x.add(y)``.

Methods written by hand (``backward``, ``view``, ``to``, ...) keep their own docstrings:
only methods written without one are filled. The docstring audit (tests/docs/
docstring_audit.py) checks the result like every other public name's.

This module is part of the tensor layer and imports nothing from above it: :func:`generate`
is handed the namespace.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["generate", "inplace_method_doc", "method_doc", "method_signature", "render", "source_function"]

#: Tensor method name -> the function it is the method form of, where the names differ
#: (``x.__name__`` is ``dyngrad.NAME`` otherwise)
ALIASES: dict[str, str] = {}

_SECTION = re.compile(r"^    (?P<name>[A-Z][A-Za-z]*(?: [A-Za-z]+)?):(?P<rest>.*)$")
_ENTRY = re.compile(r"^        (?P<name>\*{0,2}\w+)\b")


def _split(doc: str) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """``(preamble lines, [(header, body lines)])`` of a docstring indented by 4 (as written
    in a function body: the first line unindented)."""
    pre: list[str] = []
    secs: list[tuple[str, list[str]]] = []
    for ln in doc.splitlines():
        if secs and (ln.startswith("        ") or not ln.strip()):
            secs[-1][1].append(ln)
            continue
        if ln.startswith("    ") and ln[4:5].isupper() and ":" in ln:
            m = _SECTION.match(ln)
            if m and (not m["rest"].strip() or m["name"] in ("Returns", "Raises", "Shape")):
                secs.append((m["name"], [ln]))
                continue
        if secs:  # a paragraph after the sections (an unindented note): keep it in place
            secs.append(("", [ln]))
        else:
            pre.append(ln)
    return pre, secs


def _entries(body: list[str]) -> list[list[str]]:
    """The entries of an Args body (its header line excluded), each its lines."""
    out: list[list[str]] = []
    for ln in body[1:]:
        if _ENTRY.match(ln) or not out:
            out.append([ln])
        else:
            out[-1].append(ln)
    return out


def _matching(src: str, i: int) -> int:
    """The index just past the bracket that closes the one at ``src[i]`` (strings skipped)."""
    depth, quote = 0, ""
    while i < len(src):
        c = src[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _first_arg_end(src: str, i: int) -> int:
    """The index of the ``,`` or ``)`` that ends the argument starting at ``src[i]``."""
    while i < len(src):
        c = src[i]
        if c in "([{'\"":
            if c in "'\"":
                j = src.index(c, i + 1)
                while src[j - 1] == "\\":
                    j = src.index(c, j + 1)
                i = j + 1
            else:
                i = _matching(src, i)
                if i < 0:
                    return -1
            continue
        if c in ",)":
            return i
        i += 1
    return -1


_ATOM = re.compile(r"^[\w.]+(\(.*\)|\[.*\])?$", re.S)


def _call(fnames: tuple[str, ...]) -> re.Pattern[str]:
    """The pattern of a call ``dyngrad.f(`` (also ``dyngrad.nn.functional.f(``) of a name in
    ``fnames``."""
    alt = "|".join(re.escape(f) for f in fnames)
    return re.compile(rf"\bdyngrad\.(?:nn\.functional\.|special\.)?(?:{alt})\(")


def _to_method(line: str, fnames: tuple[str, ...], mname: str) -> str:
    """``line`` with each call ``dyngrad.f(a, rest)`` (``f`` in ``fnames``) written ``a.mname(rest)``."""
    if not any(f"{f}(" in line for f in fnames):
        return line
    call = _call(fnames)
    pos = 0
    while m := call.search(line, pos):
        start = m.end()
        end = _first_arg_end(line, start)
        if end < 0:
            return line
        first = line[start:end].strip()
        if not first or first.startswith("*") or "=" in first.split("(")[0]:
            pos = m.end()
            continue
        close = _matching(line, m.end() - 1)
        rest = line[end + 1:close - 1].strip() if line[end] == "," else ""
        recv = first if _ATOM.match(first) and not first[0].isdigit() else f"({first})"
        new = f"{recv}.{mname}({rest})"
        line = line[:m.start()] + new + line[close:]
        pos = m.start() + len(new)
    return line


def _example(body: list[str], fname: tuple[str, ...], mname: str) -> list[str]:
    out = []
    for ln in body:
        s = ln.lstrip()
        if s.startswith(">>> ") or s.startswith("... "):
            out.append(_to_method(ln, fname, mname))
        else:
            out.append(ln)
    return out


_NOT_A_TENSOR = re.compile(r"\s*\w+: (when |if )?``self`` is not a Tensor( \(PyTorch: \w+\))?\.?\s*", re.S)


def _raises(body: list[str], first: str) -> list[str]:
    """A Raises section (header included) for the method: the entries about the first argument
    not being a Tensor dropped (``self`` always is one); ``[]`` when none is left."""
    body = _retarget(body, first)
    if body[0].strip() != "Raises:":
        return body
    kept = [e for e in _entries(body) if not _NOT_A_TENSOR.fullmatch(" ".join(ln.strip() for ln in e))]
    tail = [""] if not body[-1].strip() else []
    if not any(ln.strip() for e in kept for ln in e):
        return tail
    out = [body[0]] + [ln for e in kept for ln in e]
    return out + tail if out[-1].strip() else out


_CODE = re.compile(r"``([^`]+)``")


def _retarget(lines: list[str], first: str) -> list[str]:
    """``lines`` with the function's first argument called ``self`` wherever it is code:
    ````input```` and ````input.shape```` become ````self```` and ````self.shape````
    (``grad_input`` stays: a name of its own)."""
    word = re.compile(rf"(?<![\w.]){re.escape(first)}\b")

    def code(m: re.Match[str]) -> str:
        return "``" + word.sub("self", m[1]) + "``"

    return [_CODE.sub(code, ln) if first in ln else ln for ln in lines]


def method_doc(mname: str, fn: Callable, qualname: str) -> str:
    """The docstring of the method ``Tensor.mname``, the method form of ``fn`` (documented as
    ``qualname``, e.g. ``dyngrad.exp``)."""
    doc = fn.__doc__ or ""
    first = _first_param(fn)
    pre, secs = _split(doc)
    head = (f"Method form of :func:`{qualname}`: ``x.{mname}(...)`` is "
            f"``{qualname}(x, ...)``.")
    lines = [head, ""]
    pre = list(pre)
    pre[0] = "    " + pre[0] if pre else ""
    lines += _retarget(pre, first)
    for name, body in secs:
        if name in ("Args", "Arguments", "Parameters"):
            kept = []
            for e in _entries(body):
                m = _ENTRY.match(e[0])
                arg = m["name"] if m else ""
                if arg == "out":
                    continue
                if arg == first:
                    e = [e[0].replace(f"        {first}", "        self", 1)] + e[1:]
                kept.append(e)
            lines += [body[0]] + [ln for e in kept for ln in _retarget(e, first)]
        elif name in ("Example", "Examples"):
            lines += _example(body, _names(fn, qualname), mname)
        elif name == "Raises":
            lines += _raises(body, first)
        else:
            lines += _retarget(body, first)
    return "\n".join(lines).rstrip() + "\n    "


def inplace_method_doc(mname: str, fn: Callable, qualname: str, namespace: ModuleType) -> str:
    """The docstring of the in-place method ``Tensor.mname`` (``add_``) whose out-of-place
    form is ``fn`` (``dyngrad.add``), documented as ``qualname``; ``namespace`` is ``dyngrad``
    (the example is run, to check it)."""
    base = mname[:-1]
    first = _first_param(fn)
    pre, secs = _split(fn.__doc__ or "")
    args: list[str] = []
    raises: list[str] = []
    call: str | None = None
    setup: list[str] = []
    for name, body in secs:
        if name in ("Args", "Arguments", "Parameters"):
            for e in _entries(body):
                m = _ENTRY.match(e[0])
                if m and m["name"] not in (first, "out"):
                    args += _retarget(e, first)
        elif name == "Raises":
            if body[0].strip() != "Raises:":
                raises.append("        " + body[0].split(":", 1)[1].strip())
            raises += [ln for ln in _raises(body, first)[1:] if ln.strip()]
        elif name in ("Example", "Examples") and call is None:
            setup, call = _inplace_example(body, _names(fn, qualname))
    summary = " ".join(ln.strip() for ln in _retarget(pre, first) if ln.strip()).split(". ")[0].rstrip(".")
    lines = [
        f"In-place :meth:`Tensor.{base}`: ``x.{mname}(...)`` writes ``{qualname}(x, ...)`` into "
        f"``x``'s memory and returns ``x``.",
        "",
        f"    {qualname.rpartition('.')[2]}: {summary}." if summary else "",
        "",
        "    Derivative: as :func:`" + qualname + "`'s; ``self`` takes over the new history and its",
        "    version counter is bumped (a graph that saved the old values then refuses to",
        "    backward, as in PyTorch).",
        "",
    ]
    if args:
        lines += ["    Args:"] + args
    lines += [
        "    Returns:",
        "        Tensor: ``self``, ``(*)``, its shape and dtype unchanged.",
        "    Raises:",
        "        RuntimeError: when ``self`` is a leaf that requires grad (outside ``no_grad``), its",
        "            dtype cannot hold the result's, or the result's broadcast shape is not",
        "            ``self``'s.",
    ] + raises
    if call is not None:
        cast, same = _check_inplace_example(setup, base, call, namespace)
        lines += ["", "    Example:", *setup,
                  f"        >>> r = x.{base}({call})"]
        if cast:  # an integer x cannot hold a floating result: the example casts it first
            lines.append("        >>> x = x.to(r.dtype)")
        lines += [f"        >>> x.{mname}({call}) is x",
                  "        True",
                  f"        >>> {same}",
                  "        True"]
    return "\n".join(lines).rstrip() + "\n    "


def _check_inplace_example(setup: list[str], base: str, call: str, dyngrad: ModuleType) -> tuple[bool, str]:
    """Run the in-place example's setup and out-of-place call (the generator's doctest of
    itself): whether ``x`` must be cast to the result's dtype first, and the comparison to
    print (NaN-tolerant when the result holds NaN)."""
    env: dict[str, Any] = {"dyngrad": dyngrad}
    for ln in setup:
        exec(ln.strip()[4:], env)  # noqa: S102 - the example's own lines
    x = env["x"]
    r = eval(f"x.{base}({call})", env)  # noqa: S307
    cast = r.dtype != x.dtype and r.is_floating_point() and not x.is_floating_point()
    has_nan = r.is_floating_point() and bool(dyngrad.isnan(r).any())
    same = "bool(dyngrad.allclose(x, r, equal_nan=True))" if has_nan else "bool(dyngrad.equal(x, r))"
    return cast, same


def _inplace_example(body: list[str], fname: tuple[str, ...]) -> tuple[list[str], str | None]:
    """The setup lines and the arguments (``rest``) of a method call ``x.name_(rest)`` for an in-place example,
    from the first ``dyngrad.fname(first, rest)`` call of the function's example; ``x`` is a
    copy of ``first`` that does not require grad."""
    call = _call(fname)
    setup: list[str] = []
    for ln in body[1:]:
        s = ln.strip()
        if not s.startswith(">>> "):
            continue
        m = call.search(s)
        if not m:
            if not re.search(r"backward|\.grad\b", s):
                setup.append("        " + s)
            continue
        end = _first_arg_end(s, m.end())
        if end < 0:
            break
        first = s[m.end():end].strip()
        close = _matching(s, m.end() - 1)
        rest = s[end + 1:close - 1].strip() if s[end] == "," else ""
        setup = [ln.replace(", requires_grad=True", "") for ln in setup]
        if first != "x":  # a copy that does not require grad
            copy = f"{first}.detach()" if first.isidentifier() else f"dyngrad.as_tensor({first}).detach()"
            setup.append(f"        >>> x = {copy}.clone()")
        return setup, rest
    return [], None


def _names(fn: Callable, qualname: str) -> tuple[str, ...]:
    """The names an example may call ``fn`` by: its documented one and its own (``arccos`` is
    ``acos``)."""
    own = getattr(getattr(fn, "__wrapped__", fn), "__name__", "")
    short = qualname.rpartition(".")[2]
    return (short, own) if own and own != short else (short,)


def _first_param(fn: Callable) -> str:
    fn = getattr(fn, "__wrapped__", fn)
    code = getattr(fn, "__code__", None)
    return code.co_varnames[0] if code is not None and code.co_argcount else "input"


def source_function(name: str, namespace: ModuleType) -> tuple[Callable, str] | None:
    """``(function, its documented name)`` that ``Tensor.name`` is the method form of, or None."""
    fname = ALIASES.get(name, name)
    ops = getattr(namespace, "ops", None)
    for mod, qual in ((namespace, "dyngrad"), (getattr(namespace, "special", None), "dyngrad.special"),
                      (getattr(getattr(namespace, "nn", None), "functional", None), "dyngrad.nn.functional")):
        if mod is None or fname not in getattr(mod, "__all__", ()):
            continue
        fn = getattr(mod, fname)
        if callable(fn) and not isinstance(fn, type) and fn.__doc__:
            plain = getattr(ops, fname, None) if mod is namespace else None
            return (plain if callable(plain) and plain.__doc__ else fn), f"{qual}.{fname}"
    return None


def method_signature(name: str, namespace: ModuleType) -> inspect.Signature | None:
    """The signature ``Tensor.name`` has in effect when it is a bare forward
    ``(self, *args, **kwargs)`` to the function it is the method (or in-place) form of: the
    function's, its first argument called ``self`` and ``out`` dropped; None otherwise. (What
    the docstring audit checks the method against, and what the API reference shows.)"""
    fn = getattr(namespace.Tensor, name, None)
    try:
        sig = inspect.signature(fn)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    params = [q for q in sig.parameters.values() if q.name != "self"]
    if not params or not all(q.kind in (q.VAR_POSITIONAL, q.VAR_KEYWORD) for q in params):
        return None
    found = source_function(name, namespace) or (
        source_function(name[:-1], namespace) if name.endswith("_") else None)
    if found is None:
        return None
    try:
        fsig = inspect.signature(found[0])
    except (TypeError, ValueError):
        return None
    if not fsig.parameters:
        return None
    rest = [q for q in list(fsig.parameters.values())[1:] if q.name != "out"]
    self_ = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return fsig.replace(parameters=[self_, *rest])


#: the dtype casts ``x.float()``, ...: method -> dtype name
CASTS = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
         "short": "int16", "bool": "bool", "byte": "uint8"}

#: ``x.new_zeros(2, 3)``, ...: method -> what the new tensor is filled with
NEW_FILLS = {"new_zeros": "zeros", "new_ones": "ones",
             "new_empty": "zeros (uninitialised memory in PyTorch; dyngrad never hands out any)"}


def cast_doc(name: str, dtype: str, namespace: ModuleType) -> str:
    """The docstring of the cast method ``Tensor.name`` (``x.name()`` is ``x.to(dtype)``); its
    example's output is computed here."""
    shown = repr(getattr(namespace.tensor([1.5, 0.0]), name)())
    return f"""``self`` cast to ``dyngrad.{dtype}``: ``self.{name}()`` is ``self.to(dyngrad.{dtype})``.

    A floating value truncates toward zero into an integer dtype; a tensor that already has the
    dtype is returned itself (no copy).

    Derivative: ``grad_input = grad_output`` cast back to ``self``'s dtype (``ToCopyBackward0``)
    when the result is floating; an integer or bool result is not differentiable.

    Returns:
        Tensor: ``(*)``, ``self``'s shape, dtype ``{dtype}``.

    Example:
        >>> import dyngrad
        >>> dyngrad.tensor([1.5, 0.0]).{name}()
        {shown}
    """


def new_fill_doc(name: str, fill: str, namespace: ModuleType) -> str:
    """The docstring of ``Tensor.new_zeros`` and its siblings; the example's output is computed
    here."""
    shown = repr(getattr(namespace.tensor([1, 2]), name)(2, 3)).replace("\n", "\n        ")
    return f"""A new tensor of shape ``size`` filled with {fill}, of ``self``'s dtype unless ``dtype`` is given.

    The result is a new leaf, not part of ``self``'s graph; only ``self``'s dtype is used.

    Args:
        *size (int): the shape, as ints or one tuple/list.
        dtype (dtype, optional): keyword only. Default: ``None`` (``self.dtype``).
        requires_grad (bool): keyword only; make the result a leaf that requires grad.
            Default: ``False``.
    Returns:
        Tensor: ``(*size)``.
    Raises:
        ValueError: a size that is not an int (PyTorch: TypeError).
        RuntimeError: a negative size (as PyTorch), or ``requires_grad`` with a non-floating
            dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.tensor([1, 2]).{name}(2, 3)
        {shown}
    """


GENERATED = Path(__file__).with_name("_method_docstrings.py")


def generate(namespace: ModuleType) -> dict[str, str]:
    """``{method: docstring}`` for every public method of ``namespace.Tensor`` written
    without one that is the method form (or in-place form) of a documented function."""
    from ._method_docstrings import DOCS

    tensor = namespace.Tensor
    out: dict[str, str] = {}
    for klass in tensor.__mro__:
        for name, attr in vars(klass).items():
            if name.startswith("_") or name in out or not callable(attr) or isinstance(attr, type):
                continue
            if attr.__doc__ is not None and attr.__doc__ != DOCS.get(name):
                continue  # written by hand
            if getattr(tensor, name, None) is None:
                continue
            if name in CASTS:
                out[name] = cast_doc(name, CASTS[name], namespace)
            elif name in NEW_FILLS:
                out[name] = new_fill_doc(name, NEW_FILLS[name], namespace)
            elif (found := source_function(name, namespace)) is not None:
                out[name] = method_doc(name, *found)
            elif name.endswith("_") and (found := source_function(name[:-1], namespace)) is not None:
                out[name] = inplace_method_doc(name, *found, namespace)
    return dict(sorted(out.items()))


def render(docs: dict[str, str]) -> str:
    """The text of dyngrad/_tensor/_method_docstrings.py holding ``docs``."""
    out = ['"""GENERATED by ``python tools/tensor_method_docs.py`` from the functions\' docstrings:',
           "do not edit (edit the function's docstring, or write the method's own, and rerun).",
           "",
           "The docstrings of the Tensor methods that are a function's method form (see",
           'method_docs.py). Constants and :func:`install`, so ``import dyngrad`` only reads them."""',
           "",
           "from typing import Any",
           "",
           "",
           "def install(tensor: Any) -> None:",
           '    """Give each method of ``tensor`` (the Tensor class) in DOCS written without a docstring its own."""',
           "    for name, doc in DOCS.items():",
           "        fn = getattr(tensor, name, None)",
           "        if fn is not None and fn.__doc__ is None:",
           "            fn.__doc__ = doc",
           "",
           "",
           "DOCS = {"]
    for name, doc in docs.items():
        body = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        out.append(f'    "{name}": """{body}""",')
    out.append("}")
    return "\n".join(out) + "\n"
