"""The ``dyngrad`` command line: ``dyngrad demo``, ``dyngrad check`` (being built)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    print("dyngrad: commands are being built", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
