"""The ``dyngrad check`` command line: ``dyngrad check module:FnClass --inputs
"randn(3,4), randn(4), 2.0"`` runs :func:`dyngrad.autograd.checker.check_function` and
prints its table. ``--inputs`` is parsed with ``ast`` (never eval): only calls to
randn / rand / zeros / ones / tensor with int / float / list literals, and plain numbers.
Exit code 0 when every check passes, 1 when one fails, 2 for bad arguments (one line on
stderr).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import os
import sys
from typing import Any

from .checker import CHECKS, check_function
from .function import Function

__all__ = ["main", "parse_inputs"]

_MAKERS = ("randn", "rand", "zeros", "ones", "tensor")


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _literal(node.operand)
        if type(v) in (int, float):
            return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Name) and node.id in ("float64", "float32", "float16"):
        return node.id
    raise ValueError(f"unsupported expression {ast.unparse(node)!r} (only int/float/list literals)")


def parse_inputs(text: str) -> tuple:
    """Parse ``"randn(3,4), randn(4), 2.0"`` safely (no eval): calls to randn / rand /
    zeros / ones / tensor with int/float/list literals (``dtype=float64`` allowed) and plain
    numbers (non-tensor arguments).

    Raises:
        ValueError: for anything else, naming the offending piece.
    """
    import dyngrad

    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"cannot parse --inputs {text!r}: {e.msg}") from None
    items = tree.elts if isinstance(tree, ast.Tuple) else [tree]
    out = []
    for it in items:
        if isinstance(it, ast.Call):
            if not isinstance(it.func, ast.Name) or it.func.id not in _MAKERS:
                raise ValueError(f"unsupported call {ast.unparse(it.func)!r} in --inputs; use one of {', '.join(_MAKERS)}")
            args = [_literal(a) for a in it.args]
            kw = {k.arg: _literal(k.value) for k in it.keywords if k.arg in ("dtype",)}
            if len(kw) != len(it.keywords):
                raise ValueError(f"only the keyword dtype= is allowed in --inputs, got {ast.unparse(it)!r}")
            if "dtype" in kw:
                kw["dtype"] = getattr(dyngrad, kw["dtype"])
            if it.func.id == "tensor" and len(args) != 1:
                raise ValueError("tensor(...) in --inputs takes one (nested) list or number")
            if it.func.id != "tensor" and not all(type(a) is int and a >= 0 for a in args):
                raise ValueError(f"{it.func.id}(...) in --inputs takes non-negative int sizes, got {ast.unparse(it)!r}")
            if it.func.id == "tensor" and "dtype" not in kw:
                kw["dtype"] = dyngrad.float64
            try:
                out.append(getattr(dyngrad, it.func.id)(*args, **kw))
            except Exception as e:  # noqa: BLE001
                raise ValueError(f"{ast.unparse(it)!r} in --inputs failed: {e}") from None
        else:
            out.append(_literal(it))
    return tuple(out)


def _load(spec: str) -> Any:
    if ":" not in spec:
        raise ValueError(f"expected module:FnClass, got {spec!r}")
    mod_name, _, cls_name = spec.rpartition(":")
    try:
        if mod_name.endswith(".py") or os.sep in mod_name:
            s = importlib.util.spec_from_file_location("_dyngrad_check_target", mod_name)
            if s is None or s.loader is None:
                raise ImportError(f"no such file {mod_name!r}")
            mod = importlib.util.module_from_spec(s)
            s.loader.exec_module(mod)
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            mod = importlib.import_module(mod_name)
    except Exception as e:  # noqa: BLE001
        raise ValueError(f"cannot import module {mod_name!r}: {type(e).__name__}: {e}") from None
    obj = getattr(mod, cls_name, None)
    if obj is None:
        raise ValueError(f"module {mod_name!r} has no attribute {cls_name!r}")
    if not (isinstance(obj, type) and issubclass(obj, Function)):
        raise ValueError(f"{spec} is not a dyngrad.autograd.Function subclass (got {type(obj).__name__})")
    return obj


def main(argv: list[str] | None = None) -> int:
    """``dyngrad check module:FnClass --inputs "randn(3,4), randn(4)"``.

    Returns:
        0 when every check passes, 1 when a check fails, 2 for bad arguments (a one-line
        error on stderr).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "check":
        argv = argv[1:]
    p = argparse.ArgumentParser(prog="dyngrad check", description="Verify a custom autograd.Function.")
    p.add_argument("target", help="module:FnClass (module may be a path to a .py file)")
    p.add_argument("--inputs", required=True, help='example inputs, e.g. "randn(3,4), randn(4), 2.0"')
    p.add_argument("--seed", type=int, default=0, help="seed for randn/rand (default 0)")
    p.add_argument("--no-double-backward", action="store_true", help="skip the second-derivative check")
    p.add_argument("--skip", action="append", default=[], metavar="CHECK",
                   help=f"report a check as skipped (repeatable); one of: {', '.join(CHECKS)}")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        fn_cls = _load(args.target)
        import dyngrad

        dyngrad.manual_seed(args.seed)
        inputs = parse_inputs(args.inputs)
        bad = set(args.skip) - set(CHECKS)
        if bad:
            raise ValueError(f"unknown --skip {sorted(bad)}; known: {', '.join(CHECKS)}")
    except ValueError as e:
        print(f"dyngrad check: error: {e}", file=sys.stderr)
        return 2
    report = check_function(fn_cls, *inputs, double_backward=not args.no_double_backward, skip=args.skip)
    print(report)
    return 0 if report.ok else 1
