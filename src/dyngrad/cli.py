"""The ``dyngrad`` command line: ``dyngrad demo ...`` (the main job) and ``dyngrad check ...``.

Installed as the console script ``dyngrad`` and runnable as ``python -m dyngrad``.
"""

from __future__ import annotations

import sys

USAGE = """usage: dyngrad <command> [options]

commands:
  demo    train an MLP on scikit-learn's digits with the built-in ReLU and with the
          custom autograd Functions from the PyTorch tutorials this project
          reproduces (MyReLU, Swish with a beta parameter, and a ReLU whose backward
          passes 0.1 of the gradient for negative inputs); write plots, graph, report
          and weights (dyngrad demo --help)
  check   check custom autograd Functions in a Python file (dyngrad check --help)
"""


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a sub-command; returns the exit status (2 for usage errors)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd in ("-V", "--version"):
        from . import __version__

        print(f"dyngrad {__version__}")
        return 0
    try:
        if cmd == "demo":
            from .demo import main as demo_main

            return demo_main(rest)
        if cmd == "check":
            from .autograd.checker import main as check_main

            return check_main(rest)
    except SystemExit as e:  # argparse's --help / usage errors
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    print(f"dyngrad: unknown command {cmd!r}\n\n{USAGE}", end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
