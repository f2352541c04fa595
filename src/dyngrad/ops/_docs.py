"""Docstring builders for the families of functions whose sections repeat: the in-place
``name_`` forms (one text per form, each with its own Args / Returns / Raises / Example)."""

from __future__ import annotations

__all__ = ["inplace_doc", "unary_doc"]


def inplace_doc(name: str, example: str, result: str, *, args: str = "", call: str = "",
                grad: str = "as :func:`dyngrad.{name}`'s", raises: str = "") -> str:
    """The docstring of ``name_``, the in-place form of ``dyngrad.name``.

    ``args`` documents the arguments after ``input`` (Args lines, indented 8 spaces); ``call``
    is what the example passes after ``x`` (``", 2.0"``); ``example`` is the example tensor's
    literal and ``result`` what ``x`` prints afterwards (both checked by the doctest);
    ``raises`` more Raises lines.
    """
    grad = grad.format(name=name)
    return f"""In-place :func:`dyngrad.{name}`: writes ``{name}(input, ...)`` into ``input``'s memory.

    Derivative: {grad}; ``input`` takes over the new history and its version counter is
    bumped (a graph that saved the old values then refuses to backward, as in PyTorch).

    Args:
        input (Tensor): ``(*)``, overwritten; its dtype must hold the result (PyTorch's
            ``same_kind`` casting: an integer tensor cannot take a floating result).
{args}    Returns:
        Tensor: ``input`` itself, ``(*)``.
    Raises:
        RuntimeError: when ``input`` is a leaf that requires grad (outside ``no_grad``), or
            its dtype cannot hold the result's.
{raises}
    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor({example})
        >>> dyngrad.{name}_(x{call}) is x
        True
        >>> x
        {result}
    """


_FLOAT_INPUT = "floating (an integer or bool input computes in the default float dtype)"


def unary_doc(name: str, summary: str, derivative: str, example: str, result: str, grad: str, *,
              input: str = _FLOAT_INPUT, returns: str = "``(*)``, ``input``'s shape and float dtype",
              args: str = "", call: str = "", raises: str = "", not_tensor: str = "TypeError") -> str:
    """The docstring of the elementwise function ``dyngrad.name``.

    ``derivative`` is the formula and its source; ``example`` the example input's literal,
    ``result`` what ``name(x)`` prints (detached) and ``grad`` what ``x.grad`` prints after
    ``name(x).sum().backward()`` (all three checked by the doctest). ``args`` documents the
    arguments after ``input`` (Args lines, indented 8 spaces), ``call`` is what the example
    passes after ``x``, ``raises`` more Raises lines; ``not_tensor`` is the error a non-Tensor
    ``input`` gives (PyTorch's is TypeError).
    """
    pt = "" if not_tensor == "TypeError" else " (PyTorch: TypeError)"
    return f"""{summary}

    Derivative: {derivative}

    Args:
        input (Tensor): ``(*)``, {input}.
{args}    Returns:
        Tensor: {returns}.
    Raises:
        {not_tensor}: when ``input`` is not a Tensor{pt}.
{raises}
    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor({example}, requires_grad=True)
        >>> y = dyngrad.{name}(x{call})
        >>> y.detach()
        {result}
        >>> y.sum().backward()
        >>> x.grad
        {grad}
    """
